"""Shallow-water kernels on a staggered grid (numba).

Layout (SI units, index [k, i] <-> (z, x)):

    h, bed  (nz, nx)      float64, depth and bed height at cell centres, m
    u       (nz, nx + 1)  float32, x-face velocity; u[k, i] lies between cells (k, i - 1) and (k, i), m/s
    w       (nz + 1, nx)  float32, z-face velocity; w[k, i] lies between cells (k - 1, i) and (k, i), m/s
    ax, az                float32, external acceleration on the faces of u and w, m/s^2

`advance` takes one fixed step in two kinds of level: advection parts, which carry the velocities
along the flow (semi-Lagrangian, stable for any step, so one or a few per step), and gravity
substeps (depth flux and surface gradient, n of them by the CFL condition). The levels do not
each sweep the grid: `_sweep` runs up to MAX_LEVELS of them in one pass, as a pipeline over cell
rows (temporal blocking). Level 1 of row j needs the old state of rows j - 1 .. j + 2 only, so
once row j + 2 is loaded, level 1 can finish row j, level 2 row j - 2, level 3 row j - 4, and so
on (LAG = 2 rows); each level keeps its last RING rows in a small ring buffer that stays in cache,
and the grid is read and written once per pass instead of once per level. The pass is split into
row chunks, one per thread, sized by each thread's pace in the last step (`_rebalance`: on a
shared host one CPU is often slower than the other); a chunk also computes the rows beyond each
of its edges that its levels need (from a copy taken before the pass, since the neighbour
overwrites them), so chunks never wait for each other and the result is bit for bit the same
for any number of threads and any split.
A step starts from per-row statistics of the state (`_stats`: largest depth and speed, pushed
rows, level beds). The pass that stores a row also records its statistics, so a step after a
step reads none of the state again unless something wrote it in between (`fresh`, see FRESH_H):
WaterGrid tracks that, and a 1024^2 step took 15% less time for it.

Precision: the grid keeps depths and bed heights in float64, velocities and accelerations in
float32. Inside a pass the rings hold velocities in float32 and depths in int32 fixed point.
The velocities are in cells a substep, v s / dx (the face's Courant number; the pass converts
each row as it loads and stores it): a face's flux is then that number times the upwind depth,
with no multiply per face, and the speed cap is CLAMP itself. The depths are whole
units of 2^-k m (k = 30, about 1 nm, for water plus bed below 0.5 m; see MAX_SHIFT): a face moves
a whole number of units out of one cell and into the next, so the flux form conserves volume
exactly. A depth's units are its surface's less its bed's, each rounded, so still water over any
bed is a surface of equal integers and stays exactly still. What a cell holds beyond its units
(water written into h from outside: sources, bodies, mods) stays in that cell, and cells beside
open sides keep the parts of a unit the side passes, so nothing is rounded away; transfers under
a few units round stochastically (see SMALL_TRANSFER), so thin films still flow; in rows deeper
than NEAREST_UNITS every transfer rounds to nearest, one instruction. 32-bit depths
take as many vector lanes as the velocities: a gravity substep runs about 1.75x faster than with
float64 depths, a whole step 1.2-1.3x. A velocity needs no more than float32's 7 digits.

Row kernels: a row whose cells, and the rows beside it, are all deeper than NEAREST_UNITS (about
1 mm) over one bed height needs none of the wet/dry rules (they are identities there) and takes
`_wave_fast`, which also rounds every transfer to nearest (see NEAREST_UNITS); every other
row takes `_wave_wetdry`, with the rules and the z walls; `_advect_row` advects any row, with the
front rule where a cell is dry. They index the level rings in place (see "rows" below). The
choice depends only on the data, so it is the same in every chunk.

Every kernel has one fixed set of numba flags: `_sweep`, `_stats` and `scale_velocities` use
prange and are compiled parallel; the rest are serial. The fast row kernels and the statistics
helpers are inlined into them (inline="always": 3-5% faster each at 512^2); inlining the row
loads and stores measured 10% slower, so those stay calls. Loops are kept branch-free (upwind
choices are selects, wet/dry a select) so LLVM vectorises each, and mostly separate: `_wave_fast`,
the row kernel that runs most, has two loops of about seven row streams each (3% faster at 1024^2
than five loops); one loop of 13 streams, more than the L1's 8 ways, measured 15% slower, and
fusing the advection's two loops gained nothing. The next row to load is prefetched by hand, a
share per level (`_prefetch`). fastmath here allows reassociation and FMA but never assumes finite
values, so NaN and infinities are still caught.
`engine.kernels.reference` is the same scheme in plain numpy.
"""
from __future__ import annotations

import math
import platform

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.core.extending import intrinsic

# what a side of the pool does (the `sides` array holds one code per side, in SIDE order)
REFLECTIVE = 0      # zero normal velocity
OPEN = 1            # absorbing / outflow: characteristic condition against an outside surface
SIDE = ("x_min", "x_max", "z_min", "z_max")

# Scheme constants; each is passed to `advance` so tests may vary them.
# CFL: (sqrt(g h) + |v|) dt / dx per substep. Linear forward-backward gravity waves on the 5-point
# staggered stencil are stable for c dt / dx <= 1/sqrt(2) = 0.707 in 2D; with the upwind depths the
# limit measured lower: a 1 mm checkerboard on 0.5 m of water, 3 substeps per step for 3,000 steps,
# decayed (1 mm -> 0.13 mm) at c dt / dx = 0.655 and 0.660 and grew (to 9 mm, until its own flow
# speed raised the substep count) at 0.673. Measured again (64^2 with walls, 3 or 8 substeps a step):
# decayed at 0.673 and 0.69, blew up at 0.70 with 8; 7 substeps instead of 8 at 1024^2 would need
# about 0.70, too close to that edge.
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

# ADVECT_CFL: the most cells the flow may carry a velocity in one advection part. The upwind 2 x 2
# bilinear stencil (`_bilinear`) reaches one cell, so the step takes more parts where the flow is faster.
ADVECT_CFL = 1.0

# Pipeline shape (see the module docstring): each level (an advection part or a gravity substep)
# trails the one before by LAG rows and keeps RING cell rows (a power of two >= LAG + 2) and RING
# z-face rows plus the wall's (see "rows" below). Up to MAX_LEVELS levels share one pass over the
# grid; more take more passes, of equal size.
LAG = 2
RING = 4
_RMASK = RING - 1
MAX_LEVELS = 10
MIN_CHUNK_ROWS = 64   # a thread's chunk is at least this tall: its halo (about 2 LAG levels rows) stays a small overhead

# Depths inside a pass are fixed-point integers (int32) of a unit 2^-k m: fluxes move whole units
# from one cell to the next, so the flux form conserves volume exactly and still water over any
# bed (a surface of equal integers) stays exactly still; and int32 depths take as many vector lanes
# as the float32 velocities, which made a gravity substep 1.75x faster than float64 depths.
# `depth_scale` picks k for each step, as fine as int32 allows: the highest depth plus |bed| at
# the step's start, in units, stays below 2^(31 - HEADROOM_BITS), so a depth may grow 4x within a
# step before an int32 could overflow (a pass that sees one stops with TOO_DEEP). k is at most
# MAX_SHIFT (a unit of 0.93 nm; every step below 0.5 m of water plus bed has it) and at least
# MIN_SHIFT (0.24 um; water or bed more than 128 m high is TOO_DEEP). k changes only when that
# top moves out of [2^(27 - k), 2^(30 - k)) m: each change rounds every depth to the new unit.
MAX_SHIFT = 30
MIN_SHIFT = 22
HEADROOM_BITS = 2
_WRAPPED = -(1 << 24)   # a new depth this negative (in units) wrapped around int32: TOO_DEEP

# status codes returned by `advance`
OK, NOT_FINITE, RUNAWAY_STATUS, TOO_DEEP = 0, 1, 2, 3


@njit(cache=True)
def depth_scale(top, previous):
    """Depth units per m (2^k, see MAX_SHIFT) for a step whose highest depth plus |bed| is top, m,
    after a step that had `previous` (0.0: none); 0.0 if top is too high for int32 units."""
    if previous > 0.0 and top * previous < float(1 << 30) and (
            top * previous >= float(1 << 27) or previous == float(1 << MAX_SHIFT)):
        return previous
    k = MAX_SHIFT
    limit = float(1 << (31 - HEADROOM_BITS))
    while k >= MIN_SHIFT and top * float(1 << k) >= limit:
        k -= 1
    return float(1 << k) if k >= MIN_SHIFT else 0.0

# Per-row statistics scratch `rows`, int64 (nz + 1, 2): the largest |h| and |v| of each row as IEEE
# bit patterns. For non-negative doubles the bit pattern orders like the value, and every NaN sorts
# above infinity, so one integer max (which vectorises, unlike a float max) finds the CFL speed and
# any non-finite value at once.
# A third column, _EXT, is nonzero where row k's external acceleration (ax[k] or az[k]) is.
# A fourth, _B, holds the bit pattern of the row's largest |bed| (for `depth_scale`), and a fifth,
# _LEVEL, the row's bed height as a bit pattern where the whole row has one bed height, else -1:
# a pass loads such a row without reading its bed (`_load_level_depths`), and rows over one level
# bed may take the loops without wet/dry rules.
_H, _V, _EXT, _B, _LEVEL = 0, 1, 2, 3, 4
NSTAT = 5
# Which columns of `rows` already hold the statistics of the arrays they come from, for `advance`'s
# `fresh` argument: a step leaves every column exact for the state it wrote (its pass stores _H and
# _V of each row it writes, and it changes neither the bed nor ax, az), so a caller that knows
# what was written since (WaterGrid does) has `_stats` read only those arrays, and nothing at all
# when nothing was written. 0 reads everything.
FRESH_H = 1         # h: _H
FRESH_V = 2         # u, w: _V
FRESH_EXT = 4       # ax, az: _EXT
FRESH_BED = 8       # bed: _B, _LEVEL
ALL_FRESH = FRESH_H | FRESH_V | FRESH_EXT | FRESH_BED
_ABS = 0x7FFFFFFFFFFFFFFF
_ABS32 = 0x7FFFFFFF
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


