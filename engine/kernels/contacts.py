"""Contacts: detection against the pool and between bodies, and a sequential-impulse solver.

Serial numba kernels, so that a step replays bitwise. Geometry (all world frame, m):
- Pool: a body's contact POINTS (its model's hull vertices, engine/bodies.py; a sphere model is
  one point of radius r at its centre) against the bed height field (bilinear between cell
  centres, normal from its gradient; a ledge one cell wide is seen as a steep ramp), the four
  walls x = 0, x = size_x, z = 0, z = size_z from the bed up to their top (ground.rim), and the
  deck round the pool, the plane y = rim outside the walls out to its outer edge `ground.deck`
  beyond them: a throw clears the walls and lands on the deck. A point outside the walls and
  below the rim is inside the deck's solid: it is held by the nearer of the wall's face and the
  deck's top. Past the deck's outer edge the deck is a box standing down without end (its top
  edge, its side): a body rolled or thrown off the edge tips over it and falls (FallOff removes
  it below the world). Against a plane a convex hull's vertices are its exact supports.
- Bodies: broad phase by sort and sweep along x of bounding spheres grown by each body's motion
  this step; narrow phase (engine/kernels/narrow.py) the contact manifold of every convex
  PRIMITIVE of one body against every primitive of the other: box-box by the separating-axis
  test with face clipping, capsule-box, capsule-capsule (spheres are capsules of zero length).
  Shards and props collide as their oriented bounding box, spheres as spheres; a bottle (concave)
  as its convex decomposition, two capsules (body and neck), plus its hull vertices against the
  other's primitives (its flat base, which the capsules round off).
Every candidate within a speculative margin d < (|v| + |w| r) dt + slop becomes a contact with
separation d (negative: penetration) and normal n pointing from b to a (b = -1: static), and a
key (bodies, feature) that persists while the same features touch: the solver starts from the
impulses of the same key in the last substep (warm starting; the memory lives in the BodyStore).

Solver (Catto's sequential impulses with accumulated clamping), per contact, relative velocity
v_rel = (v_a + w_a x r_a) - (v_b + w_b x r_b), v_n = v_rel . n:
    j_n = -(v_n - v_target) / (1/m_a + 1/m_b + (r_a x n) I_a^-1 (r_a x n) + (r_b x n) I_b^-1 (r_b x n))
(the 3D form of the seed's eq. 11), accumulated j_n >= 0, Coulomb friction |j_t| <= mu j_n.
Targets (a = the step's relative normal acceleration, gravity and forces): a gap d > 0 that the
step closes at tau (d + v_pre tau + a tau^2 / 2 = 0) faster than `bounce_speed`: bounce,
-e v_i + a (dt - tau) with v_i the impact speed; slower: land exactly on the surface; a gap the
step cannot close: v_target = -d / dt (speculative: approach but never cross, which is what stops
tunnelling); touching and approaching fast: -e v_pre + a dt; resting: 0. Penetration deeper than
`slop` is removed by split impulses (pseudo-velocities that move the bodies and are forgotten):
no push ever adds energy.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engine.kernels import narrow, rigid

CAPSULE, BOX = 0, 1


@njit(cache=True)
def bed_height(bed, dx, x, z):
    """Bed height at (x, z) bilinear between cell centres, and its slopes (d/dx, d/dz)."""
    nz, nx = bed.shape
    fx = min(max(x / dx - 0.5, 0.0), nx - 1.0)
    fz = min(max(z / dx - 0.5, 0.0), nz - 1.0)
    i0 = min(int(fx), nx - 1); k0 = min(int(fz), nz - 1)
    i1 = min(i0 + 1, nx - 1); k1 = min(k0 + 1, nz - 1)
    tx = fx - i0; tz = fz - k0
    b00 = bed[k0, i0]; b01 = bed[k0, i1]; b10 = bed[k1, i0]; b11 = bed[k1, i1]
    h = (1 - tz) * ((1 - tx) * b00 + tx * b01) + tz * ((1 - tx) * b10 + tx * b11)
    gx = ((1 - tz) * (b01 - b00) + tz * (b11 - b10)) / dx
    gz = ((1 - tx) * (b10 - b00) + tx * (b11 - b01)) / dx
    return h, gx, gz


@njit(cache=True)
def bed_top_under(bed, dx, x, z, rad):
    """The highest cell centre of every bilinear patch that a disc of radius rad around (x, z)
    reaches (for rad = 0 the four that bed_height interpolates): no point of the bed within rad of
    (x, z) horizontally is higher."""
    nz, nx = bed.shape
    f0 = min(max((x - rad) / dx - 0.5, 0.0), nx - 1.0)
    f1 = min(max((x + rad) / dx - 0.5, 0.0), nx - 1.0)
    g0 = min(max((z - rad) / dx - 0.5, 0.0), nz - 1.0)
    g1 = min(max((z + rad) / dx - 0.5, 0.0), nz - 1.0)
    i0 = min(int(f0), nx - 1); i1 = min(int(f1) + 1, nx - 1)
    k0 = min(int(g0), nz - 1); k1 = min(int(g1) + 1, nz - 1)
    top = bed[k0, i0]
    for k in range(k0, k1 + 1):
        for i in range(i0, i1 + 1):
            top = max(top, bed[k, i])
    return top


@njit(cache=True)
def margins(n, bodies, motion, dt, slop):
    """Speculative margin per body (motion.margin): how far any of its points can move this step,
    plus slop, m."""
    alive, vel, angvel, radius, out = bodies.alive, bodies.vel, bodies.angvel, bodies.radius, motion.margin
    for i in range(n):
        if alive[i]:
            v = np.sqrt(vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2)
            w = np.sqrt(angvel[i, 0] ** 2 + angvel[i, 1] ** 2 + angvel[i, 2] ** 2)
            out[i] = (v + w * radius[i]) * dt + slop
        else:
            out[i] = 0.0


SOFT_FLOOR = 7     # the feature kind of a floor contact over loose sand (engine/ground.py)
RIDGE = 0.005      # m: a bed cell centre this far above the mean of its two neighbours (along x or z) is
                   # a fold of the bilinear bed (a ledge's, pillar's or box's top edge): _bed_ridges
RIDGE_KEY = 32768  # contact keys of those folds: from RIDGE_KEY + RIDGE_KEYS x the cell's index, mod 2^15
RIDGE_KEYS = 16    # a fold's keys: its point, its two lines' chord ends, two per capsule (up to 5)
CRATER_ENTRY = 1.0    # m/s: a point meeting sand faster digs a crater (_crater); a slower landing
                      # (a drop of under 5 cm) just stops on the surface, without a rebound
CRATER_SPEED = 0.02   # m/s: a point in the sand (deeper than the penetration slop) and faster digs
                      # on (a point that landed slowly is never that deep); the last 0.02^(2/3) of
                      # the crater law's depth k v^(2/3) is left out: 3% of it for a 1 m drop


@njit(cache=True)
def contact_key(a, b, k, kind):
    """A contact's identity across steps: bodies a, b (-1 static), local point index k, and the
    feature kind (0 floor, 1-4 walls, 5-6 the pair's two directions, SOFT_FLOOR the floor over
    sand). Fits in 59 bits."""
    return ((a * 1048576 + (b + 1)) * 65536 + k) * 8 + kind


@njit(cache=True)
def _push(count, a, b, p, nx, ny, nz, d, key, centre, con):
    """Write contact `count` of con (if it fits; pivot: `centre`) and return count + 1."""
    if count < con.body_a.shape[0]:
        con.key[count] = key
        con.body_a[count] = a; con.body_b[count] = b
        con.point[count, 0] = p[0]; con.point[count, 1] = p[1]; con.point[count, 2] = p[2]
        con.pivot[count, 0] = centre[0]; con.pivot[count, 1] = centre[1]; con.pivot[count, 2] = centre[2]
        con.normal[count, 0] = nx; con.normal[count, 1] = ny; con.normal[count, 2] = nz
        con.separation[count] = d
    return count + 1


@njit(cache=True, inline="always")
def _outside(x, z, size_x, size_z):
    """How far (x, z) lies outside the walls: its largest distance past any of them (<= 0 inside)."""
    return max(max(-x, x - size_x), max(-z, z - size_z))


@njit(cache=True)
def _deck_point(count, i, k, feat, p, q, rad, m, size_x, size_z, rim, deck, side, con):
    """_static_point's floor outside the walls and inside the deck's outer edge: the deck's top,
    the plane y = rim. A point below it (in the solid) nearer a wall's face is held by that face
    (its feature) when the body's centre is inside the walls (side 1); nearer the deck's outer
    side, by that side when the body's centre is past the deck's edge (side -1, falling off it);
    by the deck's top otherwise, so that one tipping over the rim or caught in the solid comes out
    on top, never stuck between two faces' pushes."""
    out = _outside(p[0], p[2], size_x, size_z)
    below = rim - p[1]
    if side == 1 and below > 0.0 and out < below:
        return count
    edge = deck - out                    # in from the deck's outer edge (>= 0 here)
    if side == -1 and below > 0.0 and edge < below:
        # the outer side face, x = -deck, x = size_x + deck, z = -deck or z = size_z + deck: the
        # one `out` measures to, its normal outwards
        n0 = 0.0; n2 = 0.0
        if out == -p[0]:
            n0 = -1.0
        elif out == p[0] - size_x:
            n0 = 1.0
        elif out == -p[2]:
            n2 = -1.0
        else:
            n2 = 1.0
        d = -edge - rad
        if d < m:
            q[0] = p[0] - rad * n0; q[1] = p[1]; q[2] = p[2] - rad * n2
            count = _push(count, i, -1, q, n0, 0.0, n2, d, contact_key(i, -1, k, feat), p, con)
        return count
    d = p[1] - rim - rad
    if d < m:
        q[0] = p[0]; q[1] = p[1] - rad; q[2] = p[2]
        count = _push(count, i, -1, q, 0.0, 1.0, 0.0, d, contact_key(i, -1, k, feat), p, con)
    return count


@njit(cache=True)
def _beyond_point(count, i, k, feat, p, q, rad, m, size_x, size_z, rim, deck, con):
    """_static_point's floor past the deck's outer edge: the deck as a box without bottom, x in
    [-deck, size_x + deck], z in [-deck, size_z + deck], y <= rim. The nearest point of it, c =
    (clamp x, min(y, rim), clamp z), gives the separation |p - c| - rad and the normal (p - c) /
    |p - c|: its top edge above the rim (a ball or a vertex tipping over it), its side below."""
    cx = min(max(p[0], -deck), size_x + deck)
    cz = min(max(p[2], -deck), size_z + deck)
    o0 = p[0] - cx; o1 = max(p[1] - rim, 0.0); o2 = p[2] - cz
    le = np.sqrt(o0 * o0 + o1 * o1 + o2 * o2)
    d = le - rad
    if d < m and le > 0.0:
        n0 = o0 / le; n1 = o1 / le; n2 = o2 / le
        q[0] = p[0] - rad * n0; q[1] = p[1] - rad * n1; q[2] = p[2] - rad * n2
        count = _push(count, i, -1, q, n0, n1, n2, d, contact_key(i, -1, k, feat), p, con)
    return count


@njit(cache=True)
def _edge_point(count, i, k, feat, p, q, rad, m, size_x, size_z, rim, con):
    """_static_point's wall above its top: a ball (rad > 0) on the pool side meets the wall's edge,
    the line y = rim along it: separation the distance from the line less rad, normal from the
    line to the ball's centre."""
    e0 = p[0] if feat == 1 else (size_x - p[0] if feat == 2 else 0.0)
    e2 = p[2] if feat == 3 else (size_z - p[2] if feat == 4 else 0.0)
    side = e0 if feat <= 2 else e2
    if side < 0.0:
        return count
    e1 = p[1] - rim
    le = np.sqrt(side * side + e1 * e1)
    d = le - rad
    if d < m and le > 0.0:
        n0 = (e0 if feat == 1 else -e0) / le if feat <= 2 else 0.0
        n2 = (e2 if feat == 3 else -e2) / le if feat >= 3 else 0.0
        n1 = e1 / le
        q[0] = p[0] - rad * n0; q[1] = p[1] - rad * n1; q[2] = p[2] - rad * n2
        count = _push(count, i, -1, q, n0, n1, n2, d, contact_key(i, -1, k, feat), p, con)
    return count


