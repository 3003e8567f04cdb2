"""Shallow-water kernels on a staggered grid (numba).

Layout (SI units, index [k, i] <-> (z, x)):

    h, bed  (nz, nx)      depth and bed height at cell centres, m
    u       (nz, nx + 1)  x-face velocity; u[k, i] lies between cells (k, i - 1) and (k, i), m/s
    w       (nz + 1, nx)  z-face velocity; w[k, i] lies between cells (k - 1, i) and (k, i), m/s

`advance` takes one fixed step as n equal CFL substeps. The substeps do not each sweep the grid:
`_sweep` runs up to MAX_LEVELS of them in one pass, as a pipeline over cell rows (temporal
blocking). Substep 1 of row j needs the old state of rows j - 2 .. j + 2 only, so once row j + 2
is loaded, substep 1 can finish row j, substep 2 row j - 2, substep 3 row j - 4, and so on; each
substep keeps its last RING rows in a small ring buffer that stays in cache, and the grid is read
and written once per pass instead of once per substep. The pass is split into row chunks, one per
thread; a chunk also computes the 2 x levels rows beyond each of its edges (from a copy taken
before the pass, since the neighbour overwrites them), so chunks never wait for each other and the
result is bit for bit the same for any number of threads.

Every kernel has one fixed set of numba flags: `_sweep` and `_stats` use prange and are compiled
parallel; the rest are serial. Inner loops are branch-free (upwind choices are max/min
arithmetic, wet/dry a select) so LLVM vectorises them. fastmath here allows reassociation and FMA
but never assumes finite values, so NaN and infinities are still caught.
`engine.kernels.reference` is the same scheme in plain numpy.
"""
from __future__ import annotations

import math

import numpy as np
from numba import get_num_threads, njit, prange

# what a side of the pool does (the `sides` array holds one code per side, in SIDE order)
REFLECTIVE = 0      # zero normal velocity
OPEN = 1            # absorbing / outflow: characteristic condition against an outside surface
SIDE = ("x_min", "x_max", "z_min", "z_max")

# Scheme constants; each is passed to `advance` so tests may vary them.
# CFL: (sqrt(g h) + |v|) dt / dx per substep. Forward-backward gravity waves on the 5-point staggered
# stencil are stable for c dt / dx <= 1/sqrt(2) = 0.707 in 2D; a checkerboard of noise stayed
# bounded for 3,000 substeps at 0.70 and blew up at 0.72. 0.66 keeps a 7% margin.
CFL = 0.66
# The substep length is chosen once per step, from the state at its start, so the flow may speed
# up during the step. FLOW_CFL bounds |v| dt / dx at the start; CLAMP caps it after every velocity
# update. CLAMP = 0.25: four outgoing faces can at most empty a cell, so h >= 0 and no volume is
# ever clipped into existence. FLOW_CFL < CLAMP leaves the flow 25% of headroom per step.
FLOW_CFL = 0.2
CLAMP = 0.25
DRY = 1e-6          # m: a face carries flow only where the higher surface is this far above the higher bed
MAX_SUBSTEPS = 1000  # more substeps than this in one fixed step is a runaway
RUNAWAY = 1000.0    # m/s: a water speed above this is a runaway

# Pipeline shape (see the module docstring): each substep trails the one before by LAG rows and
# keeps RING rows (a power of two >= 2 LAG + 2). MAX_LEVELS substeps share one pass over the grid;
# more substeps take more passes.
LAG = 2
RING = 8
_RMASK = RING - 1
MAX_LEVELS = 8
MIN_CHUNK_ROWS = 64   # a thread's chunk is at least this tall: the 2 x LAG x levels halo rows stay a small overhead

# status codes returned by `advance`
OK, NOT_FINITE, RUNAWAY_STATUS = 0, 1, 2

# Per-row statistics scratch `rows`, int64 (nz + 1, 2): the largest |h| and |v| of each row as IEEE
# bit patterns. For non-negative doubles the bit pattern orders like the value, and every NaN sorts
# above infinity, so one integer max (which vectorises, unlike a float max) finds the CFL speed and
# any non-finite value at once.
_H, _V = 0, 1
NSTAT = 2
_ABS = 0x7FFFFFFFFFFFFFFF
_INF_BITS = 0x7FF0000000000000