def even_split(nz: int, chunks: int) -> np.ndarray:
    """The row chunks of a pass, for `advance`: int64 (2, chunks + 1). Row 0 holds the chunks'
    bounds (chunk t owns rows split[0, t] .. split[0, t + 1] - 1; here equal chunks), row 1 the
    cycles each chunk took in the last step (none yet). Keep it between steps: each step sizes
    its chunks by the last one's pace (`_rebalance`)."""
    split = np.zeros((2, chunks + 1), dtype=np.int64)
    per = (nz + chunks - 1) // chunks
    split[0] = np.minimum(np.arange(chunks + 1) * per, nz)
    return split


# A chunk is as fast as the CPU that runs it, and on a shared host one CPU is often slower than
# the other for seconds at a time (measured here: one chunk of a 1024^2 pass took 5.1-6.4 ms on one
# vCPU and 3.7-4.0 ms on the other for 20 steps on end, then both 3.9), so equal chunks leave the
# fast thread waiting. Each step gives chunk t rows in proportion to the rows per cycle it
# managed in the last step, its pace held within PACE_SPREAD of the mean pace. The result does not
# depend on the split, bit for bit.
PACE_SPREAD = 0.5
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")


@intrinsic
def _cycles(typingctx):
    """The CPU's cycle counter (llvm.readcyclecounter, the TSC on x86); 0 elsewhere, where the
    counter may trap in user code: chunks then stay as they are."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        if not _X86:
            return ir.Constant(ir.IntType(64), 0)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return sig, codegen


@njit(cache=True)
def _rebalance(split, nz):
    """Size this step's row chunks (split, see `even_split`) by the last step's pace: chunk t gets
    rows in proportion to split[0] rows over split[1] cycles, within PACE_SPREAD of the mean
    pace. Bounds that are not a split of nz rows become equal chunks; without timings (the first
    step, no cycle counter, an empty chunk) the chunks stay. Clears the timings."""
    chunks = split.shape[1] - 1
    valid = split[0, 0] == 0 and split[0, chunks] == nz
    for t in range(chunks):
        valid = valid and split[0, t] <= split[0, t + 1]
    if not valid:
        per = (nz + chunks - 1) // chunks
        for t in range(chunks + 1):
            split[0, t] = min(t * per, nz)
    timed = chunks > 1 and valid
    for t in range(chunks):
        timed = timed and split[1, t] > 0 and split[0, t + 1] > split[0, t]
    if timed:
        pace = np.empty(chunks)
        for t in range(chunks):
            pace[t] = (split[0, t + 1] - split[0, t]) / split[1, t]
        mean = pace.mean()
        for t in range(chunks):
            pace[t] = min(max(pace[t], (1.0 - PACE_SPREAD) * mean), (1.0 + PACE_SPREAD) * mean)
        total = pace.sum()
        acc = 0.0
        for t in range(chunks - 1):
            acc += pace[t]
            split[0, t + 1] = max(split[0, t] + 1, min(int(round(nz * acc / total)), nz - (chunks - 1 - t)))
    for t in range(chunks + 1):
        split[1, t] = 0


@njit(cache=True)
def advance(h, bed, u, w, ax, az, rows, inflow, scale, sides, side_eta, dx, g, dt,
            cfl, flow_cfl, clamp, dry, max_substeps, runaway, split, seed, fresh):
    """Take one fixed step of dt seconds: advect the velocities, then n equal CFL substeps of the
    depth and the surface gradient; update h, u, w in place.

    Equations (shallow water, bed height b, surface eta = b + h, external acceleration a):

        h_t + div(h v) = 0                              [m/s]
        v_t + (v . grad) v = -g grad(eta) + a           [m/s^2]

    The step splits them (units: m, s, m/s):
    (1) semi-Lagrangian advection of u and w over the whole step, in m equal parts of dt / m with
        |v| dt / (m dx) <= ADVECT_CFL: backtrace each face by its own velocity and the other
        component averaged from the four faces around it, sample bilinearly; the velocity behind
        a wet/dry front is carried onto it (`_front`). Semi-Lagrangian advection is stable for any
        step, so it need not follow the gravity waves' substeps, and one interpolation per step
        instead of one per substep smears the flow n times less.
    Then n substeps of length s, c = s / dx:
    (2) depth in flux form with the upwind depth, F = u h_up (h_up = h_l if u > 0 else h_r) on open
        faces: h <- h - c (F_r - F_l + G_t - G_b), which conserves volume to round-off;
    (3) u <- u - g c (eta_r' - eta_l') + a s, eta' the surface raised to the higher bed
        (hydrostatic reconstruction), zero on faces the water cannot reach over, |u| <= clamp / c;
    (4) walls: reflective sides get zero normal velocity, open sides the characteristic condition
        of `_open_velocity`.
    From the state at the start of the step (h_max, v_max): n is the fewest substeps that keep
    s <= cfl dx / (sqrt(g h_max) + v_max) and s <= flow_cfl dx / v_max (`substeps_for`), m the
    fewest advection parts (`advections_for`).

    Types as in the module docstring: h, bed float64; u, w, ax, az float32 (WaterGrid converts).
    The scheme moves depth in whole units of 1 / depth_scale(h_max + |bed|_max, scale[0]) m (see
    MAX_SHIFT); what a cell holds beyond its whole units (from water written into h from outside)
    stays in that cell, so volume is kept to float64 round-off.
    Scratch: rows int64 (nz + 1, NSTAT); inflow (nz,); scale (1,), the depth units per m of the
    last step (0.0 before the first), which this step updates. `sides` holds REFLECTIVE or OPEN for
    x_min, x_max, z_min, z_max and `side_eta` the outside surface height of each, m; `split` the
    row chunks of a pass, one per thread (`even_split` of `chunks_for` chunks; kept between steps,
    each of which resizes them by the last one's pace, see `_rebalance`; any split gives the same
    result); `seed` picks the step's stochastic rounding (see `_dither`; WaterGrid passes its step
    count); `fresh` the columns of `rows` that already hold the statistics of the state (FRESH_H
    ... ALL_FRESH; 0: none), which the step then does not re-read. Afterwards every column of
    `rows` holds the statistics of the state the step leaves, bit for bit what `_stats` would find.
    Returns (status, t, substeps, boundary_volume): status OK, NOT_FINITE, RUNAWAY_STATUS or
    TOO_DEEP (water or bed too high for int32 depth units, see MIN_SHIFT), the time into the step
    when it stopped, and the net m^3 that came in through open sides.
    """
    nz, nx = h.shape
    chunks = split.shape[1] - 1
    _rebalance(split, nz)
    if fresh != ALL_FRESH:
        _stats(h, bed, u, w, ax, az, rows, fresh)
    hmax, vmax, bmax, finite = _reduce(rows)
    if not finite:
        return NOT_FINITE, 0.0, 0, 0.0
    n = substeps_for(dt, dx, g, hmax, vmax, cfl, flow_cfl)
    if vmax > runaway or n > max_substeps:
        return RUNAWAY_STATUS, 0.0, 0, 0.0
    unit_scale = depth_scale(hmax + bmax, scale[0])
    if unit_scale == 0.0:
        return TOO_DEEP, 0.0, 0, 0.0
    scale[0] = unit_scale
    m = advections_for(dt, dx, vmax)
    s = dt / n
    total = m + n
    plan = _plan(m, n)
    passes = (total + MAX_LEVELS - 1) // MAX_LEVELS
    per_pass = (total + passes - 1) // passes
    reach = LAG * per_pass + 1
    dq = np.int32(math.floor(dry * unit_scale))     # depth units: h <= dry  <=>  units <= dq
    wq = np.int32(math.floor(WET * unit_scale))
    wrapped = np.zeros(chunks, dtype=np.int64)
    lefts = np.zeros(nz, dtype=np.bool_)
    halo_h = np.empty((chunks, 2 * reach + 1, nx))
    halo_u = np.empty((chunks, 2 * reach + 1, nx + 1), dtype=np.float32)
    halo_w = np.empty((chunks, 2 * reach + 1, nx), dtype=np.float32)
    done = 0
    waves = 0
    bvol = 0.0
    while done < total:
        levels = min(per_pass, total - done)
        kinds = plan[done:done + levels]
        _sweep(h, bed, u, w, ax, az, kinds, rows, inflow, sides, side_eta, g, dx, s, dt / m,
               min(clamp, 1.0) * dx / s, unit_scale, dq, wq, split, halo_h, halo_u, halo_w, wrapped, lefts,
               seed * 4096 + done)
        for k in range(nz):
            bvol += inflow[k]
        done += levels
        for l in range(levels):
            waves += 1 - kinds[l]
        finite = _reduce(rows)[3]
        if not finite:
            return NOT_FINITE, waves * s, waves, bvol
        if wrapped.any():
            return TOO_DEEP, waves * s, waves, bvol
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
def _plan(m, n):
    """The order of a step's levels: 1 for an advection part, 0 for a gravity substep. The m parts
    are spread evenly over the n substeps, the first before the first substep; a wet/dry front
    advances one cell per part (`_front`), so it keeps up with flow that moves a cell per part."""
    plan = np.zeros(m + n, dtype=np.int64)
    for p in range(m):
        stop = (p * n + m - 1) // m      # substeps before part p: ceil(p n / m)
        plan[stop + p] = 1
    return plan


@njit(cache=True)
def advections_for(dt, dx, vmax):
    """The fewest equal parts of a dt step that each move the flow at most ADVECT_CFL cells."""
    return max(1, int(math.ceil(vmax * dt / (ADVECT_CFL * dx) * (1.0 - 1e-12))))


@njit(cache=True)
def _reduce(rows):
    """(h_max, v_max, |bed|_max, all finite) from the per-row bit patterns in `rows`."""
    top = np.zeros(3, dtype=np.int64)
    for k in range(rows.shape[0]):
        top[0] = max(top[0], rows[k, _H])
        top[1] = max(top[1], rows[k, _V])
        top[2] = max(top[2], rows[k, _B])
    finite = top[0] < _INF_BITS and top[1] < _INF_BITS and top[2] < _INF_BITS
    hmax, vmax, bmax = top.view(np.float64)
    return hmax, vmax, bmax, finite


@njit(cache=True, parallel=True)
def _stats(h, bed, u, w, ax, az, rows, fresh):
    """Fill `rows` with the bit patterns of each row's largest |h|, |v| and |bed| and its level
    bed height, and flag the rows whose external acceleration is nonzero (see NSTAT): one
    parallel read of the state, of the arrays whose columns are not in `fresh` (see FRESH_H)."""
    nz, nx = h.shape
    for k in prange(nz + 1):
        if not fresh & FRESH_H:
            rows[k, _H] = _max_bits(h[k]) if k < nz else 0
        if not fresh & FRESH_V:
            vm = _max_bits32(w[k])
            if k < nz:
                vm = max(vm, _max_bits32(u[k]))
            rows[k, _V] = vm
        if not fresh & FRESH_EXT:
            ext = _any_bits(az[k])
            if k < nz:
                ext |= _any_bits(ax[k])
            rows[k, _EXT] = ext
        if not fresh & FRESH_BED:
            bm = 0
            lev = -1
            if k < nz:
                bm, lev = _bed_bits(bed[k])
            rows[k, _B] = bm
            rows[k, _LEVEL] = lev


@njit(cache=True, parallel=True)
def scale_velocities(u, w, factor, rows):
    """u, w *= factor (float32, in place), and the _V column of `rows` to match, bit for bit what
    `_stats` would find (so FRESH_V stays true): one parallel pass over the faces."""
    nz = u.shape[0]
    for k in prange(nz + 1):
        vm = _scale_row(w[k], factor)
        if k < nz:
            vm = max(vm, _scale_row(u[k], factor))
        rows[k, _V] = vm


@njit(cache=True)
def clear_pushed(ax, az, rows):
    """Zero the external acceleration of the rows a step found pushed (the _EXT column of `rows`:
    ax row k, az row k) and clear those flags: afterwards ax and az are all +0.0 and the column is
    exact for them. A caller that clears ax and az after each step (WaterGrid) calls this instead of
    numpy's fancy indexing, which cost tens of microseconds a 1024^2 step once the step has pushed
    the interpreter's data out of the caches."""
    nz = ax.shape[0]
    for k in range(rows.shape[0]):
        if rows[k, _EXT] != 0:
            if k < nz:
                ax[k, :] = 0.0
            az[k, :] = 0.0
            rows[k, _EXT] = 0