@njit(cache=True, inline="always")
def _static_point(count, i, k, feat, p, q, rad, m, bed, dx, soft, size_x, size_z, rim, deck, side, con):
    """Append to con the contact of body i's point k (world p, a ball of radius rad: 0 for a
    vertex) with `feat` (0 the floor: the bed inside the walls, the deck outside them, _deck_point,
    and past the deck's edge, _beyond_point; 1-4 the walls x = 0, x = size_x, z = 0, z = size_z,
    up to the rim, and above it a ball against the wall's edge, _edge_point) if it is within the
    margin m; return the new count. Its Contacts.pivot is p: a ball's centre, or the vertex itself.
    q: scratch (3,). side: where the body's centre is, 1 inside the walls, 0 over the deck, -1
    past the deck's outer edge."""
    nz, nx = bed.shape
    out = _outside(p[0], p[2], size_x, size_z)
    if feat == 0:
        if out > deck:
            return _beyond_point(count, i, k, feat, p, q, rad, m, size_x, size_z, rim, deck, con)
        if out > 0.0:
            return _deck_point(count, i, k, feat, p, q, rad, m, size_x, size_z, rim, deck, side, con)
        key = contact_key(i, -1, k, feat)
        h, gx, gz = bed_height(bed, dx, p[0], p[2])
        inv = 1.0 / np.sqrt(1.0 + gx * gx + gz * gz)
        d = (p[1] - h) * inv - rad
        # over a steep ramp (a ledge's face) the tangent plane's distance underestimates the gap to
        # a point above the ramp's top. Every bed point within rad + m of the point horizontally is
        # no higher than `top` (every patch that disc reaches), so its distance from the ball is at
        # least p_y - rad - top; bed points farther out are beyond the margin m. So the gap is at
        # least that, and such a point can only come down onto the bed (normal up); else the plane
        # would stand as a wall above the ledge. (The patch under the point alone is no bound: on a
        # slope a ball touches uphill of its centre, over a higher patch.) On a plane slope this
        # never overrides d: it would need g (1 - cos) > m tan.
        above = p[1] - bed_top_under(bed, dx, p[0], p[2], rad + m) - rad
        if above > d:
            d = above; gx = 0.0; gz = 0.0; inv = 1.0
        if d < m:
            q[0] = p[0] + rad * gx * inv; q[1] = p[1] - rad * inv; q[2] = p[2] + rad * gz * inv
            cx = min(max(int(np.floor(q[0] / dx)), 0), nx - 1)
            cz = min(max(int(np.floor(q[2] / dx)), 0), nz - 1)
            if soft[cz, cx]:
                key = contact_key(i, -1, k, SOFT_FLOOR)
            count = _push(count, i, -1, q, -gx * inv, inv, -gz * inv, d, key, p, con)
        return count
    if out > deck:                       # past the deck's edge: the deck is nearer than any wall
        return count
    if p[1] >= rim:
        return _edge_point(count, i, k, feat, p, q, rad, m, size_x, size_z, rim, con) if rad > 0.0 else count
    # a wall's face ends at the rim; past the faces, a point nearer the deck's top is the deck's
    if out > 0.0 and out >= rim - p[1]:
        return count
    q[0] = p[0]; q[1] = p[1]; q[2] = p[2]
    if feat == 1:
        d = p[0] - rad; q[0] -= rad; n0 = 1.0; n2 = 0.0
    elif feat == 2:
        d = size_x - p[0] - rad; q[0] += rad; n0 = -1.0; n2 = 0.0
    elif feat == 3:
        d = p[2] - rad; q[2] -= rad; n0 = 0.0; n2 = 1.0
    else:
        d = size_z - p[2] - rad; q[2] += rad; n0 = 0.0; n2 = -1.0
    if d < m:
        count = _push(count, i, -1, q, n0, 0.0, n2, d, contact_key(i, -1, k, feat), p, con)
    return count


@njit(cache=True, inline="always")
def _circle_frame(pos, R, circle, feat, bed, dx, cw, aw, e0):
    """A rim circle (body frame: centre, axis, radius) in the world: its centre cw and unit axis aw,
    and e0, the unit direction in its plane towards the feature (the floor's normal under its
    centre, or a wall's): the deepest point of the circle is cw + r e0. Face-on to the feature
    (|n - (n . a) a| < 1e-3: the rim lies flat on it) e0 is the body's own direction in the rim's
    plane, so that the four points of `detect_static` stay put on the rim."""
    for c in range(3):
        cw[c] = pos[c] + R[c, 0] * circle[0] + R[c, 1] * circle[1] + R[c, 2] * circle[2]
        aw[c] = R[c, 0] * circle[3] + R[c, 1] * circle[4] + R[c, 2] * circle[5]
    la = np.sqrt(aw[0] * aw[0] + aw[1] * aw[1] + aw[2] * aw[2])
    aw[0] /= la; aw[1] /= la; aw[2] /= la
    # n: the feature's normal, pointing away from it (into the pool)
    if feat == 0:
        _, gx, gz = bed_height(bed, dx, cw[0], cw[2])
        inv = 1.0 / np.sqrt(1.0 + gx * gx + gz * gz)
        n0 = -gx * inv; n1 = inv; n2 = -gz * inv
    else:
        n0 = 1.0 if feat == 1 else (-1.0 if feat == 2 else 0.0)
        n1 = 0.0
        n2 = 1.0 if feat == 3 else (-1.0 if feat == 4 else 0.0)
    na = n0 * aw[0] + n1 * aw[1] + n2 * aw[2]
    e0[0] = -(n0 - na * aw[0]); e0[1] = -(n1 - na * aw[1]); e0[2] = -(n2 - na * aw[2])
    le = np.sqrt(e0[0] * e0[0] + e0[1] * e0[1] + e0[2] * e0[2])
    if le < 1e-3:
        # any body direction across the axis: body x unless the axis is near it, else body z
        bx, bz = (1.0, 0.0) if abs(circle[3]) < 0.9 * la else (0.0, 1.0)
        for c in range(3):
            e0[c] = R[c, 0] * bx + R[c, 2] * bz
        ea = e0[0] * aw[0] + e0[1] * aw[1] + e0[2] * aw[2]
        e0[0] -= ea * aw[0]; e0[1] -= ea * aw[1]; e0[2] -= ea * aw[2]
        le = np.sqrt(e0[0] * e0[0] + e0[1] * e0[1] + e0[2] * e0[2])
    e0[0] /= le; e0[1] /= le; e0[2] /= le


@njit(cache=True)
def detect_static(n, bodies, motion, shapes, ground, con, count):
    """Append to con (from index count) the contacts of every awake body's points with the bed and
    the walls; return the new count (may exceed the capacity: grow and call again).

    A model's points are balls of radius pt_rad[model] (0: vertices): the separation is the
    point's distance to the surface less that radius, and the contact sits on the ball's surface.
    For a convex polyhedron its hull vertices are exact supports against a plane."""
    active, pos, radius, model_id = motion.awake, bodies.pos, bodies.radius, bodies.model_id
    rot, margin = motion.rot, motion.margin
    pt_start, pts, pt_rad = shapes.point_start, shapes.points, shapes.point_radius
    c_start, circles = shapes.circle_start, shapes.circles
    prim_start = shapes.prim_start
    bed, bed_max, dx, size_x, size_z, soft = ground.bed, ground.bed_max, ground.dx, ground.size_x, ground.size_z, \
        ground.soft
    rim, deck = ground.rim, ground.deck
    p = np.empty(3); q = np.empty(3)
    cw = np.empty(3); aw = np.empty(3); e0 = np.empty(3); e1 = np.empty(3)
    # a point can only touch the floor if (y - bed_max) cos_min - rad < margin: the bed is below
    # bed_max everywhere and the distance to it along its normal is (y - h) cos, with cos >= cos_min
    # = 1 / sqrt(1 + gx^2 + gz^2) at the steepest bilinear slopes (neighbour differences / dx)
    nz, nx = bed.shape
    gx_max = 0.0
    gz_max = 0.0
    for k in range(nz):
        for j in range(nx):
            if j + 1 < nx:
                gx_max = max(gx_max, abs(bed[k, j + 1] - bed[k, j]))
            if k + 1 < nz:
                gz_max = max(gz_max, abs(bed[k + 1, j] - bed[k, j]))
    cos_min = 1.0 / np.sqrt(1.0 + (gx_max / dx) ** 2 + (gz_max / dx) ** 2)
    for i in range(n):
        if not active[i]:
            continue
        r, m = radius[i], margin[i]
        centre_out = _outside(pos[i, 0], pos[i, 2], size_x, size_z)
        if centre_out - deck >= r + m:
            continue                     # wholly past the deck's edge, falling clear of it
        # the highest floor under the body: the deck where it reaches out over the walls
        reach_out = (pos[i, 0] - r < m or pos[i, 0] + r > size_x - m or pos[i, 2] - r < m
                     or pos[i, 2] + r > size_z - m)
        top = max(bed_max, rim) if reach_out else bed_max
        floor = pos[i, 1] - r < top + m
        side = 1 if centre_out <= 0.0 else (0 if centre_out <= deck else -1)
        # a wall's face stands below its top (a body thrown in from outside the pool comes over
        # it) and deck metres from the deck's edge (out of reach of a body past it)
        low = pos[i, 1] - r < rim and side >= 0
        wx0 = low and pos[i, 0] - r < m
        wx1 = low and pos[i, 0] + r > size_x - m
        wz0 = low and pos[i, 2] - r < m
        wz1 = low and pos[i, 2] + r > size_z - m
        if not (floor or wx0 or wx1 or wz0 or wz1):
            continue
        R = rot[i]
        mid = model_id[i]
        rad = pt_rad[mid]
        k0 = pt_start[mid]
        # one feature at a time (floor, then each near wall), so that each is its own run of
        # contacts for reduce_runs: a fast body's contacts with a second wall are never thinned
        # away in favour of the first's
        for feat in range(5):
            if not (floor if feat == 0 else (wx0 if feat == 1 else (wx1 if feat == 2 else (wz0 if feat == 3 else wz1)))):
                continue
            # the one coordinate a feature's distance depends on first: points that cannot reach it
            # are passed over before the rest of the transform (the same sums, bitwise)
            axis = 1 if feat == 0 else (0 if feat <= 2 else 2)
            for k in range(k0, pt_start[mid + 1]):
                y = pos[i, axis] + R[axis, 0] * pts[k, 0] + R[axis, 1] * pts[k, 1] + R[axis, 2] * pts[k, 2]
                if feat == 0:
                    if (y - bed_max) * cos_min - rad >= m + 1e-9:
                        # out of the bed's reach; the deck's, only outside the walls
                        if not reach_out or y - rad - rim >= m:
                            continue
                        x_ = pos[i, 0] + R[0, 0] * pts[k, 0] + R[0, 1] * pts[k, 1] + R[0, 2] * pts[k, 2]
                        z_ = pos[i, 2] + R[2, 0] * pts[k, 0] + R[2, 1] * pts[k, 1] + R[2, 2] * pts[k, 2]
                        if _outside(x_, z_, size_x, size_z) <= 0.0:
                            continue
                elif feat == 1:
                    if y - rad >= m:
                        continue
                elif feat == 2:
                    if size_x - y - rad >= m:
                        continue
                elif feat == 3:
                    if y - rad >= m:
                        continue
                elif size_z - y - rad >= m:
                    continue
                for c in range(3):
                    p[c] = pos[i, c] + R[c, 0] * pts[k, 0] + R[c, 1] * pts[k, 1] + R[c, 2] * pts[k, 2]
                count = _static_point(count, i, k - k0, feat, p, q, rad, m, bed, dx, soft, size_x, size_z, rim, deck,
                                      side, con)
            # rims as circles (`meshes.rim_circles`): per circle the point deepest towards the feature
            # and three more a quarter turn apart (a rim lying flat on it stands on their square)
            n_pts = pt_start[mid + 1] - k0
            for j in range(c_start[mid], c_start[mid + 1]):
                _circle_frame(pos[i], R, circles[j], feat, bed, dx, cw, aw, e0)
                e1[0] = aw[1] * e0[2] - aw[2] * e0[1]
                e1[1] = aw[2] * e0[0] - aw[0] * e0[2]
                e1[2] = aw[0] * e0[1] - aw[1] * e0[0]
                rr = circles[j, 6]
                for t in range(4):
                    cs = 1.0 if t == 0 else (-1.0 if t == 2 else 0.0)
                    sn = 1.0 if t == 1 else (-1.0 if t == 3 else 0.0)
                    for c in range(3):
                        p[c] = cw[c] + rr * (cs * e0[c] + sn * e1[c])
                    count = _static_point(count, i, n_pts + 4 * (j - c_start[mid]) + t, feat, p, q, 0.0, m, bed, dx,
                                          soft, size_x, size_z, rim, deck, side, con)
            # the solid's straight edges against the body's capsules and hull (a bottle's side or a
            # box's face lying on the rim's edge, which none of its points reaches; a ball's point
            # meets an edge in _static_point): each wall's top edge with the wall, the deck's
            # outer edges with the floor (as runs of their feature's contacts)
            if rad == 0.0:
                k_edge = n_pts + 4 * (c_start[mid + 1] - c_start[mid])
                if feat > 0:
                    count = _body_edges(count, i, k_edge, feat, feat, pos[i], R, mid, shapes, m, size_x, size_z,
                                        rim, deck, cw, aw, q, con)
                else:
                    n_prims = prim_start[mid + 1] - prim_start[mid]
                    for e in range(5, 9):
                        ax, _, at, lo, hi = _edge_line(e, size_x, size_z, deck)
                        w = pos[i, 2 if ax == 0 else 0]
                        if ((pos[i, ax] - at) ** 2 + (pos[i, 1] - rim) ** 2 < (r + m) ** 2
                                and lo - r - m < w < hi + r + m):
                            count = _body_edges(count, i, k_edge + 2 * n_prims * (e - 4), 0, e, pos[i], R, mid,
                                                shapes, m, size_x, size_z, rim, deck, cw, aw, q, con)
                    if side == 1:
                        count = _bed_ridges(count, i, pos[i], R, mid, shapes, r, m, bed, dx, q, con)
    return count


