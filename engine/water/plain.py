"""The plain traversal: one loop nest per phase of a substep, serial. It is the readable
specification of the water step; `fast.py` runs the same phases over rows on threads and must
equal it bit for bit.

The arrays come in the named structures of `records` (their layout is there): st, a `State`
(h, bed, u, w, ax, az); sc, its `Scratch` (the other velocity pair, the discharges qx, qz, the
per-row speeds); sd, the `Sides` (kind, eta); v and vn, `Faces` (u, w): the velocities a phase
reads and the ones it writes. Each row function takes the records and names their arrays first.
A substep is: fluxes (and the speeds that set the substep's length) -> depths -> momentum (each
row of new velocities, then bottom friction on that row while it is in cache). The equations are
in `formulas`.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.water import formulas as f
from engine.water.records import Faces
from engine.water.params import (BIG, I_CFL, I_DELTA, I_DX, I_EDDY, I_G, I_LAST_SUBSTEPS, I_MANNING, I_MAX_SUBSTEPS,
                                 I_NU, I_RUNAWAY, NOT_FINITE, OK, OPEN, RUNAWAY_STATUS)


@njit(cache=True)
def x_fluxes(st, v, sc, sd, k0, k1):
    """Rows k0..k1-1 of sc.qx from the velocities v: discharge q = u h* (upwind), open sides by
    `boundary_flux`, walls zero; and of sc.rates, from the same state, the bit patterns of the
    row's largest depth and largest |v| of its faces (see `speed_bits`)."""
    h, bed, u, w, qx, rates, sides, side_eta = st.h, st.bed, v.u, v.w, sc.qx, sc.rates, sd.kind, sd.eta
    nx = h.shape[1]
    for k in range(k0, k1):
        for i in range(1, nx):
            qx[k, i] = f.face_flux(u[k, i], h[k, i - 1], bed[k, i - 1], h[k, i], bed[k, i])
        qx[k, 0] = f.boundary_flux(u[k, 0], h[k, 0], bed[k, 0], side_eta[0], 1.0) if sides[0] == OPEN else 0.0
        qx[k, nx] = (-f.boundary_flux(u[k, nx], h[k, nx - 1], bed[k, nx - 1], side_eta[1], -1.0)
                     if sides[1] == OPEN else 0.0)
        speed_bits(h, u, w, rates, k)


@njit(cache=True)
def speed_bits(h, u, w, rates, k):
    """rates[k] = (largest bit pattern of row k's depths as int64, largest of its faces' |u|, |w|
    as int32). For a non-negative float the bit pattern orders like the value and NaN sorts above
    infinity, so integer maxima (which vectorise, unlike float ones) give the largest depth and
    speed and reveal any non-finite value. A negative depth sorts below 0: it is ignored."""
    nx = h.shape[1]
    hb = h[k].view(np.int64)
    ub = u[k].view(np.int32)
    wb = w[k + 1].view(np.int32)
    h_max = 0
    for i in range(nx):
        h_max = max(h_max, hb[i])
    v_max = 0
    for i in range(nx + 1):
        v_max = max(v_max, ub[i] & 0x7FFFFFFF)
    for i in range(nx):
        v_max = max(v_max, wb[i] & 0x7FFFFFFF)
    if k == 0:
        wb0 = w[0].view(np.int32)
        for i in range(nx):
            v_max = max(v_max, wb0[i] & 0x7FFFFFFF)
    rates[k, 0] = h_max
    rates[k, 1] = v_max


@njit(cache=True)
def outflow_max(u, w):
    """The largest sum of a cell's outgoing face speeds, m/s (`formulas.cell_outflow`)."""
    nz, nx = w.shape[0] - 1, w.shape[1]
    out = 0.0
    for k in range(nz):
        for i in range(nx):
            out = max(out, f.cell_outflow(u[k, i], u[k, i + 1], w[k, i], w[k + 1, i]))
    return out