@njit(cache=True, inline="always")
def _scale_row(a, factor):
    """a[:] *= factor (float32); return the largest |a[i]| after it as `_max_bits32` does."""
    bits = a.view(np.int32)
    m = 0
    for i in range(a.shape[0]):
        a[i] = a[i] * factor
        m = max(m, bits[i] & _ABS32)
    return _widen_bits(m)


@njit(cache=True, inline="always")
def _any_bits(a):
    """Nonzero if any a[i] is not +0.0 (an OR of the bit patterns, which vectorises; the int32
    view serves float32 and float64 rows alike)."""
    bits = a.view(np.int32)
    m = 0
    for i in range(bits.shape[0]):
        m |= bits[i]
    return m

# float32 constants: numba widens float32 op float64-literal to float64, so the velocity
# arithmetic spells its constants in float32 to stay in single precision (twice the lanes)
_Z = np.float32(0.0)
_QUARTER = np.float32(0.25)
_HALF = np.float32(0.5)


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
def _boundary_depth(vel, h_in, b_in, eta_out, inward, unit, cs):
    """The depth a substep carries in through an open side, in units but not whole ones:
    `_boundary_flux` of the ring velocity vel (cells a substep, so the flux is in m a substep)
    times cs, the depth units per m; h_in in units of unit m. The cell takes
    the whole units now and the rest with its leftover (see `_sweep`), so the side passes
    exactly the flux."""
    return _boundary_flux(float(vel), max(h_in * unit, 0.0), b_in, eta_out, inward) * cs


@njit(cache=True, inline="always")
def _whole(x):
    """x rounded to whole units (int32)."""
    return np.int32(np.floor(x + 0.5))


# Edge parts. A cell beside an open side takes whole units from every face like any other, and
# keeps the rest of what the side passed (and what it held beyond whole units when the pass loaded
# it) as a part of a unit: xf[j, 0] and xf[j, 1] for the cells at i = 0 and i = nx - 1 of row j
# (one cell, xf[j, 0], when nx = 1), zf[0, i] and zf[1, i] for the other cells of rows 0 and
# nz - 1. The side's own velocity and flux see the whole depth, units plus part, as the scheme
# in exact arithmetic would; the store writes both back.

@njit(cache=True, inline="always")
def _part(xf, zf, j, i, nx):
    """The part of a unit edge cell (j, i) holds (see above)."""
    if i == 0:
        return xf[j, 0]
    if i == nx - 1:
        return xf[j, 1]
    return zf[0 if j == 0 else 1, i]


@njit(cache=True, inline="always")
def _add_part(xf, zf, j, i, nx, v):
    """Add v to the part of a unit edge cell (j, i) holds."""
    if i == 0:
        xf[j, 0] += v
    elif i == nx - 1:
        xf[j, 1] += v
    else:
        zf[0 if j == 0 else 1, i] += v


# Stochastic rounding. A transfer rounded to the nearest unit is lost below half a unit: over a thin
# film (a 10 um shore film holds some 10^4 units) a face's velocity could grow under a surface step
# of a unit without moving any water, until it moved half a unit per substep (about 0.5 mm/s there).
# Rounded up with probability equal to its fraction, a small transfer moves on average exactly what
# the scheme in exact arithmetic would. Larger ones round to nearest, whose error is smaller (in
# fast chaotic flow, stochastic rounding everywhere made the kernel differ from the float64
# reference 10x more). The random number is one per row of faces, a hash of (step, level, face
# row, face kind): the same in every chunk and every run, and a constant in the row's loop, which
# stays vectorised (a number per face, read from a table, cost 11% at 1024^2). Rows deeper than
# NEAREST_UNITS round every transfer to nearest instead (see there).
SMALL_TRANSFER = 2.0   # units: larger transfers round to nearest
_SMALL = np.float32(SMALL_TRANSFER)


@njit(cache=True, inline="always")
def _dither(key, row, kind):
    """A number in [0, 1) (float32) from a hash of (key, row, kind), for stochastic rounding."""
    x = (key * 1000003 + row) * 4 + kind
    x = (x ^ (x >> 30)) * 0x5851F42D4C957F2D
    x = (x ^ (x >> 27)) * 0x14057B7EF767814F
    return np.float32(((x ^ (x >> 31)) & 0xFFFFFF) * (1.0 / 16777216.0))


@njit(cache=True, fastmath=_FAST)
def _transfer(cv, h_l, h_r, r):
    """Depth units a substep moves across a face, left to right: the face's cells moved per
    substep, cv = v s / dx (float32), times the upwind depth (units), rounded: stochastically
    below SMALL_TRANSFER units (with r from `_dither`), else to nearest. The same
    integer leaves one cell and enters the other, so no volume is made or lost."""
    x = _upwind(cv, h_l, h_r)
    return np.int32(np.floor(x + (r if abs(x) < _SMALL else _HALF)))


@njit(cache=True, fastmath=_FAST)
def _nearest(cv, h_l, h_r):
    """`_transfer` rounded to nearest (ties to even), for rows deeper than NEAREST_UNITS: LLVM
    turns the int32 of rint into a single conversion instruction."""
    return np.int32(np.rint(_upwind(cv, h_l, h_r)))


@njit(cache=True, fastmath=_FAST, inline="always")
def _upwind(cv, h_l, h_r):
    """cv times the upwind depth (units), float32: what a face moves before rounding."""
    return cv * np.float32(h_l if cv > _Z else h_r)


@njit(cache=True, fastmath=_FAST)
def _flux(cv, h_l, b_l, h_r, b_r, dq, r):
    """`_transfer` through an interior face (depths, beds and dq in units): zero where the higher
    surface does not reach dq over the higher bed (between two wet cells over one bed height the
    test always passes)."""
    q = _transfer(cv, h_l, h_r, r)
    return q if max(b_l + h_l, b_r + h_r) > max(b_l, b_r) + dq else np.int32(0)


@njit(cache=True, fastmath=_FAST)
def _push(vel, d, acc_dt, gc, vcap):
    """vel - g c d + a s, capped at vcap (float32, in the rings' cells a substep: gc = g c^2 unit,
    c = s / dx, the acceleration term a s c, vcap = CLAMP); d the surface difference across the
    face in units (float32)."""
    v = vel - gc * d + acc_dt
    return min(max(v, -vcap), vcap)


@njit(cache=True, fastmath=_FAST)
def _accelerate(vel, h_l, b_l, h_r, b_r, acc_dt, gc, vcap, dq):
    """New face velocity (float32, cells a substep) from the surface gradient and the external
    acceleration (see `_push`).

    Surfaces below the higher bed are raised to it (hydrostatic reconstruction): water under a step
    presses on the step, not on the water above it, so still water stays still over any bed and a
    spill over a ledge is driven by the depth on the ledge, not by the drop. Depths and beds are in
    units, so over still water the surface difference is exactly zero. Between two wet cells over
    one bed height this is `_push` of h_r - h_l.
    """
    bmax = max(b_l, b_r)
    e_l = b_l + h_l
    e_r = b_r + h_r
    v = _push(vel, np.float32(max(e_r, bmax) - max(e_l, bmax)), acc_dt, gc, vcap)
    return v if max(e_l, e_r) > bmax + dq else _Z