@njit(cache=True, inline="always")
def _is_fold(bed, kz, ix):
    """Whether cell centre (kz, ix) (not on the grid's border) stands more than RIDGE above the mean
    of its two neighbours along x or along z: the bilinear bed bends over there."""
    h = bed[kz, ix]
    return (h - 0.5 * (bed[kz, ix - 1] + bed[kz, ix + 1]) > RIDGE
            or h - 0.5 * (bed[kz - 1, ix] + bed[kz + 1, ix]) > RIDGE)


@njit(cache=True, inline="always")
def _leaves_bed(bed, dx, x, y, z, n0, n1, n2):
    """Whether the normal n at the bed's point (x, y, z) leaves the bed: a step eps = dx / 4 along
    it ends above the bed by eps / 5 or more. A body's face whose outward normal runs along a fold
    (its side, beside a face lying on the fold) is no support there: the fold goes on past it."""
    eps = 0.25 * dx
    return y + eps * n1 - bed_height(bed, dx, x + eps * n0, z + eps * n2)[0] >= 0.2 * eps


@njit(cache=True)
def _bed_ridges(count, i, pos, R, mid, shapes, r, m, bed, dx, q, con):
    """Append the contacts of body i (model mid) with the bed's folds under it: the cell centres
    standing more than RIDGE above the mean of their two neighbours along x or z (_is_fold), where
    the bilinear bed bends over the top of a ledge's, a pillar's or a box's side, and the straight
    lines between two such neighbours. The body's own points meet the bed's faces; a face of the
    body lying on a fold, which none of its points reaches, meets it here:
    - each fold's centre v as a point against the body's primitives (_point_vs_prims: signed
      distance d, outward normal n_o): contact on the body's surface beside it, q = v - d n_o,
      normal -n_o (from the bed to the body);
    - each fold line as a line against the body's hull (_hull_line, where the model has a box
      primitive): contacts at the ends of its chord, as for the solid's edges; else against each
      capsule (_capsule_line).
    Each only with a normal that leaves the bed (_leaves_bed). Keys from RIDGE_KEY + RIDGE_KEYS x
    the cell's index. q: scratch (3,)."""
    prims = shapes.prims
    q0, q1 = shapes.prim_start[mid], shapes.prim_start[mid + 1]
    box = -1
    for j in range(q0, q1):
        if prims[j, 15] == BOX:
            box = j
            break
    pts, k0, k1 = shapes.points, shapes.point_start[mid], shapes.point_start[mid + 1]
    circles, j0, j1 = shapes.circles, shapes.circle_start[mid], shapes.circle_start[mid + 1]
    nz, nx = bed.shape
    reach = r + m
    ia = max(int(np.floor((pos[0] - reach) / dx - 0.5)), 1)
    ib = min(int(np.ceil((pos[0] + reach) / dx - 0.5)), nx - 2)
    ka = max(int(np.floor((pos[2] - reach) / dx - 0.5)), 1)
    kb = min(int(np.ceil((pos[2] + reach) / dx - 0.5)), nz - 2)
    low = pos[1] - reach
    for kz in range(ka, kb + 1):
        for ix in range(ia, ib + 1):
            h = bed[kz, ix]
            if h < low or not _is_fold(bed, kz, ix):
                continue
            x = (ix + 0.5) * dx; z = (kz + 0.5) * dx
            key = RIDGE_KEY + (RIDGE_KEYS * (kz * nx + ix)) % (65536 - RIDGE_KEY - RIDGE_KEYS)
            v0 = x - pos[0]; v1 = h - pos[1]; v2 = z - pos[2]
            if v0 * v0 + v1 * v1 + v2 * v2 <= reach * reach:
                # into the body's frame, l = R^T (v - pos)
                l0 = R[0, 0] * v0 + R[1, 0] * v1 + R[2, 0] * v2
                l1 = R[0, 1] * v0 + R[1, 1] * v1 + R[2, 1] * v2
                l2 = R[0, 2] * v0 + R[1, 2] * v1 + R[2, 2] * v2
                d, o0, o1, o2 = _point_vs_prims(l0, l1, l2, prims, q0, q1)
                n0 = -(R[0, 0] * o0 + R[0, 1] * o1 + R[0, 2] * o2)
                n1 = -(R[1, 0] * o0 + R[1, 1] * o1 + R[1, 2] * o2)
                n2 = -(R[2, 0] * o0 + R[2, 1] * o1 + R[2, 2] * o2)
                if d < m and _leaves_bed(bed, dx, x, h, z, n0, n1, n2):
                    q[0] = x + d * n0; q[1] = h + d * n1; q[2] = z + d * n2
                    count = _push(count, i, -1, q, n0, n1, n2, d, contact_key(i, -1, key, 0), q, con)
            # the fold lines to the next fold along x and along z
            for step in range(2):
                kw = kz + step; iw = ix + 1 - step
                if kw > kb or iw > ib or not _is_fold(bed, kw, iw):
                    continue
                e0 = (1.0 - step) * dx; e1 = bed[kw, iw] - h; e2 = step * dx
                le = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
                e0 /= le; e1 /= le; e2 /= le
                if box < 0:
                    for j in range(q0, q1):
                        count = _capsule_line(count, i, key + 5 + 2 * (j - q0) + step, pos, R, prims[j], m, x, h, z,
                                              e0, e1, e2, le, bed, dx, q, con)
                    continue
                sep, n0, n1, n2, t0, t1 = _hull_line(pos, R, pts, k0, k1, circles, j0, j1, prims[box], m,
                                                     x, h, z, e0, e1, e2, 0.0, le)
                if sep >= m or t0 > t1:
                    continue
                tm = 0.5 * (t0 + t1)
                if not _leaves_bed(bed, dx, x + tm * e0, h + tm * e1, z + tm * e2, n0, n1, n2):
                    continue
                for end in range(2 if t1 - t0 > 1e-6 else 1):
                    t = t0 if end == 0 else t1
                    q[0] = x + t * e0 + sep * n0; q[1] = h + t * e1 + sep * n1; q[2] = z + t * e2 + sep * n2
                    count = _push(count, i, -1, q, n0, n1, n2, sep, contact_key(i, -1, key + 1 + 2 * step + end, 0),
                                  q, con)
    return count


@njit(cache=True)
def _capsule_line(count, i, k, pos, R, pr, m, c0, c1, c2, e0, e1, e2, le, bed, dx, q, con):
    """Append the contact of a capsule primitive pr (body frame: ends pr[0:3], pr[3:6], radius pr[6])
    of body i with the bed's fold line c + t E, t in [0, le]: at the closest points of the
    capsule's axis and the line (segment to segment), separation their distance less the radius,
    normal from the line to the axis, if it leaves the bed (_leaves_bed). Key k. q: scratch (3,)."""
    a0 = pos[0] + R[0, 0] * pr[0] + R[0, 1] * pr[1] + R[0, 2] * pr[2]
    a1 = pos[1] + R[1, 0] * pr[0] + R[1, 1] * pr[1] + R[1, 2] * pr[2]
    a2 = pos[2] + R[2, 0] * pr[0] + R[2, 1] * pr[1] + R[2, 2] * pr[2]
    d0 = pos[0] + R[0, 0] * pr[3] + R[0, 1] * pr[4] + R[0, 2] * pr[5] - a0
    d1 = pos[1] + R[1, 0] * pr[3] + R[1, 1] * pr[4] + R[1, 2] * pr[5] - a1
    d2 = pos[2] + R[2, 0] * pr[3] + R[2, 1] * pr[4] + R[2, 2] * pr[5] - a2
    # closest points a + s d and c + t (le E), s and t in [0, 1]
    f0 = le * e0; f1 = le * e1; f2 = le * e2
    r0 = a0 - c0; r1 = a1 - c1; r2 = a2 - c2
    s, t = narrow.segment_params(d0 * d0 + d1 * d1 + d2 * d2, d0 * f0 + d1 * f1 + d2 * f2, d0 * r0 + d1 * r1 + d2 * r2,
                                 le * le, f0 * r0 + f1 * r1 + f2 * r2)
    t *= le
    p0 = a0 + s * d0 - (c0 + t * e0); p1 = a1 + s * d1 - (c1 + t * e1); p2 = a2 + s * d2 - (c2 + t * e2)
    dist = np.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
    sep = dist - pr[6]
    if sep >= m or dist <= 1e-12:
        return count
    n0 = p0 / dist; n1 = p1 / dist; n2 = p2 / dist
    x = c0 + t * e0; y = c1 + t * e1; z = c2 + t * e2
    if not _leaves_bed(bed, dx, x, y, z, n0, n1, n2):
        return count
    q[0] = x + sep * n0; q[1] = y + sep * n1; q[2] = z + sep * n2
    return _push(count, i, -1, q, n0, n1, n2, sep, contact_key(i, -1, k, 0), q, con)


@njit(cache=True, inline="always")
def _edge_line(e, size_x, size_z, deck):
    """One of the eight straight edges of the pool's solid (the walls and the deck round them, up
    to y = rim): e 1-4 the walls' top edges at x = 0, x = size_x, z = 0, z = size_z; e 5-8 the
    deck's outer edges at x = -deck, x = size_x + deck, z = -deck, z = size_z + deck. Returns
    (ax, sgn, at, lo, hi): the line {x_ax = at, y = rim} runs along the other horizontal axis from
    lo to hi, and the solid next to it is s < 0, y < rim with s = sgn (x_ax - at): s > 0 is the
    pool beside a wall's top edge, the void past the deck's edge."""
    if e == 1:
        return 0, 1.0, 0.0, 0.0, size_z
    if e == 2:
        return 0, -1.0, size_x, 0.0, size_z
    if e == 3:
        return 2, 1.0, 0.0, 0.0, size_x
    if e == 4:
        return 2, -1.0, size_z, 0.0, size_x
    if e == 5:
        return 0, -1.0, -deck, -deck, size_z + deck
    if e == 6:
        return 0, 1.0, size_x + deck, -deck, size_z + deck
    if e == 7:
        return 2, -1.0, -deck, -deck, size_x + deck
    return 2, 1.0, size_z + deck, -deck, size_x + deck


@njit(cache=True)
def _body_edges(count, i, k, kind, e, pos, R, mid, shapes, m, size_x, size_z, rim, deck, a, b, q, con):
    """Append the contacts of body i (model mid) with edge e of the pool's solid (_edge_line): each
    capsule primitive's (_capsule_edge) and, if it has a box primitive, its hull's (_hull_edge, once,
    with the first box's axes). Keys k + 2 j (+ 1) for its j-th primitive, of feature `kind`."""
    prim_start, prims = shapes.prim_start, shapes.prims
    p0 = prim_start[mid]
    hull = True
    for j in range(p0, prim_start[mid + 1]):
        if prims[j, 15] == CAPSULE:
            count = _capsule_edge(count, i, k + 2 * (j - p0), kind, e, pos, R, prims[j], m, size_x, size_z, rim, deck,
                                  a, b, q, con)
        elif hull:
            hull = False
            count = _hull_edge(count, i, k + 2 * (j - p0), kind, e, pos, R, shapes.points, shapes.point_start[mid],
                               shapes.point_start[mid + 1], shapes.circles, shapes.circle_start[mid],
                               shapes.circle_start[mid + 1], prims[j], m, size_x, size_z, rim, deck, q, con)
    return count