_FAST = {"nsz", "arcp", "contract", "reassoc"}   # no nnan/ninf: non-finite values must stay visible

@njit(cache=True, fastmath=_FAST)
def _upwind(a, lo, mid, hi):
    """Sample a row at the point displaced by -a cells: linear between mid and its upwind neighbour."""
    return mid - max(a, 0.0) * (mid - lo) - min(a, 0.0) * (hi - mid)


@njit(cache=True, fastmath=_FAST)
def _sample(r0, r1, r2, i, a, b):
    """Bilinear sample around r1[i] displaced by (-a, -b) cells: upwind in x along three rows, then in z.

    |a|, |b| <= 1 put the departure point inside the 2 x 2 upwind stencil, so no gather is needed;
    r0, r1, r2 are the rows behind, at and ahead of the face along z. The neighbours are written
    i - 1 and i + 1 here, not passed in: LLVM then proves them in bounds and vectorises the loop.
    """
    return _upwind(b, _upwind(a, r0[i - 1], r0[i], r0[i + 1]), _upwind(a, r1[i - 1], r1[i], r1[i + 1]),
                   _upwind(a, r2[i - 1], r2[i], r2[i + 1]))


@njit(cache=True)
def _sample_edge(r0, r1, r2, i, im, ip, a, b):
    """`_sample` at the first or last column, the missing neighbour clamped to the edge."""
    return _upwind(b, _upwind(a, r0[im], r0[i], r0[ip]), _upwind(a, r1[im], r1[i], r1[ip]),
                   _upwind(a, r2[im], r2[i], r2[ip]))


@njit(cache=True, fastmath=_FAST)
def _front(v, h_l, h_r, v_behind_l, v_ahead_r, dry):
    """Carry the flow onto a dry cell: at a wet/dry face the water arrives with the velocity behind it.

    Backtracing from a face that still holds zero velocity (it was dry) samples zero, so a front
    running onto a dry bed would only be pushed by the thin tip's own tiny surface gradient and
    stall into a bore. The face in front of the water takes the velocity of the face behind it
    instead, when that one flows towards the dry cell (v_behind_l > 0 into h_r, v_ahead_r < 0 into h_l).
    """
    onto_r = h_r <= dry and h_l > dry
    onto_l = h_l <= dry and h_r > dry
    v = max(v, max(v_behind_l, 0.0)) if onto_r else v
    return min(v, min(v_ahead_r, 0.0)) if onto_l else v


@njit(cache=True, fastmath=_FAST)
def _flux(vel, h_l, b_l, h_r, b_r, dry):
    """Volume flux per unit width through an interior face, m^2/s: velocity times upwind depth.

    A face whose higher surface does not reach over the higher bed carries nothing.
    """
    f = max(vel, 0.0) * h_l + min(vel, 0.0) * h_r
    return f if max(b_l + h_l, b_r + h_r) > max(b_l, b_r) + dry else 0.0


@njit(cache=True, fastmath=_FAST)
def _accelerate(vel, h_l, b_l, h_r, b_r, acc_dt, gc, vcap, dry):
    """New face velocity from the surface gradient and the external acceleration, m/s.

    Surfaces below the higher bed are raised to it (hydrostatic reconstruction): water under a step
    presses on the step, not on the water above it, so still water stays still over any bed and a
    spill over a ledge is driven by the depth on the ledge, not by the drop.
    """
    bmax = max(b_l, b_r)
    e_l = b_l + h_l
    e_r = b_r + h_r
    v = vel - gc * (max(e_r, bmax) - max(e_l, bmax)) + acc_dt
    v = min(max(v, -vcap), vcap)
    return v if max(e_l, e_r) > bmax + dry else 0.0


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
    v = vel * inward
    return max(v, 0.0) * max(eta_out - b_in, 0.0) + min(v, 0.0) * h_in