# -- rows ------------------------------------------------------------------------------------------
# The row kernels index the level rings in place, [level, slot, i], reading level li and writing
# level lo: numba reference-counts every array view, and for a 512-cell row the views (and the
# calls that pass them) cost as much as the arithmetic. Rings: H and U keep RING rows per level
# (row r in slot r & _RMASK); W keeps RING face rows (face k in slot k & _WMASK) and the wall face
# row nz in slot WALL (`_wslot`). Loops run over whole rows from constant starts, one job each and
# branch-free (upwind choices and wet/dry are selects): LLVM then drops numba's negative-index
# checks, adds its runtime alias checks between the ring rows and vectorises. (Row views inside
# the loops, splitting rows into column blocks, and fusing the loops all measured slower.)

WET = 2.0 * DRY   # m: the wet/dry rules are identities between cells deeper than this
# Rows whose cells are all deeper than this many depth units (about 1 mm at the finest unit) take
# `_wave_fast`: besides dropping the wet/dry rules it rounds every transfer to nearest, which
# compiles to one instruction (fptosi of rint) where the stochastic rounding of `_transfer` takes
# six, and made a 1024^2 step 6% faster. Stochastic rounding is for thin films; here a transfer
# of half a unit is a 2^-21 part of the depth, so a face whose flow rounds to no water at all
# moves less than 2^-21 of a cell per substep (under 2 um/s at a 4 mm cell and a 1 ms substep).
NEAREST_UNITS = 1 << 20
_BIG = 0x7FFFFFFF
# A level reads z faces j - 1 .. j + 2 of the level before, which has written up to face j + 2:
# four live rows, and the wall face nz apart. Eight slots (room for the wall row too) made the
# rings 160 KB larger per thread at 1024 cells a row, likely pushing the grid rows a pass holds
# from load to store out of L2: a 1024^2 step took 0.17 ms (4%) longer (paired medians of 8
# processes, twice).
WRING = RING + 1
_WMASK = RING - 1
WALL = RING


@njit(cache=True, inline="always")
def _wslot(k, nz):
    """The W ring slot of z-face row k (nz: the wall face above the last row)."""
    return WALL if k == nz else k & _WMASK
# The bed in depth units, per row as a pass loads it: level l of iteration it reads bed rows
# it - 2 l - 1 .. it - 2 l + 1, so the ring keeps BRING >= 2 MAX_LEVELS + 2 rows. Only the wet/dry
# loops read it: a row over one bed height is written into the ring when such a loop first needs
# it (`_need_bed_units`), so a level pool writes none (1.5-2.4% of a 1024^2 step).
BRING = 32
_BMASK = BRING - 1
# Each level's smallest new depth per row, for the last LRING rows: the first row a of a level in a
# chunk asks whether row a - 1 would take the fast kernel at that level (`_fast_row`), which reads
# the level before at rows a - 2 .. a; that level has already done row a + 2, so a ring of RING
# rows would no longer hold row a - 2.
LRING = 8
_LMASK = LRING - 1


@njit(cache=True, inline="always")
def _fast_row(rows, low, lev, j, nz, fq):
    """Whether row j takes `_wave_fast` at level lev: an interior row without external
    acceleration whose cells and both neighbour rows, over one bed height, were all deeper than fq
    units at level lev - 1. Depends only on the data, so it is the same in every chunk."""
    return (0 < j < nz - 1 and rows[j, _EXT] == 0 and rows[j, _LEVEL] >= 0
            and rows[j - 1, _LEVEL] == rows[j, _LEVEL] and rows[j + 1, _LEVEL] == rows[j, _LEVEL]
            and low[lev - 1, (j - 1) & _LMASK] > fq and low[lev - 1, j & _LMASK] > fq
            and low[lev - 1, (j + 1) & _LMASK] > fq)


@njit(cache=True, fastmath=_FAST, inline="always")
def _ring_depths(H, G, fx, xf, u_first, u_last, li, lo, j, pb, pt, bed, sides, side_eta, unit, cs):
    """New depths of ring row j (units) from the units its faces move (fx interior, G[lo, pb]
    below, G[lo, pt] above): first the x-wall ones (zero, or the open condition for the wall
    faces' velocities u_first, u_last; cs: units per m; the parts of a unit into xf[j], see
    `_part`), then h - (F_r - F_l + G_t - G_b). Return (the smallest new depth before the max,
    the depth in through the x walls in units): the max only absorbs the rare unit of round-off
    (CLAMP keeps every outflow within the cell's water); a depth below _WRAPPED overflowed int32."""
    nx = H.shape[2]
    sj = j & _RMASK
    fx[0], fx[nx], e = _wall_units(H, xf, u_first, u_last, li, j, bed, sides, side_eta, unit, cs)
    low = np.int32(_BIG)
    for i in range(nx):
        d = np.int32(H[li, sj, i] - (fx[i + 1] - fx[i] + G[lo, pt, i] - G[lo, pb, i]))
        H[lo, sj, i] = max(d, np.int32(0))
        low = min(low, d)
    return low, e


@njit(cache=True, fastmath=_FAST, inline="always")
def _wall_units(H, xf, u_first, u_last, li, j, bed, sides, side_eta, unit, cs):
    """The whole units the two x wall faces of ring row j move left to right (zero, or the open
    condition for their velocities u_first, u_last; cs: units per m), keeping the parts of a
    unit in xf[j] (see `_part`). Return (left face, right face, the units in through both)."""
    nx = H.shape[2]
    sj = j & _RMASK
    xr = 1 if nx > 1 else 0
    e_l = (_boundary_depth(u_first, H[li, sj, 0] + xf[j, 0], bed[j, 0], side_eta[0], 1.0, unit, cs)
           if sides[0] == OPEN else 0.0)
    e_r = (_boundary_depth(u_last, H[li, sj, nx - 1] + xf[j, xr], bed[j, nx - 1], side_eta[1], -1.0, unit, cs)
           if sides[1] == OPEN else 0.0)
    f0 = _whole(e_l)
    fn = -_whole(e_r)
    xf[j, 0] += e_l - f0
    xf[j, xr] += e_r + fn
    return f0, fn, e_l + e_r


@njit(cache=True, inline="always")
def _ring_u_walls(H, U, xf, lo, j, bed, sides, side_eta, g, vcap, vs, unit):
    """The two x wall faces of ring row j from its new depths (units plus parts, see `_part`):
    zero, or the open condition (m/s, capped at vcap m/s, times vs into cells a substep)."""
    m = _RMASK
    nx = H.shape[2]
    sj = j & m
    xr = 1 if nx > 1 else 0
    U[lo, sj, 0] = (_open_velocity((H[lo, sj, 0] + xf[j, 0]) * unit, bed[j, 0], side_eta[0], g, -1.0, vcap) * vs
                    if sides[0] == OPEN else 0.0)
    U[lo, sj, nx] = (_open_velocity((H[lo, sj, nx - 1] + xf[j, xr]) * unit, bed[j, nx - 1], side_eta[1], g, 1.0,
                                    vcap) * vs if sides[1] == OPEN else 0.0)


@njit(cache=True, fastmath=_FAST, inline="always")
def _ring_velocities(H, U, W, WF, ua, xf, zf, lo, j, nz, first, pb, bed, ax, az, has_ext, sides, side_eta, g,
                     s32, gc, vc, vcap, vs, dq, unit, BQ):
    """New faces of ring row j with the wet/dry rules, from its new depths: the x faces from ua,
    the z faces below from WF[lo, pb] (none for the first row of a level, which has no new depth
    below), the wall faces by the side rules (`_open_velocity` times vs, or zero). Velocities follow the
    surface raised to the higher bed (`_accelerate`, with the beds in units from BQ, see BRING);
    ax[j], az[j] are read only when has_ext."""
    m = _RMASK
    nx = H.shape[2]
    sj, sm = j & m, (j - 1) & m
    wj = j & _WMASK
    if has_ext:
        for i in range(1, nx):
            U[lo, sj, i] = _accelerate(ua[i], H[lo, sj, i - 1], BQ[j & _BMASK, i - 1], H[lo, sj, i],
                                       BQ[j & _BMASK, i], np.float32(ax[j, i] * s32), gc, vc, dq)
    else:
        for i in range(1, nx):
            U[lo, sj, i] = _accelerate(ua[i], H[lo, sj, i - 1], BQ[j & _BMASK, i - 1], H[lo, sj, i],
                                       BQ[j & _BMASK, i], _Z, gc, vc, dq)
    _ring_u_walls(H, U, xf, lo, j, bed, sides, side_eta, g, vcap, vs, unit)
    if j == 0:
        for i in range(nx):
            W[lo, wj, i] = (_open_velocity((H[lo, sj, i] + _part(xf, zf, 0, i, nx)) * unit, bed[0, i], side_eta[2], g,
                                           -1.0, vcap) * vs if sides[2] == OPEN else 0.0)
    elif not first:
        if has_ext:
            for i in range(nx):
                W[lo, wj, i] = _accelerate(WF[lo, pb, i], H[lo, sm, i], BQ[(j - 1) & _BMASK, i], H[lo, sj, i],
                                           BQ[j & _BMASK, i], np.float32(az[j, i] * s32), gc, vc, dq)
        else:
            for i in range(nx):
                W[lo, wj, i] = _accelerate(WF[lo, pb, i], H[lo, sm, i], BQ[(j - 1) & _BMASK, i], H[lo, sj, i],
                                           BQ[j & _BMASK, i], _Z, gc, vc, dq)
    if j == nz - 1:
        wt = WALL
        for i in range(nx):
            W[lo, wt, i] = (_open_velocity((H[lo, sj, i] + _part(xf, zf, j, i, nx)) * unit, bed[j, i], side_eta[3], g,
                                           1.0, vcap) * vs if sides[3] == OPEN else 0.0)


