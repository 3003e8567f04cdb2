"""The plain traversal: one loop nest per phase of a substep, serial. It is the readable
specification of the water step; `fast.py` runs the same phases over rows on threads and must
equal it bit for bit.

Layout (SI units, index [k, i] <-> (z, x)):
    h, bed  (nz, nx)      float64   depth and bed height at cell centres, m
    u       (nz, nx + 1)  float32   x-face velocity; u[k, i] between cells (k, i - 1) and (k, i), m/s
    w       (nz + 1, nx)  float32   z-face velocity; w[k, i] between cells (k - 1, i) and (k, i), m/s
    ax, az                float32   external acceleration on the faces, m/s^2
    qx, qz                float64   scratch: face discharges of the substep, m^2/s
    un, wn                float32   scratch: the new velocities
    rates   (nz, 3)       float64   scratch: per row, the largest sqrt(g h) + |v|, the largest sum of
                                    outgoing face speeds of a cell, and 1.0 where a value is not finite
A substep is: fluxes -> depths -> momentum -> speeds (for the next substep's length). The equations
are in `formulas`.
"""
from __future__ import annotations

from numba import njit

from engine.water import formulas as f
from engine.water.params import (BIG, I_CFL, I_DELTA, I_DX, I_EDDY, I_G, I_MANNING, I_MAX_SUBSTEPS, I_NU,
                                 I_RUNAWAY, NOT_FINITE, OK, OPEN, RUNAWAY_STATUS)


@njit(cache=True)
def speeds(h, u, w, g, rates, k0, k1):
    """Rows k0 <= k < k1 of `rates`: the largest sqrt(g h) + |v| of the row's cells, the largest
    outgoing speed sum, and whether any depth or velocity there is not finite."""
    nx = h.shape[1]
    for k in range(k0, k1):
        a_max = 0.0
        out_max = 0.0
        bad = 0.0
        for i in range(nx):
            a, out = f.cell_speeds(h[k, i], u[k, i], u[k, i + 1], w[k, i], w[k + 1, i], g)
            if not (a < BIG and out < BIG):
                bad = 1.0
            a_max = max(a_max, a)
            out_max = max(out_max, out)
        rates[k, 0] = a_max
        rates[k, 1] = out_max
        rates[k, 2] = bad


@njit(cache=True)
def x_fluxes(h, bed, u, qx, sides, side_eta, k0, k1):
    """Rows k0..k1-1 of qx: discharge q = u h* (upwind), open sides by `boundary_flux`, walls zero."""
    nx = h.shape[1]
    for k in range(k0, k1):
        for i in range(1, nx):
            qx[k, i] = f.face_flux(u[k, i], h[k, i - 1], bed[k, i - 1], h[k, i], bed[k, i])
        qx[k, 0] = f.boundary_flux(u[k, 0], h[k, 0], bed[k, 0], side_eta[0], 1.0) if sides[0] == OPEN else 0.0
        qx[k, nx] = (-f.boundary_flux(u[k, nx], h[k, nx - 1], bed[k, nx - 1], side_eta[1], -1.0)
                     if sides[1] == OPEN else 0.0)


@njit(cache=True)
def z_fluxes(h, bed, w, qz, sides, side_eta, k0, k1):
    """Rows k0..k1-1 of qz (0..nz): `x_fluxes` across z faces; rows 0 and nz are the sides."""
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
def depths(h, qx, qz, c, k0, k1):
    """Rows k0..k1-1: continuity in flux form, h -= c (q_e - q_w + q_n - q_s); >= 0 by the substep
    length (the clip only catches round-off)."""
    nx = h.shape[1]
    for k in range(k0, k1):
        for i in range(nx):
            h[k, i] = max(h[k, i] - c * (qx[k, i + 1] - qx[k, i] + qz[k + 1, i] - qz[k, i]), 0.0)


@njit(cache=True)
def u_momentum(h, bed, u, ax, qx, qz, un, sides, side_eta, p, dt, k0, k1):
    """Rows k0..k1-1 of the new x-face velocities un: interior faces by `formulas.momentum`, the
    sides as walls (0) or open (`open_velocity`)."""
    nz, nx = h.shape
    g = p[I_G]
    c = dt / p[I_DX]
    eddy_c = p[I_EDDY] * dt / (p[I_DX] * p[I_DX])
    for k in range(k0, k1):
        for i in range(1, nx):
            h_l, b_l, h_r, b_r = h[k, i - 1], bed[k, i - 1], h[k, i], bed[k, i]
            h_f = f.flow_depth(h_l, b_l, h_r, b_r)
            if h_f <= f.DRY:
                un[k, i] = 0.0
                continue
            v = float(u[k, i])
            v_s = float(u[k - 1, i]) if k > 0 else v
            v_n = float(u[k + 1, i]) if k < nz - 1 else v
            adv = f.advect(v, float(u[k, i - 1]), float(u[k, i + 1]), 0.5 * (qx[k, i - 1] + qx[k, i]),
                           0.5 * (qx[k, i] + qx[k, i + 1]), v_s, v_n, 0.5 * (qz[k, i - 1] + qz[k, i]),
                           0.5 * (qz[k + 1, i - 1] + qz[k + 1, i]), 0.5 * (h_l + h_r), c)
            lap = float(u[k, i - 1]) + float(u[k, i + 1]) + v_s + v_n - 4.0 * v
            un[k, i] = f.momentum(v, adv, f.surface_step(h_l, b_l, h_r, b_r), float(ax[k, i]), lap, h_f, dt, c, g,
                                  p[I_NU], p[I_DELTA], p[I_MANNING], eddy_c)
        un[k, 0] = f.open_velocity(h[k, 0], bed[k, 0], side_eta[0], g, -1.0) if sides[0] == OPEN else 0.0
        un[k, nx] = f.open_velocity(h[k, nx - 1], bed[k, nx - 1], side_eta[1], g, 1.0) if sides[1] == OPEN else 0.0


