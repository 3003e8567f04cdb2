"""The fast traversal: the plain traversal's phases, each over blocks of ROWS rows on numba's
threads. Every value is computed by the same row function with the same operands as in
`plain`, and the only reduction (the substep length) is a max over per-row maxima taken in row
order, so its one contract holds by construction: the same bits as `plain.advance`, for any
number of threads (tested)."""
from __future__ import annotations

from numba import njit, prange

from engine.water import plain
from engine.water.records import Faces
from engine.water.params import I_DX, I_MAX_SUBSTEPS, OK, RUNAWAY_STATUS

ROWS = 8   # rows per block: a thread's unit of work


@njit(cache=True, parallel=True)
def fluxes(st, v, sc, sd):
    n = st.h.shape[0]
    for b in prange((n + ROWS - 1) // ROWS):
        plain.x_fluxes(st, v, sc, sd, b * ROWS, min(n, b * ROWS + ROWS))
    for b in prange((n + ROWS) // ROWS):
        plain.z_fluxes(st, v, sc, sd, b * ROWS, min(n + 1, b * ROWS + ROWS))


@njit(cache=True, parallel=True)
def depths(st, sc, c):
    n = st.h.shape[0]
    for b in prange((n + ROWS - 1) // ROWS):
        plain.depths(st, sc, c, b * ROWS, min(n, b * ROWS + ROWS))


@njit(cache=True, parallel=True)
def momentum(st, v, vn, sc, sd, p, dt):
    n = st.h.shape[0]
    for b in prange((n + ROWS - 1) // ROWS):
        plain.u_momentum(st, v, vn, sc, sd, p, dt, b * ROWS, min(n, b * ROWS + ROWS))
    for b in prange((n + ROWS) // ROWS):
        plain.w_momentum(st, v, vn, sc, sd, p, dt, b * ROWS, min(n + 1, b * ROWS + ROWS))


@njit(cache=True)
def advance(st, sc, sd, p, dt):
    """`plain.advance` with each phase on threads (same arguments, same result bit for bit)."""
    dx = p[I_DX]
    v, vn = Faces(st.u, st.w), Faces(sc.u, sc.w)
    t = 0.0
    n = 0
    bvol = 0.0
    status = OK
    while t < dt:
        fluxes(st, v, sc, sd)
        status, s, m = plain.substep(st.h, v.u, v.w, sc.rates, p, dt - t, n == 0)
        if status == OK and n >= p[I_MAX_SUBSTEPS]:
            status = RUNAWAY_STATUS
        if status != OK:
            break
        depths(st, sc, s / dx)
        bvol += plain.boundary_volume(sc.qx, sc.qz, s / dx, dx)
        momentum(st, v, vn, sc, sd, p, s)
        v, vn = vn, v
        n += 1
        t = dt if m == 1 else t + s
    if n % 2 == 1:
        plain.copy(v.u, st.u)
        plain.copy(v.w, st.w)
    plain.clear(st.ax)
    plain.clear(st.az)
    return status, t, n, bvol