@njit(cache=True)
def z_fluxes(st, v, sc, sd, k0, k1):
    """Rows k0..k1-1 of sc.qz (0..nz): `x_fluxes` across z faces; rows 0 and nz are the sides."""
    h, bed, w, qz, sides, side_eta = st.h, st.bed, v.w, sc.qz, sd.kind, sd.eta
    nz, nx = h.shape
    for k in range(k0, k1):
        if k == 0:
            for i in range(nx):
                qz[0, i] = f.boundary_flux(w[0, i], h[0, i], bed[0, i], side_eta[2], 1.0) if sides[2] == OPEN else 0.0
        elif k == nz:
            for i in range(nx):
                qz[nz, i] = (-f.boundary_flux(w[nz, i], h[nz - 1, i], bed[nz - 1, i], side_eta[3], -1.0)
                             if sides[3] == OPEN else 0.0)
        else:
            for i in range(nx):
                qz[k, i] = f.face_flux(w[k, i], h[k - 1, i], bed[k - 1, i], h[k, i], bed[k, i])


@njit(cache=True)
def depths(st, sc, c, k0, k1):
    """Rows k0..k1-1 of st.h: continuity in flux form, h -= c (q_e - q_w + q_n - q_s), c = dt / dx;
    >= 0 by the substep length (the clip only catches round-off)."""
    h, qx, qz = st.h, sc.qx, sc.qz
    nx = h.shape[1]
    for k in range(k0, k1):
        for i in range(nx):
            h[k, i] = max(h[k, i] - c * (qx[k, i + 1] - qx[k, i] + qz[k + 1, i] - qz[k, i]), 0.0)


@njit(cache=True, inline="always")
def _u_face(h, bed, u, ax, qx, qz, k, i, ks, kn, g, dt, c, eddy_c):
    """The new x-face velocity u[k, i] before friction; ks, kn: the rows of the faces beside it across z."""
    return f.face_velocity(
        u[k, i], u[k, i - 1], u[k, i + 1], u[ks, i], u[kn, i],
        0.5 * (qx[k, i - 1] + qx[k, i]), 0.5 * (qx[k, i] + qx[k, i + 1]),
        0.5 * (qz[k, i - 1] + qz[k, i]), 0.5 * (qz[k + 1, i - 1] + qz[k + 1, i]),
        h[k, i - 1], bed[k, i - 1], h[k, i], bed[k, i], ax[k, i], g, dt, c, eddy_c)


@njit(cache=True, error_model="numpy")
def u_momentum(st, v, vn, sc, sd, p, dt, k0, k1):
    """Rows k0..k1-1 of the new x-face velocities vn.u from v: interior faces by `formulas.face_velocity`
    then `formulas.friction` (where the level has friction: a second loop over the row, on the
    flow depths the first one kept in `depth`), the sides as walls (0) or open (`open_velocity`,
    no friction). error_model "numpy": no division here can be by zero (each divisor is >= DRY
    or >= 1), and without the checks for it the face loops vectorise."""
    h, bed, u, ax, qx, qz, un, sides, side_eta = st.h, st.bed, v.u, st.ax, sc.qx, sc.qz, vn.u, sd.kind, sd.eta
    nz, nx = h.shape
    g = p[I_G]
    c = dt / p[I_DX]
    eddy_c = p[I_EDDY] * dt / (p[I_DX] * p[I_DX])
    fric, lam_a, lam_b, man_c = friction_constants(p, dt)
    depth = np.empty(nx + 1, np.float32)    # a row's face flow depths, for its friction loop
    for k in range(k0, k1):
        ks = k - 1 if k > 0 else k          # the faces beside this one across z (itself at a wall)
        kn = k + 1 if k < nz - 1 else k
        if fric:
            for i in range(1, nx):
                un[k, i] = _u_face(h, bed, u, ax, qx, qz, k, i, ks, kn, g, dt, c, eddy_c)
                depth[i] = np.float32(f.flow_depth(h[k, i - 1], bed[k, i - 1], h[k, i], bed[k, i]))
            for i in range(1, nx):
                un[k, i] = f.friction(un[k, i], depth[i], lam_a, lam_b, man_c)
        else:
            for i in range(1, nx):
                un[k, i] = _u_face(h, bed, u, ax, qx, qz, k, i, ks, kn, g, dt, c, eddy_c)
        un[k, 0] = f.open_velocity(h[k, 0], bed[k, 0], side_eta[0], g, -1.0) if sides[0] == OPEN else 0.0
        un[k, nx] = f.open_velocity(h[k, nx - 1], bed[k, nx - 1], side_eta[1], g, 1.0) if sides[1] == OPEN else 0.0


