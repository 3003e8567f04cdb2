"""Water-to-body forces: exact hydrostatic pressure, quadratic drag, skin friction, added mass.

Each body sees the water surface as a plane eta(x, z) = p0 + p1 (x - x_c) + p2 (z - z_c) fitted
around it (coupling.ambient_planes). The depth below that surface, d(x) = eta(x, z) - y, is linear
in x, so clipping every surface triangle to d >= 0 is exact, and so are the integrals over each
submerged piece (area A, outward unit normal n, corners r_j measured from the centre of mass,
depths d_j >= 0 there):

    pressure force   F_P = -rho g n  int d dA          = -rho g n A (d_0 + d_1 + d_2) / 3
    pressure torque  T_P = -rho g (int d r dA) x n,      int d r dA = A/12 (sum d_j r_j + (sum d_j)(sum r_j))

(the second moment of a linear function over a triangle: int f g dA = A/12 (sum f_j g_j +
sum f_j sum g_j)). The torque is taken at each piece's centre of pressure, not its centroid: a
box of 12 triangles gets its full righting moment. Summed over a closed surface the force is
rho g V_sub (-p1, 1, -p2) (divergence theorem) and V_sub = -int d n_y dA.

Dissipative loads on each piece, at its centroid, with u the velocity of the water relative to it
(u_rel = v_body + omega x r - v_water, direction u^, normal part u_n = n . u_rel):

    pressure drag  F_D = -1/2 rho C_D A_eff |u_rel| u_rel,   A_eff = A (omega_a n.u^ + 1 - omega_a) for n.u^ >= 0
    lift           F_L = -1/2 rho C_L A_eff |u_rel| (u_rel x l),   l = (n x u_rel) / |n x u_rel|
    skin friction  F_S = -1/2 rho C_f A |u_t| u_t,           u_t = u_rel - u_n n

With omega_a = 1, A_eff summed over the front of a body is its frontal (projected) area, so C_D is
the body's drag coefficient on that area, a property of its shape (engine/drag.py): 0.47 for a
sphere, a bottle's blended from its axial and cross-flow values. Each model m states C_i = cd[m, i]
for flow along its body axis i, and a body takes, for the direction u^ of the water's velocity
relative to its centre (body frame), C_D = sum_i C_i u^_i^2 for all of its pieces. C_f is a flat plate's turbulent skin
friction coefficient (about 0.004 at Re ~ 1e5).

No water, no water force: every piece's loads are weighted by min(1, h / wet_depth), h the depth
of the water column under its centroid. A body on a dry floor, slope or shore feels nothing.

The loads are then integrated implicitly (implicit_forces), with the added mass
m_a = C_a rho V_sub (C_a = 1/2 for a sphere) and the drag linearised along the body's velocity
relative to the water, so a light body in fast water stays stable at any dt.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from engine.kernels.coupling import SPECK_CELLS, _plane, _rotate, _water_velocity_scaled, gather_forces, sample_centered
from engine.kernels.rigid import quat_to_matrix

# columns of the per-body loads array written by water_loads
F_P, T_P, F_D, T_D, V_SUB, WET, U_W = 0, 3, 6, 9, 12, 13, 14
A_WP, PERIM, DEPTH, S_F, S_T = 16, 17, 18, 19, 20
LOADS = 23
# cells: a body smaller than this in radius takes the water velocity at its centre. The grid resolves
# no flow finer than a few cells; the covered height treats the same bodies as specks (coupling.SPECK_CELLS)
SPECK = SPECK_CELLS

Coefs = namedtuple("Coefs", ("rho", "g", "cd", "cl", "area_factor", "c_skin", "c_added", "wet_depth", "cd_body"))
Coefs.__doc__ = """The water's constants for the loads: density rho (kg/m^3), gravity g (m/s^2), pressure drag C_D
per model (cd, below), lift C_L, the frontal-area weight omega_a (area_factor), skin friction C_f, added-mass C_a, and
wet_depth (m): a piece over a column shallower than this feels that fraction of the force.
cd (M, 3): each model's pressure-drag coefficient for flow along its body axes (engine/drag.py);
cd_body (N,): a body's own C_D for flow from any side (BodyStore.drag), 0: its model's."""
Response = namedtuple("Response", ("force", "torque", "submerged", "push"))
Response.__doc__ = """implicit_forces' output per body: force and torque to apply over the next step (N, N m),
submerged volume (m^3) and the water's reaction push (N) for push_water."""