@njit(cache=True)
def w_momentum(h, bed, w, az, qx, qz, wn, sides, side_eta, p, dt, k0, k1):
    """Rows k0..k1-1 (0..nz) of the new z-face velocities wn: `u_momentum` with the axes exchanged."""
    nz, nx = h.shape
    g = p[I_G]
    c = dt / p[I_DX]
    eddy_c = p[I_EDDY] * dt / (p[I_DX] * p[I_DX])
    for k in range(k0, k1):
        if k == 0:
            for i in range(nx):
                wn[0, i] = f.open_velocity(h[0, i], bed[0, i], side_eta[2], g, -1.0) if sides[2] == OPEN else 0.0
            continue
        if k == nz:
            for i in range(nx):
                wn[nz, i] = (f.open_velocity(h[nz - 1, i], bed[nz - 1, i], side_eta[3], g, 1.0)
                             if sides[3] == OPEN else 0.0)
            continue
        for i in range(nx):
            h_l, b_l, h_r, b_r = h[k - 1, i], bed[k - 1, i], h[k, i], bed[k, i]
            h_f = f.flow_depth(h_l, b_l, h_r, b_r)
            if h_f <= f.DRY:
                wn[k, i] = 0.0
                continue
            v = float(w[k, i])
            v_w = float(w[k, i - 1]) if i > 0 else v
            v_e = float(w[k, i + 1]) if i < nx - 1 else v
            adv = f.advect(v, float(w[k - 1, i]), float(w[k + 1, i]), 0.5 * (qz[k - 1, i] + qz[k, i]),
                           0.5 * (qz[k, i] + qz[k + 1, i]), v_w, v_e, 0.5 * (qx[k - 1, i] + qx[k, i]),
                           0.5 * (qx[k - 1, i + 1] + qx[k, i + 1]), 0.5 * (h_l + h_r), c)
            lap = float(w[k - 1, i]) + float(w[k + 1, i]) + v_w + v_e - 4.0 * v
            wn[k, i] = f.momentum(v, adv, f.surface_step(h_l, b_l, h_r, b_r), float(az[k, i]), lap, h_f, dt, c, g,
                                  p[I_NU], p[I_DELTA], p[I_MANNING], eddy_c)


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
    """(largest a, largest outgoing sum, any non-finite) over the rows, in row order."""
    a = 0.0
    out = 0.0
    bad = False
    for k in range(rates.shape[0]):
        a = max(a, rates[k, 0])
        out = max(out, rates[k, 1])
        bad = bad or rates[k, 2] != 0.0
    return a, out, bad


@njit(cache=True)
def advance(h, bed, u, w, ax, az, scratch_u, scratch_w, qx, qz, rates, sides, side_eta, p, dt):
    """Take one step of dt in place: substeps of fluxes -> depths -> momentum, each as long as the
    speeds at its start allow (`formulas.substep_length`). Clears ax, az. Returns (status, seconds
    done, substeps, m^3 in through open sides).

    A further stage of the water step (e.g. dispersive waves) acting per substep goes after the
    momentum phase, on (h, uc, wc); one acting per step goes after this call."""
    nz = h.shape[0]
    g, dx = p[I_G], p[I_DX]
    un, wn = scratch_u, scratch_w
    uc, wc = u, w
    t = 0.0
    n = 0
    bvol = 0.0
    status = OK
    speeds(h, uc, wc, g, rates, 0, nz)
    while True:
        a_max, out_max, bad = reduce_rates(rates)
        if bad:
            status = NOT_FINITE
            break
        if a_max > p[I_RUNAWAY] or n >= p[I_MAX_SUBSTEPS]:
            status = RUNAWAY_STATUS
            break
        remaining = dt - t
        if remaining <= 0.0:
            break
        s, m = f.substep_length(remaining, a_max, out_max, dx, p[I_CFL])
        x_fluxes(h, bed, uc, qx, sides, side_eta, 0, nz)
        z_fluxes(h, bed, wc, qz, sides, side_eta, 0, nz + 1)
        depths(h, qx, qz, s / dx, 0, nz)
        bvol += boundary_volume(qx, qz, s / dx, dx)
        u_momentum(h, bed, uc, ax, qx, qz, un, sides, side_eta, p, s, 0, nz)
        w_momentum(h, bed, wc, az, qx, qz, wn, sides, side_eta, p, s, 0, nz + 1)
        uc, un = un, uc
        wc, wn = wn, wc
        speeds(h, uc, wc, g, rates, 0, nz)
        n += 1
        t = dt if m == 1 else t + s
    if n % 2 == 1:                      # the newest velocities are in the scratch arrays
        copy(uc, u)
        copy(wc, w)
    clear(ax)
    clear(az)
    return status, t, n, bvol
