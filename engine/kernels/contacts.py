"""Contacts: detection against the pool and between bodies, and a sequential-impulse solver.

Serial numba kernels, so that a step replays bitwise. Geometry (all world frame, m):
- Pool: a body's contact POINTS (its model's hull vertices, engine/bodies.py; a sphere model is
  one point of radius r at its centre) against the bed height field (bilinear between cell
  centres, normal from its gradient; a ledge one cell wide is seen as a steep ramp) and the four
  walls x = 0, x = size_x, z = 0, z = size_z, taken as infinitely tall half-spaces, so nothing
  can leave the pool. Against a plane a convex hull's vertices are its exact supports.
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
def margins(n, alive, vel, angvel, radius, dt, slop, out):
    """Speculative margin per body: how far any of its points can move this step, plus slop, m."""
    for i in range(n):
        if alive[i]:
            v = np.sqrt(vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2)
            w = np.sqrt(angvel[i, 0] ** 2 + angvel[i, 1] ** 2 + angvel[i, 2] ** 2)
            out[i] = (v + w * radius[i]) * dt + slop
        else:
            out[i] = 0.0


@njit(cache=True)
def contact_key(a, b, k, kind):
    """A contact's identity across steps: bodies a, b (-1 static), local point index k, and the
    feature kind (0 floor, 1-4 walls, 5-6 the pair's two directions). Fits in 59 bits."""
    return ((a * 1048576 + (b + 1)) * 65536 + k) * 8 + kind


@njit(cache=True)
def _push(count, cap, a, b, p, nx, ny, nz, d, ca, cb, cp, cn, cd, key, ck):
    if count < cap:
        ck[count] = key
        ca[count] = a; cb[count] = b
        cp[count, 0] = p[0]; cp[count, 1] = p[1]; cp[count, 2] = p[2]
        cn[count, 0] = nx; cn[count, 1] = ny; cn[count, 2] = nz
        cd[count] = d
    return count + 1


@njit(cache=True)
def detect_static(n, active, pos, rot, radius, margin, model_id, pt_start, pts, pt_rad, bed, bed_max, dx,
                  size_x, size_z, ca, cb, cp, cn, cd, ck, count):
    """Append contacts of every active body's points with the bed and the walls; return the count.

    A model's points are balls of radius pt_rad[model] (0: vertices): the separation is the
    point's distance to the surface less that radius, and the contact sits on the ball's surface.
    For a convex polyhedron its hull vertices are exact supports against a plane."""
    cap = ca.shape[0]
    p = np.empty(3); q = np.empty(3)
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
        floor = pos[i, 1] - r < bed_max + m
        # a wall holds bodies whose centre is on its pool side; a body thrown in from outside the
        # pool (over the wall) meets no wall until its centre has crossed into the pool
        wx0 = pos[i, 0] - r < m and pos[i, 0] >= 0.0
        wx1 = pos[i, 0] + r > size_x - m and pos[i, 0] <= size_x
        wz0 = pos[i, 2] - r < m and pos[i, 2] >= 0.0
        wz1 = pos[i, 2] + r > size_z - m and pos[i, 2] <= size_z
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
                key = contact_key(i, -1, k - k0, feat)
                if feat == 0:
                    h, gx, gz = bed_height(bed, dx, p[0], p[2])
                    inv = 1.0 / np.sqrt(1.0 + gx * gx + gz * gz)
                    d = (p[1] - h) * inv - rad
                    if d < m:
                        q[0] = p[0] + rad * gx * inv; q[1] = p[1] - rad * inv; q[2] = p[2] + rad * gz * inv
                        count = _push(count, cap, i, -1, q, -gx * inv, inv, -gz * inv, d, ca, cb, cp, cn, cd, key, ck)
                    continue
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
                    count = _push(count, cap, i, -1, q, n0, 0.0, n2, d, ca, cb, cp, cn, cd, key, ck)
    return count


@njit(cache=True)
def broad_phase(n, alive, awake, pos, radius, margin, group, pa, pb, active):
    """Candidate pairs (a < b) whose grown bounding spheres overlap: sort and sweep along x.
    Bodies of the same group >= 0 (fresh fragments of one bottle) do not collide with each other;
    two sleeping bodies are not paired. `active` is set for awake bodies and for sleeping bodies
    paired with an awake one (they take part in this step's contacts).

    Returns the number of pairs (may exceed the buffer size: grow and call again).
    """
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
def _points_vs_body(a, b, sign, pos, rot, radius, model_id, pt_start, pts, prim_start, prims, m,
                    pa_, pb_, ca, cb, cp, cn, cd, ck, count):
    """Points of body a against the primitives of body b; contacts are stored as (pa_, pb_) with the
    normal pointing from pb_ to pa_ (sign flips it when a is the pair's second body).

    Every point of a lies within radius[a] of its centre and the signed distance to b's shapes is
    1-Lipschitz, so when a's centre is farther than radius[a] + m from them no point can be within
    m: the pair (in this direction) is skipped without looking at its points. Scalars throughout:
    no allocation per pair."""
    cap = ca.shape[0]
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
                    cp[count, c] = pos[a, c] + Ra[c, 0] * p0 + Ra[c, 1] * p1 + Ra[c, 2] * p2
                cn[count, 0] = sign * (Rb[0, 0] * n0 + Rb[0, 1] * n1 + Rb[0, 2] * n2)
                cn[count, 1] = sign * (Rb[1, 0] * n0 + Rb[1, 1] * n1 + Rb[1, 2] * n2)
                cn[count, 2] = sign * (Rb[2, 0] * n0 + Rb[2, 1] * n1 + Rb[2, 2] * n2)
                ca[count] = pa_; cb[count] = pb_
                cd[count] = d
                ck[count] = contact_key(pa_, pb_, k - k0, 5 if sign > 0 else 6)
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
def detect_pairs(npairs, pa, pb, pos, rot, radius, margin, model_id, pt_start, pts, prim_start, prims,
                 with_points, ca, cb, cp, cn, cd, ck, count):
    """Append contacts for each candidate pair: the manifold of every primitive of a against every
    primitive of b (engine/kernels/narrow.py: box-box SAT with face clipping, capsule-box,
    capsule-capsule; spheres are capsules of zero length), and for a model with `with_points`
    (a bottle: its capsules are its convex decomposition, which rounds its flat base) its points
    against the other's primitives. Normals point from b to a."""
    cap = ca.shape[0]
    cA = np.empty(3); A = np.empty((3, 3)); hA = np.empty(3)
    cB = np.empty(3); B = np.empty((3, 3)); hB = np.empty(3)
    op = np.empty((8, 3)); on = np.empty((8, 3)); on1 = np.empty(3); od = np.empty(8)
    of = np.empty(8, np.int64)
    W = np.empty((22, 3)); Wi = np.empty(32, np.int64)
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
                    nk = narrow.box_box(cA, A, hA, cB, B, hB, m, op, on1, od, of, W, Wi)
                    for t in range(nk):
                        on[t, 0] = on1[0]; on[t, 1] = on1[1]; on[t, 2] = on1[2]
                elif ka == CAPSULE and kb == BOX:
                    nk = narrow.capsule_box(cA, A[0], hA[0], cB, B, hB, m, 1.0, op, on, od, of)
                elif ka == BOX:
                    nk = narrow.capsule_box(cB, B[0], hB[0], cA, A, hA, m, -1.0, op, on, od, of)
                else:
                    nk = narrow.capsule_capsule(cA, A[0], hA[0], cB, B[0], hB[0], m, op, on, od, of)
                pair_id = ((q - prim_start[ma]) * 4 + (r - prim_start[mb])) & 15
                for t in range(nk):
                    if count < cap:
                        ca[count] = a; cb[count] = b
                        for c in range(3):
                            cp[count, c] = op[t, c]; cn[count, c] = on[t, c]
                        cd[count] = od[t]
                        ck[count] = contact_key(a, b, pair_id * 4096 + of[t], 7)
                    count += 1
        if with_points[ma]:
            count = _points_vs_body(a, b, 1.0, pos, rot, radius, model_id, pt_start, pts, prim_start, prims, m,
                                    a, b, ca, cb, cp, cn, cd, ck, count)
        if with_points[mb]:
            count = _points_vs_body(b, a, -1.0, pos, rot, radius, model_id, pt_start, pts, prim_start, prims, m,
                                    a, b, ca, cb, cp, cn, cd, ck, count)
    return count


@njit(cache=True)
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


ROW = 52   # solver scratch row per contact: 3 directions x 16 (D, RA, RB, WA, WB, K), target, tau,
           # mu (then the accumulated split impulse), split-impulse target


@njit(cache=True)
def solve(nc, ca, cb, cp, cn, cd, ck, pos, vel, angvel, vel0, angvel0, inv_mass, inv_iw, restitution, friction,
          dt, sweeps, bounce_speed, beta, slop, max_push, prev_keys, prev_j, warm, jn, jt, vn0, toi,
          push_v, push_w):
    """solve_rows with a fresh scratch array (see solve_rows); sweeps = (iterations, max_iterations,
    push_iterations, bounce_iterations) as int64, settled = 1e-3."""
    return solve_rows(nc, ca, cb, cp, cn, cd, ck, pos, vel, angvel, vel0, angvel0, inv_mass, inv_iw, restitution,
                      friction, dt, sweeps, 1e-3, bounce_speed, beta, slop, max_push, prev_keys, prev_j, warm, jn,
                      jt, vn0, toi, push_v, push_w, np.empty((max(nc, 1), ROW)))


@njit(cache=True, inline="always")
def _lever_arms(row, r0, r1, r2, inv_i, inv_m, at):
    """One body's part of a contact row, for its three directions n, t1, t2 (row[16 k .. 16 k + 2]):
    the arm r x d at row[16 k + at ..], the inverse world inertia applied to it 6 slots further, and
    the body's share of the effective mass, inv_m + (r x d) . I^-1 (r x d), added to row[16 k + 15].
    at = 3 for body a, 6 for body b."""
    for k in range(3):
        o = 16 * k
        x0, x1, x2 = _cross(r0, r1, r2, row[o], row[o + 1], row[o + 2])
        row[o + at] = x0; row[o + at + 1] = x1; row[o + at + 2] = x2
        w0 = inv_i[0, 0] * x0 + inv_i[0, 1] * x1 + inv_i[0, 2] * x2
        w1 = inv_i[1, 0] * x0 + inv_i[1, 1] * x1 + inv_i[1, 2] * x2
        w2 = inv_i[2, 0] * x0 + inv_i[2, 1] * x1 + inv_i[2, 2] * x2
        row[o + at + 6] = w0; row[o + at + 7] = w1; row[o + at + 8] = w2
        row[o + 15] += inv_m + x0 * w0 + x1 * w1 + x2 * w2


@njit(cache=True)
def solve_rows(nc, ca, cb, cp, cn, cd, ck, pos, vel, angvel, vel0, angvel0, inv_mass, inv_iw, restitution,
               friction, dt, sweeps, settled, bounce_speed, beta, slop, max_push, prev_keys, prev_j, warm, jn, jt,
               vn0, toi, push_v, push_w, S):
    """Resolve all contacts by sequential impulses (see the module docstring); writes the
    accumulated normal impulse jn (N s) and pre-solve normal velocity vn0 (m/s) per contact, and
    toi per body (-1: untouched; else the time into the step of its first impulse, s).

    sweeps = (iterations, max_iterations, push_iterations, bounce_iterations): at least
    `iterations` sweeps over all contacts, more (to max_iterations) until no normal impulse
    changes in a sweep by more than `settled` times the largest (a stack converges); then up to
    bounce_iterations sweeps over the contacts that bounce (_settle_bounces); push_iterations
    split-impulse sweeps.

    vel0/angvel0: velocities before this step's kick (gravity, forces), so that the relative
    normal acceleration a = (v_n - v_n,pre) / dt is known. Time of impact of a gap d > 0:
    d + v_n,pre tau + a tau^2 / 2 = 0; impact speed v_i = v_n,pre + a tau; the end-of-step target
    is then -e v_i + a (dt - tau) (bounce at tau, then the same acceleration), which rigid.drift
    integrates exactly for piecewise-constant acceleration: a ball's bounce does not depend on
    where in the step it lands.

    Split impulses: penetration deeper than `slop` is removed by a separate pseudo-velocity
    (push_v, push_w, zero on entry: begin_substep clears them; rigid.drift moves the bodies by
    them, and they are never added to vel, angvel),
    target min(beta (-d - slop) / dt, max_push), accumulated >= 0: pushing bodies apart never
    adds to their real velocities, so resolving an overlap adds no energy.

    Warm start: a contact whose key (bodies, point, feature) is in `prev_keys` (sorted) starts
    from `warm` times the impulses it ended the last (sub)step with (`prev_j`: normal, t1, t2);
    resting stacks converge in a few sweeps instead of jittering. Final impulses go to jn, jt.

    Per contact and direction d in (n, t1, t2) the Jacobian rows are precomputed into one row of
    the scratch S (nc or more, ROW): at 16 k: d, r_a x d, r_b x d, I_a^-1 (r_a x d), I_b^-1 (r_b x d),
    1 / effective mass; at 48: target velocity, time of impact, friction. An iteration is then dot
    products and axpys on the two bodies' velocities held in registers (one contiguous row per
    contact, no aliasing stores between the three directions).
    """
    jt1 = jt[:, 0]; jt2 = jt[:, 1]
    npk = prev_keys.shape[0]
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
        row[0] = n0; row[1] = n1; row[2] = n2
        row[16] = u0; row[17] = u1; row[18] = u2
        row[32] = s0; row[33] = s1; row[34] = s2
        for k in range(3):
            o = 16 * k
            for j in range(6, 16):       # body b's slots and the effective mass start empty
                row[o + j] = 0.0
        _lever_arms(row, cp[c, 0] - pos[a, 0], cp[c, 1] - pos[a, 1], cp[c, 2] - pos[a, 2], inv_iw[a], inv_mass[a], 3)
        e = restitution[a]
        row[50] = friction[a]
        if b >= 0:
            _lever_arms(row, cp[c, 0] - pos[b, 0], cp[c, 1] - pos[b, 1], cp[c, 2] - pos[b, 2], inv_iw[b],
                        inv_mass[b], 6)
            e = max(e, restitution[b])
            row[50] = np.sqrt(friction[a] * friction[b])
        for k in range(3):
            o = 16 * k + 15
            row[o] = 1.0 / row[o] if row[o] > 0.0 else 0.0   # both immovable: nothing to solve
        vn = _row_vel(row, 0, a, b, vel, angvel)
        vnp = _row_vel(row, 0, a, b, vel0, angvel0)
        acc = (vn - vnp) / dt
        vn0[c] = vn
        d = cd[c]
        row[49] = -1.0
        if d > 0.0:
            # first root of d + vnp tau + acc tau^2 / 2 = 0 (stable form 2 d / (-vnp + sqrt(D)))
            tau = -1.0
            disc = vnp * vnp - 2.0 * acc * d
            if disc >= 0.0:
                den = -vnp + np.sqrt(disc)
                if den > 0.0:
                    tau = 2.0 * d / den
            vi = vnp + acc * tau
            if 0.0 <= tau <= dt and vi < -bounce_speed:
                row[49] = tau
                row[48] = -e * vi + acc * (dt - tau)
            elif 0.0 <= tau <= dt:
                # a slow landing: rigid.drift moves the body by dt (v_n,pre + v_n) / 2, which for
                # v_n = -2 d / dt - v_n,pre puts it on the surface (|v_n| <= |v_n,pre|: no energy)
                row[48] = -2.0 * d / dt - vnp
            else:
                row[48] = -d / dt          # speculative: may close the gap, never cross it
        elif vnp < -bounce_speed:
            row[49] = 0.0                  # already touching and approaching: bounce at the start
            row[48] = -e * vnp + acc * dt
        else:
            row[48] = 0.0
        row[51] = min(beta * (-d - slop) / dt, max_push) if d < -slop else 0.0
        jn[c] = 0.0; jt1[c] = 0.0; jt2[c] = 0.0
    if npk > 0 and warm > 0.0:
        # after every target is set from the unperturbed velocities; keys of neighbouring contacts
        # are mostly neighbours in prev_keys too: try the slot after the last match before bisecting
        hint = 0
        for c in range(nc):
            key = ck[c]
            if hint < npk and prev_keys[hint] == key and (hint == 0 or prev_keys[hint - 1] < key):
                j = hint
            else:
                j = np.searchsorted(prev_keys, key)
            if j < npk and prev_keys[j] == key:
                hint = j + 1
                a, b = ca[c], cb[c]
                row = S[c]
                jn[c] = warm * prev_j[j, 0]; jt1[c] = warm * prev_j[j, 1]; jt2[c] = warm * prev_j[j, 2]
                _row_push(row, 0, jn[c], a, b, vel, angvel, inv_mass)
                _row_push(row, 16, jt1[c], a, b, vel, angvel, inv_mass)
                _row_push(row, 32, jt2[c], a, b, vel, angvel, inv_mass)
    iterations = sweeps[0]
    for sweep in range(max(sweeps[1], iterations)):
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
            vn = (row[0] * va0 + row[1] * va1 + row[2] * va2 + row[3] * wa0 + row[4] * wa1 + row[5] * wa2)
            if pair:
                vn -= (row[0] * vb0 + row[1] * vb1 + row[2] * vb2 + row[6] * wb0 + row[7] * wb1 + row[8] * wb2)
            new = jn[c] + row[15] * (row[48] - vn)
            if new < 0.0:
                new = 0.0
            dj = new - jn[c]
            jn[c] = new
            change = max(change, abs(dj))
            scale = max(scale, new)
            if dj != 0.0:
                m = ima * dj
                va0 += m * row[0]; wa0 += dj * row[9]
                va1 += m * row[1]; wa1 += dj * row[10]
                va2 += m * row[2]; wa2 += dj * row[11]
                if pair:
                    m = imb * dj
                    vb0 -= m * row[0]; wb0 -= dj * row[12]
                    vb1 -= m * row[1]; wb1 -= dj * row[13]
                    vb2 -= m * row[2]; wb2 -= dj * row[14]
            lim = row[50] * new
            v1 = (row[16] * va0 + row[17] * va1 + row[18] * va2 + row[19] * wa0 + row[20] * wa1 + row[21] * wa2)
            v2 = (row[32] * va0 + row[33] * va1 + row[34] * va2 + row[35] * wa0 + row[36] * wa1 + row[37] * wa2)
            if pair:
                v1 -= (row[16] * vb0 + row[17] * vb1 + row[18] * vb2 + row[22] * wb0 + row[23] * wb1 + row[24] * wb2)
                v2 -= (row[32] * vb0 + row[33] * vb1 + row[34] * vb2 + row[38] * wb0 + row[39] * wb1 + row[40] * wb2)
            n1 = jt1[c] - row[31] * v1
            n2 = jt2[c] - row[47] * v2
            mag2 = n1 * n1 + n2 * n2
            if mag2 > lim * lim:
                s = lim / np.sqrt(mag2) if mag2 > 0.0 else 0.0
                n1 *= s; n2 *= s
            d1 = n1 - jt1[c]; d2 = n2 - jt2[c]
            jt1[c] = n1; jt2[c] = n2
            if d1 != 0.0:
                m = ima * d1
                va0 += m * row[16]; wa0 += d1 * row[25]
                va1 += m * row[17]; wa1 += d1 * row[26]
                va2 += m * row[18]; wa2 += d1 * row[27]
                if pair:
                    m = imb * d1
                    vb0 -= m * row[16]; wb0 -= d1 * row[28]
                    vb1 -= m * row[17]; wb1 -= d1 * row[29]
                    vb2 -= m * row[18]; wb2 -= d1 * row[30]
            if d2 != 0.0:
                m = ima * d2
                va0 += m * row[32]; wa0 += d2 * row[41]
                va1 += m * row[33]; wa1 += d2 * row[42]
                va2 += m * row[34]; wa2 += d2 * row[43]
                if pair:
                    m = imb * d2
                    vb0 -= m * row[32]; wb0 -= d2 * row[44]
                    vb1 -= m * row[33]; wb1 -= d2 * row[45]
                    vb2 -= m * row[34]; wb2 -= d2 * row[46]
            vel[a, 0] = va0; vel[a, 1] = va1; vel[a, 2] = va2
            angvel[a, 0] = wa0; angvel[a, 1] = wa1; angvel[a, 2] = wa2
            if pair:
                vel[b, 0] = vb0; vel[b, 1] = vb1; vel[b, 2] = vb2
                angvel[b, 0] = wb0; angvel[b, 1] = wb1; angvel[b, 2] = wb2
        if sweep + 1 >= iterations and change <= settled * scale:
            break
    _settle_bounces(nc, ca, cb, S, vel, angvel, inv_mass, inv_iw, jn, jt1, jt2, sweeps[3])
    # toi per body for rigid.drift: -1 no impulse; tau >= 0 it bounced at tau (impulsive); -2 it was
    # held (resting or speculative contact, a force through the step), which outranks a bounce
    for c in range(nc):
        if jn[c] > 0.0:
            tau = S[c, 49]
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
        S[c, 50] = 0.0                     # friction is done with: slot 50 accumulates the push impulse
        if S[c, 51] > 0.0:
            pen[npen] = c
            npen += 1
    for _ in range(sweeps[2]):
        for t in range(npen):
            c = pen[t]
            row = S[c]
            a, b = ca[c], cb[c]
            vp = _row_vel(row, 0, a, b, push_v, push_w)
            new = max(row[50] + row[15] * (row[51] - vp), 0.0)
            dj = new - row[50]
            row[50] = new
            if dj != 0.0:
                _row_push(row, 0, dj, a, b, push_v, push_w, inv_mass)


@njit(cache=True)
def _find(parent, i):
    """Root of i in the union-find forest `parent` (path halving)."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True)
def _islands(sel, m, ca, cb, inv_mass, inv_iw):
    """Group the contacts sel[:m] into islands: two contacts share one when a movable body (nonzero
    inverse mass or inertia) links them through a chain of these contacts; static geometry
    (b = -1) and immovable bodies (asleep: zeroed by rigid.freeze_sleepers) link nothing, since no
    impulse changes their velocities. Returns (order, start, count): the contacts of island k are
    order[start[k]:start[k + 1]], in their order in sel, islands in order of first contact.

    Invariant: a sequential-impulse sweep over one island reads and writes only the velocities of
    that island's movable bodies, so sweeping the islands one after the other, each in its own
    contact order, is bitwise the sweep over all of them together, and each island can stop on its
    own convergence test."""
    nb = inv_mass.shape[0]
    parent = np.empty(nb, np.int64)
    movable = np.empty(nb, np.bool_)
    for i in range(nb):
        parent[i] = i
        movable[i] = inv_mass[i] != 0.0 or inv_iw[i, 0, 0] != 0.0 or inv_iw[i, 1, 1] != 0.0 \
            or inv_iw[i, 2, 2] != 0.0
    for t in range(m):
        a, b = ca[sel[t]], cb[sel[t]]
        if b >= 0 and movable[a] and movable[b]:
            ra = _find(parent, a)
            rb = _find(parent, b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    label = np.full(nb, -1, np.int64)      # island number of each root, by first contact
    lab = np.empty(m, np.int64)
    start = np.zeros(m + 1, np.int64)
    count = 0
    for t in range(m):
        a, b = ca[sel[t]], cb[sel[t]]
        r = _find(parent, a) if movable[a] else (_find(parent, b) if b >= 0 and movable[b] else -1)
        if r < 0:                          # between two immovable bodies: an island of its own
            k = count
            count += 1
        else:
            if label[r] < 0:
                label[r] = count
                count += 1
            k = label[r]
        lab[t] = k
        start[k + 1] += 1
    for k in range(count):
        start[k + 1] += start[k]
    fill = start[:count].copy()
    order = np.empty(m, np.int64)
    for t in range(m):
        order[fill[lab[t]]] = sel[t]
        fill[lab[t]] += 1
    return order, start, count


@njit(cache=True)
def _settle_bounces(nc, ca, cb, S, vel, angvel, inv_mass, inv_iw, jn, jt1, jt2, most):
    """Sweep on over the contacts that bounce this substep (S[c, 49] >= 0, usually a handful),
    island by island (_islands), until an island's impulses settle (a sweep changes none by more
    than 1e-9 of its largest), `most` sweeps. Sequential impulses converge slowly where a face
    lands flat (four corners, three degrees of freedom): stopped early they leave the body
    spinning, and its rebound uneven."""
    bl = np.empty(nc, np.int64)
    nb = 0
    for c in range(nc):
        if S[c, 49] >= 0.0 and jn[c] > 0.0:
            bl[nb] = c
            nb += 1
    if nb < 2:
        return
    order, start, count = _islands(bl, nb, ca, cb, inv_mass, inv_iw)
    for isl in range(count):
        t0, t1 = start[isl], start[isl + 1]
        for _ in range(most):
            change = 0.0
            scale = 0.0
            for t in range(t0, t1):
                c = order[t]
                a, b = ca[c], cb[c]
                row = S[c]
                vn = _row_vel(row, 0, a, b, vel, angvel)
                new = max(jn[c] + row[15] * (row[48] - vn), 0.0)
                dj = new - jn[c]
                jn[c] = new
                _row_push(row, 0, dj, a, b, vel, angvel, inv_mass)
                change = max(change, abs(dj))
                scale = max(scale, new)
                lim = row[50] * new
                n1 = jt1[c] - row[31] * _row_vel(row, 16, a, b, vel, angvel)
                n2 = jt2[c] - row[47] * _row_vel(row, 32, a, b, vel, angvel)
                mag2 = n1 * n1 + n2 * n2
                if mag2 > lim * lim:
                    f = lim / np.sqrt(mag2) if mag2 > 0.0 else 0.0
                    n1 *= f; n2 *= f
                d1 = n1 - jt1[c]; d2 = n2 - jt2[c]
                jt1[c] = n1; jt2[c] = n2
                _row_push(row, 16, d1, a, b, vel, angvel, inv_mass)
                _row_push(row, 32, d2, a, b, vel, angvel, inv_mass)
                change = max(change, abs(d1), abs(d2))
            if change <= 1e-9 * scale:
                break


@njit(cache=True, inline="always")
def _row_vel(row, o, a, b, vel, angvel):
    """Relative velocity along the direction at row[o:o + 16]: J . (v_a, w_a, v_b, w_b)."""
    v = (row[o] * vel[a, 0] + row[o + 1] * vel[a, 1] + row[o + 2] * vel[a, 2]
         + row[o + 3] * angvel[a, 0] + row[o + 4] * angvel[a, 1] + row[o + 5] * angvel[a, 2])
    if b >= 0:
        v -= (row[o] * vel[b, 0] + row[o + 1] * vel[b, 1] + row[o + 2] * vel[b, 2]
              + row[o + 6] * angvel[b, 0] + row[o + 7] * angvel[b, 1] + row[o + 8] * angvel[b, 2])
    return v


@njit(cache=True, inline="always")
def _row_push(row, o, lam, a, b, vel, angvel, inv_mass):
    """Apply impulse lam along the direction at row[o:o + 16]: +to a, -to b."""
    ma = inv_mass[a] * lam
    for i in range(3):
        vel[a, i] += ma * row[o + i]
        angvel[a, i] += lam * row[o + 9 + i]
    if b >= 0:
        mb = inv_mass[b] * lam
        for i in range(3):
            vel[b, i] -= mb * row[o + i]
            angvel[b, i] -= lam * row[o + 12 + i]


@njit(cache=True)
def impacts(nc, ca, cb, cp, cn, cd, jn, vn0, min_speed, out_a, out_b, out_j, out_p, out_n):
    """Sum the normal impulse of each (a, b) run of contacts that were approaching faster than
    min_speed (collisions, not resting contact); impulse-weighted point and normal. Returns the
    number of runs written."""
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
def reduce_runs(nc, ca, cb, cp, cn, cd, ck, keep_static, keep_pair, band, margin, fast):
    """Thin each run of contacts (the same a, b and feature kind: the floor, one wall, a pair's
    manifolds, a pair's points) to at most keep_static (b = -1) or keep_pair contacts,
    compacting the arrays in place; returns the new count.

    A body whose speculative margin exceeds `fast` (m) keeps all its contacts with the pool: its
    points far from the deepest may still reach the wall this step.

    Kept: (nearly) the deepest contact, then greedily, among contacts within `band` (m) of the
    deepest, the one farthest (in position, and in normal scaled by 5 cm) from those kept, so the
    support polygon and every touching face survive.
    """
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
                _move(s, out, ca, cb, cp, cn, cd, ck)
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
            for s in range(c, e):
                # only contacts about as deep as the deepest compete: spreading over speculative
                # ones beside a resting face would drop the face itself
                dist[s - c] = _feature_dist2(s, first, cp, cn) if cd[s] <= dmin + band else -1.0
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
                _move(srt[k], out, ca, cb, cp, cn, cd, ck)
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
def _move(src, dst, ca, cb, cp, cn, cd, ck):
    if src != dst:
        ca[dst] = ca[src]; cb[dst] = cb[src]; cd[dst] = cd[src]; ck[dst] = ck[src]
        for i in range(3):
            cp[dst, i] = cp[src, i]; cn[dst, i] = cn[src, i]


@njit(cache=True)
def begin_substep(n, alive, timer, sleep_after, awake, quat, inv_inertia, rot, inv_iw, vel, angvel, force, torque,
                  inv_mass, inertia, gravity, dt, vel0, angvel0, inv_mass_eff, radius, slop, margin, vel_pre, toi,
                  push_v, push_w):
    """One call for the start of a substep (IntegrateBodies): awake = alive and timer < sleep_after,
    rigid.rotations, rigid.kick, rigid.freeze_sleepers, margins, then vel_pre = vel, toi = -1 and
    the split-impulse pseudo-velocities zero (contact detection changes none of them)."""
    for i in range(n):
        awake[i] = alive[i] and timer[i] < sleep_after
    rigid.rotations(n, alive, quat, inv_inertia, rot, inv_iw)
    rigid.kick(n, awake, vel, angvel, quat, force, torque, inv_mass, inertia, inv_inertia, gravity, dt,
               vel0, angvel0, rot, inv_iw)
    rigid.freeze_sleepers(n, alive, awake, inv_mass, inv_mass_eff, inv_iw)
    margins(n, alive, vel, angvel, radius, dt, slop, margin)
    for i in range(n):
        for c in range(3):
            vel_pre[i, c] = vel[i, c]
            push_v[i, c] = 0.0
            push_w[i, c] = 0.0
            if not awake[i]:       # not kicked: its velocity before the step is its velocity now
                vel0[i, c] = vel[i, c]
                angvel0[i, c] = angvel[i, c]
        toi[i] = -1.0
    return 0


@njit(cache=True)
def remember(nc, ck, jn, jt, keys_out, j_out):
    """The substep's impulses by contact key for the next warm start: keys_out[:nc] = the keys
    sorted (stable), j_out[:nc] = (jn, jt1, jt2) in that order."""
    order = np.argsort(ck[:nc], kind="mergesort")
    for r in range(nc):
        c = order[r]
        keys_out[r] = ck[c]
        j_out[r, 0] = jn[c]
        j_out[r, 1] = jt[c, 0]
        j_out[r, 2] = jt[c, 1]
    return nc


@njit(cache=True)
def end_substep(n, nc, ca, cb, awake, pos, vel, vel0, vel_pre, quat, angvel, inertia, inv_inertia, toi, dt,
                touching, alive, radius, inv_mass, friction, force, gravity, timer, sleep_speed, sleep_after,
                push_v, push_w, size_x, size_z):
    """One call for the end of a substep (IntegrateBodies): rigid.drift, rigid.keep_in_pool, the
    bodies touching something in this substep's contacts, rigid.update_sleep. Returns the number
    asleep."""
    rigid.drift(n, awake, pos, vel, vel0, vel_pre, quat, angvel, inertia, inv_inertia, toi, dt, push_v, push_w)
    rigid.keep_in_pool(n, awake, pos, vel, size_x, size_z)
    for i in range(n):
        touching[i] = False
    for c in range(nc):
        touching[ca[c]] = True
        if cb[c] >= 0:
            touching[cb[c]] = True
    return rigid.update_sleep(n, alive, vel, angvel, radius, inv_mass, friction, force, touching, gravity, timer,
                              dt, sleep_speed, sleep_after)