@njit(cache=True, inline="always")
def _w_face(h, bed, w, az, qx, qz, k, i, iw, ie, g, dt, c, eddy_c):
    """The new z-face velocity w[k, i]; iw, ie: the columns of the faces beside it across x."""
    return f.face_velocity(
        w[k, i], w[k - 1, i], w[k + 1, i], w[k, iw], w[k, ie],
        0.5 * (qz[k - 1, i] + qz[k, i]), 0.5 * (qz[k, i] + qz[k + 1, i]),
        0.5 * (qx[k - 1, i] + qx[k, i]), 0.5 * (qx[k - 1, i + 1] + qx[k, i + 1]),
        h[k - 1, i], bed[k - 1, i], h[k, i], bed[k, i], az[k, i], g, dt, c, eddy_c)


@njit(cache=True, error_model="numpy")
def w_momentum(st, v, vn, sc, sd, p, dt, k0, k1):
    """Rows k0..k1-1 (0..nz) of the new z-face velocities vn.w: `u_momentum` with the axes exchanged."""
    h, bed, w, az, qx, qz, wn, sides, side_eta = st.h, st.bed, v.w, st.az, sc.qx, sc.qz, vn.w, sd.kind, sd.eta
    nz, nx = h.shape
    g = p[I_G]
    c = dt / p[I_DX]
    eddy_c = p[I_EDDY] * dt / (p[I_DX] * p[I_DX])
    fric, lam_a, lam_b, man_c = friction_constants(p, dt)
    depth = np.empty(nx, np.float32)        # a row's face flow depths, for its friction loop
    for k in range(k0, k1):
        if k == 0:
            for i in range(nx):
                wn[0, i] = f.open_velocity(h[0, i], bed[0, i], side_eta[2], g, -1.0) if sides[2] == OPEN else 0.0
        elif k == nz:
            for i in range(nx):
                wn[nz, i] = (f.open_velocity(h[nz - 1, i], bed[nz - 1, i], side_eta[3], g, 1.0)
                             if sides[3] == OPEN else 0.0)
        else:
            # the first and last columns have no face beside them across x: they take themselves
            wn[k, 0] = _w_face(h, bed, w, az, qx, qz, k, 0, 0, min(1, nx - 1), g, dt, c, eddy_c)
            if fric:
                for i in range(1, nx - 1):
                    wn[k, i] = _w_face(h, bed, w, az, qx, qz, k, i, i - 1, i + 1, g, dt, c, eddy_c)
                    depth[i] = np.float32(f.flow_depth(h[k - 1, i], bed[k - 1, i], h[k, i], bed[k, i]))
            else:
                for i in range(1, nx - 1):
                    wn[k, i] = _w_face(h, bed, w, az, qx, qz, k, i, i - 1, i + 1, g, dt, c, eddy_c)
            if nx > 1:
                wn[k, nx - 1] = _w_face(h, bed, w, az, qx, qz, k, nx - 1, nx - 2, nx - 1, g, dt, c, eddy_c)
            if fric:
                for i in (0, nx - 1):           # the edge faces (taken once more where nx = 1: a no-op)
                    depth[i] = np.float32(f.flow_depth(h[k - 1, i], bed[k - 1, i], h[k, i], bed[k, i]))
                for i in range(nx):
                    wn[k, i] = f.friction(wn[k, i], depth[i], lam_a, lam_b, man_c)


@njit(cache=True)
def friction_constants(p, dt):
    """(whether the level has bottom friction, then the constants of `formulas.friction` for a
    substep of dt)."""
    nu, manning = p[I_NU], p[I_MANNING]
    return (nu > 0.0 or manning > 0.0,) + f.friction_constants(nu, p[I_DELTA], p[I_G], manning, dt)


@njit(cache=True)
def boundary_volume(qx, qz, c, dx):
    """m^3 that came in through the sides in a substep (walls carry zero), summed in a fixed order."""
    nz = qx.shape[0]
    nx = qz.shape[1]
    total = 0.0
    for k in range(nz):
        total += qx[k, 0] - qx[k, nx]
    for i in range(nx):
        total += qz[0, i] - qz[nz, i]
    return total * c * dx * dx