@njit(cache=True, inline="always")
def pressure_moments(ax, ay, az, da, bx, by, bz, db, cx, cy, cz, dc, area):
    """(int d dA, int d r dA) over a flat triangle with corners a, b, c (arms from the centre of
    mass), depths da, db, dc at them and area A, d linear over the triangle:
    int d dA = A (da + db + dc) / 3, int d r dA = A/12 (sum d_j r_j + (sum d_j)(sum r_j))."""
    sd = da + db + dc
    k = area / 12.0
    return (area * sd / 3.0,
            k * (da * ax + db * bx + dc * cx + sd * (ax + bx + cx)),
            k * (da * ay + db * by + dc * cy + sd * (ay + by + cy)),
            k * (da * az + db * bz + dc * cz + sd * (az + bz + cz)))


@njit(cache=True, inline="always")
def _dissipative(nx_, ny_, nz_, area, vx, vy, vz, ox, oy, oz, rx, ry, rz, uw, ww, rho, cd, cl, area_factor,
                 c_skin):
    """Drag, lift and skin friction on one submerged piece (module docstring) with its centroid at
    arm r from the centre of mass of a body moving at v and spinning at omega; the water there
    flows at (uw, 0, ww). Returns (fx, fy, fz, tx, ty, tz)."""
    urx = vx + (oy * rz - oz * ry) - uw
    ury = vy + (oz * rx - ox * rz)
    urz = vz + (ox * ry - oy * rx) - ww
    speed = np.sqrt(urx * urx + ury * ury + urz * urz)
    qfx = qfy = qfz = 0.0
    if speed > 1e-12:
        ndu = nx_ * urx + ny_ * ury + nz_ * urz
        if ndu >= 0.0:
            # A_eff |u| = A (omega n.u + (1 - omega) |u|)
            a_speed = area * (area_factor * ndu + (1.0 - area_factor) * speed)
            kd = 0.5 * rho * cd * a_speed
            qfx -= kd * urx
            qfy -= kd * ury
            qfz -= kd * urz
            lx = ny_ * urz - nz_ * ury
            ly = nz_ * urx - nx_ * urz
            lz = nx_ * ury - ny_ * urx
            lm = np.sqrt(lx * lx + ly * ly + lz * lz)
            if lm > 1e-12 and cl > 0.0:
                kl = 0.5 * rho * cl * a_speed / lm
                qfx -= kl * (ury * lz - urz * ly)
                qfy -= kl * (urz * lx - urx * lz)
                qfz -= kl * (urx * ly - ury * lx)
        tx_ = urx - ndu * nx_
        ty_ = ury - ndu * ny_
        tz_ = urz - ndu * nz_
        ks = 0.5 * rho * c_skin * area * np.sqrt(tx_ * tx_ + ty_ * ty_ + tz_ * tz_)
        qfx -= ks * tx_
        qfy -= ks * ty_
        qfz -= ks * tz_
    return qfx, qfy, qfz, ry * qfz - rz * qfy, rz * qfx - rx * qfz, rx * qfy - ry * qfx


@njit(cache=True)
def water_loads(models, bodies, active, planes, water, coefs, loads):
    """Pressure and dissipative loads of the water on every active body (module docstring).

    loads (N, LOADS) is overwritten, per body: [F_P:F_P+3] pressure force (N), [T_P:T_P+3] its
    torque about the centre of mass (N m), [F_D:F_D+3] drag + lift + skin friction at the current
    velocities, [T_D:T_D+3] their torque, [V_SUB] submerged volume (m^3), [WET] wetted area (m^2),
    [U_W], [U_W+1] the water's velocity (u, w) at the body's centre.

    frames (T, 7): model-frame unit normal, area and centroid of each triangle
    (coupling.triangle_frames). solids (M, 4): enclosed volume and centroid of each closed model
    (coupling.closed_solids, V = 0 for an open one): a closed body wholly below its plane takes
    the divergence-theorem shortcut for the pressure, rho g V (-p1, 1, -p2) at its centroid.
    One thread; water_loads_threaded gives the same bits on numba's threads.
    """
    world = np.empty((64, 4))        # world x, y, z of each vertex and its depth below the plane
    poly = np.empty((4, 4))
    for b in range(planes.shape[0]):
        world = _body_loads(b, models, bodies, active, planes, water, coefs, loads, world, poly)
    return 0


