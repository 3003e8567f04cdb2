"""The numba shallow-water kernel equals a plain numpy implementation of the same scheme.

The reference (`engine.kernels.reference`) is whole-array numpy: a general bilinear gather for the
advection where the kernel uses a 2 x 2 upwind stencil, flux arrays where the kernel sweeps rows.
Both take the same CFL substeps, so after 100 steps they must agree to round-off (the kernel's:
float32 velocities and depths in whole units of about 1 nm); the bar is 1e-5 relative to the
field's largest magnitude.
"""
from __future__ import annotations

import numba
import numpy as np
import pytest

from engine.kernels import reference as ref
from engine.kernels import shallow_water as sw

G = 9.81
DT = 1.0 / 120.0


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny grids: run the parallel sweeps on one thread (a busy CI machine stalls thread barriers)."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(threads)


def _scene(nz: int, nx: int, dx: float, depth: float, seed: int, flat: bool = False, speed: float = 0.05):
    """A bumpy bed with a dry island (or, flat, a level bed), a mound on the surface and random
    velocities of typical size `speed`, m/s."""
    rng = np.random.default_rng(seed)
    x = (np.arange(nx) + 0.5) * dx
    z = (np.arange(nz) + 0.5) * dx
    X, Z = np.meshgrid(x, z)
    Lx, Lz = nx * dx, nz * dx
    bed = (1.5 * depth * np.exp(-((X - 0.7 * Lx) ** 2 + (Z - 0.6 * Lz) ** 2) / (0.02 * Lx * Lx))
           + 0.2 * depth * np.sin(7 * X / Lx) * np.cos(5 * Z / Lz))
    if flat:
        bed = np.full_like(X, 0.1)
    eta = depth + 0.2 * depth * np.exp(-((X - 0.3 * Lx) ** 2 + (Z - 0.5 * Lz) ** 2) / (0.01 * Lx * Lx))
    h = np.maximum(eta - bed, 0.0)
    u = rng.normal(0.0, speed, (nz, nx + 1))
    w = rng.normal(0.0, speed, (nz + 1, nx))
    u[:, 0] = u[:, -1] = 0.0
    w[0] = w[-1] = 0.0
    ax = np.zeros_like(u)
    az = np.zeros_like(w)
    ax[nz // 4: nz // 2, nx // 4: nx // 2] = 0.5   # a steady push, like wind over part of the pool
    az[nz // 3: nz // 2, nx // 5: nx // 3] = -0.3
    f32 = np.float32   # the kernel's velocity and acceleration type (see WaterGrid)
    return h, bed, u.astype(f32), w.astype(f32), ax.astype(f32), az.astype(f32)


def _advance(h, bed, u, w, ax, az, rows, sides, side_eta, dx, chunks, dt=DT):
    """One step; chunks: how many equal row chunks, or a split (see `sw.even_split`), kept as it is."""
    split = sw.even_split(h.shape[0], chunks) if isinstance(chunks, int) else chunks
    split[1] = 0                          # no timings: the step keeps the chunks as they are
    return sw.advance(h, bed, u, w, ax, az, rows, np.zeros(h.shape[0]), np.zeros(1), sides, side_eta, dx, G,
                      dt, sw.CFL, sw.FLOW_CFL, sw.CLAMP, sw.DRY, sw.MAX_SUBSTEPS, sw.RUNAWAY, split, 0, 0)


@pytest.mark.parametrize("sides,nz,nx,dx,depth,flat,speed", [
    ((sw.REFLECTIVE,) * 4, 24, 32, 0.05, 0.1, False, 0.05),                       # one substep per step
    ((sw.OPEN, sw.REFLECTIVE, sw.OPEN, sw.OPEN), 20, 28, 0.01, 0.3, False, 0.05),  # several substeps per step
    ((sw.REFLECTIVE, sw.OPEN, sw.REFLECTIVE, sw.REFLECTIVE), 22, 30, 0.02, 0.3, True, 0.05),  # all wet, level bed: the fast loops
    ((sw.REFLECTIVE, sw.REFLECTIVE, sw.OPEN, sw.REFLECTIVE), 20, 26, 0.01, 0.3, False, 1.5),  # fast flow: several advection parts
])
def test_kernel_equals_numpy_reference_after_100_steps(sides, nz, nx, dx, depth, flat, speed):
    h, bed, u, w, ax, az = _scene(nz, nx, dx, depth, seed=3, flat=flat, speed=speed)
    H, U, W = h.copy(), u.astype(np.float64), w.astype(np.float64)   # the reference works in float64
    side_code = np.array(sides, dtype=np.int64)
    side_eta = np.full(4, depth)
    rows = np.zeros((nz + 1, sw.NSTAT), dtype=np.int64)
    inflow = inflow_ref = 0.0
    substeps = 0
    parts = []
    for _ in range(100):
        parts.append(sw.advections_for(DT, dx, max(np.abs(U).max(), np.abs(W).max())))
        status, t, n, q = _advance(h, bed, u, w, ax, az, rows, side_code, side_eta, dx, chunks=1)
        n_ref, q_ref = ref.advance(H, bed, U, W, ax, az, side_code, side_eta, dx, G, DT)
        assert status == sw.OK and n == n_ref and t == pytest.approx(DT, rel=1e-12)
        inflow += q
        inflow_ref += q_ref
        substeps += n
    if dx < 0.02:
        assert substeps > 100  # the case meant to take several substeps did
    if speed > 1.0:
        assert max(parts) >= 3  # and the fast one several advection parts per step
    for fast, slow in ((h, H), (u, U), (w, W)):
        assert np.max(np.abs(fast - slow)) <= 1e-5 * np.max(np.abs(slow))
    assert inflow == pytest.approx(inflow_ref, rel=1e-5, abs=1e-12)
    assert (h >= 0.0).all()
    if flat:
        # deep everywhere: every interior row took the fast loops
        assert h.min() * 2.0 ** sw.MAX_SHIFT > sw.NEAREST_UNITS
    else:
        assert (h == 0.0).any()  # the island stayed dry: the wet/dry rule was exercised


@pytest.mark.parametrize("m,n", [(1, 1), (1, 8), (2, 9), (3, 3), (4, 2), (5, 12)])
def test_advection_parts_spread_over_the_substeps(m, n):
    """_plan: m advection parts (1) among n gravity substeps (0), the first before the first
    substep and the gaps between parts as even as whole substeps allow."""
    plan = list(sw._plan(m, n))
    assert plan.count(1) == m and plan.count(0) == n and plan[0] == 1
    starts = [i for i, kind in enumerate(plan) if kind == 1]
    before = [plan[:i].count(0) for i in starts]   # substeps taken before each part
    gaps = np.diff(before + [n])
    assert gaps.max() - gaps.min() <= 1


def test_advection_parts_keep_each_under_one_cell():
    """advections_for: the fewest parts with |v| dt / (m dx) <= ADVECT_CFL."""
    dx = 0.01
    for v in (0.0, 0.5, 1.2, 1.21, 3.0, 50.0):
        m = sw.advections_for(DT, dx, v)
        assert v * DT / (m * dx) <= sw.ADVECT_CFL * (1 + 1e-12)
        assert m == 1 or v * DT / ((m - 1) * dx) > sw.ADVECT_CFL


def test_kernel_reports_non_finite_state():
    h, bed, u, w, ax, az = _scene(8, 10, 0.05, 0.1, seed=1)
    h[5, 7] = np.nan
    rows = np.zeros((9, sw.NSTAT), dtype=np.int64)
    status, *_ = _advance(h, bed, u, w, ax, az, rows, np.zeros(4, np.int64), np.zeros(4), 0.05, chunks=1)
    assert status == sw.NOT_FINITE


@pytest.mark.parametrize("chunks", [2, 3, 7, (0, 9, 70), (0, 51, 52, 70)])
@pytest.mark.parametrize("flat", [False, True])
def test_row_chunks_give_the_same_bits_as_one_pass(chunks, flat):
    """A pass split into row chunks (one per thread) recomputes each chunk's halo rows from a copy
    taken before the pass; the result must not depend on the split, bit for bit: equal chunks,
    or uneven ones as `_rebalance` makes (given as bounds; one of a single row). The deep case
    takes more substeps than one pass holds (MAX_LEVELS), so it runs several passes per step. The
    flat scene is wet over a level bed, so its rows take the fast loops, also when recomputed."""
    if not isinstance(chunks, int):
        chunks = np.array([chunks, [0] * len(chunks)], dtype=np.int64)
    for depth, steps in ((0.1, 20), (10.0, 3)):
        h, bed, u, w, ax, az = _scene(70, 40, 0.01, depth, seed=5, flat=flat)
        sides = np.array((sw.OPEN, sw.REFLECTIVE, sw.REFLECTIVE, sw.OPEN), dtype=np.int64)
        side_eta = np.full(4, depth)
        one = [a.copy() for a in (h, u, w)]
        many = [a.copy() for a in (h, u, w)]
        rows = np.zeros((71, sw.NSTAT), dtype=np.int64)
        for _ in range(steps):
            s1 = _advance(one[0], bed, one[1], one[2], ax, az, rows, sides, side_eta, 0.01, chunks=1)
            s2 = _advance(many[0], bed, many[1], many[2], ax, az, rows, sides, side_eta, 0.01, chunks=chunks)
            assert s1 == s2 and s1[0] == sw.OK
        if depth > 1.0:
            assert s1[2] > sw.MAX_LEVELS
        for a, b in zip(one, many):
            assert np.array_equal(a, b)


def test_float32_velocity_maxima_widen_to_the_same_float64_value():
    """The CFL speed of float32 velocities: the largest |v| of a row, as float64 bits (_max_bits32).
    Normal values widen exactly; infinity and NaN stay infinite and NaN (NaN above infinity, so
    one integer max finds both); a subnormal maximum becomes an upper bound."""
    from numba import njit

    @njit
    def widest(row):
        return sw._max_bits32(row)

    def as_f64(bits):
        return np.array([bits], dtype=np.int64).view(np.float64)[0]

    for row in ([0.0, -3.25, 1.5], [1e-30, -2e-30], [0.0, 0.0], [65504.0, -7.0], [3.4e38, 1.0]):
        a = np.array(row, dtype=np.float32)
        assert as_f64(widest(a)) == float(np.abs(a).max())
    tiny = np.array([1e-45, -2e-45], dtype=np.float32)          # subnormal in float32
    assert float(np.abs(tiny).max()) <= as_f64(widest(tiny)) <= 1.2e-38
    inf_bits = widest(np.array([1.0, -np.inf], dtype=np.float32))
    nan_bits = widest(np.array([np.nan, np.inf], dtype=np.float32))
    assert as_f64(inf_bits) == np.inf and np.isnan(as_f64(nan_bits)) and nan_bits > inf_bits


@pytest.mark.parametrize("nz,nx", [(1, 1), (1, 5), (5, 1), (2, 2), (3, 40), (40, 3)])
def test_narrow_grids_equal_the_reference(nz, nx):
    """Grids one to three cells across: every row is an edge row (walls above and below, the
    first row of its level, or both). Open sides on two walls, wet/dry rules on.

    The flow drains out through the open sides, down to about 1e-7 m/s after 30 steps: a
    velocity that small is made by a depth difference of a few units of the kernel's fixed-point
    depths (about 1 nm each, see shallow_water.MAX_SHIFT), which the float64 reference does not
    have. So the depths, the velocities and the inflow are compared relative to their sizes in the
    first step."""
    h, bed, u, w, ax, az = _scene(nz, nx, 0.02, 0.2, seed=7)
    H, U, W = h.copy(), u.astype(np.float64), w.astype(np.float64)
    speed = max(np.max(np.abs(U)), np.max(np.abs(W)))
    sizes = (np.max(np.abs(H)), speed, speed)
    inflow_size = None
    sides = np.array((sw.OPEN, sw.REFLECTIVE, sw.REFLECTIVE, sw.OPEN), dtype=np.int64)
    side_eta = np.full(4, 0.2)
    rows = np.zeros((nz + 1, sw.NSTAT), dtype=np.int64)
    for _ in range(30):
        status, t, n, q = _advance(h, bed, u, w, ax, az, rows, sides, side_eta, 0.02, chunks=1)
        n_ref, q_ref = ref.advance(H, bed, U, W, ax, az, sides, side_eta, 0.02, G, DT)
        assert status == sw.OK and n == n_ref
        inflow_size = abs(q_ref) if inflow_size is None else inflow_size
        assert abs(q - q_ref) <= 1e-5 * inflow_size + 1e-12
    for (fast, slow), size in zip(((h, H), (u, U), (w, W)), sizes):
        assert np.max(np.abs(fast - slow)) <= 1e-5 * size


def test_depth_units_are_as_fine_as_int32_allows_and_change_only_past_a_factor_of_two():
    """depth_scale: depth plus |bed| times the scale stays under 2^29 (4x headroom under int32)."""
    assert sw.depth_scale(0.2, 0.0) == 2.0 ** 30              # the finest unit, 0.93 nm
    assert sw.depth_scale(0.6, 0.0) == 2.0 ** 29
    assert sw.depth_scale(10.0, 0.0) == 2.0 ** 25
    assert sw.depth_scale(100.0, 0.0) == 2.0 ** 22            # the coarsest, 0.24 um
    assert sw.depth_scale(130.0, 0.0) == 0.0                  # too high for int32 units
    # hysteresis: the last step's units stay while they leave 2x to 16x headroom
    assert sw.depth_scale(0.6, 2.0 ** 30) == 2.0 ** 30
    assert sw.depth_scale(1.1, 2.0 ** 30) == 2.0 ** 28
    assert sw.depth_scale(0.4, 2.0 ** 29) == 2.0 ** 29
    assert sw.depth_scale(0.1, 2.0 ** 28) == 2.0 ** 30


def test_water_too_high_for_depth_units_stops_the_step():
    h, bed, u, w, ax, az = _scene(8, 10, 0.05, 0.1, seed=1)
    h[3, 4] = 200.0
    rows = np.zeros((9, sw.NSTAT), dtype=np.int64)
    status, t, n, q = _advance(h, bed, u, w, ax, az, rows, np.zeros(4, np.int64), np.zeros(4), 0.05, chunks=1)
    assert status == sw.TOO_DEEP and n == 0


def test_a_pass_whose_depths_overflow_int32_says_so():
    """Depth units are chosen with 4x headroom, so this takes a forced scale: 1.9 m in units of
    2^-30 m is 2.04e9 of int32's 2.15e9, and flow into the middle cell from all four sides
    (a fifth of each neighbour per substep) takes it past. The pass must flag it."""
    n = 5
    h = np.full((n, n), 1.9)
    bed = np.zeros((n, n))
    u = np.zeros((n, n + 1), np.float32)
    w = np.zeros((n + 1, n), np.float32)
    dx, s = 0.1, 0.02
    v = 0.2 * dx / s                       # moves a fifth of the upwind cell per substep
    u[2, 2], u[2, 3] = v, -v
    w[2, 2], w[3, 2] = v, -v
    ax, az = np.zeros_like(u), np.zeros_like(w)
    rows = np.zeros((n + 1, sw.NSTAT), dtype=np.int64)
    sw._stats(h, bed, u, w, ax, az, rows, 0)   # what a pass reads of the state it starts from
    scale = 2.0 ** 30
    wrapped = np.zeros(1, dtype=np.int64)
    halo = (np.zeros((1, 3, n)), np.zeros((1, 3, n + 1), np.float32), np.zeros((1, 3, n), np.float32))
    sw._sweep(h, bed, u, w, ax, az, np.zeros(1, np.int64), rows, np.zeros(n), np.zeros(4, np.int64), np.zeros(4),
              G, dx, s, s, v, scale, np.int32(sw.DRY * scale), np.int32(sw.WET * scale), sw.even_split(n, 1), *halo,
              wrapped, np.zeros(n, np.bool_), 0)
    assert wrapped[0] == 1


def test_small_transfers_round_stochastically_to_their_exact_mean():
    """0.3 of a unit across a face: rounded to nearest it would never move. Larger transfers round
    to nearest."""
    h = np.int32(1000)
    cv = np.float32(0.3 / 1000)
    moved = np.array([sw._transfer(cv, h, h, sw._dither(key, 5, 0)) for key in range(4000)])
    assert set(moved) == {0, 1}
    assert moved.mean() == pytest.approx(0.3, abs=0.03)
    numbers = np.array([sw._dither(7, row, 1) for row in range(4000)])
    assert numbers.min() >= 0.0 and numbers.max() < 1.0 and numbers.mean() == pytest.approx(0.5, abs=0.02)
    assert sw._transfer(np.float32(7.6 / 1000), h, h, np.float32(0.01)) == 8
    assert sw._transfer(np.float32(-7.6 / 1000), h, h, np.float32(0.99)) == -8


def test_rows_over_one_bed_height_load_without_their_bed_to_the_same_units():
    """`_stats` marks rows whose bed is one height (the _LEVEL column); a pass loads them from that
    height alone (`_load_level_depths`, and `_level_bed_units` where the wet/dry loops need them),
    and must get the units, leftovers and bed units that reading the bed row gives."""
    rng = np.random.default_rng(3)
    nz, nx = 4, 37
    bed = np.full((nz, nx), 0.123456789)
    bed[2, 5] = 0.2                          # row 2 is not level
    h = 0.5 + 1e-3 * rng.random((nz, nx))
    u, w = np.zeros((nz, nx + 1), np.float32), np.zeros((nz + 1, nx), np.float32)
    rows = np.zeros((nz + 1, sw.NSTAT), dtype=np.int64)
    sw._stats(h, bed, u, w, np.zeros_like(u), np.zeros_like(w), rows, 0)
    level = rows[:nz, sw._LEVEL]
    assert level[2] == -1 and all(level[k] == np.float64(0.123456789).view(np.int64) for k in (0, 1, 3))
    scale = 2.0 ** 30
    src_a, src_b = h[0].copy(), h[0].copy()
    units_a, units_b = np.empty(nx, np.int32), np.empty(nx, np.int32)
    bq_a, bq_b = np.empty(nx, np.int32), np.empty(nx, np.int32)
    low_a, left_a = sw._load_depths(src_a, bed[0], units_a, bq_a, scale)
    low_b, left_b = sw._load_level_depths(src_b, bed[0, 0], units_b, scale)
    sw._level_bed_units(bq_b, bed[0, 0], scale)
    assert low_a == low_b and left_a and left_b
    assert np.array_equal(units_a, units_b) and np.array_equal(bq_a, bq_b) and np.array_equal(src_a, src_b)


@pytest.mark.parametrize("level", [True, False])
def test_rows_of_whole_units_load_and_store_without_leftovers(level):
    """A row the scheme stored holds whole units only: the loaders then say so and leave the grid
    row alone, and `_store_row` writes it without reading it back, bit for bit as if each cell had
    held a leftover of zero. One cell written from outside makes the row hold leftovers again."""
    nx, scale = 37, 2.0 ** 29
    unit = 1.0 / scale
    bed = np.full(nx, 0.0 if level else 0.1)
    if not level:
        bed[3] = 0.25                                          # a bed of more than one height
    units = np.arange(nx, dtype=np.int32) * 1000 + 2 ** 27
    stored = np.zeros(nx)
    sw._store_row(units, stored, scale, False)                 # as a pass leaves a row
    stored[0], stored[-1] = units[0] * unit, units[-1] * unit  # (the edge cells: `_store_parts`)

    def load(src):
        got = np.empty(nx, np.int32)
        if level:
            low, left = sw._load_level_depths(src, bed[0], got, scale)
        else:
            low, left = sw._load_depths(src, bed, got, np.empty(nx, np.int32), scale)
        return low, left, got

    src = stored.copy()
    low, left, got = load(src)
    assert not left and low == units.min() and np.array_equal(got, units)
    assert np.array_equal(src.view(np.int64), stored.view(np.int64))   # not written: still the depths
    again, with_zeros = np.zeros(nx), np.zeros(nx)                      # zero leftovers, added
    assert sw._store_row(got, again, scale, False) == sw._store_row(got, with_zeros, scale, True)
    assert np.array_equal(again[1:-1].view(np.int64), with_zeros[1:-1].view(np.int64))
    src = stored.copy()
    src[5] += 0.3 * unit                                                # a third of a unit poured in
    poured = src[5]
    low, left, got = load(src)
    assert left and np.array_equal(np.delete(got, 5), np.delete(units, 5))
    assert got[5] * unit + src[5] == poured and 0.0 < abs(src[5]) < unit   # the cell keeps it all
    assert not np.any(np.delete(src, 5))


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
@pytest.mark.parametrize("nx", [1, 15, 100, 1024])
def test_ring_rows_begin_on_cache_lines(dtype, nx):
    """`_lined` gives the pass's rings: element `lead` of every row starts a 64-byte line (a vector
    load across two lines costs two), whatever numba's own 32-byte alignment gave; face rows are
    padded to whole lines so that face 1 begins one in every row."""
    stride = (nx + sw._LINE) // sw._LINE * sw._LINE       # as `_sweep` sizes the U ring
    for _ in range(8):                                    # allocations land at varying offsets
        faces = sw._lined(3, sw.RING, stride, 1, dtype)
        cells = sw._lined(2, 5, stride, 0, dtype)
        assert faces.shape == (3, sw.RING, stride) and faces.dtype == dtype and faces.flags.c_contiguous
        assert stride >= nx + 1 and stride % sw._LINE == 0
        for a, lead in ((faces, 1), (cells, 0)):
            starts = {a[l, s, lead:].ctypes.data % 64 for l in range(a.shape[0]) for s in range(a.shape[1])}
            assert starts == {0}
        faces[...] = 7                                    # the whole array is usable memory
        assert int(faces.sum()) == 7 * faces.size


@pytest.mark.parametrize("m,per_line", [(1, 8), (7, 8), (1024, 8), (1025, 16), (1024, 16), (100, 16)])
def test_prefetch_shares_cover_every_cache_line_of_a_row(m, per_line):
    """A pass hints the next grid row a share per level (`_prefetch_share`): for any number of
    levels the shares together must hint the first value of every cache line of the row, and
    nothing outside it."""
    lines = set(range(0, m, per_line))
    for n in range(1, 12):
        hinted = set()
        for k in range(n):
            start, stop = sw._share(m, k, n, per_line)
            assert start % per_line == 0 and 0 <= start and stop <= m
            hinted |= set(range(start, stop, per_line))
        assert hinted == lines, n


def test_row_chunks_follow_the_pace_of_their_threads():
    """_rebalance sizes chunks by the rows per cycle each managed in the last step, within
    PACE_SPREAD of the mean pace; it keeps them without timings and mends bounds that do not split
    the grid; on x86 the pass writes each chunk's cycles, always positive."""
    split = sw.even_split(1000, 2)
    assert list(split[0]) == [0, 500, 1000]
    split[1, :2] = (500 * 3, 500 * 4)               # chunk 1 took 4 cycles a row, chunk 0 three
    sw._rebalance(split, 1000)
    assert list(split[0]) == [0, round(1000 * (1 / 3) / (1 / 3 + 1 / 4)), 1000] and not split[1].any()
    sw._rebalance(split, 1000)                      # no timings: as it was
    assert list(split[0]) == [0, 571, 1000]
    split[1, :2] = (500, 500 * 100)                 # one thread stalled: held within PACE_SPREAD
    split[0] = (0, 500, 1000)
    sw._rebalance(split, 1000)
    assert list(split[0]) == [0, 750, 1000]
    split[0] = (0, 700, 600)                        # not a split of 1000 rows: equal chunks again
    sw._rebalance(split, 1000)
    assert list(split[0]) == [0, 500, 1000]
    h, bed, u, w, ax, az = _scene(140, 40, 0.01, 0.3, seed=2, flat=True)
    split = sw.even_split(140, 2)
    sw.advance(h, bed, u, w, ax, az, np.zeros((141, sw.NSTAT), dtype=np.int64), np.zeros(140), np.zeros(1),
               np.zeros(4, np.int64), np.zeros(4), 0.01, G, DT, sw.CFL, sw.FLOW_CFL, sw.CLAMP, sw.DRY,
               sw.MAX_SUBSTEPS, sw.RUNAWAY, split, 0, 0)
    if sw._X86:                                     # the cycle counter is read on x86 only
        assert (split[1, :2] > 0).all()


@pytest.mark.parametrize("flat", [True, False])
def test_every_split_gives_the_same_bits(flat):
    """Row chunks may end anywhere (`_rebalance` moves their bounds every step), also right beside
    rows that take another kernel: pushed rows take `_wave_wetdry`, the deep unpushed rows of the
    flat scene `_wave_fast`, and the two round a transfer differently. A chunk's first row makes
    the fluxes below it, which the row below makes in one pass; it must round them as that row
    would. Every two-chunk split against one chunk, bit for bit."""
    nz = 36
    h, bed, u, w, ax, az = _scene(nz, 20, 0.01, 0.3, seed=4, flat=flat)
    sides = np.array((sw.REFLECTIVE, sw.OPEN, sw.REFLECTIVE, sw.REFLECTIVE), dtype=np.int64)
    side_eta = np.full(4, 0.3)

    def run(bounds):
        state = [a.copy() for a in (h, u, w)]
        rows = np.zeros((nz + 1, sw.NSTAT), dtype=np.int64)
        for _ in range(6):
            split = np.array([bounds, [0] * len(bounds)], dtype=np.int64)
            assert _advance(state[0], bed, state[1], state[2], ax.copy(), az.copy(), rows, sides, side_eta, 0.01,
                            chunks=split)[0] == sw.OK
        return state

    one = run([0, nz])
    for k in range(1, nz):
        for a, b in zip(one, run([0, k, nz])):
            assert np.array_equal(a, b), f"split at row {k}"


def test_the_passes_reference_free_row_views_are_the_rows_themselves():
    """`_row` and `_row3` (the views a pass loads and stores rows through) see and write the rows
    of the arrays they view, with each row's length, like a[r] and a[l, r]."""
    from numba import njit

    @njit
    def touch(a, b):
        row = sw._row(a, 2)
        row[1] = 7.0
        ring = sw._row3(b, 1, 2)
        ring[0] = 5
        return row.shape[0], ring.shape[0], row[3], ring.sum()

    a = np.arange(20.0).reshape(4, 5)
    b = np.zeros((2, 3, 6), dtype=np.int32)
    b[1, 2, 5] = 4
    assert touch(a, b) == (5, 6, 13.0, 9)
    assert a[2, 1] == 7.0 and b[1, 2, 0] == 5
    assert np.count_nonzero(a != np.arange(20.0).reshape(4, 5)) == 1 and np.count_nonzero(b) == 2


def test_ring_velocity_rows_convert_both_ways_and_report_the_stored_maximum():
    """A pass holds velocities in cells a substep: it scales a grid row into a (padded) ring row on
    load, and back on store, where it also takes the row's largest |v| as `_max_bits32` of what it
    stored (the CFL statistics must describe the grid, not the ring)."""
    k = np.float32(0.25)
    grid = np.array([0.5, -2.0, 1.5, 0.0, 3.0], dtype=np.float32)
    ring = np.full(8, np.nan, dtype=np.float32)          # padded: the slack stays untouched
    sw._scale_row_into(grid, ring, k)
    assert np.array_equal(ring[:5], grid * k) and np.isnan(ring[5:]).all()
    ring[1] = -4.0                                        # -16 m/s once stored
    out = np.zeros(5, dtype=np.float32)
    bits = sw._store_velocities(ring, out, np.float32(1.0 / k))
    assert np.array_equal(out, np.array([0.5, -16.0, 1.5, 0.0, 3.0], dtype=np.float32))
    assert bits == np.float64(16.0).view(np.int64) == sw._max_bits32(out)


def test_reference_free_row_views_refuse_arrays_that_are_not_c_contiguous():
    """A strided array would give a view whose type claims contiguous rows: it does not type."""
    from numba import njit
    from numba.core.errors import TypingError

    @njit
    def first(a):
        return sw._row(a, 0)[1]

    with pytest.raises(TypingError):
        first(np.zeros((4, 6))[:, ::2])
    assert first(np.arange(6.0).reshape(2, 3)) == 1.0