@njit(cache=True, fastmath=_FAST, inline="always")
def _wave_fast(H, U, W, G, xf, li, lo, j, first, near, pb, pt, bed, sides, side_eta, g, cs, gc, vc, vcap, vs, unit,
               key):
    """A gravity substep of interior row j whose cells and both neighbour rows are deeper than
    NEAREST_UNITS over one bed height, without external acceleration: `_wave_wetdry` with the
    wet/dry rules dropped (identities there) and the transfers rounded to nearest (`_nearest`).
    Return (the smallest new depth, the units that came in through open x sides).

    G[lo, pb] holds the units moved across the faces below the row (computed here when `first`,
    rounded as row j - 1 rounds them where it is not first: to nearest when `near`, the row below
    taking this kernel too, else as `_wave_wetdry` does, with the key `key`), G[lo, pt] receives
    those above. The first row of a level writes no z faces below (see `_sweep`).

    Two loops instead of `_wave_wetdry`'s five: the z fluxes above, the x fluxes and the new
    depths in one, each cell's x flux on the left carried over from the cell before
    (`_wall_units` gives the two wall faces'); the x and z faces in the other. 11 loads and 4
    stores a cell instead of 17 and 5; a 1024^2 step took 0.12 ms (3%) less for it (paired
    medians of 8 runs), bit for bit the same. Fusing both loops into one was 0.6 ms slower: its
    13 row streams crowd the 8-way L1.

    Both loops run nx times, so a row of a multiple of 16 cells is whole vectors with no scalar
    remainder (15 scalar iterations a loop at 1024 cells took about 9% of a gravity substep): the
    face loop pairs z face i with x face i + 1, and x face nx, which then reads the depth one
    past the row (the next ring row, or `_lined`'s slack), is overwritten by `_ring_u_walls`;
    with a reflective x_max the flux loop runs on through the last cell, whose right face has
    zero velocity (`_sweep` loads it as zero), so its flux is zero whatever depth it reads
    beyond the row, as the wall's is. 1024^2: -0.29 ms a step (7%), better in 6 of 6; 512^2:
    -0.08 ms (11%), 4 of 4; bit for bit the same.
    """
    m = _RMASK
    nx = H.shape[2]
    sj, sm, sp = j & m, (j - 1) & m, (j + 1) & m
    wj, wp = j & _WMASK, (j + 1) & _WMASK
    if first and near:
        for i in range(nx):
            G[lo, pb, i] = _nearest(W[li, wj, i], H[li, sm, i], H[li, sj, i])
    elif first:                  # as `_wave_wetdry` rounds them (deep cells over one bed: no front, open)
        r = _dither(key, j, 0)
        for i in range(nx):
            G[lo, pb, i] = _transfer(W[li, wj, i], H[li, sm, i], H[li, sj, i], r)
    f0, fn, e = _wall_units(H, xf, U[li, sj, 0], U[li, sj, nx], li, j, bed, sides, side_eta, unit, cs)
    low = np.int32(_BIG)
    fl = f0
    # a reflective x_max: U[li, sj, nx] is 0, so the last cell's right flux comes out 0 = fn
    cells = nx if sides[1] == REFLECTIVE else nx - 1
    for i in range(cells):
        gt = _nearest(W[li, wp, i], H[li, sj, i], H[li, sp, i])
        G[lo, pt, i] = gt
        fr = _nearest(U[li, sj, i + 1], H[li, sj, i], H[li, sj, i + 1])
        d = np.int32(H[li, sj, i] - (fr - fl + gt - G[lo, pb, i]))
        H[lo, sj, i] = max(d, np.int32(0))
        low = min(low, d)
        fl = fr
    if cells < nx:               # an open x_max: its flux fn from the side condition
        i = nx - 1
        gt = _nearest(W[li, wp, i], H[li, sj, i], H[li, sp, i])
        G[lo, pt, i] = gt
        d = np.int32(H[li, sj, i] - (fn - fl + gt - G[lo, pb, i]))
        H[lo, sj, i] = max(d, np.int32(0))
        low = min(low, d)
    if first:                    # x face nx reads beyond the row: `_ring_u_walls` overwrites it
        for i in range(nx):
            dh = np.float32(np.int32(H[lo, sj, i + 1] - H[lo, sj, i]))
            U[lo, sj, i + 1] = _push(U[li, sj, i + 1], dh, _Z, gc, vc)
    else:
        for i in range(nx):   # both faces before either store
            hc = H[lo, sj, i]
            wn = _push(W[li, wj, i], np.float32(np.int32(hc - H[lo, sm, i])), _Z, gc, vc)
            un = _push(U[li, sj, i + 1], np.float32(np.int32(H[lo, sj, i + 1] - hc)), _Z, gc, vc)
            W[lo, wj, i] = wn
            U[lo, sj, i + 1] = un
    _ring_u_walls(H, U, xf, lo, j, bed, sides, side_eta, g, vcap, vs, unit)
    return low, e


@njit(cache=True, fastmath=_FAST)
def _wave_wetdry(H, U, W, G, WF, ua, fx, xf, zf, li, lo, j, nz, first, near, below, pb, pt, bed, ax, az, has_ext,
                 sides, side_eta, g, cs, s32, gc, vc, vcap, vs, dq, unit, BQ, key):
    """A gravity substep of any row j with the wet/dry rules: its depth, its x faces and the z faces
    below it (row nz - 1 also the wall row above). Return (the smallest new depth, the units that
    came in through open sides).

    Faces next to a dry cell first take the velocity behind the water (`_front`): the x faces into
    ua, the z faces above the row into WF[lo, pt], those below into WF[lo, pb] when `below` (else
    row j - 1 left them there). Faces close where the water cannot reach over the higher bed
    (`_flux`); the z walls (rows 0 and nz) carry zero or the open condition (`_boundary_depth`,
    the parts of a unit into the edge cells' parts, see `_part`).
    G[lo, pb]: the units moved below, made here when `first` (rounded to nearest when `near`: the
    row below takes `_wave_fast`, which rounds them so where it makes them); G[lo, pt] receives
    those above.
    """
    m = _RMASK
    nx = H.shape[2]
    sj, sm, sp = j & m, max(j - 1, 0) & m, min(j + 1, nz - 1) & m
    wj, wb, wp, wpp = j & _WMASK, (j - 1) & _WMASK, _wslot(j + 1, nz), _wslot(j + 2, nz)
    ua[0] = U[li, sj, 0]
    ua[nx] = U[li, sj, nx]
    for i in range(1, nx):
        ua[i] = _front(U[li, sj, i], H[li, sj, i - 1], H[li, sj, i], U[li, sj, i - 1], U[li, sj, i + 1], dq)
    qz = 0.0
    if j == 0:                           # the z_min wall (row 0 is always the first of its level)
        for i in range(nx):
            e = (_boundary_depth(W[li, wj, i], H[li, sj, i] + _part(xf, zf, 0, i, nx), bed[0, i], side_eta[2], 1.0,
                                 unit, cs) if sides[2] == OPEN else 0.0)
            G[lo, pb, i] = _whole(e)
            _add_part(xf, zf, 0, i, nx, e - G[lo, pb, i])
            qz += e
    else:
        if below:
            for i in range(nx):
                WF[lo, pb, i] = _front(W[li, wj, i], H[li, sm, i], H[li, sj, i], W[li, wb, i], W[li, wp, i], dq)
        if first and near:       # as `_wave_fast` rounds them, the row below taking it
            for i in range(nx):
                G[lo, pb, i] = _nearest(WF[lo, pb, i], H[li, sm, i], H[li, sj, i])
        elif first:
            r = _dither(key, j, 0)
            for i in range(nx):
                G[lo, pb, i] = _flux(WF[lo, pb, i], H[li, sm, i], BQ[(j - 1) & _BMASK, i], H[li, sj, i],
                                     BQ[j & _BMASK, i], dq, r)
    if j == nz - 1:                      # the z_max wall
        for i in range(nx):
            e = (_boundary_depth(W[li, wp, i], H[li, sj, i] + _part(xf, zf, j, i, nx), bed[j, i], side_eta[3], -1.0,
                                 unit, cs) if sides[3] == OPEN else 0.0)
            G[lo, pt, i] = -_whole(e)
            _add_part(xf, zf, j, i, nx, e + G[lo, pt, i])
            qz += e
    else:
        for i in range(nx):
            WF[lo, pt, i] = _front(W[li, wp, i], H[li, sj, i], H[li, sp, i], W[li, wj, i], W[li, wpp, i], dq)
        r = _dither(key, j + 1, 0)
        for i in range(nx):
            G[lo, pt, i] = _flux(WF[lo, pt, i], H[li, sj, i], BQ[j & _BMASK, i], H[li, sp, i],
                                 BQ[(j + 1) & _BMASK, i], dq, r)
    r = _dither(key, j, 1)
    for i in range(1, nx):
        fx[i] = _flux(ua[i], H[li, sj, i - 1], BQ[j & _BMASK, i - 1], H[li, sj, i],
                      BQ[j & _BMASK, i], dq, r)
    low, q = _ring_depths(H, G, fx, xf, ua[0], ua[nx], li, lo, j, pb, pt, bed, sides, side_eta, unit, cs)
    _ring_velocities(H, U, W, WF, ua, xf, zf, lo, j, nz, first, pb, bed, ax, az, has_ext, sides, side_eta, g, s32,
                     gc, vc, vcap, vs, dq, unit, BQ)
    return low, q + qz


