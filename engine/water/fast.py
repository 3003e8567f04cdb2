"""The fast traversal: the plain traversal's phases, each over blocks of ROWS rows on numba's
threads. Every value is computed by the same row function with the same operands as in
`plain`, and the only reduction (the substep length) is a max over per-row maxima taken in row
order, so its one contract holds by construction: the same bits as `plain.advance`, for any
number of threads (tested)."""
from __future__ import annotations

from numba import njit, prange

from engine.water import plain
from engine.water.params import I_DX, I_MAX_SUBSTEPS, OK, RUNAWAY_STATUS

ROWS = 8   # rows per block: a thread's unit of work


@njit(cache=True, parallel=True)
def fluxes(h, bed, u, w, qx, qz, rates, sides, side_eta):
    n = h.shape[0]
    for b in prange((n + ROWS - 1) // ROWS):
        plain.x_fluxes(h, bed, u, w, qx, rates, sides, side_eta, b * ROWS, min(n, b * ROWS + ROWS))
    for b in prange((n + ROWS) // ROWS):
        plain.z_fluxes(h, bed, w, qz, sides, side_eta, b * ROWS, min(n + 1, b * ROWS + ROWS))


@njit(cache=True, parallel=True)
def depths(h, qx, qz, c):
    n = h.shape[0]
    for b in prange((n + ROWS - 1) // ROWS):
        plain.depths(h, qx, qz, c, b * ROWS, min(n, b * ROWS + ROWS))


@njit(cache=True, parallel=True)
def momentum(h, bed, u, w, ax, az, qx, qz, un, wn, sides, side_eta, p, dt):
    n = h.shape[0]
    for b in prange((n + ROWS - 1) // ROWS):
        plain.u_momentum(h, bed, u, ax, qx, qz, un, sides, side_eta, p, dt, b * ROWS, min(n, b * ROWS + ROWS))
    for b in prange((n + ROWS) // ROWS):
        plain.w_momentum(h, bed, w, az, qx, qz, wn, sides, side_eta, p, dt, b * ROWS, min(n + 1, b * ROWS + ROWS))


@njit(cache=True)
def advance(h, bed, u, w, ax, az, scratch_u, scratch_w, qx, qz, rates, sides, side_eta, p, dt):
    """`plain.advance` with each phase on threads (same arguments, same result bit for bit)."""
    dx = p[I_DX]
    un, wn = scratch_u, scratch_w
    uc, wc = u, w
    t = 0.0
    n = 0
    bvol = 0.0
    status = OK
    while t < dt:
        fluxes(h, bed, uc, wc, qx, qz, rates, sides, side_eta)
        status, s, m = plain.substep(h, uc, wc, rates, p, dt - t)
        if status == OK and n >= p[I_MAX_SUBSTEPS]:
            status = RUNAWAY_STATUS
        if status != OK:
            break
        depths(h, qx, qz, s / dx)
        bvol += plain.boundary_volume(qx, qz, s / dx, dx)
        momentum(h, bed, uc, wc, ax, az, qx, qz, un, wn, sides, side_eta, p, s)
        uc, un = un, uc
        wc, wn = wn, wc
        n += 1
        t = dt if m == 1 else t + s
    if n % 2 == 1:
        plain.copy(uc, u)
        plain.copy(wc, w)
    plain.clear(ax)
    plain.clear(az)
    return status, t, n, bvol
