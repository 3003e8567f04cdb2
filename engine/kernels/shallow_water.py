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

Precision: depths (and surfaces, and fluxes) are float64, so the flux form conserves volume to
float64 round-off and still water over any bed stays exactly still; velocities ride the rings in
float32 (the grid's u, w stay float64), which halves the vector work of the advection. Rows whose
cells are all wet over one bed height take loops without the wet/dry rules (identities there);
the choice depends only on the data, so it is the same in every chunk.

Every kernel has one fixed set of numba flags: `_sweep` and `_stats` use prange and are compiled
parallel; the rest are serial, and the per-row kernels of the fast path are inlined into `_unit`
(numba inline="always"; a call with twenty array arguments costs ~25 ns, several per row). Inner
loops are branch-free (upwind choices are selects, wet/dry a select) so LLVM vectorises them.
fastmath here allows reassociation and FMA but never assumes finite values, so NaN and
infinities are still caught. `engine.kernels.reference` is the same scheme in plain numpy.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

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
# A third column, _EXT, is nonzero where row k's external acceleration (ax[k] or az[k]) is.
_H, _V, _EXT = 0, 1, 2
NSTAT = 3
_ABS = 0x7FFFFFFFFFFFFFFF
_INF_BITS = 0x7FF0000000000000

_FAST = {"nsz", "arcp", "contract", "reassoc"}   # no nnan/ninf: non-finite values must stay visible

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
def advance(h, bed, u, w, ax, az, rows, inflow, sides, side_eta, dx, g, dt,
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
    _stats(h, u, w, ax, az, rows)
    hmax, vmax, finite = _reduce(rows)
    if not finite:
        return NOT_FINITE, 0.0, 0, 0.0
    n = substeps_for(dt, dx, g, hmax, vmax, cfl, flow_cfl)
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
        _sweep(h, bed, u, w, ax, az, levels, rows, inflow, sides, side_eta, g, dx, s,
               min(clamp, 1.0) * dx / s, dry, chunks, halo_h, halo_u, halo_w)
        for k in range(nz):
            bvol += inflow[k]
        done += levels
        hmax, vmax, finite = _reduce(rows)
        if not finite:
            return NOT_FINITE, done * s, done, bvol
    return OK, dt, n, bvol


@njit(cache=True)
def substeps_for(dt, dx, g, hmax, vmax, cfl, flow_cfl):
    """The fewest equal substeps of a dt step with s <= cfl dx / (sqrt(g h_max) + v_max) and
    s <= flow_cfl dx / v_max (also callable from Python: the numpy reference uses it)."""
    speed = math.sqrt(g * hmax) + vmax
    s_cfl = dt
    if speed > 0.0:
        s_cfl = min(s_cfl, cfl * dx / speed)
    if vmax > 0.0:
        s_cfl = min(s_cfl, flow_cfl * dx / vmax)
    return max(1, int(math.ceil(dt / s_cfl * (1.0 - 1e-12))))


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
def _stats(h, u, w, ax, az, rows):
    """Fill `rows` with the bit patterns of each row's largest |h| and |v|, and flag the rows
    whose external acceleration is nonzero (see NSTAT): one parallel read of the state."""
    nz, nx = h.shape
    for k in prange(nz + 1):
        hm = 0
        vm = _max_bits(w[k])
        ext = _any_bits(az[k])
        if k < nz:
            hm = _max_bits(h[k])
            vm = max(vm, _max_bits(u[k]))
            ext |= _any_bits(ax[k])
        rows[k, _H] = hm
        rows[k, _V] = vm
        rows[k, _EXT] = ext


@njit(cache=True)
def _any_bits(a):
    """Nonzero if any a[i] is not +0.0 (an OR of the bit patterns, which vectorises)."""
    bits = a.view(np.int64)
    m = 0
    for i in range(bits.shape[0]):
        m |= bits[i]
    return m

# float32 constants: numba widens float32 op float64-literal to float64, so the velocity
# float32 constants: numba widens float32 op float64-literal to float64, so the velocity
# arithmetic spells its constants in float32 to stay in single precision (twice the lanes)
_Z = np.float32(0.0)
_QUARTER = np.float32(0.25)


@njit(cache=True, fastmath=_FAST)
def _bilinear(a, b, l0, m0, h0, l1, m1, h1, l2, m2, h2):
    """Bilinear sample at the point displaced by (-a, -b) cells from m1, |a|, |b| < 1.

    l, m, h: the left, middle and right values of the rows behind (0), at (1) and ahead of (2)
    the face along z. The departure point lies in the 2 x 2 upwind square, so the upwind
    neighbours are selected (left when a > 0, row 0 when b > 0) and only two rows are
    interpolated: no gather, and every value is loaded unconditionally so LLVM vectorises.
    """
    left = a > _Z
    behind = b > _Z
    fa = abs(a)
    x1 = l1 if left else h1
    zm = m0 if behind else m2
    zx = (l0 if left else h0) if behind else (l2 if left else h2)
    v1 = m1 + fa * (x1 - m1)
    vz = zm + fa * (zx - zm)
    return v1 + abs(b) * (vz - v1)


@njit(cache=True, fastmath=_FAST)
def _sample(r0, r1, r2, i, a, b):
    """Bilinear sample around r1[i] displaced by (-a, -b) cells (`_bilinear`).

    |a|, |b| <= CLAMP < 1 put the departure point inside the 2 x 2 upwind stencil; r0, r1, r2 are
    the rows behind, at and ahead of the face along z. The neighbours are written i - 1 and
    i + 1 here, not passed in: LLVM then proves them in bounds and vectorises the loop.
    """
    return _bilinear(a, b, r0[i - 1], r0[i], r0[i + 1], r1[i - 1], r1[i], r1[i + 1], r2[i - 1], r2[i], r2[i + 1])


@njit(cache=True, fastmath=_FAST)
def _sample_edge(r0, r1, r2, i, im, ip, a, b):
    """`_sample` at the first or last column, the missing neighbour clamped to the edge."""
    return _bilinear(a, b, r0[im], r0[i], r0[ip], r1[im], r1[i], r1[ip], r2[im], r2[i], r2[ip])


@njit(cache=True, fastmath=_FAST)
def _front(v, h_l, h_r, v_behind_l, v_ahead_r, dry):
    """Carry the flow onto a dry cell: at a wet/dry face the water arrives with the velocity behind it.

    Backtracing from a face that still holds zero velocity (it was dry) samples zero, so a front
    running onto a dry bed would only be pushed by the thin tip's own tiny surface gradient and
    stall into a bore. The face in front of the water takes the velocity of the face behind it
    instead, when that one flows towards the dry cell (v_behind_l > 0 into h_r, v_ahead_r < 0 into h_l).
    Between two wet cells it returns v unchanged.
    """
    onto_r = h_r <= dry and h_l > dry
    onto_l = h_l <= dry and h_r > dry
    v = max(v, max(v_behind_l, _Z)) if onto_r else v
    return min(v, min(v_ahead_r, _Z)) if onto_l else v


@njit(cache=True, fastmath=_FAST)
def _upwind_flux(vel, h_l, h_r):
    """Velocity times upwind depth, m^2/s (velocity float32, depths float64)."""
    v = float(vel)
    return max(v, 0.0) * h_l + min(v, 0.0) * h_r


@njit(cache=True, fastmath=_FAST)
def _flux(vel, h_l, b_l, h_r, b_r, dry):
    """Volume flux per unit width through an interior face, m^2/s: velocity times upwind depth.

    A face whose higher surface does not reach over the higher bed carries nothing (between two
    wet cells over one bed height the test always passes).
    """
    f = _upwind_flux(vel, h_l, h_r)
    return f if max(b_l + h_l, b_r + h_r) > max(b_l, b_r) + dry else 0.0


@njit(cache=True, fastmath=_FAST)
def _push(vel, d, acc_dt, gc, vcap):
    """vel - g c d + a s, capped at vcap (float32); d the surface difference across the face, m."""
    v = vel - gc * np.float32(d) + acc_dt
    return min(max(v, -vcap), vcap)


@njit(cache=True, fastmath=_FAST)
def _accelerate(vel, h_l, b_l, h_r, b_r, acc_dt, gc, vcap, dry):
    """New face velocity (float32) from the surface gradient and the external acceleration, m/s.

    Surfaces below the higher bed are raised to it (hydrostatic reconstruction): water under a step
    presses on the step, not on the water above it, so still water stays still over any bed and a
    spill over a ledge is driven by the depth on the ledge, not by the drop. The surface difference
    is taken in double precision, so over still water it is exactly zero. Between two wet cells
    over one bed height this is `_push` of h_r - h_l.
    """
    bmax = max(b_l, b_r)
    e_l = b_l + h_l
    e_r = b_r + h_r
    v = _push(vel, max(e_r, bmax) - max(e_l, bmax), acc_dt, gc, vcap)
    return v if max(e_l, e_r) > bmax + dry else _Z


# -- rows ------------------------------------------------------------------------------------------
# Each row kernel comes in two loops: the general one (wet/dry fronts, closed faces, hydrostatic
# reconstruction) and, where the caller knows every cell involved is wet (h > WET) over one bed
# height, the same arithmetic without those rules, which are identities there. Loops run over whole
# rows from constant starts and index the arrays directly: LLVM then sees every index i - 1 >= 0,
# drops numba's negative-index check and vectorises. (Slicing views inside these kernels, and
# splitting rows into column blocks inside `_unit`, measured 3-8x slower: LLVM stopped vectorising.)

WET = 2.0 * DRY   # m: rows whose every cell is deeper than this take the fast loops
_WET_BITS = int(np.array(WET).view(np.int64))


@njit(cache=True, inline="always")
def _wet_pair(k, nz, level, low):
    """Whether cell rows k and k + 1 are both wet (every depth > WET) over one bed height.

    low: the ring's smallest depth per row, level: each row's bed height (bit patterns, -1 if the
    row's bed is not level). Then the wet/dry rules are identities on the faces of row k and the
    z faces between the two rows, and the fast loops compute them.
    """
    return (0 <= k and k + 1 < nz and level[k] >= 0 and level[k] == level[k + 1]
            and low[k & _RMASK] > _WET_BITS and low[(k + 1) & _RMASK] > _WET_BITS)


@njit(cache=True, fastmath=_FAST, inline="always")
def _x_faces(r0, r1, r2, wl, wh, hr, br, ua, fx, sides, side_eta, c, dry, wet):
    """Advect one row of x faces into ua and their volume fluxes into fx (`_advect_u_row`, then
    `_x_fluxes`); where the row is wet (see WET) in one loop, the flux taken while the advected
    velocity is still in a register."""
    if wet:
        nx = hr.shape[0]
        cq = c * _QUARTER
        ua[0] = r1[0]
        ua[nx] = r1[nx]
        for i in range(1, nx):
            v = _sample(r0, r1, r2, i, r1[i] * c, (wl[i - 1] + wl[i] + wh[i - 1] + wh[i]) * cq)
            ua[i] = v
            fx[i] = _upwind_flux(v, hr[i - 1], hr[i])
        _x_walls(ua, hr, br, fx, sides, side_eta)
    else:
        _advect_u_row(r0, r1, r2, wl, wh, hr, ua, c, dry, False)
        _x_fluxes(ua, hr, br, fx, sides, side_eta, dry, False)


@njit(cache=True, fastmath=_FAST, inline="always")
def _z_faces(k, nz, r0, r1, r2, ul, uh, h0, b0, h1, b1, wa, gt, sides, side_eta, c, dry, wet):
    """Advect z face row k (0..nz) into wa and its volume fluxes into gt (`_advect_w_row`, then
    `_z_fluxes`); the wall rows 0 and nz are copied. Where rows k - 1 and k are wet, one loop."""
    if 0 < k < nz and wet:
        nx = h0.shape[0]
        cq = c * _QUARTER
        for i in range(1, nx - 1):
            v = _sample(r0, r1, r2, i, (ul[i] + ul[i + 1] + uh[i] + uh[i + 1]) * cq, r1[i] * c)
            wa[i] = v
            gt[i] = _upwind_flux(v, h0[i], h1[i])
        for i in (0, nx - 1):
            v = _sample_edge(r0, r1, r2, i, max(i - 1, 0), min(i + 1, nx - 1),
                             (ul[i] + ul[i + 1] + uh[i] + uh[i + 1]) * cq, r1[i] * c)
            wa[i] = v
            gt[i] = _upwind_flux(v, h0[i], h1[i])
        return
    if k == 0 or k == nz:
        for i in range(wa.shape[0]):
            wa[i] = r1[i]
    else:
        _advect_w_row(r0, r1, r2, ul, uh, h0, h1, wa, c, dry, False)
    _z_fluxes(k, nz, wa, h0, b0, h1, b1, gt, sides, side_eta, dry, False)


@njit(cache=True, fastmath=_FAST)
def _advect_u_row(r0, r1, r2, wl, wh, hr, out, c, dry, wet):
    """Advect one row of x faces (r1) into out; r0, r2 the rows beside it, wl, wh the z faces
    around, hr the row's depths. The end faces 0 and nx are copied (the walls set them later).

    float32 rows; c = s / dx in float32; |r1| c <= CLAMP, so no clamping is needed here.
    """
    nx = hr.shape[0]
    cq = c * _QUARTER
    out[0] = r1[0]
    out[nx] = r1[nx]
    if wet:
        for i in range(1, nx):
            out[i] = _sample(r0, r1, r2, i, r1[i] * c, (wl[i - 1] + wl[i] + wh[i - 1] + wh[i]) * cq)
    else:
        for i in range(1, nx):
            v = _sample(r0, r1, r2, i, r1[i] * c, (wl[i - 1] + wl[i] + wh[i - 1] + wh[i]) * cq)
            out[i] = _front(v, hr[i - 1], hr[i], r1[i - 1], r1[i + 1], dry)


@njit(cache=True, fastmath=_FAST)
def _advect_w_row(r0, r1, r2, ul, uh, h0, h1, out, c, dry, wet):
    """Advect one interior row of z faces (r1) into out; ul, uh the x faces of the cells around,
    h0, h1 the depths below and above."""
    nx = h0.shape[0]
    cq = c * _QUARTER
    if wet:
        for i in range(1, nx - 1):
            out[i] = _sample(r0, r1, r2, i, (ul[i] + ul[i + 1] + uh[i] + uh[i + 1]) * cq, r1[i] * c)
    else:
        for i in range(1, nx - 1):
            v = _sample(r0, r1, r2, i, (ul[i] + ul[i + 1] + uh[i] + uh[i + 1]) * cq, r1[i] * c)
            out[i] = _front(v, h0[i], h1[i], r0[i], r2[i], dry)
    for i in (0, nx - 1):
        v = _sample_edge(r0, r1, r2, i, max(i - 1, 0), min(i + 1, nx - 1),
                         (ul[i] + ul[i + 1] + uh[i] + uh[i + 1]) * cq, r1[i] * c)
        out[i] = _front(v, h0[i], h1[i], r0[i], r2[i], dry)


@njit(cache=True, fastmath=_FAST)
def _x_fluxes(ur, hr, br, out, sides, side_eta, dry, wet):
    """Volume fluxes through the nx + 1 x faces of one cell row, m^2/s (positive along +x).

    Each face is evaluated once and its flux leaves one cell and enters the next: the sum of the
    depths is conserved to round-off. The end faces are the x walls: zero, or the open condition.
    """
    nx = hr.shape[0]
    if wet:
        for i in range(1, nx):
            out[i] = _upwind_flux(ur[i], hr[i - 1], hr[i])
    else:
        for i in range(1, nx):
            out[i] = _flux(ur[i], hr[i - 1], br[i - 1], hr[i], br[i], dry)
    _x_walls(ur, hr, br, out, sides, side_eta)


@njit(cache=True)
def _x_walls(ur, hr, br, out, sides, side_eta):
    """Fluxes through the two x walls of a row: zero, or the open condition."""
    nx = hr.shape[0]
    out[0] = _boundary_flux(float(ur[0]), hr[0], br[0], side_eta[0], 1.0) if sides[0] == OPEN else 0.0
    out[nx] = (-_boundary_flux(float(ur[nx]), hr[nx - 1], br[nx - 1], side_eta[1], -1.0)
               if sides[1] == OPEN else 0.0)


@njit(cache=True, fastmath=_FAST)
def _z_fluxes(k, nz, wa, h0, b0, h1, b1, out, sides, side_eta, dry, wet):
    """Volume fluxes through z face row k (between cell rows k - 1 and k), m^2/s, positive along +z.

    h0, b0: depth and bed of row k - 1; h1, b1: of row k. Rows 0 and nz are the z walls: zero, or
    the open condition against the cell row inside.
    """
    nx = out.shape[0]
    if k == 0:
        for i in range(nx):
            out[i] = _boundary_flux(float(wa[i]), h1[i], b1[i], side_eta[2], 1.0) if sides[2] == OPEN else 0.0
    elif k == nz:
        for i in range(nx):
            out[i] = -_boundary_flux(float(wa[i]), h0[i], b0[i], side_eta[3], -1.0) if sides[3] == OPEN else 0.0
    elif wet:
        for i in range(nx):
            out[i] = _upwind_flux(wa[i], h0[i], h1[i])
    else:
        for i in range(nx):
            out[i] = _flux(wa[i], h0[i], b0[i], h1[i], b1[i], dry)


@njit(cache=True, fastmath=_FAST, inline="always")
def _depth(hr, fx, gb, gt, c, hn):
    """New depth of one cell row from its face fluxes, h - c (F_r - F_l + G_t - G_b); return the
    row's smallest new depth as a bit pattern (non-negative doubles order like their bits).

    The max only absorbs round-off: CLAMP keeps every outflow within the cell's water.
    """
    for i in range(hr.shape[0]):
        hn[i] = max(hr[i] - c * (fx[i + 1] - fx[i] + gt[i] - gb[i]), 0.0)
    return _min_bits(hn)


@njit(cache=True, fastmath=_FAST, inline="always")
def _u_row(ua, hr, br, acc, has_ext, out, sides, side_eta, g, gc, s, vcap, dry, wet):
    """New x faces of one row, walls included, from the advected ones (ua) and the new depths hr.
    acc is the row's external acceleration, m/s^2, read only when has_ext."""
    nx = hr.shape[0]
    if wet and has_ext:
        for i in range(1, nx):
            out[i] = _push(ua[i], hr[i] - hr[i - 1], np.float32(acc[i] * s), gc, vcap)
    elif wet:
        for i in range(1, nx):
            out[i] = _push(ua[i], hr[i] - hr[i - 1], _Z, gc, vcap)
    elif has_ext:
        for i in range(1, nx):
            out[i] = _accelerate(ua[i], hr[i - 1], br[i - 1], hr[i], br[i], np.float32(acc[i] * s), gc, vcap, dry)
    else:
        for i in range(1, nx):
            out[i] = _accelerate(ua[i], hr[i - 1], br[i - 1], hr[i], br[i], _Z, gc, vcap, dry)
    v = float(vcap)
    out[0] = _open_velocity(hr[0], br[0], side_eta[0], g, -1.0, v) if sides[0] == OPEN else 0.0
    out[nx] = _open_velocity(hr[nx - 1], br[nx - 1], side_eta[1], g, 1.0, v) if sides[1] == OPEN else 0.0


@njit(cache=True, fastmath=_FAST, inline="always")
def _w_row(wa, h0, b0, h1, b1, acc, has_ext, out, gc, s, vcap, dry, wet):
    """New interior z faces of one row from the advected ones (wa), between cell rows with new
    depths h0 (below) and h1 (above)."""
    nx = h0.shape[0]
    if wet and has_ext:
        for i in range(nx):
            out[i] = _push(wa[i], h1[i] - h0[i], np.float32(acc[i] * s), gc, vcap)
    elif wet:
        for i in range(nx):
            out[i] = _push(wa[i], h1[i] - h0[i], _Z, gc, vcap)
    elif has_ext:
        for i in range(nx):
            out[i] = _accelerate(wa[i], h0[i], b0[i], h1[i], b1[i], np.float32(acc[i] * s), gc, vcap, dry)
    else:
        for i in range(nx):
            out[i] = _accelerate(wa[i], h0[i], b0[i], h1[i], b1[i], _Z, gc, vcap, dry)


@njit(cache=True, fastmath=_FAST)
def _wall_row(hr, br, side, eta_out, g, outward, vcap, out):
    """A z wall's faces from the depth of the cell row beside it: zero, or the open condition."""
    for i in range(out.shape[0]):
        out[i] = _open_velocity(hr[i], br[i], eta_out, g, outward, vcap) if side == OPEN else 0.0


@njit(cache=True)
def _max_bits(a):
    """Largest |a[i]| of a float64 row as an IEEE bit pattern (see NSTAT)."""
    bits = a.view(np.int64)
    m = 0
    for i in range(bits.shape[0]):
        m = max(m, bits[i] & _ABS)
    return m


@njit(cache=True, inline="always")
def _min_bits(a):
    """Smallest a[i] of a non-negative float64 row as a bit pattern."""
    bits = a.view(np.int64)
    m = _INF_BITS
    for i in range(bits.shape[0]):
        m = min(m, bits[i])
    return m


@njit(cache=True)
def _level_bed(b):
    """The row's bed height as a bit pattern if the whole row has one bed height, else -1."""
    bits = b.view(np.int64)
    first = bits[0]
    diff = 0
    for i in range(bits.shape[0]):
        diff |= bits[i] ^ first          # an OR reduction vectorises; an early-out loop does not
    return first if diff == 0 else -1


@njit(cache=True)
def _copy_row(src, dst):
    """dst[:] = src, converting between float64 (the grid) and float32 (the ring) as needed."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, fastmath=_FAST)
def _unit(j, nz, first, H, U, W, Hn, Un, Wn, low, low_n, level, wpair, gpair, par, ua, fx, bed, ax, az,
          ext, sides, side_eta, g, c, c32, s, vcap, dry):
    """Advance row j by one substep: its depth, its x faces and the z faces below it (and, for the
    top row, the wall above). Return the row's inflow through open sides, m^2/s.

    H, U, W: ring buffers (depth, x and z faces) of the state before the substep, rows j - 2 ..
    j + 2 read; Hn, Un, Wn: the rings being written (row j - 1 read). low, low_n: each ring row's
    smallest depth (bit pattern); level[r]: row r's bed height if it has only one (bit pattern),
    else -1. wpair, gpair: two rows each of advected z faces and their fluxes; par[0] picks the
    pair holding the faces below row j (wl, gl), left by row j - 1, and the other receives the
    faces above it (wa, gt). `first` (the first row this substep computes) makes wl, gl here
    instead, and the new depth of row j - 1 with them. ua, fx: scratch rows. ext: the statistics
    rows of `_stats`; the loops read ax[j], az[j] only where ext[j, _EXT] says they are nonzero.

    Rows with every cell involved wet over one bed height take the fast loops (see WET). The
    choice depends only on the data, so it is the same in every chunk that computes the row.
    """
    m = _RMASK
    jm = max(j - 1, 0)
    jp = min(j + 1, nz - 1)
    gc = np.float32(g * c)
    s32 = np.float32(s)
    vc = np.float32(vcap)
    nx = bed.shape[1]
    hr = H[j & m]
    br = bed[j]
    hn = Hn[j & m]
    # the faces of row j and the z faces above it see cells of rows j and j + 1 only
    fast = _wet_pair(j, nz, level, low)
    wl = wpair[par[0]]
    gl = gpair[par[0]]
    wa = wpair[1 - par[0]]
    gt = gpair[1 - par[0]]
    if first:
        fast_lo = _wet_pair(j - 1, nz, level, low)
        _zf(j, nz, H, U, W, bed, wl, gl, sides, side_eta, c32, dry, fast_lo)
        if j > 0:
            _zf(j - 1, nz, H, U, W, bed, wa, gt, sides, side_eta, c32, dry, _wet_pair(j - 2, nz, level, low))
            _xf(j - 1, nz, H, U, W, bed, ua, fx, sides, side_eta, c32, dry, fast_lo)
            low_n[jm & m] = _depth(H[jm & m], fx, gt, gl, c, Hn[jm & m])
    _xf(j, nz, H, U, W, bed, ua, fx, sides, side_eta, c32, dry, fast)
    _zf(j + 1, nz, H, U, W, bed, wa, gt, sides, side_eta, c32, dry, fast)
    low_n[j & m] = _depth(hr, fx, gl, gt, c, hn)
    q = fx[0] - fx[nx]
    if j == 0:
        for i in range(nx):
            q += gl[i]
    if j == nz - 1:
        for i in range(nx):
            q -= gt[i]
    fast_u = level[j] >= 0 and low_n[j & m] > _WET_BITS
    _u_row(ua, hn, br, ax[j], ext[j, _EXT] != 0, Un[j & m], sides, side_eta, g, gc, s32, vc, dry, fast_u)
    if j == 0:
        _wall_row(hn, br, sides[2], side_eta[2], g, -1.0, vcap, Wn[0])
    else:
        fast_w = _wet_pair(j - 1, nz, level, low_n)
        _w_row(wl, Hn[jm & m], bed[jm], hn, br, az[j], ext[j, _EXT] != 0, Wn[j & m], gc, s32, vc, dry, fast_w)
    if j == nz - 1:
        _wall_row(hn, br, sides[3], side_eta[3], g, 1.0, vcap, Wn[nz & m])
    par[0] = 1 - par[0]                  # the faces above row j are the faces below row j + 1
    return q


@njit(cache=True, fastmath=_FAST, inline="always")
def _xf(k, nz, H, U, W, bed, ua, fx, sides, side_eta, c, dry, wet):
    """`_x_faces` of cell row k from ring buffers H, U, W (row r in slot r & _RMASK); rows beyond
    the grid's edge read the edge row."""
    m = _RMASK
    _x_faces(U[max(k - 1, 0) & m], U[k & m], U[min(k + 1, nz - 1) & m], W[k & m], W[(k + 1) & m], H[k & m],
             bed[k], ua, fx, sides, side_eta, c, dry, wet)


@njit(cache=True, fastmath=_FAST, inline="always")
def _zf(k, nz, H, U, W, bed, wa, gt, sides, side_eta, c, dry, wet):
    """`_z_faces` of face row k (0..nz) from the ring buffers."""
    m = _RMASK
    lo = max(k - 1, 0)
    hi = min(k, nz - 1)
    _z_faces(k, nz, W[lo & m], W[k & m], W[min(k + 1, nz) & m], U[lo & m], U[hi & m], H[lo & m], bed[lo],
             H[hi & m], bed[hi], wa, gt, sides, side_eta, c, dry, wet)


@njit(cache=True, parallel=True, fastmath=_FAST)
def _sweep(h, bed, u, w, ax, az, levels, rows, inflow, sides, side_eta, g, dx, s, vcap, dry,
           chunks, halo_h, halo_u, halo_w):
    """`levels` substeps of s seconds in one pass over the grid, in place (see the module docstring).

    Chunk t owns cell rows [k0, k1), their x faces and the z faces below them (the top chunk also
    the wall face nz). It loads rows lo..hi = its own plus `reach` = LAG x levels beyond each edge;
    substep l computes rows k0 - LAG (levels - l) .. k1 - 1 + LAG (levels - l), so every value it
    needs was computed from real data, and the last substep writes exactly the owned rows. Rows the
    neighbours own are copied into the halo buffers first, since the neighbours overwrite them.
    Velocities ride the rings in float32, depths in float64. Fills `rows` (statistics of the new
    state) and `inflow` (m^3 per owned row, summed over the substeps).
    """
    nz, nx = h.shape
    per = (nz + chunks - 1) // chunks
    reach = LAG * levels
    c = s / dx
    c32 = np.float32(c)
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
        U = np.empty((levels + 1, RING, nx + 1), dtype=np.float32)
        W = np.empty((levels + 1, RING, nx), dtype=np.float32)
        low = np.empty((levels + 1, RING), dtype=np.int64)
        level = np.full(nz, -1, dtype=np.int64)
        wpair = np.empty((levels + 1, 2, nx), dtype=np.float32)
        gpair = np.empty((levels + 1, 2, nx))
        par = np.zeros((levels + 1, 1), dtype=np.int64)
        ua = np.empty(nx + 1, dtype=np.float32)
        fx = np.empty(nx + 1)
        for k in range(k0, k1):
            inflow[k] = 0.0
        for it in range(lo, k1 + reach):
            r = it
            if r <= hi:                  # load row r into the rings of substep 0
                slot = r & _RMASK
                if r < k0:
                    hs, us, ws = halo_h[t, r - lo], halo_u[t, r - lo], halo_w[t, r - lo]
                elif r < k1:
                    hs, us, ws = h[r], u[r], w[r]
                else:
                    hs, us, ws = halo_h[t, reach + r - k1], halo_u[t, reach + r - k1], halo_w[t, reach + r - k1]
                _copy_row(hs, H[0, slot])
                _copy_row(us, U[0, slot])
                _copy_row(ws, W[0, slot])
                low[0, slot] = _min_bits(hs)
                level[r] = _level_bed(bed[r])
                if r == nz - 1:
                    _copy_row(w[nz] if k1 == nz else halo_w[t, reach + nz - k1], W[0, nz & _RMASK])
            for lev in range(1, levels + 1):
                j = it - LAG * lev
                a = max(0, k0 - LAG * (levels - lev))
                b = min(nz - 1, k1 - 1 + LAG * (levels - lev))
                if j < a or j > b:
                    continue
                q = _unit(j, nz, j == a, H[lev - 1], U[lev - 1], W[lev - 1], H[lev], U[lev], W[lev], low[lev - 1],
                          low[lev], level, wpair[lev], gpair[lev], par[lev], ua, fx, bed, ax, az, rows, sides,
                          side_eta, g, c, c32, s, vcap, dry)
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