@njit(cache=True, fastmath=_FAST)
def _refresh_faces(H, U, W, WF, ua, xf, zf, li, lo, j, nz, first, pb, bed, ax, az, sides, side_eta, g, s32, gc, vc,
                   vcap, vs, dq, unit, BQ):
    """After `_wave_fast` left a cell of row j (or of row j - 1) dry: redo the row's new faces with
    the wet/dry rules. The cells were all wet before the substep, so `_front` is the identity and
    the faces start from the old ones."""
    nx = H.shape[2]
    sj, wj = j & _RMASK, j & _WMASK
    for i in range(nx + 1):
        ua[i] = U[li, sj, i]
    for i in range(nx):
        WF[lo, pb, i] = W[li, wj, i]
    _ring_velocities(H, U, W, WF, ua, xf, zf, lo, j, nz, first, pb, bed, ax, az, False, sides, side_eta, g, s32,
                     gc, vc, vcap, vs, dq, unit, BQ)


@njit(cache=True, fastmath=_FAST, inline="always")
def _advect_row(H, U, W, li, lo, j, nz, first, wet, c, dq):
    """One advection part (c = part / s, float32: a ring velocity, in cells a substep, times c is
    the cells it moves in a part) of ring row j: its x faces and the z faces below
    it (row nz - 1 also copies the wall row above; row 0's faces below are the wall, copied); the
    depths pass through. Semi-Lagrangian: each face is sampled bilinearly at the point its own
    velocity and the other component, averaged from the four faces around it, trace back from
    (`_bilinear`; the rows beyond the grid's edge read the edge row). Unless `wet` (row j and the
    row below all wet, where `_front` is the identity), faces next to dry cells then take the
    velocity behind the water. The first row a > 0 of a level leaves its z faces below unset.
    """
    m = _RMASK
    nx = H.shape[2]
    sj, sm, sp = j & m, max(j - 1, 0) & m, min(j + 1, nz - 1) & m
    wj, wb, wp = j & _WMASK, (j - 1) & _WMASK, _wslot(j + 1, nz)
    cq = c * _QUARTER
    for i in range(nx):
        H[lo, sj, i] = H[li, sj, i]
    U[lo, sj, 0] = U[li, sj, 0]
    U[lo, sj, nx] = U[li, sj, nx]
    for i in range(1, nx):
        U[lo, sj, i] = _bilinear(U[li, sj, i] * c, (W[li, wj, i - 1] + W[li, wj, i] + W[li, wp, i - 1] + W[li, wp, i]) * cq,
                                 U[li, sm, i - 1], U[li, sm, i], U[li, sm, i + 1],
                                 U[li, sj, i - 1], U[li, sj, i], U[li, sj, i + 1],
                                 U[li, sp, i - 1], U[li, sp, i], U[li, sp, i + 1])
    if not wet:
        for i in range(1, nx):
            U[lo, sj, i] = _front(U[lo, sj, i], H[li, sj, i - 1], H[li, sj, i], U[li, sj, i - 1], U[li, sj, i + 1], dq)
    if j == nz - 1:
        wt = WALL
        for i in range(nx):
            W[lo, wt, i] = W[li, wt, i]
    if j == 0:
        for i in range(nx):
            W[lo, wj, i] = W[li, wj, i]
        return
    if first:
        return
    for i in range(1, nx - 1):
        W[lo, wj, i] = _bilinear((U[li, sm, i] + U[li, sm, i + 1] + U[li, sj, i] + U[li, sj, i + 1]) * cq, W[li, wj, i] * c,
                                 W[li, wb, i - 1], W[li, wb, i], W[li, wb, i + 1],
                                 W[li, wj, i - 1], W[li, wj, i], W[li, wj, i + 1],
                                 W[li, wp, i - 1], W[li, wp, i], W[li, wp, i + 1])
    for i in (0, nx - 1):
        il = max(i - 1, 0)
        ih = min(i + 1, nx - 1)
        W[lo, wj, i] = _bilinear((U[li, sm, i] + U[li, sm, i + 1] + U[li, sj, i] + U[li, sj, i + 1]) * cq, W[li, wj, i] * c,
                                 W[li, wb, il], W[li, wb, i], W[li, wb, ih],
                                 W[li, wj, il], W[li, wj, i], W[li, wj, ih],
                                 W[li, wp, il], W[li, wp, i], W[li, wp, ih])
    if not wet:
        for i in range(nx):
            W[lo, wj, i] = _front(W[lo, wj, i], H[li, sm, i], H[li, sj, i], W[li, wb, i], W[li, wp, i], dq)


@njit(cache=True, inline="always")
def _max_abs_bits(bits, sign_off):
    """Largest bits[i] & sign_off: a float row's largest |value| as a bit pattern, the row viewed
    as integers of its width (an integer max vectorises, unlike a float max)."""
    m = 0
    for i in range(bits.shape[0]):
        m = max(m, bits[i] & sign_off)
    return m


@njit(cache=True, inline="always")
def _max_bits(a):
    """Largest |a[i]| of a float64 row as an IEEE bit pattern (see NSTAT)."""
    return _max_abs_bits(a.view(np.int64), _ABS)


@njit(cache=True, inline="always")
def _max_bits32(a):
    """Largest |a[i]| of a float32 row, as the bit pattern of the same value in float64."""
    return _widen_bits(_max_abs_bits(a.view(np.int32), _ABS32))


@njit(cache=True, inline="always")
def _widen_bits(b):
    """The float64 bit pattern of the non-negative float32 whose bit pattern is b: NaN and
    infinity stay so, a subnormal becomes the smallest normal float32 (an upper bound: these
    bits only ever feed maxima)."""
    e = b >> 23
    mant = b & 0x7FFFFF
    if e == 0:
        return 0 if mant == 0 else (897 << 52)
    if e == 255:
        return _INF_BITS | (mant << 29)
    return ((e + 896) << 52) | (mant << 29)


@njit(cache=True, inline="always")
def _bed_bits(b):
    """(the largest |b[i]| of a bed row as a bit pattern, see NSTAT; the row's bed height as a bit
    pattern if the whole row has one bed height, else -1), in one loop."""
    bits = b.view(np.int64)
    first = bits[0]
    m = 0
    diff = 0
    for i in range(bits.shape[0]):
        m = max(m, bits[i] & _ABS)
        diff |= bits[i] ^ first          # an OR reduction vectorises; an early-out loop does not
    return m, (first if diff == 0 else -1)


@njit(cache=True, fastmath=_FAST)
def _store_row(src, dst, scale, left):
    """dst[i] = src[i] / scale + dst[i] for the cells between the row's two edge cells (a ring
    row of depth units into the float64 grid row, which `_load_depths` left holding what each
    cell has beyond its units, if `left`: else each cell held none and dst is not read;
    `_store_parts` writes the edge cells); return the largest of those |dst[i]| as a bit pattern
    (see NSTAT), taken in the same loop. A depth below zero (a cell that emptied and held less
    than its units) is zero."""
    unit = 1.0 / scale
    bits = dst.view(np.int64)
    m = 0
    if left:
        for i in range(1, src.shape[0] - 1):
            dst[i] = max(src[i] * unit + dst[i], 0.0)
            m = max(m, bits[i] & _ABS)
    else:
        for i in range(1, src.shape[0] - 1):
            dst[i] = max(src[i] * unit, 0.0)
            m = max(m, bits[i] & _ABS)
    return m


@njit(cache=True)
def _load_parts(left, xf, zf, r, nz, scale, has):
    """Each edge cell of grid row r starts its part of a unit (see `_part`) with what it holds
    beyond its whole units (`left`, m, from `_load_depths`; nothing unless `has`)."""
    nx = left.shape[0]
    xf[r, 0] = left[0] * scale if has else 0.0
    xf[r, 1 if nx > 1 else 0] = left[nx - 1] * scale if has else 0.0
    if r == 0 or r == nz - 1:
        z = 0 if r == 0 else 1
        for i in range(1, nx - 1):
            zf[z, i] = left[i] * scale if has else 0.0


@njit(cache=True)
def _store_parts(h, row, xf, zf, j, unit):
    """Write the edge cells of stored row j as their whole units (`row`) plus their parts (see
    `_part`); a cell whose part is below zero by more than its units stays at zero. Return the
    largest |h| written as a bit pattern (rows 0 and nz - 1: the whole row's)."""
    nz, nx = h.shape
    h[j, 0] = max((row[0] + xf[j, 0]) * unit, 0.0)
    h[j, nx - 1] = max((row[nx - 1] + xf[j, 1 if nx > 1 else 0]) * unit, 0.0)
    bits = h[j].view(np.int64)
    m = max(bits[0] & _ABS, bits[nx - 1] & _ABS)
    if j == 0 or j == nz - 1:
        z = 0 if j == 0 else 1
        for i in range(1, nx - 1):
            h[j, i] = max((row[i] + zf[z, i]) * unit, 0.0)
            m = max(m, bits[i] & _ABS)
    return m


@njit(cache=True, fastmath=_FAST)
def _store_velocities(src, dst, inv):
    """dst[:] = src[:len(dst)] inv (a float32 ring row of velocities in cells a substep, which may
    be padded, into the float32 grid in m/s; inv = dx / s); return the largest |dst[i]| as the bit
    pattern of the same value in float64 (see NSTAT)."""
    bits = dst.view(np.int32)
    m = 0
    for i in range(dst.shape[0]):
        dst[i] = src[i] * inv
        m = max(m, bits[i] & _ABS32)
    return _widen_bits(m)


@njit(cache=True, fastmath=_FAST)
def _load_depths(src, bed, dst, bq, scale):
    """dst[:] = the depths src (m) in whole units (scale: units per m), bq[:] = the bed heights in
    units, and src[:] = what is left over, m, for `_store_row` to add back; return (the smallest
    depth in units, whether any cell had a leftover: if none, src is not written).

    The units are the surface's less the bed's, each rounded to nearest: still water over any bed
    is then a surface of equal integers, which stays exactly still, and a depth that was stored
    with its leftover rounds to the same units again. The leftover, under a unit either way, stays
    in its cell, so water written into h from outside keeps its volume exactly."""
    unit = 1.0 / scale
    m = np.int32(_BIG)
    left = False
    for i in range(src.shape[0]):
        b = bed[i]
        bu = _bed_units(b, scale)
        q = _units(src[i], b, bu, scale)
        left |= src[i] - q * unit != 0.0
        dst[i] = np.int32(q)
        bq[i] = np.int32(bu)
        m = min(m, dst[i])
    if left:
        _keep_leftovers(src, dst, unit)
    return m, left