@njit(cache=True)
def _capsule_edge(count, i, k, kind, e, pos, R, pr, m, size_x, size_z, rim, deck, a, b, q, con):
    """Append the contacts of a capsule primitive pr (body frame: ends pr[0:3], pr[3:6], radius pr[6])
    of body i with edge e of the pool's solid (_edge_line): at the point of the capsule's axis
    nearest the line, when that point is on the free side of it and above the rim (elsewhere a face
    of the solid is nearer); an axis along the edge gets a contact at each end. Separation: the
    distance from the line less the radius; normal from the line to the axis. Keys k and k + 1 of
    feature `kind`. a, b, q: scratch (3,)."""
    ax, sgn, at, lo, hi = _edge_line(e, size_x, size_z, deck)
    for c in range(3):
        a[c] = pos[c] + R[c, 0] * pr[0] + R[c, 1] * pr[1] + R[c, 2] * pr[2]
        b[c] = pos[c] + R[c, 0] * pr[3] + R[c, 1] * pr[4] + R[c, 2] * pr[5]
    rad = pr[6]
    # coordinates across the edge: s (horizontal, to its free side), y - rim; along the edge: w
    along = 2 if ax == 0 else 0
    sa = sgn * (a[ax] - at); ya = a[1] - rim
    ds = sgn * (b[ax] - at) - sa; dy = b[1] - a[1]
    den = ds * ds + dy * dy
    along_edge = den <= 1e-12           # the axis parallel to the edge: a contact at each end
    for end in range(2 if along_edge else 1):
        t = float(end) if along_edge else min(max(-(sa * ds + ya * dy) / den, 0.0), 1.0)
        s_ = sa + t * ds
        y_ = ya + t * dy
        w = a[along] + t * (b[along] - a[along])
        if s_ < 0.0 or y_ < 0.0 or w < lo or w > hi:
            continue
        le = np.sqrt(s_ * s_ + y_ * y_)
        d = le - rad
        if d >= m or le <= 0.0:
            continue
        ns = s_ / le; ny = y_ / le
        n0 = sgn * ns if ax == 0 else 0.0
        n2 = sgn * ns if ax == 2 else 0.0
        q[ax] = at + sgn * (s_ - rad * ns)
        q[1] = rim + y_ - rad * ny
        q[along] = w
        count = _push(count, i, -1, q, n0, ny, n2, d, contact_key(i, -1, k + end, kind), q, con)
    return count


@njit(cache=True)
def _hull_line(pos, R, pts, k0, k1, circles, j0, j1, pr, m, c0, c1, c2, e0, e1, e2, t_lo, t_hi):
    """Body i's convex hull (its points pts[k0:k1] and rim circles circles[j0:j1], body frame; its
    box primitive pr) against the line c + t E (E unit, t in [t_lo, t_hi]).

    Seen along the line, it is a point and the hull a convex polygon; the line cuts into the hull as
    deep as the point lies inside that polygon. Each side of the polygon is the shadow of hull
    edges along some direction a, with outward normal v = +-(E x a) / |E x a|: for a box (its axes
    a_0, a_1, a_2) those are all the sides, so the hull's depth below side v, g(v) = max_p (p . v)
    - c . v (its support less the line's, from the hull's own points: exact for a box or a crate,
    and never deeper than the hull for a shard whose box only bounds it), is least along the
    normal n = -v that pushes the body off the line. Returns (separation -min g, n, t0, t1): the
    chord of the line through the box grown by m, clipped to [t_lo, t_hi]; t0 > t1 when the line
    misses it."""
    bc0 = pos[0] + R[0, 0] * pr[0] + R[0, 1] * pr[1] + R[0, 2] * pr[2]
    bc1 = pos[1] + R[1, 0] * pr[0] + R[1, 1] * pr[1] + R[1, 2] * pr[2]
    bc2 = pos[2] + R[2, 0] * pr[0] + R[2, 1] * pr[1] + R[2, 2] * pr[2]
    best = 1e300
    bv0 = 0.0; bv1 = 0.0; bv2 = 0.0
    t0 = t_lo; t1 = t_hi
    for j in range(3):
        o = 3 + 3 * j
        a0 = R[0, 0] * pr[o] + R[0, 1] * pr[o + 1] + R[0, 2] * pr[o + 2]
        a1 = R[1, 0] * pr[o] + R[1, 1] * pr[o + 1] + R[1, 2] * pr[o + 2]
        a2 = R[2, 0] * pr[o] + R[2, 1] * pr[o + 1] + R[2, 2] * pr[o + 2]
        # the chord: |(c + t E - bc) . a_j| <= h_j + m
        off = (c0 - bc0) * a0 + (c1 - bc1) * a1 + (c2 - bc2) * a2
        ae = e0 * a0 + e1 * a1 + e2 * a2
        hj = pr[12 + j] + m
        if abs(ae) < 1e-12:
            if abs(off) > hj:
                t0 = 1.0; t1 = 0.0
        else:
            ta = (-hj - off) / ae; tb = (hj - off) / ae
            t0 = max(t0, min(ta, tb)); t1 = min(t1, max(ta, tb))
        # the side u = E x a_j
        u0 = e1 * a2 - e2 * a1; u1 = e2 * a0 - e0 * a2; u2 = e0 * a1 - e1 * a0
        lu = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        if lu < 1e-9:
            continue                     # a_j along the line: its faces are the ends, not sides
        u0 /= lu; u1 /= lu; u2 /= lu
        # the hull's extent along u: pos . u + p . u_b over its points p (body frame), u_b = R^T u
        b0 = R[0, 0] * u0 + R[1, 0] * u1 + R[2, 0] * u2
        b1 = R[0, 1] * u0 + R[1, 1] * u1 + R[2, 1] * u2
        b2 = R[0, 2] * u0 + R[1, 2] * u1 + R[2, 2] * u2
        hi_u = -1e300; lo_u = 1e300
        for p in range(k0, k1):
            pu = pts[p, 0] * b0 + pts[p, 1] * b1 + pts[p, 2] * b2
            hi_u = max(hi_u, pu); lo_u = min(lo_u, pu)
        for cj in range(j0, j1):
            # a circle (centre w, axis n, radius r) spans w . u +- r |u - (u . n) n| (n normalised)
            cr = circles[cj]
            ln = np.sqrt(cr[3] * cr[3] + cr[4] * cr[4] + cr[5] * cr[5])
            un = (cr[3] * b0 + cr[4] * b1 + cr[5] * b2) / ln
            spread = cr[6] * np.sqrt(max(1.0 - un * un, 0.0))
            wu = cr[0] * b0 + cr[1] * b1 + cr[2] * b2
            hi_u = max(hi_u, wu + spread); lo_u = min(lo_u, wu - spread)
        pu0 = pos[0] * u0 + pos[1] * u1 + pos[2] * u2
        hi_u += pu0; lo_u += pu0
        cu = c0 * u0 + c1 * u1 + c2 * u2
        # g(+u) = hi_u - cu, g(-u) = cu - lo_u
        if hi_u - cu < best:
            best = hi_u - cu; bv0 = u0; bv1 = u1; bv2 = u2
        if cu - lo_u < best:
            best = cu - lo_u; bv0 = -u0; bv1 = -u1; bv2 = -u2
    return -best, -bv0, -bv1, -bv2, t0, t1


@njit(cache=True)
def _hull_edge(count, i, k, kind, e, pos, R, pts, k0, k1, circles, j0, j1, pr, m, size_x, size_z, rim, deck,
               q, con):
    """Append the contacts of body i's convex hull (_hull_line) with edge e of the pool's solid
    (_edge_line): a box's face or edge lying on the rim's edge, which none of its vertices reaches.
    Kept when the normal points out of the solid (n_s >= 0 and n_y >= 0); otherwise the body lies
    mostly in the solid's quadrant, where its vertices meet the faces. Contacts at the two ends of
    the chord (a face lying on the edge rests on both). Keys k, k + 1 of feature `kind`. q:
    scratch (3,)."""
    ax, sgn, at, lo, hi = _edge_line(e, size_x, size_z, deck)
    along = 2 if ax == 0 else 0
    # c: the point of the line beside the body's centre; E along the line
    c0 = at if ax == 0 else pos[0]
    c2 = at if ax == 2 else pos[2]
    sep, n0, n1, n2, t0, t1 = _hull_line(pos, R, pts, k0, k1, circles, j0, j1, pr, m, c0, rim, c2,
                                         1.0 if along == 0 else 0.0, 0.0, 1.0 if along == 2 else 0.0,
                                         lo - pos[along], hi - pos[along])
    if sep >= m or t0 > t1:
        return count
    if sgn * (n0 if ax == 0 else n2) < -1e-9 or n1 < -1e-9:
        return count
    for end in range(2 if t1 - t0 > 1e-6 else 1):
        t = t0 if end == 0 else t1
        # on the body's surface beside the line: the line point moved by the separation along n
        q[0] = c0 + sep * n0; q[1] = rim + sep * n1; q[2] = c2 + sep * n2
        q[along] += t
        count = _push(count, i, -1, q, n0, n1, n2, sep, contact_key(i, -1, k + end, kind), q, con)
    return count


@njit(cache=True)
def broad_phase(n, bodies, motion, pairs):
    """Candidate pairs (pairs.a < pairs.b) whose grown bounding spheres overlap: sort and sweep along x.
    Bodies of the same group >= 0 (fresh fragments of one bottle) do not collide with each other;
    two sleeping bodies are not paired. `active` is set for awake bodies and for sleeping bodies
    paired with an awake one (they take part in this step's contacts).

    Returns the number of pairs (may exceed the buffer size: grow and call again).
    """
    alive, pos, radius, group = bodies.alive, bodies.pos, bodies.radius, bodies.group
    awake, active, margin = motion.awake, motion.active, motion.margin
    pa, pb = pairs.a, pairs.b
    cap = pa.shape[0]
    idx = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        active[i] = awake[i]
        if alive[i]:
            idx[m] = i
            m += 1
    idx = idx[:m]
    lo = np.empty(m)
    for j in range(m):
        i = idx[j]
        lo[j] = pos[i, 0] - radius[i] - margin[i]
    order = np.argsort(lo, kind="mergesort")
    count = 0
    for s in range(m):
        i = idx[order[s]]
        hi = pos[i, 0] + radius[i] + margin[i]
        for t in range(s + 1, m):
            if lo[order[t]] > hi:
                break
            j = idx[order[t]]
            if group[i] >= 0 and group[i] == group[j]:
                continue
            if not awake[i] and not awake[j]:
                continue
            rr = radius[i] + margin[i] + radius[j] + margin[j]
            dx = pos[i, 0] - pos[j, 0]; dy = pos[i, 1] - pos[j, 1]; dz = pos[i, 2] - pos[j, 2]
            if dx * dx + dy * dy + dz * dz < rr * rr:
                if count < cap:
                    pa[count] = min(i, j); pb[count] = max(i, j)
                count += 1
                active[i] = True
                active[j] = True
    return count


@njit(cache=True)
def _point_vs_prims(l0, l1, l2, prims, q0, q1):
    """Signed distance of a local point to the union of primitives q0..q1 and the outward normal
    (local frame) of the nearest one."""
    best = 1e300
    bn0 = 0.0; bn1 = 1.0; bn2 = 0.0
    for q in range(q0, q1):
        pr = prims[q]
        if pr[15] == CAPSULE:
            ax, ay, az = pr[0], pr[1], pr[2]
            ex, ey, ez = pr[3] - ax, pr[4] - ay, pr[5] - az
            ll = ex * ex + ey * ey + ez * ez
            s = 0.0
            if ll > 0.0:
                s = ((l0 - ax) * ex + (l1 - ay) * ey + (l2 - az) * ez) / ll
                s = min(max(s, 0.0), 1.0)
            dx = l0 - ax - s * ex; dy = l1 - ay - s * ey; dz = l2 - az - s * ez
            dist = np.sqrt(dx * dx + dy * dy + dz * dz)
            d = dist - pr[6]
            if d < best:
                best = d
                if dist > 1e-12:
                    bn0, bn1, bn2 = dx / dist, dy / dist, dz / dist
                else:
                    bn0, bn1, bn2 = 0.0, 1.0, 0.0
        else:
            # box: centre pr[0:3], axes rows pr[3:12], half extents pr[12:15]
            qx = l0 - pr[0]; qy = l1 - pr[1]; qz = l2 - pr[2]
            u0 = pr[3] * qx + pr[4] * qy + pr[5] * qz
            u1 = pr[6] * qx + pr[7] * qy + pr[8] * qz
            u2 = pr[9] * qx + pr[10] * qy + pr[11] * qz
            h0, h1, h2 = pr[12], pr[13], pr[14]
            o0 = u0 - min(max(u0, -h0), h0)
            o1 = u1 - min(max(u1, -h1), h1)
            o2 = u2 - min(max(u2, -h2), h2)
            out = np.sqrt(o0 * o0 + o1 * o1 + o2 * o2)
            if out > 0.0:
                d = out
                m0, m1, m2 = o0 / out, o1 / out, o2 / out
            else:
                g0, g1, g2 = h0 - abs(u0), h1 - abs(u1), h2 - abs(u2)
                m0 = 0.0; m1 = 0.0; m2 = 0.0
                if g0 <= g1 and g0 <= g2:
                    d = -g0; m0 = 1.0 if u0 >= 0.0 else -1.0
                elif g1 <= g2:
                    d = -g1; m1 = 1.0 if u1 >= 0.0 else -1.0
                else:
                    d = -g2; m2 = 1.0 if u2 >= 0.0 else -1.0
            if d < best:
                best = d
                bn0 = m0 * pr[3] + m1 * pr[6] + m2 * pr[9]
                bn1 = m0 * pr[4] + m1 * pr[7] + m2 * pr[10]
                bn2 = m0 * pr[5] + m1 * pr[8] + m2 * pr[11]
    return best, bn0, bn1, bn2


