"""Body-water coupling kernels: forces of the water on bodies, and the water bodies displace.

Water to body (Chentanez & Mueller 2010, eqs. 14-17): every surface triangle is clipped against the
local water surface (the plane y = eta at the triangle's centroid); each submerged piece with area
A, outward unit normal n, centroid c at depth d = eta - c_y and velocity relative to the water
u_rel (direction u) feels

    pressure  F_P = -rho g d A n             (summed over a closed surface: Archimedes, rho g V_sub up)
    drag      F_D = -1/2 rho C_D A_eff |u_rel| u_rel,   A_eff = A (omega n.u + 1 - omega) if n.u >= 0 else 0
    lift      F_L = -1/2 rho C_L A_eff |u_rel| (u_rel x l),  l = (n x u_rel) / |n x u_rel|
    skin      F_S = -c_skin A u_rel          (laminar skin friction: keeps small motions damped)

applied at c, so they make torque tau = sum (c - x_com) x F. The submerged volume is the same sum
as the pressure force: V_sub = sum d A (-n_y).

Body to water (Mueller's covered-height field): b[k, i] is the height of body inside column (k, i)
below the water surface. A closed mesh crosses a vertical line alternately leaving (n_y > 0) and
entering (n_y < 0), so the thickness below eta is  sum_top min(y, eta) - sum_bottom min(y, eta).
The water takes h += b - b_prev each step: exactly the volume the bodies moved in or out.

Bodies are packed: models share one vertex array and one triangle array with per-model offsets;
each body has a model id, position of its centre of mass, orientation quaternion (w, x, y, z),
velocity and angular velocity (world frame).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _rotation(q0: float, q1: float, q2: float, q3: float) -> np.ndarray:
    r = np.empty((3, 3))
    r[0, 0] = 1.0 - 2.0 * (q2 * q2 + q3 * q3)
    r[0, 1] = 2.0 * (q1 * q2 - q0 * q3)
    r[0, 2] = 2.0 * (q1 * q3 + q0 * q2)
    r[1, 0] = 2.0 * (q1 * q2 + q0 * q3)
    r[1, 1] = 1.0 - 2.0 * (q1 * q1 + q3 * q3)
    r[1, 2] = 2.0 * (q2 * q3 - q0 * q1)
    r[2, 0] = 2.0 * (q1 * q3 - q0 * q2)
    r[2, 1] = 2.0 * (q2 * q3 + q0 * q1)
    r[2, 2] = 1.0 - 2.0 * (q1 * q1 + q2 * q2)
    return r


@njit(cache=True)
def sample_centered(a: np.ndarray, x: float, z: float, dx: float) -> float:
    """Bilinear value of a cell-centred (nz, nx) field at (x, z), clamped at the edges."""
    nz, nx = a.shape
    fx = min(max(x / dx - 0.5, 0.0), nx - 1.0)
    fz = min(max(z / dx - 0.5, 0.0), nz - 1.0)
    i0 = min(int(fx), nx - 2) if nx > 1 else 0
    k0 = min(int(fz), nz - 2) if nz > 1 else 0
    tx = fx - i0
    tz = fz - k0
    i1 = min(i0 + 1, nx - 1)
    k1 = min(k0 + 1, nz - 1)
    return ((1.0 - tz) * ((1.0 - tx) * a[k0, i0] + tx * a[k0, i1])
            + tz * ((1.0 - tx) * a[k1, i0] + tx * a[k1, i1]))


@njit(cache=True)
def water_velocity(u: np.ndarray, w: np.ndarray, x: float, z: float, dx: float) -> tuple[float, float]:
    """Horizontal water velocity at (x, z) from the staggered faces (bilinear)."""
    nz = u.shape[0]
    nx = w.shape[1]
    # u lives at (i dx, (k + 0.5) dx), i in [0, nx]; w at ((i + 0.5) dx, k dx), k in [0, nz]
    fx = min(max(x / dx, 0.0), float(nx))
    fz = min(max(z / dx - 0.5, 0.0), nz - 1.0)
    i0 = min(int(fx), nx - 1)
    k0 = min(int(fz), max(nz - 2, 0))
    tx = fx - i0
    tz = fz - k0
    k1 = min(k0 + 1, nz - 1)
    uu = ((1.0 - tz) * ((1.0 - tx) * u[k0, i0] + tx * u[k0, i0 + 1])
          + tz * ((1.0 - tx) * u[k1, i0] + tx * u[k1, i0 + 1]))
    fx = min(max(x / dx - 0.5, 0.0), nx - 1.0)
    fz = min(max(z / dx, 0.0), float(nz))
    i0 = min(int(fx), max(nx - 2, 0))
    k0 = min(int(fz), nz - 1)
    tx = fx - i0
    tz = fz - k0
    i1 = min(i0 + 1, nx - 1)
    ww = ((1.0 - tz) * ((1.0 - tx) * w[k0, i0] + tx * w[k0, i1])
          + tz * ((1.0 - tx) * w[k0 + 1, i0] + tx * w[k0 + 1, i1]))
    return uu, ww


@njit(cache=True)
def _piece(p0, p1, p2, v_com, omega, com, n, eta_c, uw, ww, rho, g, cd, cl, area_factor, c_skin,
           force, torque) -> float:
    """Add the forces on one submerged triangle piece; return its d A (-n_y) volume share."""
    e1 = p1 - p0
    e2 = p2 - p0
    cr = np.cross(e1, e2)
    area = 0.5 * np.sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2])
    if area <= 0.0:
        return 0.0
    c = (p0 + p1 + p2) / 3.0
    d = eta_c - c[1]
    if d < 0.0:
        d = 0.0
    r = c - com
    f = -rho * g * d * area * n
    # velocity of the centroid relative to the water
    vp = v_com + np.cross(omega, r)
    urel = np.empty(3)
    urel[0] = vp[0] - uw
    urel[1] = vp[1]
    urel[2] = vp[2] - ww
    speed = np.sqrt(urel[0] ** 2 + urel[1] ** 2 + urel[2] ** 2)
    if speed > 1e-9:
        uhat = urel / speed
        ndu = n[0] * uhat[0] + n[1] * uhat[1] + n[2] * uhat[2]
        if ndu >= 0.0:
            a_eff = area * (area_factor * ndu + 1.0 - area_factor)
            f -= 0.5 * rho * cd * a_eff * speed * urel
            nxu = np.cross(n, urel)
            m = np.sqrt(nxu[0] ** 2 + nxu[1] ** 2 + nxu[2] ** 2)
            if m > 1e-12:
                f -= 0.5 * rho * cl * a_eff * speed * np.cross(urel, nxu / m)
        f -= c_skin * area * urel
    force += f
    torque += np.cross(r, f)
    return -d * area * n[1]


@njit(cache=True, parallel=True)
def water_to_bodies(model_verts, model_tris, vert_off, tri_off, model_id, pos, quat, vel, angvel,
                    radius, active, eta, u, w, dx, rho, g, cd, cl, area_factor, c_skin,
                    force_out, torque_out, submerged_out, wet_area_out):
    """Water forces on every active body (written to its own slot: deterministic in parallel).

    force_out, torque_out (N, 3) are overwritten with the water's force (N) and torque (N m) about
    the centre of mass; submerged_out (N,) with the submerged volume (m^3); wet_area_out (N,) with
    the wetted surface area (m^2).
    """
    n_bodies = pos.shape[0]
    for b in prange(n_bodies):
        force_out[b, :] = 0.0
        torque_out[b, :] = 0.0
        submerged_out[b] = 0.0
        wet_area_out[b] = 0.0
        if not active[b]:
            continue
        com = pos[b]
        # quick reject: the lowest point of the bounding sphere is above the surface here
        if com[1] - radius[b] > sample_centered(eta, com[0], com[2], dx) + 0.05:
            continue
        rot = _rotation(quat[b, 0], quat[b, 1], quat[b, 2], quat[b, 3])
        m = model_id[b]
        v0, v1 = vert_off[m], vert_off[m + 1]
        world = np.empty((v1 - v0, 3))
        for j in range(v1 - v0):
            lv = model_verts[v0 + j]
            for a in range(3):
                world[j, a] = com[a] + rot[a, 0] * lv[0] + rot[a, 1] * lv[1] + rot[a, 2] * lv[2]
        f = np.zeros(3)
        t = np.zeros(3)
        vol = 0.0
        wet = 0.0
        poly = np.empty((4, 3))
        for tri in range(tri_off[m], tri_off[m + 1]):
            p0 = world[model_tris[tri, 0]]
            p1 = world[model_tris[tri, 1]]
            p2 = world[model_tris[tri, 2]]
            cx = (p0[0] + p1[0] + p2[0]) / 3.0
            cz = (p0[2] + p1[2] + p2[2]) / 3.0
            eta_c = sample_centered(eta, cx, cz, dx)
            if p0[1] >= eta_c and p1[1] >= eta_c and p2[1] >= eta_c:
                continue
            nrm = np.cross(p1 - p0, p2 - p0)
            ln = np.sqrt(nrm[0] ** 2 + nrm[1] ** 2 + nrm[2] ** 2)
            if ln <= 0.0:
                continue
            nrm = nrm / ln
            uw, ww = water_velocity(u, w, cx, cz, dx)
            # clip the triangle to y <= eta_c (Sutherland-Hodgman against one plane)
            count = 0
            for e in range(3):
                a = world[model_tris[tri, e]]
                bb = world[model_tris[tri, (e + 1) % 3]]
                da = a[1] - eta_c
                db = bb[1] - eta_c
                if da <= 0.0:
                    poly[count] = a
                    count += 1
                if (da < 0.0 < db) or (db < 0.0 < da):
                    s = da / (da - db)
                    poly[count] = a + s * (bb - a)
                    count += 1
            for k in range(1, count - 1):
                vol += _piece(poly[0], poly[k], poly[k + 1], vel[b], angvel[b], com, nrm, eta_c, uw, ww,
                              rho, g, cd, cl, area_factor, c_skin, f, t)
                e1 = poly[k] - poly[0]
                e2 = poly[k + 1] - poly[0]
                cr = np.cross(e1, e2)
                wet += 0.5 * np.sqrt(cr[0] ** 2 + cr[1] ** 2 + cr[2] ** 2)
        force_out[b] = f
        torque_out[b] = t
        submerged_out[b] = vol
        wet_area_out[b] = wet
    return 0


@njit(cache=True, inline="always")
def _owns_edge(p, q, sign: float) -> bool:
    """Tie rule for cell centres exactly on edge p->q (oriented to the triangle's winding)."""
    ex = (q[0] - p[0]) * sign
    ez = (q[2] - p[2]) * sign
    return ez > 0.0 or (ez == 0.0 and ex > 0.0)


@njit(cache=True)
def covered_height(model_verts, model_tris, vert_off, tri_off, model_id, pos, quat, radius, active,
                   eta, bed, dx, out):
    """Height of body inside each water column, below the surface (m): out[k, i], overwritten.

    Per triangle, every cell centre inside its (x, z) footprint gets +min(y, eta) for an upward
    facing triangle and -min(y, eta) for a downward facing one (y: the triangle's height there,
    clamped to the bed). Serial: several bodies write the same cells.
    """
    nz, nx = out.shape
    out[:, :] = 0.0
    for b in range(pos.shape[0]):
        if not active[b]:
            continue
        com = pos[b]
        if com[1] - radius[b] > sample_centered(eta, com[0], com[2], dx) + 0.05:
            continue
        rot = _rotation(quat[b, 0], quat[b, 1], quat[b, 2], quat[b, 3])
        m = model_id[b]
        v0, v1 = vert_off[m], vert_off[m + 1]
        world = np.empty((v1 - v0, 3))
        for j in range(v1 - v0):
            lv = model_verts[v0 + j]
            for a in range(3):
                world[j, a] = com[a] + rot[a, 0] * lv[0] + rot[a, 1] * lv[1] + rot[a, 2] * lv[2]
        for tri in range(tri_off[m], tri_off[m + 1]):
            a = world[model_tris[tri, 0]]
            bb = world[model_tris[tri, 1]]
            c = world[model_tris[tri, 2]]
            # signed area in the x-z plane (the y component of the normal, times 2)
            ny2 = (bb[2] - a[2]) * (c[0] - a[0]) - (bb[0] - a[0]) * (c[2] - a[2])
            if ny2 == 0.0:
                continue
            sign = 1.0 if ny2 > 0.0 else -1.0
            xmin = min(a[0], bb[0], c[0])
            xmax = max(a[0], bb[0], c[0])
            zmin = min(a[2], bb[2], c[2])
            zmax = max(a[2], bb[2], c[2])
            i0 = max(int(np.ceil(xmin / dx - 0.5)), 0)
            i1 = min(int(np.floor(xmax / dx - 0.5)), nx - 1)
            k0 = max(int(np.ceil(zmin / dx - 0.5)), 0)
            k1 = min(int(np.floor(zmax / dx - 0.5)), nz - 1)
            for k in range(k0, k1 + 1):
                pz = (k + 0.5) * dx
                for i in range(i0, i1 + 1):
                    px = (i + 0.5) * dx
                    # barycentric weights in the x-z plane, made positive inside; a point on an
                    # edge belongs to the triangle only if the (oriented) edge passes the tie rule,
                    # so neighbouring triangles of one sheet count it exactly once
                    w0 = sign * ((bb[2] - pz) * (c[0] - px) - (bb[0] - px) * (c[2] - pz))
                    w1 = sign * ((c[2] - pz) * (a[0] - px) - (c[0] - px) * (a[2] - pz))
                    w2 = sign * ((a[2] - pz) * (bb[0] - px) - (a[0] - px) * (bb[2] - pz))
                    if w0 < 0.0 or w1 < 0.0 or w2 < 0.0:
                        continue
                    if w0 == 0.0 and not _owns_edge(bb, c, sign):
                        continue
                    if w1 == 0.0 and not _owns_edge(c, a, sign):
                        continue
                    if w2 == 0.0 and not _owns_edge(a, bb, sign):
                        continue
                    w0 *= sign
                    w1 *= sign
                    w2 *= sign
                    y = (w0 * a[1] + w1 * bb[1] + w2 * c[1]) / ny2
                    if y < bed[k, i]:
                        y = bed[k, i]
                    e = eta[k, i]
                    out[k, i] += sign * (y if y < e else e)
    for k in range(nz):
        for i in range(nx):
            if out[k, i] < 0.0:
                out[k, i] = 0.0
    return 0


@njit(cache=True)
def displace(h, b_new, b_old, alpha):
    """Move the water the bodies displaced: h += alpha (b_new - b_old), volume-exact.

    Where a column would go dry, its shortfall is taken evenly from every wet cell instead, so the
    total change is exactly alpha * sum(b_new - b_old). Returns the volume moved per dx^2.
    """
    nz, nx = h.shape
    debt = 0.0
    moved = 0.0
    for k in range(nz):
        for i in range(nx):
            d = alpha * (b_new[k, i] - b_old[k, i])
            moved += d
            v = h[k, i] + d
            if v < 0.0:
                debt -= v
                v = 0.0
            h[k, i] = v
    # repay the debt from every cell in proportion to its depth (cannot make any negative)
    if debt > 0.0:
        total = 0.0
        for k in range(nz):
            for i in range(nx):
                total += h[k, i]
        if total > debt:
            scale = 1.0 - debt / total
            for k in range(nz):
                for i in range(nx):
                    h[k, i] *= scale
    return moved