STRIPES = 32    # water_loads_threaded: body b goes to stripe b % STRIPES (a thread takes whole stripes)


@njit(cache=True, parallel=True)
def water_loads_threaded(models, bodies, active, planes, water, coefs, loads):
    """water_loads over numba's threads, the same bits: each body's row is computed by the same
    function from the same operands, and no value is summed across bodies. Bodies are dealt to
    STRIPES stripes by slot (b % STRIPES), so the heavy ones (bottles, spawned together) spread
    over the threads."""
    n = planes.shape[0]
    for s in prange(STRIPES):
        world = np.empty((64, 4))
        poly = np.empty((4, 4))
        for b in range(s, n, STRIPES):
            world = _body_loads(b, models, bodies, active, planes, water, coefs, loads, world, poly)
    return 0


@njit(cache=True)
def _body_loads(b, models, bodies, active, planes, water, coefs, loads, world, poly):
    """water_loads' row b (loads[b] overwritten); world and poly are scratch (world is grown to the
    model's vertex count if short, and returned)."""
    model_verts, model_tris, vert_off, tri_off = models.verts, models.tris, models.vert_off, models.tri_off
    frames, solids = models.frames, models.solids
    model_id, pos, quat, vel, angvel, radius = (bodies.model_id, bodies.pos, bodies.quat, bodies.vel, bodies.angvel,
                                                bodies.radius)
    h, bed, u, w, dx = water.h, water.bed, water.u, water.w, water.dx
    rho, g, cd, cl, area_factor, c_skin = coefs.rho, coefs.g, coefs.cd, coefs.cl, coefs.area_factor, coefs.c_skin
    wet_depth = coefs.wet_depth
    inv_dx = 1.0 / dx
    for c in range(LOADS):
        loads[b, c] = 0.0
    if not active[b]:
        return world
    cx0, cy0, cz0 = pos[b, 0], pos[b, 1], pos[b, 2]
    uw0, ww0 = _water_velocity_scaled(u, w, cx0 * inv_dx, cz0 * inv_dx)
    loads[b, U_W] = uw0
    loads[b, U_W + 1] = ww0
    slope = radius[b] * (abs(planes[b, 1]) + abs(planes[b, 2]))
    if cy0 - radius[b] > planes[b, 0] + slope:
        return world                          # the bounding sphere is above the surface
    rot = quat_to_matrix(quat[b])
    vx, vy, vz = vel[b, 0], vel[b, 1], vel[b, 2]
    ox, oy, oz = angvel[b, 0], angvel[b, 1], angvel[b, 2]
    m = model_id[b]
    # the body's C_D for the flow direction at its centre, in its own axes: sum_i C_i u^_i^2
    rvx = vx - uw0
    rvz = vz - ww0
    rv2 = rvx * rvx + vy * vy + rvz * rvz
    if coefs.cd_body[b] > 0.0:
        cd_b = coefs.cd_body[b]
    elif rv2 > 1e-24:
        cd_b = 0.0
        for a in range(3):
            ub = rot[0, a] * rvx + rot[1, a] * vy + rot[2, a] * rvz     # (R^T v_rel)_a
            cd_b += cd[m, a] * ub * ub
        cd_b /= rv2
    else:
        cd_b = (cd[m, 0] + cd[m, 1] + cd[m, 2]) / 3.0
    v0 = vert_off[m]
    nv = vert_off[m + 1] - v0
    if world.shape[0] < nv:
        world = np.empty((nv, 4))
    top = -np.inf
    for j in range(nv):
        lv = model_verts[v0 + j]
        for a in range(3):
            world[j, a] = pos[b, a] + rot[a, 0] * lv[0] + rot[a, 1] * lv[1] + rot[a, 2] * lv[2]
        world[j, 3] = _plane(planes, b, pos, world[j, 0], world[j, 2]) - world[j, 1]
        top = max(top, -world[j, 3])
    submerged = solids[m, 0] > 0.0 and top < 0.0
    # a body under SPECK cells in radius sees one water velocity, the one at its centre
    speck = radius[b] < SPECK * dx
    # every column around the body at least wet_depth deep: no piece needs its own depth
    nzh, nxh = h.shape
    r_cells = radius[b] * inv_dx + 1.0
    ka = max(int(cz0 * inv_dx - r_cells), 0)
    kb = min(int(cz0 * inv_dx + r_cells) + 1, nzh - 1)
    ia = max(int(cx0 * inv_dx - r_cells), 0)
    ib = min(int(cx0 * inv_dx + r_cells) + 1, nxh - 1)
    all_wet = True
    for k in range(ka, kb + 1):
        for i in range(ia, ib + 1):
            if h[k, i] < wet_depth:
                all_wet = False
                break
        if not all_wet:
            break
    fx = fy = fz = tx = ty = tz = 0.0
    dfx = dfy = dfz = dtx = dty = dtz = 0.0
    vol = 0.0
    wet = 0.0
    awp = 0.0                                 # waterplane area, int -n_y dA over the wetted surface
    perim = 0.0                               # waterline length
    s_f = 0.0                                 # int (omega x r)_y (-n_y) dA
    stx = stz = 0.0                           # int r x (0, v_y(r), 0) (-n_y) dA
    if submerged:
        wgt = 1.0 if all_wet else min(1.0, sample_centered(h, cx0, cz0, dx) / wet_depth)
        vb = solids[m, 0] * wgt
        rcx, rcy, rcz = _rotate(rot, solids[m, 1], solids[m, 2], solids[m, 3])
        p = rho * g * vb
        fx = -p * planes[b, 1]
        fy = p
        fz = -p * planes[b, 2]
        tx = rcy * fz - rcz * fy
        ty = rcz * fx - rcx * fz
        tz = rcx * fy - rcy * fx
        vol = vb
    for tri in range(tri_off[m], tri_off[m + 1]):
        fa = frames[tri, 3]
        if fa <= 0.0:
            continue
        i0 = model_tris[tri, 0]
        i1 = model_tris[tri, 1]
        i2 = model_tris[tri, 2]
        d0 = world[i0, 3]
        d1 = world[i1, 3]
        d2 = world[i2, 3]
        if d0 <= 0.0 and d1 <= 0.0 and d2 <= 0.0:
            continue                          # wholly above the surface
        nx_, ny_, nz_ = _rotate(rot, frames[tri, 0], frames[tri, 1], frames[tri, 2])
        whole = d0 >= 0.0 and d1 >= 0.0 and d2 >= 0.0
        count = 0
        if whole:
            for a in range(4):
                poly[0, a] = world[i0, a]
                poly[1, a] = world[i1, a]
                poly[2, a] = world[i2, a]
            count = 3
            # the piece is the triangle: its centroid's arm is R c (c its centroid, model frame)
            wrx, wry, wrz = _rotate(rot, frames[tri, 4], frames[tri, 5], frames[tri, 6])
        else:
            # clip to d >= 0 (Sutherland-Hodgman against one plane): at most 4 corners; the two
            # crossings bound this triangle's piece of the waterline
            first = -1
            for e in range(3):
                ja = model_tris[tri, e]
                jb = model_tris[tri, (e + 1) % 3]
                da = world[ja, 3]
                db = world[jb, 3]
                if da >= 0.0:
                    for a in range(4):
                        poly[count, a] = world[ja, a]
                    count += 1
                if (da > 0.0 > db) or (db > 0.0 > da):
                    s = da / (da - db)
                    for a in range(3):
                        poly[count, a] = world[ja, a] + s * (world[jb, a] - world[ja, a])
                    poly[count, 3] = 0.0
                    if first < 0:
                        first = count
                    else:
                        perim += np.sqrt((poly[count, 0] - poly[first, 0]) ** 2
                                         + (poly[count, 1] - poly[first, 1]) ** 2
                                         + (poly[count, 2] - poly[first, 2]) ** 2)
                    count += 1
        for k in range(1, count - 1):
            ax = poly[0, 0] - cx0
            ay = poly[0, 1] - cy0
            az = poly[0, 2] - cz0
            bx = poly[k, 0] - cx0
            by = poly[k, 1] - cy0
            bz = poly[k, 2] - cz0
            qx = poly[k + 1, 0] - cx0
            qy = poly[k + 1, 1] - cy0
            qz = poly[k + 1, 2] - cz0
            if whole:
                area = fa
                rx, ry, rz = wrx, wry, wrz
            else:
                e1x = bx - ax; e1y = by - ay; e1z = bz - az
                e2x = qx - ax; e2y = qy - ay; e2z = qz - az
                crx = e1y * e2z - e1z * e2y
                cry = e1z * e2x - e1x * e2z
                crz = e1x * e2y - e1y * e2x
                area = 0.5 * np.sqrt(crx * crx + cry * cry + crz * crz)
                if area <= 0.0:
                    continue
                rx = (ax + bx + qx) / 3.0
                ry = (ay + by + qy) / 3.0
                rz = (az + bz + qz) / 3.0
            # no water under the piece, no force on it
            wgt = 1.0 if all_wet else min(1.0, sample_centered(h, cx0 + rx, cz0 + rz, dx) / wet_depth)
            if wgt <= 0.0:
                continue
            if not submerged:
                s0, mx, my, mz = pressure_moments(ax, ay, az, poly[0, 3], bx, by, bz, poly[k, 3],
                                                  qx, qy, qz, poly[k + 1, 3], area)
                p = rho * g * wgt
                fx -= p * s0 * nx_
                fy -= p * s0 * ny_
                fz -= p * s0 * nz_
                # -rho g (int d r dA) x n
                tx -= p * (my * nz_ - mz * ny_)
                ty -= p * (mz * nx_ - mx * nz_)
                tz -= p * (mx * ny_ - my * nx_)
                vol -= wgt * s0 * ny_
            if speck:
                uw, ww = uw0, ww0
            else:
                uw, ww = _water_velocity_scaled(u, w, (cx0 + rx) * inv_dx, (cz0 + rz) * inv_dx)
            qfx, qfy, qfz, qtx, qty, qtz = _dissipative(nx_, ny_, nz_, wgt * area, vx, vy, vz, ox, oy, oz,
                                                        rx, ry, rz, uw, ww, rho, cd_b, cl, area_factor, c_skin)
            dfx += qfx
            dfy += qfy
            dfz += qfz
            dtx += qtx
            dty += qty
            dtz += qtz
            wet += wgt * area
            # the waterplane's share of this piece and its vertical velocity (radiation damping):
            # int f (-n_y) dA over the wetted surface is int f dA over the waterplane for any f(x, z)
            # (divergence theorem on the submerged volume), so a column wholly under water (bottom
            # and deck) adds nothing, IF each piece's integral is exact: v_y(r) is linear, and the
            # torque's r_z v_y, r_x v_y are quadratic, integrated by their corners (pressure_moments'
            # rule; at the centroid alone the deck and bottom pieces of a submerged column no longer
            # cancel, and the roll "damping" does positive work)
            wn = -wgt * ny_
            pa = wn * area
            awp += pa
            s_f += (oz * rx - ox * rz) * pa
            k12 = area / 12.0
            sx = ax + bx + qx
            sz = az + bz + qz
            sxx = k12 * (ax * ax + bx * bx + qx * qx + sx * sx)
            szz = k12 * (az * az + bz * bz + qz * qz + sz * sz)
            sxz = k12 * (ax * az + bx * bz + qx * qz + sx * sz)
            stx -= wn * (vy * rz * area + oz * sxz - ox * szz)
            stz += wn * (vy * rx * area + oz * sxx - ox * sxz)
    loads[b, A_WP] = awp
    loads[b, PERIM] = perim
    loads[b, DEPTH] = planes[b, 0] - sample_centered(bed, cx0, cz0, dx)
    loads[b, S_F] = s_f
    loads[b, S_T] = stx
    loads[b, S_T + 2] = stz
    loads[b, F_P] = fx
    loads[b, F_P + 1] = fy
    loads[b, F_P + 2] = fz
    loads[b, T_P] = tx
    loads[b, T_P + 1] = ty
    loads[b, T_P + 2] = tz
    loads[b, F_D] = dfx
    loads[b, F_D + 1] = dfy
    loads[b, F_D + 2] = dfz
    loads[b, T_D] = dtx
    loads[b, T_D + 1] = dty
    loads[b, T_D + 2] = dtz
    loads[b, V_SUB] = vol
    loads[b, WET] = wet
    return world