@njit(cache=True)
def _points_vs_body(a, b, sign, bodies, motion, shapes, m, pa_, pb_, con, count):
    """Points of body a against the primitives of body b; contacts are stored as (pa_, pb_) with the
    normal pointing from pb_ to pa_ (sign flips it when a is the pair's second body).

    Every point of a lies within radius[a] of its centre and the signed distance to b's shapes is
    1-Lipschitz, so when a's centre is farther than radius[a] + m from them no point can be within
    m: the pair (in this direction) is skipped without looking at its points. Scalars throughout:
    no allocation per pair."""
    pos, radius, model_id, rot = bodies.pos, bodies.radius, bodies.model_id, motion.rot
    pt_start, pts, prim_start, prims = shapes.pair_point_start, shapes.pair_points, shapes.prim_start, shapes.prims
    cap = con.body_a.shape[0]
    Ra, Rb = rot[a], rot[b]
    ma, mb = model_id[a], model_id[b]
    q0, q1 = prim_start[mb], prim_start[mb + 1]
    # a's body frame -> b's body frame: l = M p + t, M = Rb^T Ra, t = Rb^T (x_a - x_b)
    dxa = pos[a, 0] - pos[b, 0]; dya = pos[a, 1] - pos[b, 1]; dza = pos[a, 2] - pos[b, 2]
    t0 = Rb[0, 0] * dxa + Rb[1, 0] * dya + Rb[2, 0] * dza
    t1 = Rb[0, 1] * dxa + Rb[1, 1] * dya + Rb[2, 1] * dza
    t2 = Rb[0, 2] * dxa + Rb[1, 2] * dya + Rb[2, 2] * dza
    dc = _point_vs_prims(t0, t1, t2, prims, q0, q1)[0]
    if dc - radius[a] >= m + 1e-9:
        return count
    M00 = Rb[0, 0] * Ra[0, 0] + Rb[1, 0] * Ra[1, 0] + Rb[2, 0] * Ra[2, 0]
    M01 = Rb[0, 0] * Ra[0, 1] + Rb[1, 0] * Ra[1, 1] + Rb[2, 0] * Ra[2, 1]
    M02 = Rb[0, 0] * Ra[0, 2] + Rb[1, 0] * Ra[1, 2] + Rb[2, 0] * Ra[2, 2]
    M10 = Rb[0, 1] * Ra[0, 0] + Rb[1, 1] * Ra[1, 0] + Rb[2, 1] * Ra[2, 0]
    M11 = Rb[0, 1] * Ra[0, 1] + Rb[1, 1] * Ra[1, 1] + Rb[2, 1] * Ra[2, 1]
    M12 = Rb[0, 1] * Ra[0, 2] + Rb[1, 1] * Ra[1, 2] + Rb[2, 1] * Ra[2, 2]
    M20 = Rb[0, 2] * Ra[0, 0] + Rb[1, 2] * Ra[1, 0] + Rb[2, 2] * Ra[2, 0]
    M21 = Rb[0, 2] * Ra[0, 1] + Rb[1, 2] * Ra[1, 1] + Rb[2, 2] * Ra[2, 1]
    M22 = Rb[0, 2] * Ra[0, 2] + Rb[1, 2] * Ra[1, 2] + Rb[2, 2] * Ra[2, 2]
    reach = (radius[b] + m) ** 2
    # b's centre in a's frame, u = -M^T t: |l| = |p - u| (M is a rotation), so a point farther than
    # radius[b] + m from b's centre is passed over before its transform
    u0 = -(M00 * t0 + M10 * t1 + M20 * t2)
    u1 = -(M01 * t0 + M11 * t1 + M21 * t2)
    u2 = -(M02 * t0 + M12 * t1 + M22 * t2)
    k0 = pt_start[ma]
    for k in range(k0, pt_start[ma + 1]):
        p0 = pts[k, 0]; p1 = pts[k, 1]; p2 = pts[k, 2]
        if (p0 - u0) ** 2 + (p1 - u1) ** 2 + (p2 - u2) ** 2 > reach * (1.0 + 1e-9):
            continue
        l0 = t0 + M00 * p0 + M01 * p1 + M02 * p2
        l1 = t1 + M10 * p0 + M11 * p1 + M12 * p2
        l2 = t2 + M20 * p0 + M21 * p1 + M22 * p2
        if l0 * l0 + l1 * l1 + l2 * l2 > reach:
            continue
        d, n0, n1, n2 = _point_vs_prims(l0, l1, l2, prims, q0, q1)
        if d < m:
            if count < cap:
                for c in range(3):
                    con.point[count, c] = pos[a, c] + Ra[c, 0] * p0 + Ra[c, 1] * p1 + Ra[c, 2] * p2
                con.normal[count, 0] = sign * (Rb[0, 0] * n0 + Rb[0, 1] * n1 + Rb[0, 2] * n2)
                con.normal[count, 1] = sign * (Rb[1, 0] * n0 + Rb[1, 1] * n1 + Rb[1, 2] * n2)
                con.normal[count, 2] = sign * (Rb[2, 0] * n0 + Rb[2, 1] * n1 + Rb[2, 2] * n2)
                con.body_a[count] = pa_; con.body_b[count] = pb_
                con.separation[count] = d
                con.key[count] = contact_key(pa_, pb_, k - k0, 5 if sign > 0 else 6)
            count += 1
    return count


@njit(cache=True)
def _prim_world(pr, i, pos, R, c, ax, h):
    """World form of packed primitive pr of body i; returns its kind. Capsule: c = end a, ax[0] =
    end b, h[0] = radius. Box: c = centre, ax = axes (rows), h = half extents."""
    for r in range(3):
        c[r] = pos[i, r] + R[r, 0] * pr[0] + R[r, 1] * pr[1] + R[r, 2] * pr[2]
    if pr[15] == CAPSULE:
        for r in range(3):
            ax[0, r] = pos[i, r] + R[r, 0] * pr[3] + R[r, 1] * pr[4] + R[r, 2] * pr[5]
        h[0] = pr[6]
        return CAPSULE
    for k in range(3):
        o = 3 + 3 * k
        for r in range(3):
            ax[k, r] = R[r, 0] * pr[o] + R[r, 1] * pr[o + 1] + R[r, 2] * pr[o + 2]
        h[k] = pr[12 + k]
    return BOX


@njit(cache=True)
def detect_pairs(npairs, pairs, bodies, motion, shapes, con, count):
    """Append contacts for each candidate pair: the manifold of every primitive of a against every
    primitive of b (engine/kernels/narrow.py: box-box SAT with face clipping, capsule-box,
    capsule-capsule; spheres are capsules of zero length), and for a model with `with_points`
    (a bottle: its capsules are its convex decomposition, which rounds its flat base) its points
    against the other's primitives. Normals point from b to a. Appends to con from index count;
    returns the new count (may exceed the capacity: grow and call again)."""
    pa, pb, pos, model_id = pairs.a, pairs.b, bodies.pos, bodies.model_id
    rot, margin = motion.rot, motion.margin
    prim_start, prims, with_points = shapes.prim_start, shapes.prims, shapes.pair_with_points
    cap = con.body_a.shape[0]
    cA = np.empty(3); A = np.empty((3, 3)); hA = np.empty(3)
    cB = np.empty(3); B = np.empty((3, 3)); hB = np.empty(3)
    box_a = narrow.Box(cA, A, hA); box_b = narrow.Box(cB, B, hB)
    man = narrow.Manifold(np.empty((narrow.MAX_CONTACTS, 3)), np.empty((narrow.MAX_CONTACTS, 3)),
                          np.empty(narrow.MAX_CONTACTS), np.empty(narrow.MAX_CONTACTS, np.int64),
                          np.empty((22, 3)), np.empty(32, np.int64))
    op, on, od, of = man.point, man.normal, man.separation, man.feature
    for s in range(npairs):
        a, b = pa[s], pb[s]
        m = margin[a] + margin[b]
        ma, mb = model_id[a], model_id[b]
        Ra, Rb = rot[a], rot[b]
        for q in range(prim_start[ma], prim_start[ma + 1]):
            ka = _prim_world(prims[q], a, pos, Ra, cA, A, hA)
            for r in range(prim_start[mb], prim_start[mb + 1]):
                kb = _prim_world(prims[r], b, pos, Rb, cB, B, hB)
                if ka == BOX and kb == BOX:
                    nk = narrow.box_box(box_a, box_b, m, man)
                elif ka == CAPSULE and kb == BOX:
                    nk = narrow.capsule_box(narrow.Capsule(cA, A[0], hA[0]), box_b, m, 1.0, man)
                elif ka == BOX:
                    nk = narrow.capsule_box(narrow.Capsule(cB, B[0], hB[0]), box_a, m, -1.0, man)
                else:
                    nk = narrow.capsule_capsule(narrow.Capsule(cA, A[0], hA[0]), narrow.Capsule(cB, B[0], hB[0]), m,
                                                man)
                pair_id = ((q - prim_start[ma]) * 4 + (r - prim_start[mb])) & 15
                for t in range(nk):
                    if count < cap:
                        con.body_a[count] = a; con.body_b[count] = b
                        for c in range(3):
                            con.point[count, c] = op[t, c]; con.normal[count, c] = on[t, c]
                        con.separation[count] = od[t]
                        con.key[count] = contact_key(a, b, pair_id * 4096 + of[t], 7)
                    count += 1
        if with_points[ma]:
            count = _points_vs_body(a, b, 1.0, bodies, motion, shapes, m, a, b, con, count)
        if with_points[mb]:
            count = _points_vs_body(b, a, -1.0, bodies, motion, shapes, m, a, b, con, count)
    return count


@njit(cache=True)
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


# The solver's row per contact (Contacts.rows): three blocks of BLOCK slots, one per direction d
# (the normal n, then the tangents t1, t2), each holding
DIR = 0          # d (3)
ARM_A = 3        # r_a x d (3), r_a from a's centre of mass to the contact point
ARM_B = 6        # r_b x d (3)
TURN_A = 9       # I_a^-1 (r_a x d) (3): the angular velocity a unit impulse along d gives a
TURN_B = 12      # I_b^-1 (r_b x d) (3)
MASS = 15        # 1 / (1/m_a + 1/m_b + (r_a x d) I_a^-1 (r_a x d) + (r_b x d) I_b^-1 (r_b x d))
BLOCK = 16
NORMAL, TANGENT1, TANGENT2 = 0, BLOCK, 2 * BLOCK
# then, once per contact
TARGET = 48      # normal velocity the solve aims for, m/s
TOI = 49         # time of impact into the step, s (-1: no bounce)
MU = 50          # friction coefficient; after the velocity sweeps, the accumulated split impulse
PUSH_TARGET = 51  # split-impulse target velocity, m/s (0: not penetrating past the slop)
ROW = 52


@njit(cache=True, inline="always")
def _arm(row, o, at, r0, r1, r2, inv_i):
    """One body's part of block o (direction d at o + DIR) of a contact row: the arm r x d at o + at
    and the inverse world inertia applied to it at o + at + (TURN_A - ARM_A); returns the body's
    rotational share of the effective mass, (r x d) . I^-1 (r x d)."""
    x0, x1, x2 = _cross(r0, r1, r2, row[o + DIR], row[o + DIR + 1], row[o + DIR + 2])
    row[o + at] = x0; row[o + at + 1] = x1; row[o + at + 2] = x2
    w0 = inv_i[0, 0] * x0 + inv_i[0, 1] * x1 + inv_i[0, 2] * x2
    w1 = inv_i[1, 0] * x0 + inv_i[1, 1] * x1 + inv_i[1, 2] * x2
    w2 = inv_i[2, 0] * x0 + inv_i[2, 1] * x1 + inv_i[2, 2] * x2
    row[o + at + TURN_A - ARM_A] = w0; row[o + at + TURN_A - ARM_A + 1] = w1
    row[o + at + TURN_A - ARM_A + 2] = w2
    return x0 * w0 + x1 * w1 + x2 * w2


@njit(cache=True, inline="always")
def _lever_arms(row, r0, r1, r2, inv_i, inv_m, at):
    """One body's part of a contact row, for its three directions d = n, t1, t2 (blocks NORMAL,
    TANGENT1, TANGENT2): `_arm`, and the body's share of the effective mass,
    inv_m + (r x d) . I^-1 (r x d), added to block + MASS. at = ARM_A for body a, ARM_B for body b."""
    for k in range(3):
        o = BLOCK * k
        row[o + MASS] += inv_m + _arm(row, o, at, r0, r1, r2, inv_i)


@njit(cache=True, inline="always")
def _arms_through(row, r0, r1, r2, inv_i, inv_m):
    """Redo body a's tangent blocks (TANGENT1, TANGENT2) of a contact with the pool (no body b) for
    a force applied at r (from a's centre of mass) instead of at the contact point: arm, turn and
    the inverted effective mass."""
    for k in range(1, 3):
        o = BLOCK * k
        s = inv_m + _arm(row, o, ARM_A, r0, r1, r2, inv_i)
        row[o + MASS] = 1.0 / s if s > 0.0 else 0.0