@njit(cache=True, fastmath=_FAST)
def _keep_leftovers(src, units, unit):
    """src[:] -= units * unit: what each cell holds beyond its whole units, m (exactly what the
    loaders compute: units are whole numbers below 2^31, exact in float64). Rows loaded from a
    state the scheme wrote hold none (most rows, most steps), and then neither this loop nor
    `_store_row`'s read of it runs: a 1024^2 step took 0.26 ms (6%) less without them."""
    for i in range(src.shape[0]):
        src[i] -= units[i] * unit


@njit(cache=True, fastmath=_FAST, inline="always")
def _bed_units(b, scale):
    """A bed height b, m, in whole units (float), rounded to nearest; every loader uses this rule,
    so a level row's units (`_level_bed_units`) are those `_load_depths` would give."""
    return np.floor(b * scale + 0.5)


@njit(cache=True, fastmath=_FAST, inline="always")
def _units(h, b, bu, scale):
    """A depth h over a bed b of bu units, in whole units (float): the rounded surface less bu."""
    return max(np.floor((h + b) * scale + 0.5) - bu, 0.0)


@njit(cache=True, fastmath=_FAST)
def _load_level_depths(src, b, dst, scale):
    """`_load_depths` for a row whose bed is b everywhere: the same units and leftovers, without
    reading the bed row (a pass over a level pool then moves 8 bytes less per cell); the bed's
    units are `_level_bed_units`, written only where needed (see BRING)."""
    unit = 1.0 / scale
    bu = _bed_units(b, scale)
    m = np.int32(_BIG)
    left = False
    for i in range(src.shape[0]):
        q = _units(src[i], b, bu, scale)
        left |= src[i] - q * unit != 0.0
        dst[i] = np.int32(q)
        m = min(m, dst[i])
    if left:
        _keep_leftovers(src, dst, unit)
    return m, left


@njit(cache=True, fastmath=_FAST)
def _level_bed_units(bq, b, scale):
    """bq[:] = a bed b m high everywhere, in units: what `_load_depths` gives for such a row."""
    ibu = np.int32(_bed_units(b, scale))
    for i in range(bq.shape[0]):
        bq[i] = ibu


@njit(cache=True)
def _need_bed_units(BQ, held, bed, j, nz, scale):
    """Make the bed ring hold rows j - 1 .. j + 1 (those in the grid) for the wet/dry loops of row
    j: held[slot] is the row a slot holds; rows over one bed height are filled here, the others
    were filled when loaded."""
    for r in range(max(j - 1, 0), min(j + 1, nz - 1) + 1):
        if held[r & _BMASK] != r:
            _level_bed_units(BQ[r & _BMASK], bed[r, 0], scale)
            held[r & _BMASK] = r


# Rings start on cache lines: a 64-byte vector load or store that straddles two lines costs two,
# and numba aligns its arrays to 32 bytes only. Face rows of U (nx + 1 values) are padded to whole
# lines and placed so that face 1, where the face loops start, begins a line. A 1024^2 substep
# took 10% less time for it (0.37 against 0.42 ms, three runs).
_LINE = 16     # 4-byte values per 64-byte cache line


@njit(cache=True)
def _lined(a, b, stride, lead, dtype):
    """An empty (a, b, stride) array of a 4-byte dtype whose rows' element `lead` each begin a
    cache line when stride is a multiple of _LINE (else only the first row's). The buffer runs
    on past the last row, so reading one value beyond any row (as `_wave_fast` does) stays in it."""
    buf = np.empty(a * b * stride + _LINE, dtype=dtype)
    off = ((-(buf.ctypes.data + 4 * lead)) % (4 * _LINE)) // 4
    return buf[off:off + a * b * stride].reshape((a, b, stride))


# The grid's rows reach a pass's loads slowly: the hardware prefetchers lose track of the grid's
# streams among the rings' (each level touches several rows per iteration), so a row came in by
# demand misses. `_sweep` hints the next row to load a share per level, spread over the iteration
# it runs ahead by: a 1024^2 step took 7-9% less time (4.43 -> 4.04, 4.58 -> 4.26, 4.52 -> 4.19 ms;
# 512^2, whose grid stays in the caches, the same). Hinting whole rows at once, two rows ahead,
# or also the rows about to be stored, did no better; hinting those for writing (prefetchw) was
# 0.37 ms slower. The share helpers are inlined: 27 calls an iteration took 0.09 ms a step.
# A row over one bed height is loaded from its first bed cell alone (`_load_level_depths`), a line
# no stream brings: a profile of a 1024^2 step found 2% of its samples stalled on that load, so it
# is hinted one row ahead too, and the hints index the 2D grid arrays instead of a row view (which
# counts a reference up and down, atomically, per hint). 1024^2, paired medians of 8 processes:
# both -0.054 and -0.065 ms a step (better in 7 and 6 of 8); the bed hint through a row view
# -0.004 (4 of 8); view-free hints without it +0.04 (2 of 8).
_LINE_F64 = 8       # float64 values per cache line