@njit(cache=True)
def implicit_forces(loads, active, bodies, touching, coefs, dt, out):
    """The force and torque to apply over the next step, from the loads of water_loads.

    Linear motion, backward Euler in the drag and the added mass. The drag is split into its part
    along the body's velocity relative to the water v_r, F_D = -K v_r + F_perp with
    K = max(0, -F_D . v_r / |v_r|^2), and the body, of mass m and added mass m_a = C_a rho V_sub,
    is stepped with the drag at the end of the step:

        (m + m_a) a = F_P + F_perp + m g_vec - K (v_r + dt a)
        =>  a = (F_P + F_perp + m g_vec - K v_r) / (m + m_a + dt K)

    Vertically also the radiation damping (beta, below) and the waterplane's stiffness
    k = rho g A_wp are implicit: (m + m_a + dt K + dt beta A_wp + dt^2 k) a_y = F_P,y + ... - k dt v_y.
    IntegrateBodies applies F / m + g_vec, so the force written is F = m a - m g_vec. With no
    water (V_sub = 0, K = 0) F = 0; at rest in equilibrium F = -m g_vec. A body touching something
    (a floor, another body) gets no added mass: its acceleration is set by the contacts, which do
    not see it. The explicit remainder F_perp is capped so that over dt it can at most stop the
    body relative to the water.

    Angular motion: the pressure torque is explicit; the dissipative torque is capped so that over
    dt it can at most stop the spin (|I^-1 tau| dt <= |omega|, the limit an implicit step reaches).

    out (a Response) is overwritten: force, torque (N, 3), submerged (N,), and push (N, 3), the
    water's force beyond the hydrostatic pressure (drag, lift, skin friction and the added mass's
    reaction, F - F_P): the water takes its reaction (push_water).
    """
    vel, angvel, quat, inv_mass, inv_inertia = bodies.vel, bodies.angvel, bodies.quat, bodies.inv_mass, bodies.inv_inertia
    rho, g, c_added = coefs.rho, coefs.g, coefs.c_added
    force_out, torque_out, submerged_out, push_out = out.force, out.torque, out.submerged, out.push
    for b in range(loads.shape[0]):
        for c in range(3):
            force_out[b, c] = 0.0
            torque_out[b, c] = 0.0
            push_out[b, c] = 0.0
        submerged_out[b] = loads[b, V_SUB]
        if not active[b] or inv_mass[b] <= 0.0 or loads[b, WET] <= 0.0:
            continue
        mass = 1.0 / inv_mass[b]
        vrx = vel[b, 0] - loads[b, U_W]
        vry = vel[b, 1]
        vrz = vel[b, 2] - loads[b, U_W + 1]
        v2 = vrx * vrx + vry * vry + vrz * vrz
        fdx = loads[b, F_D]
        fdy = loads[b, F_D + 1]
        fdz = loads[b, F_D + 2]
        kk = 0.0
        if v2 > 1e-24:
            kk = max(0.0, -(fdx * vrx + fdy * vry + fdz * vrz) / v2)
        px = fdx + kk * vrx                       # F_perp
        py = fdy + kk * vry
        pz = fdz + kk * vrz
        pm = np.sqrt(px * px + py * py + pz * pz) * dt * inv_mass[b]
        if pm > 0.0:
            sp = min(1.0, np.sqrt(v2) / pm)
            px *= sp
            py *= sp
            pz *= sp
        m_a = 0.0 if touching[b] else c_added * rho * loads[b, V_SUB]
        # radiation damping: heaving, the waterplane A_wp pushes the flux A_wp v_y out through the
        # waterline (length P) as a long wave, c = sqrt(g H); the wave's rise at the body,
        # eta = A_wp v_y / (c P), presses on the waterplane: F_y = -beta A_wp v_y,
        # beta = rho g A_wp / (c P). Spread over the waterplane, it damps roll and pitch too.
        beta = 0.0
        awp = loads[b, A_WP]
        if awp > 0.0 and loads[b, PERIM] > 0.0:
            c = np.sqrt(g * max(loads[b, DEPTH], 1e-3))
            beta = rho * g * awp / (c * loads[b, PERIM])
        # the heave spring implicit too: F_P,y(y + dt v') = F_P,y - k dt v', k = rho g A_wp (the
        # waterplane's stiffness), so a light floating body stays stable at any dt
        kh = rho * g * awp
        den = mass + m_a + dt * kk
        ax_ = (loads[b, F_P] + px - kk * vrx) / den
        ay_ = ((loads[b, F_P + 1] + py - mass * g - kk * vry - beta * (awp * vry + loads[b, S_F]) - kh * dt * vel[b, 1])
               / (den + dt * beta * awp + dt * dt * kh))
        az_ = (loads[b, F_P + 2] + pz - kk * vrz) / den
        force_out[b, 0] = mass * ax_
        force_out[b, 1] = mass * (ay_ + g)
        force_out[b, 2] = mass * az_
        push_out[b, 0] = force_out[b, 0] - loads[b, F_P]
        push_out[b, 1] = force_out[b, 1] - loads[b, F_P + 1]
        push_out[b, 2] = force_out[b, 2] - loads[b, F_P + 2]
        # dissipative torque, capped (I_world^-1 tau = R I_body^-1 R^T tau)
        rot = quat_to_matrix(quat[b])
        dtx = loads[b, T_D] - beta * loads[b, S_T]
        dty = loads[b, T_D + 1]
        dtz = loads[b, T_D + 2] - beta * loads[b, S_T + 2]
        lb0 = rot[0, 0] * dtx + rot[1, 0] * dty + rot[2, 0] * dtz
        lb1 = rot[0, 1] * dtx + rot[1, 1] * dty + rot[2, 1] * dtz
        lb2 = rot[0, 2] * dtx + rot[1, 2] * dty + rot[2, 2] * dtz
        ib = inv_inertia[b]
        ab0 = ib[0, 0] * lb0 + ib[0, 1] * lb1 + ib[0, 2] * lb2
        ab1 = ib[1, 0] * lb0 + ib[1, 1] * lb1 + ib[1, 2] * lb2
        ab2 = ib[2, 0] * lb0 + ib[2, 1] * lb1 + ib[2, 2] * lb2
        dw = np.sqrt(ab0 * ab0 + ab1 * ab1 + ab2 * ab2) * dt
        om = np.sqrt(angvel[b, 0] ** 2 + angvel[b, 1] ** 2 + angvel[b, 2] ** 2)
        st = 1.0 if dw <= om else om / dw
        torque_out[b, 0] = loads[b, T_P] + st * dtx
        torque_out[b, 1] = loads[b, T_P + 1] + st * dty
        torque_out[b, 2] = loads[b, T_P + 2] + st * dtz
    return 0


