"""Shallow-water kernels on a staggered grid (numba).

Layout (SI units, index [k, i] <-> (z, x)):

    h, bed  (nz, nx)      depth and bed height at cell centres, m
    u       (nz, nx + 1)  x-face velocity; u[k, i] lies between cells (k, i - 1) and (k, i), m/s
    w       (nz + 1, nx)  z-face velocity; w[k, i] lies between cells (k - 1, i) and (k, i), m/s

`advance` takes one fixed step, split into CFL substeps. Every kernel here has one fixed set of
numba flags: the two sweeps that use prange (`_stats`, `_substep`) are compiled parallel; `advance`
(the serial substep loop) and the per-face helpers are serial, the helpers inlined by LLVM. `engine.kernels.reference` is the same scheme in plain numpy.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

# what a side of the pool does (the `sides` array holds one code per side, in SIDE order)
REFLECTIVE = 0      # zero normal velocity
OPEN = 1            # absorbing / outflow: characteristic condition against an outside surface
SIDE = ("x_min", "x_max", "z_min", "z_max")

# Scheme constants; each is passed to `advance` so tests and levels may vary them.
CFL = 0.6           # (sqrt(g h) + |v|) dt / dx per substep; forward-backward gravity waves need < 1/sqrt(2) in 2D
FLOW_CFL = 0.25     # |v| dt / dx per substep: four outgoing faces can at most empty a cell, so h >= 0
CLAMP = 0.5         # |v| dt / dx cap after the velocity update: no shoreline spikes, twice FLOW_CFL so flow can still speed up
DRY = 1e-6          # m: a face carries flow only where the higher surface is this far above the higher bed
MAX_SUBSTEPS = 1000  # more substeps than this in one fixed step is a runaway
RUNAWAY = 1000.0    # m/s: a water speed above this is a runaway

# status codes returned by `advance`
OK, NOT_FINITE, RUNAWAY_STATUS = 0, 1, 2

# columns of the per-row statistics scratch `rows` (shape (nz + 1, NSTAT))
_HMAX, _VMAX, _VK, _VI, _BAD, _BK, _BI, _BFLUX = range(8)
NSTAT = 8


@njit(cache=True)
def _lerp2(a, k, i, kk, ii, fb, fa):
    """Bilinear sample between a[k, i] and its upwind neighbours a[kk, *], a[*, ii] (weights fb, fa)."""
    return (1.0 - fb) * ((1.0 - fa) * a[k, i] + fa * a[k, ii]) + fb * ((1.0 - fa) * a[kk, i] + fa * a[kk, ii])


@njit(cache=True)
def _flux(vel, h_l, b_l, h_r, b_r, dry):
    """Volume flux per unit width through an interior face, m^2/s: velocity times upwind depth.

    A face whose higher surface does not reach over the higher bed carries nothing.
    """
    if vel == 0.0:
        return 0.0
    bmax = max(b_l, b_r)
    if max(b_l + h_l, b_r + h_r) <= bmax + dry:
        return 0.0
    return vel * (h_l if vel > 0.0 else h_r)


@njit(cache=True)
def _accelerate(vel, h_l, b_l, h_r, b_r, acc, gdt_dx, dt, vcap, dry):
    """New face velocity from the surface gradient and the external acceleration, m/s.

    Surfaces below the higher bed are raised to it (hydrostatic reconstruction): water under a step
    presses on the step, not on the water above it, so still water stays still over any bed and a
    spill over a ledge is driven by the depth on the ledge, not by the drop.
    """
    bmax = max(b_l, b_r)
    e_l = b_l + h_l
    e_r = b_r + h_r
    if max(e_l, e_r) <= bmax + dry:
        return 0.0
    v = vel - gdt_dx * (max(e_r, bmax) - max(e_l, bmax)) + acc * dt
    return min(max(v, -vcap), vcap)


@njit(cache=True)
def _open_velocity(h_in, b_in, eta_out, g, outward, vcap):
    """Face velocity of an open side: the incoming characteristic carries the outside state at rest.

    u_n = 2 (sqrt(g h_in) - sqrt(g h_out)) along the outward normal, h_out = max(eta_out - bed, 0):
    a wave leaving the pool takes its own Riemann invariant out with it and little comes back.
    """
    h_out = max(eta_out - b_in, 0.0)
    v = outward * 2.0 * (math.sqrt(g * h_in) - math.sqrt(g * h_out))
    return min(max(v, -vcap), vcap)


@njit(cache=True)
def _boundary_flux(vel, h_in, b_in, eta_out, inward):
    """Volume flux per unit width into the pool through an open side, m^2/s (upwind depth)."""
    if vel == 0.0:
        return 0.0
    if vel * inward > 0.0:
        return vel * inward * max(eta_out - b_in, 0.0)
    return vel * inward * h_in


@njit(cache=True)
def advance(h, bed, u, w, ax, az, u2, w2, hn, rows, sides, side_eta, dx, g, dt, has_ext,
            cfl, flow_cfl, clamp, dry, max_substeps, runaway):
    """Take one fixed step of dt seconds, in CFL substeps; update h, u, w in place.

    Equations (shallow water, bed height b, surface eta = b + h, external acceleration a):

        h_t + div(h v) = 0                              [m/s]
        v_t + (v . grad) v = -g grad(eta) + a           [m/s^2]

    Each substep of length s: (1) semi-Lagrangian advection of u and w, bilinear, backtraced by the
    face velocity (|v| s / dx <= FLOW_CFL < 1, so the departure point lies in the upwind cell and
    the sample is a 2 x 2 upwind stencil, not a gather); (2) depth in flux form with the upwind
    depth, h -= s / dx (F_r - F_l + G_t - G_b), which conserves volume to round-off; (3) velocity
    from the new surface gradient plus a, clamped to |v| s / dx <= clamp; (4) walls: reflective
    sides get zero normal velocity, open sides the characteristic condition of `_open_velocity`.
    The substep is s = min(cfl dx / (sqrt(g h_max) + v_max), flow_cfl dx / v_max), re-chosen after
    every substep so the last one ends exactly at dt.

    Scratch: u2, w2, hn shaped like u, w, h; rows (nz + 1, NSTAT). `sides` holds REFLECTIVE or OPEN
    for x_min, x_max, z_min, z_max and `side_eta` the outside surface height of each, m.
    Returns (status, k, i, t, substeps, boundary_volume): status OK, NOT_FINITE or RUNAWAY_STATUS
    with the offending cell (k, i) and the time into the step t; boundary_volume is the net m^3
    that came in through open sides.
    """
    nz, nx = h.shape
    _stats(h, u, w, rows)
    remaining = dt
    elapsed = 0.0
    bvol = 0.0
    n = 0
    while True:
        hmax = 0.0
        vmax = 0.0
        vk = 0
        vi = 0
        for k in range(nz + 1):
            if rows[k, _BAD] != 0.0:
                return NOT_FINITE, int(rows[k, _BK]), int(rows[k, _BI]), elapsed, n, bvol
            hmax = max(hmax, rows[k, _HMAX])
            if rows[k, _VMAX] > vmax:
                vmax = rows[k, _VMAX]
                vk = int(rows[k, _VK])
                vi = int(rows[k, _VI])
        if remaining <= 0.0:
            break
        speed = math.sqrt(g * hmax) + vmax
        s_cfl = remaining
        if speed > 0.0:
            s_cfl = min(s_cfl, cfl * dx / speed)
        if vmax > 0.0:
            s_cfl = min(s_cfl, flow_cfl * dx / vmax)
        need = int(math.ceil(remaining / s_cfl)) if s_cfl > 0.0 else max_substeps + 1
        if need < 1:
            need = 1
        if vmax > runaway or n + need > max_substeps:
            return RUNAWAY_STATUS, vk, vi, elapsed, n, bvol
        s = remaining if need == 1 else remaining / need
        bvol += _substep(h, bed, u, w, ax, az, u2, w2, hn, rows, sides, side_eta, dx, g, s, has_ext,
                         clamp * dx / s, dry)
        n += 1
        elapsed += s
        remaining = 0.0 if need == 1 else remaining - s
    return OK, 0, 0, elapsed, n, bvol


@njit(cache=True, parallel=True)
def _stats(h, u, w, rows):
    """Fill `rows` with per-row maxima of h and |v| and the first non-finite value of h, u, w."""
    nz, nx = h.shape
    for k in prange(nz + 1):
        kc = min(k, nz - 1)   # the cell row a face row k borders
        hmax = 0.0
        vmax = 0.0
        vk = kc
        vi = 0
        bad = 0.0
        bk = 0
        bi = 0
        if k < nz:
            for i in range(nx):
                x = h[k, i]
                if not (abs(x) < np.inf):
                    bad = 1.0
                    bk = kc
                    bi = i
                hmax = max(hmax, x)
            for i in range(nx + 1):
                x = abs(u[k, i])
                if not (x < np.inf):
                    bad = 1.0
                    bk = kc
                    bi = min(i, nx - 1)
                elif x > vmax:
                    vmax = x
                    vk = kc
                    vi = min(i, nx - 1)
        for i in range(nx):
            x = abs(w[k, i])
            if not (x < np.inf):
                bad = 1.0
                bk = kc
                bi = i
            elif x > vmax:
                vmax = x
                vk = kc
                vi = i
        rows[k, _HMAX] = hmax
        rows[k, _VMAX] = vmax
        rows[k, _VK] = vk
        rows[k, _VI] = vi
        rows[k, _BAD] = bad
        rows[k, _BK] = bk
        rows[k, _BI] = bi


@njit(cache=True, parallel=True)
def _substep(h, bed, u, w, ax, az, u2, w2, hn, rows, sides, side_eta, dx, g, s, has_ext, vcap, dry):
    """Advance one substep of s seconds (see `advance`); return the m^3 that came in through open sides."""
    nz, nx = h.shape
    c = s / dx
    # (1) advection: u -> u2, w -> w2. Boundary faces keep their value (walls set them in (4)).
    for k in prange(nz + 1):
        if k < nz:
            u2[k, 0] = u[k, 0]
            u2[k, nx] = u[k, nx]
            for i in range(1, nx):
                a = u[k, i] * c
                b = 0.25 * (w[k, i - 1] + w[k, i] + w[k + 1, i - 1] + w[k + 1, i]) * c
                a = min(max(a, -1.0), 1.0)
                b = min(max(b, -1.0), 1.0)
                ii = i - 1 if a > 0.0 else i + 1
                kk = k - 1 if b > 0.0 else k + 1
                kk = min(max(kk, 0), nz - 1)
                u2[k, i] = _lerp2(u, k, i, kk, ii, abs(b), abs(a))
        if k == 0 or k == nz:
            for i in range(nx):
                w2[k, i] = w[k, i]
        else:
            for i in range(nx):
                b = w[k, i] * c
                a = 0.25 * (u[k - 1, i] + u[k - 1, i + 1] + u[k, i] + u[k, i + 1]) * c
                a = min(max(a, -1.0), 1.0)
                b = min(max(b, -1.0), 1.0)
                kk = k - 1 if b > 0.0 else k + 1
                ii = i - 1 if a > 0.0 else i + 1
                ii = min(max(ii, 0), nx - 1)
                w2[k, i] = _lerp2(w, k, i, kk, ii, abs(b), abs(a))
    # (2) depth, flux form with upwind depth: every interior flux leaves one cell and enters the next.
    for k in prange(nz):
        inflow = 0.0
        if sides[0] == OPEN:
            f_l = _boundary_flux(u2[k, 0], h[k, 0], bed[k, 0], side_eta[0], 1.0)
            inflow += f_l
        else:
            f_l = 0.0
        for i in range(nx):
            if i < nx - 1:
                f_r = _flux(u2[k, i + 1], h[k, i], bed[k, i], h[k, i + 1], bed[k, i + 1], dry)
            elif sides[1] == OPEN:
                f_r = -_boundary_flux(u2[k, nx], h[k, i], bed[k, i], side_eta[1], -1.0)
                inflow -= f_r
            else:
                f_r = 0.0
            if k > 0:
                g_b = _flux(w2[k, i], h[k - 1, i], bed[k - 1, i], h[k, i], bed[k, i], dry)
            elif sides[2] == OPEN:
                g_b = _boundary_flux(w2[0, i], h[0, i], bed[0, i], side_eta[2], 1.0)
                inflow += g_b
            else:
                g_b = 0.0
            if k < nz - 1:
                g_t = _flux(w2[k + 1, i], h[k, i], bed[k, i], h[k + 1, i], bed[k + 1, i], dry)
            elif sides[3] == OPEN:
                g_t = -_boundary_flux(w2[nz, i], h[k, i], bed[k, i], side_eta[3], -1.0)
                inflow -= g_t
            else:
                g_t = 0.0
            x = h[k, i] - c * (f_r - f_l + g_t - g_b)
            # round-off only: FLOW_CFL keeps the exact update non-negative
            hn[k, i] = x if x > 0.0 else 0.0
            f_l = f_r
        rows[k, _BFLUX] = inflow * dx * s
    rows[nz, _BFLUX] = 0.0
    # (3) + (4) velocities from the new surface, walls; copy hn into h; statistics for the next substep.
    gc = g * c
    for k in prange(nz + 1):
        kc = min(k, nz - 1)   # the cell row a face row k borders
        vmax = 0.0
        vk = kc
        vi = 0
        bad = 0.0
        bk = 0
        bi = 0
        hmax = 0.0
        if k < nz:
            for i in range(1, nx):
                acc = ax[k, i] if has_ext else 0.0
                x = _accelerate(u2[k, i], hn[k, i - 1], bed[k, i - 1], hn[k, i], bed[k, i], acc, gc, s, vcap, dry)
                u[k, i] = x
            if sides[0] == OPEN:
                u[k, 0] = _open_velocity(hn[k, 0], bed[k, 0], side_eta[0], g, -1.0, vcap)
            else:
                u[k, 0] = 0.0
            if sides[1] == OPEN:
                u[k, nx] = _open_velocity(hn[k, nx - 1], bed[k, nx - 1], side_eta[1], g, 1.0, vcap)
            else:
                u[k, nx] = 0.0
            for i in range(nx + 1):
                x = abs(u[k, i])
                if not (x < np.inf):
                    bad = 1.0
                    bk = kc
                    bi = min(i, nx - 1)
                elif x > vmax:
                    vmax = x
                    vk = kc
                    vi = min(i, nx - 1)
            for i in range(nx):
                x = hn[k, i]
                h[k, i] = x
                if not (x < np.inf):
                    bad = 1.0
                    bk = kc
                    bi = i
                hmax = max(hmax, x)
        if k == 0:
            for i in range(nx):
                w[0, i] = _open_velocity(hn[0, i], bed[0, i], side_eta[2], g, -1.0, vcap) if sides[2] == OPEN else 0.0
        elif k == nz:
            for i in range(nx):
                w[nz, i] = _open_velocity(hn[nz - 1, i], bed[nz - 1, i], side_eta[3], g, 1.0, vcap) if sides[3] == OPEN else 0.0
        else:
            for i in range(nx):
                acc = az[k, i] if has_ext else 0.0
                w[k, i] = _accelerate(w2[k, i], hn[k - 1, i], bed[k - 1, i], hn[k, i], bed[k, i], acc, gc, s, vcap, dry)
        for i in range(nx):
            x = abs(w[k, i])
            if not (x < np.inf):
                bad = 1.0
                bk = kc
                bi = i
            elif x > vmax:
                vmax = x
                vk = kc
                vi = i
        rows[k, _HMAX] = hmax
        rows[k, _VMAX] = vmax
        rows[k, _VK] = vk
        rows[k, _VI] = vi
        rows[k, _BAD] = bad
        rows[k, _BK] = bk
        rows[k, _BI] = bi
    total = 0.0
    for k in range(nz + 1):
        total += rows[k, _BFLUX]
    return total