@njit(cache=True)
def _crater(row, a, b, v, h, k, vel, angvel):
    """A contact digging into loose sand at normal speed v < 0 (engine/ground.py): its speed s = |v|
    falls as ds/dt = -s / T, T = d / (1.5 s) with the crater depth d = k s^(2/3) (Uehara et al.
    2003). Then s^(-1/3) grows linearly, s(t + h) = (s^(-1/3) + h / (2 k))^(-3) (the target), and
    the point comes to rest exactly d below where it met the sand at s, 90% slower by 2.3 d / s
    (Ambroso et al. 2005: stopped in about 3 d / s); it never rebounds. The crater's drag acts
    along the motion (Katsuragi & Durian 2007), so the tangential speed falls in the same
    proportion: the friction bound is at least |v_t| / |v_n|. The grains press on the body's
    surface along its normal, so on a ball the drag passes through its centre and does not spin
    it: the tangent rows (`_arms_through`, before this call) act at Contacts.pivot, and v_t is the
    pivot's tangential velocity. A ball thrown into sand at a slant digs in along its line of
    flight and stops in its crater instead of rolling on at 5/7 of its speed. A rim circle's
    points and a vertex are their own pivot (docs/ground.md, session 20)."""
    s = -v
    row[TARGET] = -(s ** (-1.0 / 3.0) + h / (2.0 * k)) ** -3.0
    t1 = _row_vel(row, TANGENT1, a, b, vel, angvel)
    t2 = _row_vel(row, TANGENT2, a, b, vel, angvel)
    row[MU] = max(row[MU], np.sqrt(t1 * t1 + t2 * t2) / s)


@njit(cache=True)
def solve(nc, con, bodies, motion, settings, warm, dt):
    """Resolve the contacts con[:nc] by sequential impulses (see the module docstring); writes the
    accumulated normal and friction impulses con.jn, con.jt (N s) and the pre-solve normal
    velocity con.approach (m/s) per contact, motion.toi per body (-1: untouched; else the time
    into the step of its first impulse, s), and the split-impulse pseudo-velocities motion.push_v,
    motion.push_w (zero on entry: begin_substep clears them). Moves bodies.vel, bodies.angvel.

    Bodies are seen through motion: inverse mass motion.inv_mass_eff and world inverse inertia
    motion.inv_iw (zero for a sleeper: immovable); motion.vel0, motion.angvel0 are the
    velocities before this step's kick (gravity, forces), so that the relative normal
    acceleration a = (v_n - v_n,pre) / dt is known. Time of impact of a gap d > 0:
    d + v_n,pre tau + a tau^2 / 2 = 0; impact speed v_i = v_n,pre + a tau; the end-of-step target
    is then -e v_i + a (dt - tau) (bounce at tau, then the same acceleration), which rigid.drift
    integrates exactly for piecewise-constant acceleration: a ball's bounce does not depend on
    where in the step it lands.

    Sweeps (settings): at least `iterations` over all contacts, more (to max_iterations) until no
    normal impulse changes in a sweep by more than `settled` times the largest (a stack
    converges); then up to bounce_iterations sweeps over the contacts that bounce
    (_settle_bounces); push_iterations split-impulse sweeps.

    Rolling resistance on loose sand (engine/ground.py, motion.sand_rr): at each sand contact the
    angular impulse about each tangent axis t that stops the body's w . t, accumulated within
    +-C_rr R_t jn, R_t the contact's distance from the axis along t through the body's centre (the
    torque C_rr N R that holds a round body on a gentle slope of sand and slows one rolling on it).
    Torsional friction in sand (motion.sand_pivot, a ball's): the same about the normal n, within
    +-sand_pivot jn (a ball spinning in its pit about n stops).

    Split impulses: penetration deeper than settings.penetration_slop is removed by a separate
    pseudo-velocity (push_v, push_w; rigid.drift moves the bodies by them, and they are never added
    to vel, angvel), target min(beta (-d - slop) / dt, max_push), accumulated >= 0: pushing bodies
    apart never adds to their real velocities, so resolving an overlap adds no energy.

    Warm start: a contact whose key (bodies, point, feature) is in warm.keys (sorted) starts from
    warm.scale times the impulses it ended the last (sub)step with (warm.impulses: normal, t1,
    t2); resting stacks converge in a few sweeps instead of jittering. A contact with any normal
    impulse last substep (a bounce's is kept negative and not started from: remember) was
    pressed: restitution is for a collision's start, so this substep it does not bounce.

    Per contact the Jacobian rows are precomputed into con.rows (layout: DIR .. PUSH_TARGET
    above). An iteration is then dot products and axpys on the two bodies' velocities held in
    registers (one contiguous row per contact, no aliasing stores between the three directions).
    """
    ca, cb, cp, cn, cd, ck = con.body_a, con.body_b, con.point, con.normal, con.separation, con.key
    jn, jt, vn0, S, piv = con.jn, con.jt, con.approach, con.rows, con.pivot
    pos, vel, angvel, restitution, friction = bodies.pos, bodies.vel, bodies.angvel, bodies.restitution, \
        bodies.friction
    vel0, angvel0, inv_mass, inv_iw = motion.vel0, motion.angvel0, motion.inv_mass_eff, motion.inv_iw
    toi, push_v, push_w = motion.toi, motion.push_v, motion.push_w
    prev_keys, prev_j, warm_scale = warm.keys, warm.impulses, warm.scale
    bounce_speed, beta, slop, max_push = settings.bounce_speed, settings.beta, settings.penetration_slop, \
        settings.max_push
    sand_k, sand_rr, sand_pivot = motion.sand_k, motion.sand_rr, motion.sand_pivot
    jt1 = jt[:, 0]; jt2 = jt[:, 1]
    npk = prev_keys.shape[0]
    # rolling resistance rows, per contact and axis t (the tangents, then the normal; sized 0 where
    # no body is on sand): roll_lim C_rr R_t or the pivot arm (0 off sand), roll_turn I_a^-1 t,
    # roll_mass 1 / (t I_a^-1 t), lam_roll the accumulated angular impulse about t, N m s
    ns = 0
    for c in range(nc):
        if cb[c] < 0 and sand_k[ca[c]] > 0.0:
            ns = nc
            break
    roll_lim = np.zeros((ns, 3))
    roll_turn = np.empty((ns, 3, 3))
    roll_mass = np.zeros((ns, 3))
    lam_roll = np.zeros((ns, 3))
    # each contact's record in the last substep (-1: new). Keys of neighbouring contacts are mostly
    # neighbours in prev_keys too: try the slot after the last match before bisecting
    match = np.full(nc, -1, np.int64)
    hint = 0
    for c in range(nc):
        key = ck[c]
        if hint < npk and prev_keys[hint] == key and (hint == 0 or prev_keys[hint - 1] < key):
            j = hint
        else:
            j = np.searchsorted(prev_keys, key)
        if j < npk and prev_keys[j] == key:
            hint = j + 1
            match[c] = j
    for c in range(nc):
        a, b = ca[c], cb[c]
        row = S[c]
        n0, n1, n2 = cn[c, 0], cn[c, 1], cn[c, 2]
        if abs(n0) < 0.57735:
            u0, u1, u2 = _cross(n0, n1, n2, 1.0, 0.0, 0.0)
        else:
            u0, u1, u2 = _cross(n0, n1, n2, 0.0, 1.0, 0.0)
        un = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        u0 /= un; u1 /= un; u2 /= un
        s0, s1, s2 = _cross(n0, n1, n2, u0, u1, u2)
        row[NORMAL + DIR] = n0; row[NORMAL + DIR + 1] = n1; row[NORMAL + DIR + 2] = n2
        row[TANGENT1 + DIR] = u0; row[TANGENT1 + DIR + 1] = u1; row[TANGENT1 + DIR + 2] = u2
        row[TANGENT2 + DIR] = s0; row[TANGENT2 + DIR + 1] = s1; row[TANGENT2 + DIR + 2] = s2
        for k in range(3):
            o = BLOCK * k
            for j in range(ARM_B, BLOCK):     # body b's slots and the effective mass start empty
                row[o + j] = 0.0
        _lever_arms(row, cp[c, 0] - pos[a, 0], cp[c, 1] - pos[a, 1], cp[c, 2] - pos[a, 2], inv_iw[a], inv_mass[a],
                    ARM_A)
        e = restitution[a]
        row[MU] = friction[a]
        if b >= 0:
            _lever_arms(row, cp[c, 0] - pos[b, 0], cp[c, 1] - pos[b, 1], cp[c, 2] - pos[b, 2], inv_iw[b],
                        inv_mass[b], ARM_B)
            e = max(e, restitution[b])
            row[MU] = np.sqrt(friction[a] * friction[b])
        for k in range(3):
            o = BLOCK * k + MASS
            row[o] = 1.0 / row[o] if row[o] > 0.0 else 0.0   # both immovable: nothing to solve
        vn = _row_vel(row, NORMAL, a, b, vel, angvel)
        vnp = _row_vel(row, NORMAL, a, b, vel0, angvel0)
        acc = (vn - vnp) / dt
        vn0[c] = vn
        d = cd[c]
        row[TOI] = -1.0
        sand = b < 0 and ck[c] & 7 == SOFT_FLOOR and sand_k[a] > 0.0
        if sand:
            e = 0.0                         # sand takes a landing without a rebound
        # pressed in the last substep (an impulse, held or bounced; remember): restitution acts once,
        # as a collision begins. An approach now is the push of a third body through it, or what
        # the last sweeps left unsettled (a light body squeezed by a heavy one), not a new impact:
        # it is stopped, not bounced, so a squeeze never adds energy
        held = match[c] >= 0 and prev_j[match[c], 0] != 0.0
        # touching sand and striking it, or in its crater and still going down
        digging = sand and d <= 0.0 and (vnp < -CRATER_ENTRY or (vnp < -CRATER_SPEED and d < -slop))
        if d > 0.0:
            # first root of d + vnp tau + acc tau^2 / 2 = 0 (stable form 2 d / (-vnp + sqrt(D)))
            tau = -1.0
            disc = vnp * vnp - 2.0 * acc * d
            if disc >= 0.0:
                den = -vnp + np.sqrt(disc)
                if den > 0.0:
                    tau = 2.0 * d / den
            vi = vnp + acc * tau
            if 0.0 <= tau <= dt and vi < -CRATER_ENTRY and sand:
                # a force through the rest of the step, not an impulse (TOI stays -1: rigid.drift
                # moves the body by the mean of its velocities)
                _arms_through(row, piv[c, 0] - pos[a, 0], piv[c, 1] - pos[a, 1], piv[c, 2] - pos[a, 2], inv_iw[a],
                              inv_mass[a])
                _crater(row, a, b, vi, dt - tau, sand_k[a], vel, angvel)
            elif 0.0 <= tau <= dt and vi < -bounce_speed and not held:
                row[TOI] = tau
                row[TARGET] = -e * vi + acc * (dt - tau)
            elif 0.0 <= tau <= dt:
                # a slow landing: rigid.drift moves the body by dt (v_n,pre + v_n) / 2, which for
                # v_n = -2 d / dt - v_n,pre puts it on the surface (|v_n| <= |v_n,pre|: no energy)
                row[TARGET] = -2.0 * d / dt - vnp
            else:
                row[TARGET] = -d / dt          # speculative: may close the gap, never cross it
        elif digging:
            _arms_through(row, piv[c, 0] - pos[a, 0], piv[c, 1] - pos[a, 1], piv[c, 2] - pos[a, 2], inv_iw[a],
                          inv_mass[a])
            _crater(row, a, b, vnp, dt, sand_k[a], vel, angvel)
        elif vnp < -bounce_speed and not held:
            row[TOI] = 0.0                  # already touching and approaching: bounce at the start
            row[TARGET] = -e * vnp + acc * dt
        else:
            row[TARGET] = 0.0
        # the crater is dug first; the push lifts the body out after
        row[PUSH_TARGET] = min(beta * (-d - slop) / dt, max_push) if d < -slop and not digging else 0.0
        jn[c] = 0.0; jt1[c] = 0.0; jt2[c] = 0.0
        # rolling resistance on sand: the angular impulse about each tangent axis t is held within
        # C_rr R_t jn (a torque C_rr N R), R_t the contact's distance from the axis through the
        # body's centre along t (a cylinder rolling about its own axis: its radius); about the
        # normal within sand_pivot jn
        if sand:
            r0 = cp[c, 0] - pos[a, 0]; r1 = cp[c, 1] - pos[a, 1]; r2 = cp[c, 2] - pos[a, 2]
            Ia = inv_iw[a]
            for j in range(3):
                o = TANGENT1 + DIR if j == 0 else (TANGENT2 + DIR if j == 1 else NORMAL + DIR)
                t0 = row[o]; t1 = row[o + 1]; t2 = row[o + 2]
                along = r0 * t0 + r1 * t1 + r2 * t2
                for u in range(3):
                    roll_turn[c, j, u] = Ia[u, 0] * t0 + Ia[u, 1] * t1 + Ia[u, 2] * t2
                kt = t0 * roll_turn[c, j, 0] + t1 * roll_turn[c, j, 1] + t2 * roll_turn[c, j, 2]
                if kt > 0.0:               # a sleeper (inverse inertia 0) is not turned
                    roll_mass[c, j] = 1.0 / kt
                    if j < 2:
                        roll_lim[c, j] = sand_rr[a] * np.sqrt(max(r0 * r0 + r1 * r1 + r2 * r2 - along * along, 0.0))
                    else:
                        roll_lim[c, j] = sand_pivot[a]
    if warm_scale > 0.0:
        # after every target is set from the unperturbed velocities; a bounce's impulse is remembered
        # negative (remember) and not started from
        for c in range(nc):
            j = match[c]
            if j >= 0 and prev_j[j, 0] > 0.0:
                a, b = ca[c], cb[c]
                row = S[c]
                jn[c] = warm_scale * prev_j[j, 0]
                jt1[c] = warm_scale * prev_j[j, 1]
                jt2[c] = warm_scale * prev_j[j, 2]
                _row_push(row, NORMAL, jn[c], a, b, vel, angvel, inv_mass)
                _row_push(row, TANGENT1, jt1[c], a, b, vel, angvel, inv_mass)
                _row_push(row, TANGENT2, jt2[c], a, b, vel, angvel, inv_mass)
    iterations = settings.iterations
    settled = settings.settled
    for sweep in range(max(settings.max_iterations, iterations)):
        change = 0.0
        scale = 0.0
        for c in range(nc):
            a, b = ca[c], cb[c]
            row = S[c]
            ima = inv_mass[a]
            va0 = vel[a, 0]; va1 = vel[a, 1]; va2 = vel[a, 2]
            wa0 = angvel[a, 0]; wa1 = angvel[a, 1]; wa2 = angvel[a, 2]
            pair = b >= 0
            imb = 0.0
            vb0 = vb1 = vb2 = wb0 = wb1 = wb2 = 0.0
            if pair:
                imb = inv_mass[b]
                vb0 = vel[b, 0]; vb1 = vel[b, 1]; vb2 = vel[b, 2]
                wb0 = angvel[b, 0]; wb1 = angvel[b, 1]; wb2 = angvel[b, 2]
            # normal: the same operations, in the same order, as _row_vel / _row_push, written out on
            # locals for the three directions (inline helpers returning the twelve velocities measured
            # 15% slower in the bodies bench)
            vn = (row[NORMAL + DIR] * va0 + row[NORMAL + DIR + 1] * va1 + row[NORMAL + DIR + 2] * va2
                 + row[NORMAL + ARM_A] * wa0 + row[NORMAL + ARM_A + 1] * wa1 + row[NORMAL + ARM_A + 2] * wa2)
            if pair:
                vn -= (row[NORMAL + DIR] * vb0 + row[NORMAL + DIR + 1] * vb1 + row[NORMAL + DIR + 2] * vb2
                      + row[NORMAL + ARM_B] * wb0 + row[NORMAL + ARM_B + 1] * wb1 + row[NORMAL + ARM_B + 2] * wb2)
            new = jn[c] + row[NORMAL + MASS] * (row[TARGET] - vn)
            if new < 0.0:
                new = 0.0
            dj = new - jn[c]
            jn[c] = new
            change = max(change, abs(dj))
            scale = max(scale, new)
            if dj != 0.0:
                m = ima * dj
                va0 += m * row[NORMAL + DIR]; wa0 += dj * row[NORMAL + TURN_A]
                va1 += m * row[NORMAL + DIR + 1]; wa1 += dj * row[NORMAL + TURN_A + 1]
                va2 += m * row[NORMAL + DIR + 2]; wa2 += dj * row[NORMAL + TURN_A + 2]
                if pair:
                    m = imb * dj
                    vb0 -= m * row[NORMAL + DIR]; wb0 -= dj * row[NORMAL + TURN_B]
                    vb1 -= m * row[NORMAL + DIR + 1]; wb1 -= dj * row[NORMAL + TURN_B + 1]
                    vb2 -= m * row[NORMAL + DIR + 2]; wb2 -= dj * row[NORMAL + TURN_B + 2]
            lim = row[MU] * new
            # friction: with no limit (not pushing) and no impulse yet there is none to change (the
            # clamp would return zeros): skipped, bitwise the same velocities
            if lim > 0.0 or jt1[c] != 0.0 or jt2[c] != 0.0:
                v1 = (row[TANGENT1 + DIR] * va0 + row[TANGENT1 + DIR + 1] * va1 + row[TANGENT1 + DIR + 2] * va2
                     + row[TANGENT1 + ARM_A] * wa0 + row[TANGENT1 + ARM_A + 1] * wa1 + row[TANGENT1 + ARM_A + 2] * wa2)
                v2 = (row[TANGENT2 + DIR] * va0 + row[TANGENT2 + DIR + 1] * va1 + row[TANGENT2 + DIR + 2] * va2
                     + row[TANGENT2 + ARM_A] * wa0 + row[TANGENT2 + ARM_A + 1] * wa1 + row[TANGENT2 + ARM_A + 2] * wa2)
                if pair:
                    v1 -= (row[TANGENT1 + DIR] * vb0 + row[TANGENT1 + DIR + 1] * vb1 + row[TANGENT1 + DIR + 2] * vb2
                          + row[TANGENT1 + ARM_B] * wb0 + row[TANGENT1 + ARM_B + 1] * wb1
                          + row[TANGENT1 + ARM_B + 2] * wb2)
                    v2 -= (row[TANGENT2 + DIR] * vb0 + row[TANGENT2 + DIR + 1] * vb1 + row[TANGENT2 + DIR + 2] * vb2
                          + row[TANGENT2 + ARM_B] * wb0 + row[TANGENT2 + ARM_B + 1] * wb1
                          + row[TANGENT2 + ARM_B + 2] * wb2)
                n1 = jt1[c] - row[TANGENT1 + MASS] * v1
                n2 = jt2[c] - row[TANGENT2 + MASS] * v2
                mag2 = n1 * n1 + n2 * n2
                if mag2 > lim * lim:
                    s = lim / np.sqrt(mag2) if mag2 > 0.0 else 0.0
                    n1 *= s; n2 *= s
                d1 = n1 - jt1[c]; d2 = n2 - jt2[c]
                jt1[c] = n1; jt2[c] = n2
                if d1 != 0.0:
                    m = ima * d1
                    va0 += m * row[TANGENT1 + DIR]; wa0 += d1 * row[TANGENT1 + TURN_A]
                    va1 += m * row[TANGENT1 + DIR + 1]; wa1 += d1 * row[TANGENT1 + TURN_A + 1]
                    va2 += m * row[TANGENT1 + DIR + 2]; wa2 += d1 * row[TANGENT1 + TURN_A + 2]
                    if pair:
                        m = imb * d1
                        vb0 -= m * row[TANGENT1 + DIR]; wb0 -= d1 * row[TANGENT1 + TURN_B]
                        vb1 -= m * row[TANGENT1 + DIR + 1]; wb1 -= d1 * row[TANGENT1 + TURN_B + 1]
                        vb2 -= m * row[TANGENT1 + DIR + 2]; wb2 -= d1 * row[TANGENT1 + TURN_B + 2]
                if d2 != 0.0:
                    m = ima * d2
                    va0 += m * row[TANGENT2 + DIR]; wa0 += d2 * row[TANGENT2 + TURN_A]
                    va1 += m * row[TANGENT2 + DIR + 1]; wa1 += d2 * row[TANGENT2 + TURN_A + 1]
                    va2 += m * row[TANGENT2 + DIR + 2]; wa2 += d2 * row[TANGENT2 + TURN_A + 2]
                    if pair:
                        m = imb * d2
                        vb0 -= m * row[TANGENT2 + DIR]; wb0 -= d2 * row[TANGENT2 + TURN_B]
                        vb1 -= m * row[TANGENT2 + DIR + 1]; wb1 -= d2 * row[TANGENT2 + TURN_B + 1]
                        vb2 -= m * row[TANGENT2 + DIR + 2]; wb2 -= d2 * row[TANGENT2 + TURN_B + 2]
            if ns and roll_mass[c, 0] > 0.0:
                # rolling resistance (body a against the static bed): per axis t, the angular impulse
                # that stops w . t, accumulated within +-roll_lim jn (released as jn falls); a limit
                # of 0 (no pivot arm) leaves it at 0
                for j in range(3):
                    o = TANGENT1 + DIR if j == 0 else (TANGENT2 + DIR if j == 1 else NORMAL + DIR)
                    lim_r = roll_lim[c, j] * new
                    lr = lam_roll[c, j] - roll_mass[c, j] * (wa0 * row[o] + wa1 * row[o + 1] + wa2 * row[o + 2])
                    lr = min(max(lr, -lim_r), lim_r)
                    dl = lr - lam_roll[c, j]
                    lam_roll[c, j] = lr
                    wa0 += roll_turn[c, j, 0] * dl; wa1 += roll_turn[c, j, 1] * dl; wa2 += roll_turn[c, j, 2] * dl
            vel[a, 0] = va0; vel[a, 1] = va1; vel[a, 2] = va2
            angvel[a, 0] = wa0; angvel[a, 1] = wa1; angvel[a, 2] = wa2
            if pair:
                vel[b, 0] = vb0; vel[b, 1] = vb1; vel[b, 2] = vb2
                angvel[b, 0] = wb0; angvel[b, 1] = wb1; angvel[b, 2] = wb2
        if sweep + 1 >= iterations and change <= settled * scale:
            break
    _settle_bounces(nc, con, vel, angvel, inv_mass, settings.bounce_iterations)
    # toi per body for rigid.drift: -1 no impulse; tau >= 0 it bounced at tau (impulsive); -2 it was
    # held (resting or speculative contact, a force through the step), which outranks a bounce. A
    # contact that strikes at tau counts whether or not the sweeps routed impulse through it: when
    # a later-striking one took it all, the body must still turn at the first strike, or that
    # point would travel on through the surface until the later one's tau
    for c in range(nc):
        if jn[c] > 0.0 or S[c, TOI] >= 0.0:
            tau = S[c, TOI]
            for i in (ca[c], cb[c]):
                if i >= 0:
                    if tau < 0.0:
                        toi[i] = -2.0
                    elif toi[i] == -1.0:
                        toi[i] = tau
                    elif toi[i] >= 0.0:
                        toi[i] = min(toi[i], tau)
    # split impulses: the pseudo-velocities that remove penetration (never added to vel, angvel)
    # only penetrating contacts (target > 0) take part: listed once, swept in their original order
    pen = np.empty(nc, np.int64)
    npen = 0
    for c in range(nc):
        S[c, MU] = 0.0                     # friction is done with: slot 50 accumulates the push impulse
        if S[c, PUSH_TARGET] > 0.0:
            pen[npen] = c
            npen += 1
    for _ in range(settings.push_iterations):
        for t in range(npen):
            c = pen[t]
            row = S[c]
            a, b = ca[c], cb[c]
            vp = _row_vel(row, NORMAL, a, b, push_v, push_w)
            new = max(row[MU] + row[NORMAL + MASS] * (row[PUSH_TARGET] - vp), 0.0)
            dj = new - row[MU]
            row[MU] = new
            if dj != 0.0:
                _row_push(row, NORMAL, dj, a, b, push_v, push_w, inv_mass)