def chunks_for(nz: int, threads: int) -> int:
    """How many row chunks a pass over nz rows is split into on `threads` threads."""
    return max(1, min(threads, nz // MIN_CHUNK_ROWS))


@njit(cache=True)
def advance(h, bed, u, w, ax, az, rows, inflow, sides, side_eta, dx, g, dt, has_ext,
            cfl, flow_cfl, clamp, dry, max_substeps, runaway, chunks):
    """Take one fixed step of dt seconds as n equal CFL substeps; update h, u, w in place.

    Equations (shallow water, bed height b, surface eta = b + h, external acceleration a):

        h_t + div(h v) = 0                              [m/s]
        v_t + (v . grad) v = -g grad(eta) + a           [m/s^2]

    Each substep of length s (units: m, s, m/s; c = s / dx):
    (1) semi-Lagrangian advection of u and w: backtrace each face by its own velocity and the
        other component averaged from the four faces around it, sample bilinearly; the velocity
        behind a wet/dry front is carried onto it (`_front`);
    (2) depth in flux form with the upwind depth, F = u h_up (h_up = h_l if u > 0 else h_r) on open faces:
        h <- h - c (F_r - F_l + G_t - G_b), which conserves volume to round-off;
    (3) u <- u - g c (eta_r' - eta_l') + a s, eta' the surface raised to the higher bed
        (hydrostatic reconstruction), zero on faces the water cannot reach over, |u| <= clamp / c;
    (4) walls: reflective sides get zero normal velocity, open sides the characteristic condition
        of `_open_velocity`.
    From the state at the start of the step (h_max, v_max): s = dt / n with n the fewest substeps
    that keep s <= cfl dx / (sqrt(g h_max) + v_max) and s <= flow_cfl dx / v_max.

    Scratch: rows int64 (nz + 1, NSTAT); inflow (nz,). `sides` holds REFLECTIVE or OPEN for x_min,
    x_max, z_min, z_max and `side_eta` the outside surface height of each, m; `chunks` the row
    chunks of a pass (`chunks_for`; any value gives the same result). Returns (status, t,
    substeps, boundary_volume): status OK, NOT_FINITE or RUNAWAY_STATUS, the time into the step
    when it stopped, and the net m^3 that came in through open sides.
    """
    nz, nx = h.shape
    _stats(h, u, w, rows)
    hmax, vmax, finite = _reduce(rows)
    if not finite:
        return NOT_FINITE, 0.0, 0, 0.0
    speed = math.sqrt(g * hmax) + vmax
    s_cfl = dt
    if speed > 0.0:
        s_cfl = min(s_cfl, cfl * dx / speed)
    if vmax > 0.0:
        s_cfl = min(s_cfl, flow_cfl * dx / vmax)
    n = max(1, int(math.ceil(dt / s_cfl * (1.0 - 1e-12))))
    if vmax > runaway or n > max_substeps:
        return RUNAWAY_STATUS, 0.0, 0, 0.0
    s = dt / n
    reach = LAG * min(n, MAX_LEVELS)
    halo_h = np.empty((chunks, 2 * reach + 1, nx))
    halo_u = np.empty((chunks, 2 * reach + 1, nx + 1))
    halo_w = np.empty((chunks, 2 * reach + 1, nx))
    done = 0
    bvol = 0.0
    while done < n:
        levels = min(MAX_LEVELS, n - done)
        _sweep(h, bed, u, w, ax, az, levels, rows, inflow, sides, side_eta, g, dx, s, has_ext,
               clamp * dx / s, dry, chunks, halo_h, halo_u, halo_w)
        for k in range(nz):
            bvol += inflow[k]
        done += levels
        hmax, vmax, finite = _reduce(rows)
        if not finite:
            return NOT_FINITE, done * s, done, bvol
    return OK, dt, n, bvol


@njit(cache=True)
def _reduce(rows):
    """(h_max, v_max, all finite) from the per-row bit patterns in `rows`."""
    pair = np.zeros(2, dtype=np.int64)
    for k in range(rows.shape[0]):
        pair[0] = max(pair[0], rows[k, _H])
        pair[1] = max(pair[1], rows[k, _V])
    finite = pair[0] < _INF_BITS and pair[1] < _INF_BITS
    hmax, vmax = pair.view(np.float64)
    return hmax, vmax, finite


@njit(cache=True, parallel=True)
def _stats(h, u, w, rows):
    """Fill `rows` with the bit patterns of each row's largest |h| and |v| (see NSTAT)."""
    nz, nx = h.shape
    for k in prange(nz + 1):
        hm = 0
        vm = _max_bits(w[k])
        if k < nz:
            hm = _max_bits(h[k])
            vm = max(vm, _max_bits(u[k]))
        rows[k, _H] = hm
        rows[k, _V] = vm

@njit(cache=True, fastmath=_FAST)
def _advect_u_row(r0, r1, r2, wl, wh, hr, out, c, dry):
    """Advect one row of x faces (r1) into out; r0, r2 the rows beside it, wl, wh the z faces around."""
    nx = hr.shape[0]
    out[0] = r1[0]
    out[nx] = r1[nx]
    for i in range(1, nx):
        a = min(max(r1[i] * c, -1.0), 1.0)
        b = min(max(0.25 * (wl[i - 1] + wl[i] + wh[i - 1] + wh[i]) * c, -1.0), 1.0)
        out[i] = _front(_sample(r0, r1, r2, i, a, b), hr[i - 1], hr[i], r1[i - 1], r1[i + 1], dry)


@njit(cache=True, fastmath=_FAST)
def _advect_w_row(r0, r1, r2, ul, uh, h0, h1, out, c, dry):
    """Advect one interior row of z faces (r1) into out; ul, uh the x faces of the cells around."""
    nx = h0.shape[0]
    for i in range(1, nx - 1):
        b = min(max(r1[i] * c, -1.0), 1.0)
        a = min(max(0.25 * (ul[i] + ul[i + 1] + uh[i] + uh[i + 1]) * c, -1.0), 1.0)
        out[i] = _front(_sample(r0, r1, r2, i, a, b), h0[i], h1[i], r0[i], r2[i], dry)
    for i in (0, nx - 1):
        b = min(max(r1[i] * c, -1.0), 1.0)
        a = min(max(0.25 * (ul[i] + ul[i + 1] + uh[i] + uh[i + 1]) * c, -1.0), 1.0)
        v = _sample_edge(r0, r1, r2, i, max(i - 1, 0), min(i + 1, nx - 1), a, b)
        out[i] = _front(v, h0[i], h1[i], r0[i], r2[i], dry)



@njit(cache=True, fastmath=_FAST)
def _advect_u(k, nz, H, U, W, out, c, dry):
    """Advected x faces of cell row k into out, from ring buffers H, U, W (row r in slot r & _RMASK).

    The first and last face of the row are copied: the walls set them later. Rows beyond the
    grid's edge read the edge row.
    """
    _advect_u_row(U[max(k - 1, 0) & _RMASK], U[k & _RMASK], U[min(k + 1, nz - 1) & _RMASK],
                  W[k & _RMASK], W[(k + 1) & _RMASK], H[k & _RMASK], out, c, dry)


@njit(cache=True, fastmath=_FAST)
def _advect_w(k, nz, H, U, W, out, c, dry):
    """Advected z faces of face row k (0..nz) into out; the wall rows 0 and nz are copied."""
    if k == 0 or k == nz:
        r = W[k & _RMASK]
        for i in range(out.shape[0]):
            out[i] = r[i]
    else:
        _advect_w_row(W[(k - 1) & _RMASK], W[k & _RMASK], W[(k + 1) & _RMASK], U[(k - 1) & _RMASK],
                      U[k & _RMASK], H[(k - 1) & _RMASK], H[k & _RMASK], out, c, dry)


@njit(cache=True, fastmath=_FAST)
def _depth_row(k, nz, hm, bm, hr, br, hp, bp, ur, wl, wh, out, sides, side_eta, c, dry):
    """New depth of cell row k into out, flux form with the upwind depth; return the inflow, m^2/s.

    hm, hr, hp (bm, br, bp): depth (bed) of the rows below, at and above k, edge rows repeated;
    ur: the row's advected x faces; wl, wh: the advected z faces below and above it.

    Each interior face flux is evaluated by both cells beside it, with the same operands in the
    same order, so what leaves one cell is bit for bit what enters the next: the sum is conserved
    to round-off while every row stays an independent, vectorisable loop.
    """
    nx = hr.shape[0]
    low = 1.0 if k > 0 else 0.0          # the z walls are handled below
    high = 1.0 if k < nz - 1 else 0.0
    for i in range(1, nx - 1):
        f_l = _flux(ur[i], hr[i - 1], br[i - 1], hr[i], br[i], dry)
        f_r = _flux(ur[i + 1], hr[i], br[i], hr[i + 1], br[i + 1], dry)
        g_b = low * _flux(wl[i], hm[i], bm[i], hr[i], br[i], dry)
        g_t = high * _flux(wh[i], hr[i], br[i], hp[i], bp[i], dry)
        out[i] = max(hr[i] - c * (f_r - f_l + g_t - g_b), 0.0)   # max: round-off only (CLAMP)
    q = 0.0
    for i in (0, nx - 1):
        f_l = _flux(ur[i], hr[i - 1], br[i - 1], hr[i], br[i], dry) if i > 0 else 0.0
        f_r = _flux(ur[i + 1], hr[i], br[i], hr[i + 1], br[i + 1], dry) if i < nx - 1 else 0.0
        if i == 0 and sides[0] == OPEN:
            f_l = _boundary_flux(ur[0], hr[0], br[0], side_eta[0], 1.0)
            q += f_l
        if i == nx - 1 and sides[1] == OPEN:
            f_r = -_boundary_flux(ur[nx], hr[i], br[i], side_eta[1], -1.0)
            q -= f_r
        g_b = low * _flux(wl[i], hm[i], bm[i], hr[i], br[i], dry)
        g_t = high * _flux(wh[i], hr[i], br[i], hp[i], bp[i], dry)
        out[i] = max(hr[i] - c * (f_r - f_l + g_t - g_b), 0.0)
    if k == 0 and sides[2] == OPEN:
        for i in range(nx):
            g = _boundary_flux(wl[i], hr[i], br[i], side_eta[2], 1.0)
            out[i] = max(out[i] + c * g, 0.0)
            q += g
    if k == nz - 1 and sides[3] == OPEN:
        for i in range(nx):
            g = -_boundary_flux(wh[i], hr[i], br[i], side_eta[3], -1.0)
            out[i] = max(out[i] - c * g, 0.0)
            q -= g
    return q
@njit(cache=True, fastmath=_FAST)
def _u_row(hr, br, vin, acc, has_ext, out, sides, side_eta, g, gc, s, vcap, dry):
    """x faces of one row from the new depth hr, side walls included; acc is the row's external
    acceleration, m/s^2, read only when has_ext (the loop without it saves a stream)."""
    nx = hr.shape[0]
    if has_ext:
        for i in range(1, nx):
            out[i] = _accelerate(vin[i], hr[i - 1], br[i - 1], hr[i], br[i], acc[i] * s, gc, vcap, dry)
    else:
        for i in range(1, nx):
            out[i] = _accelerate(vin[i], hr[i - 1], br[i - 1], hr[i], br[i], 0.0, gc, vcap, dry)
    out[0] = _open_velocity(hr[0], br[0], side_eta[0], g, -1.0, vcap) if sides[0] == OPEN else 0.0
    out[nx] = _open_velocity(hr[nx - 1], br[nx - 1], side_eta[1], g, 1.0, vcap) if sides[1] == OPEN else 0.0


@njit(cache=True, fastmath=_FAST)
def _w_row(h0, b0, h1, b1, vin, acc, has_ext, out, gc, s, vcap, dry):
    """Interior z faces of one row, between cell rows with new depths h0 (below) and h1 (above)."""
    if has_ext:
        for i in range(h0.shape[0]):
            out[i] = _accelerate(vin[i], h0[i], b0[i], h1[i], b1[i], acc[i] * s, gc, vcap, dry)
    else:
        for i in range(h0.shape[0]):
            out[i] = _accelerate(vin[i], h0[i], b0[i], h1[i], b1[i], 0.0, gc, vcap, dry)


@njit(cache=True)
def _max_bits(a):
    """Largest |a[i]| as an IEEE bit pattern (see NSTAT)."""
    bits = a.view(np.int64)
    m = 0
    for i in range(bits.shape[0]):
        m = max(m, bits[i] & _ABS)
    return m


@njit(cache=True, fastmath=_FAST)
def _wall_row(hr, br, side, eta_out, g, outward, vcap, out):
    """A z wall's faces from the depth of the cell row beside it: zero, or the open condition."""
    for i in range(out.shape[0]):
        out[i] = _open_velocity(hr[i], br[i], eta_out, g, outward, vcap) if side == OPEN else 0.0


@njit(cache=True, fastmath=_FAST)
def _unit(j, nz, first, H, U, W, Hn, Un, Wn, carry, ua, wa, bed, ax, az, has_ext, sides, side_eta,
          g, c, s, vcap, dry):
    """Advance row j by one substep: its depth, its x faces and the z faces below it (and, for the
    top row, the wall above). Return the row's inflow through open sides, m^2/s.

    H, U, W: ring buffers of the state before the substep (rows j - 2 .. j + 2 are read); Hn, Un,
    Wn: the rings being written (row j - 1 of Hn is read). carry holds the advected z faces below
    row j, left by row j - 1; `first` (the first row this substep computes) makes them here
    instead, with the new depth of row j - 1. ua, wa: scratch rows.
    """
    m = _RMASK
    jm = max(j - 1, 0)
    jp = min(j + 1, nz - 1)
    gc = g * c
    if first:
        _advect_w(j, nz, H, U, W, carry, c, dry)
        if j > 0:
            jmm = max(j - 2, 0)
            _advect_u(j - 1, nz, H, U, W, ua, c, dry)
            _advect_w(j - 1, nz, H, U, W, wa, c, dry)
            _depth_row(j - 1, nz, H[jmm & m], bed[jmm], H[jm & m], bed[jm], H[j & m], bed[j], ua, wa, carry,
                       Hn[jm & m], sides, side_eta, c, dry)
    _advect_u(j, nz, H, U, W, ua, c, dry)
    _advect_w(j + 1, nz, H, U, W, wa, c, dry)
    hr = Hn[j & m]
    br = bed[j]
    q = _depth_row(j, nz, H[jm & m], bed[jm], H[j & m], br, H[jp & m], bed[jp], ua, carry, wa, hr,
                   sides, side_eta, c, dry)
    _u_row(hr, br, ua, ax[j], has_ext, Un[j & m], sides, side_eta, g, gc, s, vcap, dry)
    if j == 0:
        _wall_row(hr, br, sides[2], side_eta[2], g, -1.0, vcap, Wn[0])
    else:
        _w_row(Hn[jm & m], bed[jm], hr, br, carry, az[j], has_ext, Wn[j & m], gc, s, vcap, dry)
    if j == nz - 1:
        _wall_row(hr, br, sides[3], side_eta[3], g, 1.0, vcap, Wn[nz & m])
    for i in range(carry.shape[0]):
        carry[i] = wa[i]
    return q


@njit(cache=True)
def _copy_row(src, dst):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, parallel=True, fastmath=_FAST)
def _sweep(h, bed, u, w, ax, az, levels, rows, inflow, sides, side_eta, g, dx, s, has_ext, vcap, dry,
           chunks, halo_h, halo_u, halo_w):
    """`levels` substeps of s seconds in one pass over the grid, in place (see the module docstring).

    Chunk t owns cell rows [k0, k1), their x faces and the z faces below them (the top chunk also
    the wall face nz). It loads rows lo..hi = its own plus `reach` = LAG x levels beyond each edge;
    substep l computes rows k0 - LAG (levels - l) .. k1 - 1 + LAG (levels - l), so every value it
    needs was computed from real data, and the last substep writes exactly the owned rows. Rows the
    neighbours own are copied into the halo buffers first, since the neighbours overwrite them.
    Fills `rows` (statistics of the new state) and `inflow` (m^3 per owned row, summed over the
    substeps).
    """
    nz, nx = h.shape
    per = (nz + chunks - 1) // chunks
    reach = LAG * levels
    c = s / dx
    for t in prange(chunks):
        k0 = min(t * per, nz)
        k1 = min(k0 + per, nz)
        lo = max(0, k0 - reach)
        hi = min(nz - 1, k1 - 1 + reach)
        for r in range(lo, k0):
            _copy_row(h[r], halo_h[t, r - lo])
            _copy_row(u[r], halo_u[t, r - lo])
            _copy_row(w[r], halo_w[t, r - lo])
        for r in range(k1, hi + 1):
            _copy_row(h[r], halo_h[t, reach + r - k1])
            _copy_row(u[r], halo_u[t, reach + r - k1])
            _copy_row(w[r], halo_w[t, reach + r - k1])
        if k1 < nz and hi == nz - 1:
            _copy_row(w[nz], halo_w[t, reach + nz - k1])
    for t in prange(chunks):
        k0 = min(t * per, nz)
        k1 = min(k0 + per, nz)
        if k0 >= k1:
            continue
        lo = max(0, k0 - reach)
        hi = min(nz - 1, k1 - 1 + reach)
        H = np.empty((levels + 1, RING, nx))
        U = np.empty((levels + 1, RING, nx + 1))
        W = np.empty((levels + 1, RING, nx))
        carry = np.empty((levels + 1, nx))
        ua = np.empty(nx + 1)
        wa = np.empty(nx)
        for k in range(k0, k1):
            inflow[k] = 0.0
        for it in range(lo, k1 + reach):
            r = it
            if r <= hi:                  # load row r into the ring of substep 0
                slot = r & _RMASK
                if r < k0:
                    _copy_row(halo_h[t, r - lo], H[0, slot])
                    _copy_row(halo_u[t, r - lo], U[0, slot])
                    _copy_row(halo_w[t, r - lo], W[0, slot])
                elif r < k1:
                    _copy_row(h[r], H[0, slot])
                    _copy_row(u[r], U[0, slot])
                    _copy_row(w[r], W[0, slot])
                else:
                    _copy_row(halo_h[t, reach + r - k1], H[0, slot])
                    _copy_row(halo_u[t, reach + r - k1], U[0, slot])
                    _copy_row(halo_w[t, reach + r - k1], W[0, slot])
                if r == nz - 1:
                    _copy_row(w[nz] if k1 == nz else halo_w[t, reach + nz - k1], W[0, nz & _RMASK])
            for lev in range(1, levels + 1):
                j = it - LAG * lev
                a = max(0, k0 - LAG * (levels - lev))
                b = min(nz - 1, k1 - 1 + LAG * (levels - lev))
                if j < a or j > b:
                    continue
                q = _unit(j, nz, j == a, H[lev - 1], U[lev - 1], W[lev - 1], H[lev], U[lev], W[lev],
                          carry[lev], ua, wa, bed, ax, az, has_ext, sides, side_eta, g, c, s, vcap, dry)
                if k0 <= j < k1:
                    inflow[j] += q * dx * s
                if lev == levels:        # the pass's result: store the owned row and its statistics
                    slot = j & _RMASK
                    _copy_row(H[lev, slot], h[j])
                    _copy_row(U[lev, slot], u[j])
                    _copy_row(W[lev, slot], w[j])
                    rows[j, _H] = _max_bits(h[j])
                    vm = max(_max_bits(u[j]), _max_bits(w[j]))
                    if j == nz - 1:
                        _copy_row(W[lev, nz & _RMASK], w[nz])
                        rows[nz, _H] = 0
                        rows[nz, _V] = _max_bits(w[nz])
                    rows[j, _V] = vm