@intrinsic
def _prefetch(typingctx, grid, r, i):
    """Hint the CPU to bring the cache line of grid[r, i] into L2 (llvm.prefetch: read, locality 2,
    data); no effect on the results. Takes the 2D array and both indices: a row view would cost
    an atomic reference count up and down per call."""
    sig = types.void(grid, r, i)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], args[2]], wraparound=False)
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        kind = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, kind, "llvm.prefetch.p0i8")
        builder.call(fn, [i8p, ir.Constant(i32, 0), ir.Constant(i32, 2), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return sig, codegen


@njit(cache=True, inline="always")
def _prefetch_share(grid, r, k, n, per_line):
    """Hint the cache lines of the k-th of n equal shares of row r of a grid (per_line values a line)."""
    start, stop = _share(grid.shape[1], k, n, per_line)
    for i in range(start, stop, per_line):
        _prefetch(grid, r, i)


@njit(cache=True, inline="always")
def _share(m, k, n, per_line):
    """(start, stop) of the k-th of n shares of m values: start on a line (per_line values), so
    the shares' strides of per_line hit every line once or, at a share's seam, twice."""
    return (m * k // n) // per_line * per_line, m * (k + 1) // n


# A pass loads and stores each row through 1D views of the grid and ring rows. A numba view counts
# a reference on its array up and down, atomically, and both threads count on the same grid
# arrays: 1.7% of a 1024^2 step's profile samples were in those counts (0.3% with the views
# below). 1024^2: -0.064 and -0.009 ms a step (paired medians of 8 processes; better in 6 and 4 of
# 8, mean -0.056 and -0.065 ms); bit for bit the same.
@intrinsic
def _row(typingctx, a, r):
    """Row r of a 2D array (a[r]) as a view that holds no reference: its meminfo is null, so making
    and dropping it costs no atomic reference count on the array. The caller keeps the array
    alive (the arrays a pass works on outlive it)."""
    return _row_view(a, (r,))


@intrinsic
def _row3(typingctx, a, l, r):
    """a[l, r] of a 3D array as a 1D view that holds no reference (see `_row`)."""
    return _row_view(a, (l, r))


def _row_view(aryty, index_types):
    """Signature and codegen of a reference-free 1D view of the last axis of `aryty` at the leading
    indices. Only for C-contiguous arrays (the view is then contiguous too); any other layout
    does not type, so it cannot pass for contiguous."""
    if not isinstance(aryty, types.Array) or aryty.layout != "C" or aryty.ndim != len(index_types) + 1:
        return None
    rowty = types.Array(aryty.dtype, 1, "C", readonly=not aryty.mutable)
    sig = rowty(aryty, *index_types)

    def codegen(context, builder, signature, args):
        ary = context.make_array(aryty)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        idx = [context.cast(builder, v, t, types.intp) for v, t in zip(args[1:], signature.args[1:])]
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, idx + [zero], wraparound=False)
        shape = cgutils.unpack_tuple(builder, ary.shape)
        strides = cgutils.unpack_tuple(builder, ary.strides)
        out = context.make_array(rowty)(context, builder)
        context.populate_array(out, data=ptr, shape=[shape[-1]], strides=[strides[-1]], itemsize=ary.itemsize,
                               meminfo=None)
        return out._getvalue()
    return sig, codegen


@njit(cache=True, fastmath=_FAST)
def _scale_row_into(src, dst, k):
    """dst[:n] = src[:n] k, n the shorter row's length (float32): velocity rows between m/s (the
    grid) and cells a substep (the rings, whose U rows are padded)."""
    for i in range(min(src.shape[0], dst.shape[0])):
        dst[i] = src[i] * k


@njit(cache=True)
def _copy_row(src, dst):
    """dst[:] = src: a grid row into a halo row of the same type (see `_sweep`)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, parallel=True, fastmath=_FAST)
def _sweep(h, bed, u, w, ax, az, kinds, rows, inflow, sides, side_eta, g, dx, s, sa, vcap, scale, dq, wq,
           split, halo_h, halo_u, halo_w, wrapped, lefts, key0):
    """One level per entry of `kinds` in one pass over the grid, in place (see the module
    docstring): 1 advects the velocities by sa seconds, 0 is a gravity substep of s seconds.

    Each level trails the one before by LAG = 2 rows: row j of level l reads rows j - 1 .. j + 2 of
    level l - 1. Chunk t owns cell rows [k0, k1) = [split[0, t], split[0, t + 1]), their x faces
    and the z faces below them (the top chunk also the wall face nz). With L levels, level l
    computes rows k0 - 1 - 2 (L - l) .. k1 - 1 + 2 (L - l): every value it reads was computed from
    real data, and the last level still covers row k0 - 1, whose new depth the z faces below row k0
    need. Level 0 loads those rows, from copies (the halo buffers) where the neighbours own them,
    since the neighbours overwrite them. Velocities ride the rings in float32 in cells a substep
    (v s / dx), depths in int32 units (scale units per m; dq, wq: DRY and WET in units); vcap is
    the speed cap in m/s, for the open sides' condition. Sets wrapped[t] if a depth of chunk t
    overflowed, and adds the cycles chunk t took to split[1, t] (see `_rebalance`).
    Level l rounds with the key key0 + l (see `_dither`). lefts[r] (bool, per row, scratch)
    records whether owned row r held anything beyond whole units when loaded (see `_keep_leftovers`).
    `rows` must hold `_stats` of the state the step started from (the pass reads its _EXT and
    _LEVEL columns); the pass fills its _H and _V columns with the statistics of the new state
    (exactly: what `_stats` would find), and `inflow` with the m^3 per owned row that came in
    through open sides, summed over the substeps.
    """
    nz, nx = h.shape
    levels = kinds.shape[0]
    chunks = split.shape[1] - 1
    reach = 2 * levels + 1               # halo rows each side (one fewer above)
    c = s / dx
    unit = 1.0 / scale
    # Ring velocities are in cells a substep (see the module docstring), so the flux loops move
    # cv h units with cv the ring velocity itself: two multiplies fewer per cell and substep, about
    # 1% of a 1024^2 step (paired medians, better in 18 of 24). Loads scale by vs, stores by inv.
    vs = np.float32(c)
    inv = np.float32(1.0 / vs)
    cs = float(scale)                    # depth units per m
    ca = np.float32(sa / s)
    gc = np.float32(g * c * c * unit)    # ring velocity per unit of surface difference
    s32 = np.float32(s * c)              # ring velocity per m/s^2 of external acceleration
    vc = np.float32(vcap * c)            # the speed cap in ring velocity: CLAMP
    fq = max(wq, np.int32(NEAREST_UNITS))   # rows deeper than this take `_wave_fast`
    for t in prange(chunks):
        k0 = split[0, t]
        k1 = split[0, t + 1]
        lo = max(0, k0 - reach)
        hi = min(nz - 1, k1 - 1 + reach - 1)
        for r in range(lo, k0):
            _copy_row(_row(h, r), _row3(halo_h, t, r - lo))
            _copy_row(_row(u, r), _row3(halo_u, t, r - lo))
            _copy_row(_row(w, r), _row3(halo_w, t, r - lo))
        for r in range(k1, hi + 1):
            _copy_row(_row(h, r), _row3(halo_h, t, reach + r - k1))
            _copy_row(_row(u, r), _row3(halo_u, t, reach + r - k1))
            _copy_row(_row(w, r), _row3(halo_w, t, reach + r - k1))
        if k1 < nz and hi == nz - 1:
            _copy_row(_row(w, nz), _row3(halo_w, t, reach + nz - k1))
    for t in prange(chunks):
        started = _cycles()
        k0 = split[0, t]
        k1 = split[0, t + 1]
        if k0 >= k1:
            continue
        lo = max(0, k0 - reach)
        hi = min(nz - 1, k1 - 1 + reach - 1)
        H = _lined(levels + 1, RING, nx, 0, np.int32)
        U = _lined(levels + 1, RING, (nx + _LINE) // _LINE * _LINE, 1, np.float32)
        W = _lined(levels + 1, WRING, nx, 0, np.float32)
        low = np.empty((levels + 1, LRING), dtype=np.int64)   # each row's smallest depth, per level
        wpair = _lined(levels + 1, 2, nx, 0, np.float32)
        gpair = _lined(levels + 1, 2, nx, 0, np.int32)
        par = np.zeros((levels + 1, 1), dtype=np.int64)
        wf_row = np.full(levels + 1, -2, dtype=np.int64)   # per level: the last row `_wave_wetdry` did
        ua = _lined(1, 1, nx + 1, 1, np.float32)[0, 0]
        fx = _lined(1, 1, nx + 1, 1, np.int32)[0, 0]
        BQ = _lined(1, BRING, nx, 0, np.int32)[0]   # the bed in units, rows r & _BMASK
        held = np.full(BRING, -1, dtype=np.int64)      # the row each slot of BQ holds
        xf = np.zeros((nz, 2))           # the edge cells' parts of a unit (see `_part`)
        zf = np.zeros((2, nx))
        for k in range(k0, k1):
            inflow[k] = 0.0
        for it in range(lo, min(nz - 1, k1 - 1) + LAG * levels + 1):
            r = it
            if r <= hi:                  # load row r into the rings of level 0
                slot = r & _RMASK
                if r < k0:
                    hs, us, ws = _row3(halo_h, t, r - lo), _row3(halo_u, t, r - lo), _row3(halo_w, t, r - lo)
                elif r < k1:
                    hs, us, ws = _row(h, r), _row(u, r), _row(w, r)
                else:
                    hr = reach + r - k1
                    hs, us, ws = _row3(halo_h, t, hr), _row3(halo_u, t, hr), _row3(halo_w, t, hr)
                if rows[r, _LEVEL] >= 0:
                    low[0, r & _LMASK], has = _load_level_depths(hs, bed[r, 0], _row3(H, 0, slot), scale)
                else:
                    low[0, r & _LMASK], has = _load_depths(hs, _row(bed, r), _row3(H, 0, slot), _row(BQ, r & _BMASK),
                                                           scale)
                    held[r & _BMASK] = r
                _load_parts(hs, xf, zf, r, nz, scale, has)
                if k0 <= r < k1:
                    lefts[r] = has
                _scale_row_into(us, _row3(U, 0, slot), vs)
                if sides[1] == REFLECTIVE:
                    U[0, slot, nx] = 0.0   # a reflective wall's face: `_wave_fast` relies on it
                _scale_row_into(ws, _row3(W, 0, r & _WMASK), vs)
                if r == nz - 1:
                    wall = _row(w, nz) if k1 == nz else _row3(halo_w, t, reach + nz - k1)
                    _scale_row_into(wall, _row3(W, 0, WALL), vs)
            rn = it + 1                  # the next row to load: a share of it per level (see _prefetch)
            hint = k0 <= rn < k1
            if rn <= hi:                 # the next row's first bed cell: a level row's load reads it
                _prefetch(bed, rn, 0)
            for lev in range(1, levels + 1):
                if hint:
                    _prefetch_share(h, rn, lev - 1, levels, _LINE_F64)
                    _prefetch_share(u, rn, lev - 1, levels, _LINE)
                    _prefetch_share(w, rn, lev - 1, levels, _LINE)
                j = it - LAG * lev
                a = max(0, k0 - 1 - LAG * (levels - lev))
                b = min(nz - 1, k1 - 1 + LAG * (levels - lev))
                if j < a or j > b:
                    continue
                if kinds[lev - 1] == 1:
                    _advect_row(H, U, W, lev - 1, lev, j, nz, j == a, low[lev - 1, j & _LMASK] > wq
                                and (j == 0 or low[lev - 1, (j - 1) & _LMASK] > wq), ca, dq)
                    low[lev, j & _LMASK] = low[lev - 1, j & _LMASK]
                else:
                    p = par[lev, 0]
                    # the first row of a level in a chunk makes the fluxes below it, which row j - 1
                    # makes elsewhere: it rounds them as row j - 1's kernel would (see `_wave_fast`)
                    near = j == a and _fast_row(rows, low, lev, j - 1, nz, fq)
                    if _fast_row(rows, low, lev, j, nz, fq):
                        lown, q = _wave_fast(H, U, W, gpair, xf, lev - 1, lev, j, j == a, near, p, 1 - p, bed,
                                             sides, side_eta, g, cs, gc, vc, vcap, vs, unit, key0 + lev)
                        if lown <= wq or (j > a and low[lev, (j - 1) & _LMASK] <= wq):
                            _need_bed_units(BQ, held, bed, j, nz, scale)
                            _refresh_faces(H, U, W, wpair, ua, xf, zf, lev - 1, lev, j, nz, j == a, p, bed, ax, az,
                                           sides, side_eta, g, s32, gc, vc, vcap, vs, dq, unit, BQ)
                    else:
                        below = j == a or wf_row[lev] != j - 1
                        has_ext = rows[j, _EXT] != 0
                        _need_bed_units(BQ, held, bed, j, nz, scale)
                        lown, q = _wave_wetdry(H, U, W, gpair, wpair, ua, fx, xf, zf, lev - 1, lev, j, nz, j == a,
                                               near, below, p, 1 - p, bed, ax, az, has_ext, sides, side_eta, g,
                                               cs, s32, gc, vc, vcap, vs, dq, unit, BQ, key0 + lev)
                        wf_row[lev] = j  # its fronted z faces above are the next row's below
                    low[lev, j & _LMASK] = lown
                    if lown < _WRAPPED:
                        wrapped[t] = 1
                    par[lev, 0] = 1 - p  # the fluxes above row j are the fluxes below row j + 1
                    if k0 <= j < k1:
                        inflow[j] += q * unit * dx * dx
                if lev == levels and k0 <= j < k1:   # the pass's result: store the owned row
                    slot = j & _RMASK
                    hm = _store_row(_row3(H, lev, slot), _row(h, j), scale, lefts[j])
                    pm = _store_parts(h, _row3(H, lev, slot), xf, zf, j, unit)   # rows 0, nz - 1: all of it
                    rows[j, _H] = pm if j == 0 or j == nz - 1 else max(hm, pm)
                    vm = max(_store_velocities(_row3(U, lev, slot), _row(u, j), inv),
                             _store_velocities(_row3(W, lev, j & _WMASK), _row(w, j), inv))
                    if j == nz - 1:
                        rows[nz, _H] = 0
                        rows[nz, _V] = _store_velocities(_row3(W, lev, WALL), _row(w, nz), inv)
                    rows[j, _V] = vm
        split[1, t] += _cycles() - started