@njit(cache=True)
def _settle_bounces(nc, con, vel, angvel, inv_mass, most):
    """Sweep on over the contacts that bounce this substep (rows[c, TOI] >= 0, usually a handful)
    until their impulses settle (a sweep changes none by more than 1e-9 of the largest), `most`
    sweeps. Sequential impulses converge slowly where a face lands flat (four corners, three
    degrees of freedom): stopped early they leave the body spinning, and its rebound uneven."""
    ca, cb, S, jn, jt1, jt2 = con.body_a, con.body_b, con.rows, con.jn, con.jt[:, 0], con.jt[:, 1]
    bl = np.empty(nc, np.int64)
    nb = 0
    for c in range(nc):
        if S[c, TOI] >= 0.0 and jn[c] > 0.0:
            bl[nb] = c
            nb += 1
    if nb < 2:
        return
    for _ in range(most):
        change = 0.0
        scale = 0.0
        for t in range(nb):
            c = bl[t]
            a, b = ca[c], cb[c]
            row = S[c]
            vn = _row_vel(row, NORMAL, a, b, vel, angvel)
            new = max(jn[c] + row[NORMAL + MASS] * (row[TARGET] - vn), 0.0)
            dj = new - jn[c]
            jn[c] = new
            _row_push(row, NORMAL, dj, a, b, vel, angvel, inv_mass)
            change = max(change, abs(dj))
            scale = max(scale, new)
            lim = row[MU] * new
            n1 = jt1[c] - row[TANGENT1 + MASS] * _row_vel(row, TANGENT1, a, b, vel, angvel)
            n2 = jt2[c] - row[TANGENT2 + MASS] * _row_vel(row, TANGENT2, a, b, vel, angvel)
            mag2 = n1 * n1 + n2 * n2
            if mag2 > lim * lim:
                f = lim / np.sqrt(mag2) if mag2 > 0.0 else 0.0
                n1 *= f; n2 *= f
            d1 = n1 - jt1[c]; d2 = n2 - jt2[c]
            jt1[c] = n1; jt2[c] = n2
            _row_push(row, TANGENT1, d1, a, b, vel, angvel, inv_mass)
            _row_push(row, TANGENT2, d2, a, b, vel, angvel, inv_mass)
            change = max(change, abs(d1), abs(d2))
        if change <= 1e-9 * scale:
            break