@njit(cache=True)
def clear(a):
    """a[...] = 0 (external accelerations last one step)."""
    for k in range(a.shape[0]):
        for i in range(a.shape[1]):
            a[k, i] = 0.0


@njit(cache=True)
def copy(src, dst):
    for k in range(src.shape[0]):
        for i in range(src.shape[1]):
            dst[k, i] = src[k, i]


@njit(cache=True)
def scale(u, w, factor):
    """u, w *= factor (float32 products, one thread)."""
    for k in range(u.shape[0]):
        for i in range(u.shape[1]):
            u[k, i] *= factor
    for k in range(w.shape[0]):
        for i in range(w.shape[1]):
            w[k, i] *= factor


@njit(cache=True)
def reduce_rates(rates):
    """(largest depth, largest |v|, whether any is not finite) over the rows of `speed_bits`."""
    hb = np.zeros(1, np.int64)
    vb = np.zeros(1, np.int32)
    for k in range(rates.shape[0]):
        hb[0] = max(hb[0], rates[k, 0])
        vb[0] = max(vb[0], rates[k, 1])
    h_max = hb.view(np.float64)[0]
    v_max = float(vb.view(np.float32)[0])
    return h_max, v_max, not (h_max < BIG and v_max < BIG)


@njit(cache=True)
def substep(h, u, w, rates, p, remaining, first):
    """(status, length, parts) of the next substep: `formulas.substep_length` from the speeds in
    `rates`; the exact outgoing speed sum (a pass over u and w) only where its bound 4 |v|_max could
    bind, i.e. in fast flow. On the step's first substep (`first`) the count is at least
    min(last step's count, the count at cfl (1 - SLACK)) (`formulas.substep_count`)."""
    dx = p[I_DX]
    h_max, v_max, bad = reduce_rates(rates)
    if bad:
        return NOT_FINITE, 0.0, 0
    if v_max > p[I_RUNAWAY]:
        return RUNAWAY_STATUS, 0.0, 0
    a_max = math.sqrt(p[I_G] * h_max) + v_max
    s, m = f.substep_length(remaining, a_max, 0.0, dx, p[I_CFL])
    if 4.0 * v_max * s > dx:
        s, m = f.substep_length(remaining, a_max, outflow_max(u, w), dx, p[I_CFL])
    if first:
        m = f.substep_count(m, p[I_LAST_SUBSTEPS], remaining, a_max, dx, p[I_CFL])
        s = remaining / m
    return OK, s, m


@njit(cache=True)
def advance(st, sc, sd, p, dt):
    """Take one step of dt in place on the State st (with its Scratch sc and Sides sd): substeps of
    fluxes (and the cell speeds) -> depths -> momentum, each as long as the speeds at its start
    allow (`formulas.substep_length`). Clears st.ax, st.az. Returns (status, seconds done,
    substeps, m^3 in through open sides).

    A further stage of the water step (e.g. dispersive waves) acting per substep goes after the
    momentum phase, on (st.h, v); one acting per step goes after this call."""
    nz = st.h.shape[0]
    dx = p[I_DX]
    v, vn = Faces(st.u, st.w), Faces(sc.u, sc.w)    # the velocities read, and those written, by a substep
    t = 0.0
    n = 0
    bvol = 0.0
    status = OK
    while t < dt:
        x_fluxes(st, v, sc, sd, 0, nz)
        z_fluxes(st, v, sc, sd, 0, nz + 1)
        status, s, m = substep(st.h, v.u, v.w, sc.rates, p, dt - t, n == 0)
        if status == OK and n >= p[I_MAX_SUBSTEPS]:
            status = RUNAWAY_STATUS
        if status != OK:
            break
        depths(st, sc, s / dx, 0, nz)
        bvol += boundary_volume(sc.qx, sc.qz, s / dx, dx)
        u_momentum(st, v, vn, sc, sd, p, s, 0, nz)
        w_momentum(st, v, vn, sc, sd, p, s, 0, nz + 1)
        v, vn = vn, v
        n += 1
        t = dt if m == 1 else t + s
    if n % 2 == 1:                      # the newest velocities are in the scratch arrays
        copy(v.u, st.u)
        copy(v.w, st.w)
    clear(st.ax)
    clear(st.az)
    return status, t, n, bvol