@njit(cache=True)
def push_water(water, covered, bodies, push, active, coefs):
    """Give the water the momentum the bodies' drag took (Chentanez & Mueller's Algorithm 2
    velocity push, made momentum-exact): body b's horizontal reaction -push[b] is spread as a
    uniform acceleration over the faces between two wet columns within its bounding radius (at least one cell) of its
    centre, a = -F / (rho sum_f h_f dx^2), h_f the mean water depth of the face's two cells (the
    depth h less the covered height: the bodies' own share of h is not water), so the water's
    momentum sum rho h_f u_f dx^2 changes by exactly -F dt over a step. ax (nz, nx + 1),
    az (nz + 1, nx) (water.ax, water.az) are accelerations the next water step applies, m/s^2 (added into)."""
    ax, az, h, dx = water.ax, water.az, water.h, water.dx
    pos, radius = bodies.pos, bodies.radius
    rho, wet_depth = coefs.rho, coefs.wet_depth
    nz, nx = h.shape
    lo = np.empty(64, np.int64)             # per row of one body and axis: its faces within the radius, [lo, hi)
    hi = np.empty(64, np.int64)
    for b in range(pos.shape[0]):
        if not active[b]:
            continue
        fx = -push[b, 0]
        fz = -push[b, 2]
        if fx == 0.0 and fz == 0.0:
            continue
        r = max(radius[b], dx)
        gx = pos[b, 0] / dx
        gz = pos[b, 2] / dx
        rc = r / dx
        i0 = max(int(gx - rc) - 1, 0)
        i1 = min(int(gx + rc) + 2, nx)
        k0 = max(int(gz - rc) - 1, 0)
        k1 = min(int(gz + rc) + 2, nz)
        if lo.shape[0] < k1 - k0 + 1:
            lo = np.empty(k1 - k0 + 1, np.int64)
            hi = np.empty(k1 - k0 + 1, np.int64)
        for axis in range(2):
            f = fx if axis == 0 else fz
            if f == 0.0:
                continue
            # the faces within rc of the centre: per row an interval ((x - gx)^2 is convex), found
            # from the chord and then tested exactly at its ends; rows in the order of the
            # rectangle above, so the masses sum in the same order
            off = 0.0 if axis == 0 else 0.5          # a face's x: i (u faces), i + 0.5 (w faces)
            ka = k0
            kb = k1 + (1 if axis == 1 else 0)
            if axis == 0:
                kb = min(kb, nz)
                ia0, ib0 = max(i0, 1), min(i1 + 1, nx)          # u faces 1 .. nx - 1
            else:
                ka = max(ka, 1)
                kb = min(kb, nz)                                 # w faces 1 .. nz - 1
                ia0, ib0 = i0, min(i1, nx)
            mass = 0.0
            for k in range(ka, kb):
                fzp = k + 0.5 if axis == 0 else float(k)
                dz2 = (fzp - gz) ** 2
                ia = ib = ia0
                if dz2 <= rc * rc:
                    half = np.sqrt(rc * rc - dz2)
                    ia = max(ia0, int(np.floor(gx - off - half)) - 1)
                    ib = min(ib0, int(np.ceil(gx - off + half)) + 2)
                    while ia < ib and (ia + off - gx) ** 2 + (fzp - gz) ** 2 > rc * rc:
                        ia += 1
                    while ib > ia and (ib - 1 + off - gx) ** 2 + (fzp - gz) ** 2 > rc * rc:
                        ib -= 1
                lo[k - ka] = ia
                hi[k - ka] = ib
                for i in range(ia, ib):
                    if axis == 0:
                        ha = h[k, i - 1] - covered[k, i - 1]
                    else:
                        ha = h[k - 1, i] - covered[k - 1, i]
                    hb = h[k, i] - covered[k, i]
                    # only between two wet columns: a push across a shoreline or onto a
                    # solid column would carry water up onto dry ground
                    if min(ha, hb) >= wet_depth:
                        mass += rho * (0.5 * (ha + hb)) * dx * dx
            if mass <= 0.0:
                continue
            acc = f / mass
            for k in range(ka, kb):
                for i in range(lo[k - ka], hi[k - ka]):
                    if axis == 0:
                        if min(h[k, i - 1] - covered[k, i - 1], h[k, i] - covered[k, i]) >= wet_depth:
                            ax[k, i] += acc
                    elif min(h[k - 1, i] - covered[k - 1, i], h[k, i] - covered[k, i]) >= wet_depth:
                        az[k, i] += acc
    return 0


@njit(cache=True)
def respond(loads, forced, active, bodies, touching, coefs, dt, response, water, covered, push, out, was_wet,
            splash_speed, entering):
    """implicit_forces, push_water (if push), then coupling.gather_forces into out = (force, torque,
    submerged) (one call). Returns gather_forces' count of bodies entering the water."""
    implicit_forces(loads, forced, bodies, touching, coefs, dt, response)
    if push:
        push_water(water, covered, bodies, response.push, forced, coefs)
    force, torque, submerged = out
    return gather_forces(forced, active, response, bodies.vel, force, torque, submerged, was_wet, splash_speed,
                         entering)