@njit(cache=True, inline="always")
def _row_vel(row, o, a, b, vel, angvel):
    """Relative velocity along the direction of block o of a row: J . (v_a, w_a, v_b, w_b)."""
    v = (row[o + DIR] * vel[a, 0] + row[o + DIR + 1] * vel[a, 1] + row[o + DIR + 2] * vel[a, 2]
         + row[o + ARM_A] * angvel[a, 0] + row[o + ARM_A + 1] * angvel[a, 1] + row[o + ARM_A + 2] * angvel[a, 2])
    if b >= 0:
        v -= (row[o + DIR] * vel[b, 0] + row[o + DIR + 1] * vel[b, 1] + row[o + DIR + 2] * vel[b, 2]
              + row[o + ARM_B] * angvel[b, 0] + row[o + ARM_B + 1] * angvel[b, 1] + row[o + ARM_B + 2] * angvel[b, 2])
    return v


@njit(cache=True, inline="always")
def _row_push(row, o, lam, a, b, vel, angvel, inv_mass):
    """Apply impulse lam along the direction of block o of a row: +to a, -to b."""
    ma = inv_mass[a] * lam
    for i in range(3):
        vel[a, i] += ma * row[o + DIR + i]
        angvel[a, i] += lam * row[o + TURN_A + i]
    if b >= 0:
        mb = inv_mass[b] * lam
        for i in range(3):
            vel[b, i] -= mb * row[o + DIR + i]
            angvel[b, i] -= lam * row[o + TURN_B + i]


@njit(cache=True)
def impacts(nc, con, min_speed, out):
    """Sum the normal impulse of each (a, b) run of contacts that were approaching faster than
    min_speed (collisions, not resting contact) into out (Impacts), with impulse-weighted sums of
    point and normal. Returns the number of runs written."""
    ca, cb, cp, cn, cd, jn, vn0 = con.body_a, con.body_b, con.point, con.normal, con.separation, con.jn, \
        con.approach
    out_a, out_b, out_j, out_p, out_n = out.body_a, out.body_b, out.impulse, out.point, out.normal
    m = 0
    c = 0
    while c < nc:
        a, b = ca[c], cb[c]
        J = 0.0
        p0 = p1 = p2 = 0.0
        q0 = q1 = q2 = 0.0
        e = c
        while e < nc and ca[e] == a and cb[e] == b:
            if vn0[e] < -min_speed and jn[e] > 0.0:
                j = jn[e]
                J += j
                g = max(cd[e], 0.0)          # a point still short of the surface: report where it hits
                p0 += j * (cp[e, 0] - g * cn[e, 0]); p1 += j * (cp[e, 1] - g * cn[e, 1]); p2 += j * (cp[e, 2] - g * cn[e, 2])
                q0 += j * cn[e, 0]; q1 += j * cn[e, 1]; q2 += j * cn[e, 2]
            e += 1
        if J > 0.0:
            out_a[m] = a; out_b[m] = b; out_j[m] = J
            out_p[m, 0] = p0; out_p[m, 1] = p1; out_p[m, 2] = p2   # impulse-weighted sums
            out_n[m, 0] = q0; out_n[m, 1] = q1; out_n[m, 2] = q2
            m += 1
        c = e
    return m


@njit(cache=True)
def reduce_runs(nc, con, margin, settings):
    """Thin each run of contacts (the same a, b and feature kind: the floor, one wall, a pair's
    manifolds, a pair's points) to at most settings.keep_static (b = -1) or settings.keep_pair
    contacts, compacting con in place; returns the new count.

    A body whose speculative margin (margin, m) exceeds settings.fast_margin keeps all its
    contacts with the pool: its points far from the deepest may still reach the wall this step.

    Kept: (nearly) the deepest contact, then greedily, among contacts within settings.keep_band
    (m) of the deepest (or, against the pool, sunk deeper than it), the one farthest (in position, and in normal scaled by 5 cm) from those
    kept, so the support polygon and every touching face survive.
    """
    ca, cb, cp, cn, cd, ck = con.body_a, con.body_b, con.point, con.normal, con.separation, con.key
    keep_static, keep_pair, band, fast = settings.keep_static, settings.keep_pair, settings.keep_band, \
        settings.fast_margin
    out = 0
    c = 0
    chosen = np.empty(64, np.int64)
    dist = np.empty(0)
    while c < nc:
        a, b = ca[c], cb[c]
        e = c
        kind = ck[c] & 7
        while e < nc and ca[e] == a and cb[e] == b and ck[e] & 7 == kind:
            e += 1
        keep = keep_static if b < 0 else keep_pair
        m = e - c
        if b < 0 and margin[a] > fast:
            keep = m          # a fast body against the pool: every speculative contact counts
        if m <= keep:
            for s in range(c, e):
                _move(s, out, con)
                out += 1
        else:
            if dist.shape[0] < m:
                dist = np.empty(2 * m)
            # start from the first (stable order) contact within 1 mm of the deepest, so the chosen
            # set, and with it the warm start, persists from step to step
            dmin = cd[c]
            for s in range(c + 1, e):
                dmin = min(dmin, cd[s])
            first = c
            while cd[first] > dmin + 0.001:
                first += 1
            chosen[0] = first
            # only contacts about as deep as the deepest compete, and with the pool any sunk deeper
            # than the band: spreading over speculative ones beside a resting face would drop the
            # face itself, and every sunk end of a body in a crater carries part of its weight
            top = max(dmin + band, -band) if b < 0 else dmin + band
            for s in range(c, e):
                dist[s - c] = _feature_dist2(s, first, cp, cn) if cd[s] <= top else -1.0
            for k in range(1, keep):
                best = -1.0
                arg = c
                for s in range(c, e):
                    if dist[s - c] > best:
                        best = dist[s - c]
                        arg = s
                if best <= 0.0:
                    keep = k
                    break
                chosen[k] = arg
                for s in range(c, e):
                    dd = _feature_dist2(s, arg, cp, cn)
                    if dd < dist[s - c]:
                        dist[s - c] = dd
            srt = np.sort(chosen[:keep])     # keep the original order: deterministic and cache-friendly
            for k in range(keep):
                _move(srt[k], out, con)
                out += 1
        c = e
    return out


@njit(cache=True)
def _feature_dist2(s, t, cp, cn):
    d = 0.0
    for i in range(3):
        d += (cp[s, i] - cp[t, i]) ** 2 + 0.0025 * (cn[s, i] - cn[t, i]) ** 2
    return d


@njit(cache=True)
def _move(src, dst, con):
    """Copy contact src of con over contact dst (the detected fields)."""
    if src != dst:
        con.body_a[dst] = con.body_a[src]; con.body_b[dst] = con.body_b[src]
        con.separation[dst] = con.separation[src]; con.key[dst] = con.key[src]
        for i in range(3):
            con.point[dst, i] = con.point[src, i]; con.normal[dst, i] = con.normal[src, i]
            con.pivot[dst, i] = con.pivot[src, i]


@njit(cache=True)
def begin_substep(n, bodies, motion, settings, dt):
    """One call for the start of a substep (IntegrateBodies): awake = alive and not asleep,
    rigid.rotations, rigid.kick, rigid.freeze_sleepers, margins, then vel_pre = vel, toi = -1 and
    the split-impulse pseudo-velocities zero (contact detection changes none of them)."""
    alive, timer, vel, angvel = bodies.alive, bodies.sleep, bodies.vel, bodies.angvel
    awake = motion.awake
    for i in range(n):
        awake[i] = alive[i] and timer[i] < settings.sleep_after
    rigid.rotations(n, bodies, motion)
    rigid.kick(n, bodies, motion, settings.gravity, dt)
    rigid.freeze_sleepers(n, bodies, motion)
    margins(n, bodies, motion, dt, settings.slop)
    vel0, angvel0, vel_pre, push_v, push_w = motion.vel0, motion.angvel0, motion.vel_pre, motion.push_v, motion.push_w
    for i in range(n):
        for c in range(3):
            vel_pre[i, c] = vel[i, c]
            push_v[i, c] = 0.0
            push_w[i, c] = 0.0
            if not awake[i]:       # not kicked: its velocity before the step is its velocity now
                vel0[i, c] = vel[i, c]
                angvel0[i, c] = angvel[i, c]
        motion.toi[i] = -1.0
    return 0


@njit(cache=True)
def wake_strikes(n, nc, con, bodies, motion, settings, dt):
    """Wake, before the solve, every sleeping body that an awake one strikes in this substep: a
    pair contact whose gap closes within the substep (d + v_n dt < 0) at a relative normal speed
    over g dt + 2 sleep_speed (what a body resting on it reaches: rigid.wake_struck's bar). Left
    asleep it would be immovable through the strike, so a stone ball would bounce off a resting
    glass shard as off the pool wall. A woken body is kicked (gravity, applied force) like the
    others in begin_substep. Returns the number woken; their own contacts (with the pool, with
    other sleepers) are not in con yet: IntegrateBodies detects again."""
    ca, cb, cp, cn, cd = con.body_a, con.body_b, con.point, con.normal, con.separation
    pos, vel, angvel, timer = bodies.pos, bodies.vel, bodies.angvel, bodies.sleep
    awake = motion.awake
    was_awake = awake[:n].copy()
    speed = settings.gravity * dt + 2.0 * settings.sleep_speed
    woken = 0
    for c in range(nc):
        a, b = ca[c], cb[c]
        if b < 0 or was_awake[a] == was_awake[b]:
            continue
        vn = 0.0
        for i, sign in ((a, 1.0), (b, -1.0)):
            r0 = cp[c, 0] - pos[i, 0]; r1 = cp[c, 1] - pos[i, 1]; r2 = cp[c, 2] - pos[i, 2]
            w0, w1, w2 = _cross(angvel[i, 0], angvel[i, 1], angvel[i, 2], r0, r1, r2)
            vn += sign * ((vel[i, 0] + w0) * cn[c, 0] + (vel[i, 1] + w1) * cn[c, 1] + (vel[i, 2] + w2) * cn[c, 2])
        if vn < -speed and cd[c] + vn * dt < 0.0:
            s = b if was_awake[a] else a
            if not awake[s]:
                awake[s] = True
                timer[s] = 0.0
                woken += 1
    if woken:
        for i in range(n):
            if awake[i] and not was_awake[i]:
                rigid.kick_body(i, bodies, motion, settings.gravity, dt)
                for k in range(3):
                    motion.vel_pre[i, k] = vel[i, k]
        margins(n, bodies, motion, dt, settings.slop)
    return woken


@njit(cache=True)
def remember(nc, con, keys_out, j_out):
    """The substep's impulses by contact key for the next warm start: keys_out[:nc] = the keys
    sorted (stable), j_out[:nc] = (jn, jt1, jt2) in that order. A contact that bounced (rows' TOI
    >= 0 and an impulse) is kept as (-jn, 0, 0): pressed, so it does not bounce again next substep,
    and not warm-started, as a bounce's impulse is spent once (started from next substep, it would
    throw the bodies apart again until the sweeps took it back)."""
    order = np.argsort(con.key[:nc], kind="mergesort")
    for r in range(nc):
        c = order[r]
        keys_out[r] = con.key[c]
        if con.rows[c, TOI] >= 0.0 and con.jn[c] > 0.0:
            j_out[r, 0] = -con.jn[c]
            j_out[r, 1] = 0.0
            j_out[r, 2] = 0.0
        else:
            j_out[r, 0] = con.jn[c]
            j_out[r, 1] = con.jt[c, 0]
            j_out[r, 2] = con.jt[c, 1]
    return nc


@njit(cache=True)
def end_substep(n, nc, con, bodies, motion, settings, ground, dt):
    """One call for the end of a substep (IntegrateBodies): rigid.drift, rigid.keep_above_floor, the
    bodies touching something in this substep's contacts (motion.touching), rigid.update_sleep.
    Returns the number asleep."""
    rigid.drift(n, bodies, motion, dt)
    rigid.keep_above_floor(n, bodies, motion, ground.size_x, ground.size_z)
    touching = motion.touching
    for i in range(n):
        touching[i] = False
    for c in range(nc):
        touching[con.body_a[c]] = True
        if con.body_b[c] >= 0:
            touching[con.body_b[c]] = True
    return rigid.update_sleep(n, bodies, motion, settings.gravity, dt, settings.sleep_speed, settings.sleep_after)
