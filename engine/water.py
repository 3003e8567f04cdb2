"""The pool's water: a shallow-water height field on a staggered grid.

The stepping lives in numba kernels (`engine.kernels.shallow_water`, equations in `advance`); this
module holds the state and the inputs other systems use: `add_volume`, `velocity_at`, the external
acceleration faces `ax`/`az`, persistent sources (`add_source`) and the level's inflow/outflow sides.

Volume bookkeeping: the scheme moves water between cells in flux form, so the pool's volume changes
only through explicit sources, and always `volume() == initial volume + source_volume` up to round-off.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from time import perf_counter

import numba
import numpy as np
from numpy.typing import NDArray

from engine.errors import SimulationError
from engine.kernels import shallow_water as sw
from engine.kernels.coupling import water_velocity
from engine.levels.schema import Boundary, Level

# Below this many cells a substep takes microseconds: waking a second thread costs more than it
# saves, and on a busy machine a descheduled worker stalls every parallel loop.
PARALLEL_MIN_CELLS = 160 * 160
# When other processes keep every core busy, each parallel sweep can wait milliseconds for its
# worker thread (measured: 8 ms per sweep on a shared 2-core machine, a 512^2 step 10x slower than
# on one thread). With ADAPTIVE_THREADS the grid times its steps on all threads and, now and then,
# on one, and keeps the faster. The result does not depend on the thread count, bit for bit.
ADAPTIVE_THREADS = True
PROBE_EVERY = 64      # steps between timings of the thread count not in use
PROBE_STEPS = 3       # steps per timing
PROBE_SPARSE = 4      # one thread slower than all by SPARSE_RATIO: re-time it 4 times less often
SPARSE_RATIO = 1.5

_SIDE_CODE = {"reflective": sw.REFLECTIVE, "inflow": sw.REFLECTIVE, "absorbing": sw.OPEN, "outflow": sw.OPEN}
ARRAYS = ("h", "bed", "u", "w", "ax", "az")
_SLOTS = tuple("_" + name for name in ARRAYS)
_EDGE = {"x_min": np.s_[:, 0], "x_max": np.s_[:, -1], "z_min": np.s_[0, :], "z_max": np.s_[-1, :]}   # a side's cells


class _Live:
    """A WaterGrid array attribute: the live array, to read and write.

    A step starts from the statistics of the state (the largest depth and speed, for the CFL
    substeps and the depth units; which rows are pushed; which rows are over one bed height).
    Reading them costs a pass over every array (at 1024^2 it took 15% of a step), and each step
    already leaves them exact for the state it wrote. So the grid re-reads only the arrays that
    were handed out since its last step: taking `grid.h` counts as writing h. Between steps the
    arrays are read-only, so an array kept from before a step cannot be written behind the grid's
    back: take it from the grid again (`grid.h[...] = ...`). Code that only reads uses
    `grid.read(name)`, which re-reads nothing.
    """

    def __init__(self, fresh: int, default_none: bool = False) -> None:
        self.fresh = fresh              # the shallow_water.FRESH_* bit this array's statistics make
        self.default_none = default_none

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.slot = "_" + name

    def __get__(self, grid, owner=None):
        if grid is None:                 # the dataclass asks for a default
            if self.default_none:
                return None
            raise AttributeError(self.name)
        a = grid.__dict__[self.slot]
        grid._fresh &= ~self.fresh
        if a is not None and not a.flags.writeable:
            a.flags.writeable = True
        return a

    def __set__(self, grid, value) -> None:
        grid.__dict__[self.slot] = value
        grid.__dict__["_fresh"] = grid.__dict__.get("_fresh", 0) & ~self.fresh


@dataclass
class WaterGrid:
    """Shallow-water state of one pool. Arrays are (nz, nx), SI units, index [k, i] <-> (z, x).

    Cell (k, i) has its centre at ((i + 0.5) dx, (k + 0.5) dx); u[k, i] is the x face at x = i dx,
    w[k, i] the z face at z = k dx. h, bed, u, w, ax and az are live arrays: write into them
    (`grid.h[...] = ...`, `grid.ax[k, i] += ...`), taking them from the grid each time; code that
    only reads takes `grid.read("h")`, which keeps steps faster (see `_Live`).
    Depths and bed are float64; the kernel moves depth in whole fixed-point units of about 1 nm (see
    shallow_water.MAX_SHIFT) and keeps what a cell holds beyond them, so volume is conserved to
    float64 round-off. Depth plus |bed| must stay below 128 m. Velocities and accelerations are
    float32, which is all a velocity needs and halves the memory a step moves.
    The constructor copies the arrays it is given (converting them to these types).
    """
    h: NDArray[np.float64] = _Live(sw.FRESH_H)       # depth above the bed, m, (nz, nx)
    bed: NDArray[np.float64] = _Live(sw.FRESH_BED)   # bed height, m, (nz, nx)
    u: NDArray[np.float32] = _Live(sw.FRESH_V)       # x-face velocities, m/s, (nz, nx + 1)
    w: NDArray[np.float32] = _Live(sw.FRESH_V)       # z-face velocities, m/s, (nz + 1, nx)
    dx: float
    gravity: float = 9.81
    boundary: Boundary = field(default_factory=Boundary)
    # external acceleration on the x and z faces, m/s^2, cleared each step
    ax: NDArray[np.float32] = _Live(sw.FRESH_EXT, default_none=True)  # type: ignore[assignment]
    az: NDArray[np.float32] = _Live(sw.FRESH_EXT, default_none=True)  # type: ignore[assignment]
    source_volume: float = 0.0    # net m^3 added by explicit sources (add_volume, sources, open and inflow sides)
    # outside surface height of each open (absorbing/outflow) side, x_min, x_max, z_min, z_max, m;
    # None: an outflow side's `level` if it has one, else the mean initial surface along that side.
    # Waves leave through an open side and the mean level relaxes towards this one, like a pool
    # opening onto a sea or a drain.
    open_level: tuple[float, float, float, float] | None = None
    substeps: int = field(default=0, init=False)  # CFL substeps the last step took
    _sides: NDArray[np.int64] = field(init=False, repr=False)
    _side_eta: NDArray[np.float64] = field(init=False, repr=False)
    _rows: NDArray[np.int64] = field(init=False, repr=False)
    _inflow: NDArray[np.float64] = field(init=False, repr=False)
    _scale: NDArray[np.float64] = field(init=False, repr=False)
    _sources: dict[int, tuple[float, float, float, float]] = field(init=False, repr=False)
    _next_source: int = field(default=1, init=False, repr=False)
    _pace: dict[int, list[float]] = field(init=False, repr=False)  # threads -> recent s per cell-substep
    _splits: dict[int, NDArray[np.int64]] = field(init=False, repr=False)  # chunks -> a pass's row chunks
    _steps: int = field(default=0, init=False, repr=False)
    _last_threads: int = field(default=0, init=False, repr=False)
    _fresh: int = field(default=0, init=False, repr=False)  # FRESH_* bits: which statistics in _rows are exact
    _inflows_of: Boundary | None = field(default=None, init=False, repr=False)   # the boundary _inflows is of
    _inflows: list[tuple[tuple[slice | int, ...], float]] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        self.h = _grid_array(self.h, "h", np.float64)
        self.bed = _grid_array(self.bed, "bed", np.float64)
        self.u = _grid_array(self.u, "u", np.float32)
        self.w = _grid_array(self.w, "w", np.float32)
        nz, nx = self.h.shape
        want = {"bed": (nz, nx), "u": (nz, nx + 1), "w": (nz + 1, nx)}
        for name, shape in want.items():
            if getattr(self, name).shape != shape:
                raise ValueError(f"WaterGrid.{name} has shape {getattr(self, name).shape}; a {nz} x {nx} "
                                 f"grid needs {shape}")
        self.ax = np.zeros_like(self.u) if self.ax is None else _grid_array(self.ax, "ax", np.float32)
        self.az = np.zeros_like(self.w) if self.az is None else _grid_array(self.az, "az", np.float32)
        self._sides = np.array([_SIDE_CODE[self.boundary.side(s)] for s in sw.SIDE], dtype=np.int64)
        if self.open_level is None:
            eta = self.bed + self.h
            levels = []
            for side in sw.SIDE:
                spec, edge = self.boundary.spec(side), _EDGE[side]
                drain_to = spec.kind == "outflow" and spec.level >= 0.0
                levels.append(spec.level if drain_to else _mean_wet_surface(eta[edge], self.h[edge]))
            self.open_level = tuple(levels)  # type: ignore[assignment]
        self._side_eta = np.array(self.open_level, dtype=np.float64)
        self._rows = np.zeros((nz + 1, sw.NSTAT), dtype=np.int64)
        self._inflow = np.zeros(nz)
        self._scale = np.zeros(1)   # the kernel's depth units per m in the last step (0: none yet)
        self._sources = {}
        self._pace = {}
        self._splits = {}

    @classmethod
    def from_level(cls, level: Level) -> "WaterGrid":
        """Fill the pool to the level's water level (plus its bumps) over the level's bed."""
        nx, nz = level.pool.shape
        dx = level.pool.cell
        x = (np.arange(nx) + 0.5) * dx
        z = (np.arange(nz) + 0.5) * dx
        X, Z = np.meshgrid(x, z)
        bed = _initial_bed(level, X, Z)
        eta = np.full((nz, nx), level.water.level)
        for b in level.water.bumps:
            r = np.hypot(X - b.center[0], Z - b.center[1]) / b.radius
            eta += np.where(r < 1.0, b.height * 0.5 * (1.0 + np.cos(np.pi * np.minimum(r, 1.0))), 0.0)
        h = np.maximum(eta - bed, 0.0)
        boundary = level.water.boundary
        open_level = []
        for s in sw.SIDE:
            spec = boundary.spec(s)
            open_level.append(spec.level if spec.kind == "outflow" and spec.level >= 0.0 else level.water.level)
        return cls(h=h, bed=bed, u=np.zeros((nz, nx + 1)), w=np.zeros((nz + 1, nx)), dx=dx,
                   gravity=level.gravity, boundary=boundary, open_level=tuple(open_level))  # type: ignore[arg-type]

    @property
    def shape(self) -> tuple[int, int]:
        return self._h.shape  # type: ignore[return-value]

    @property
    def eta(self) -> NDArray[np.float64]:
        """Surface height bed + h (a new array)."""
        return self._bed + self._h

    def read(self, name: str) -> NDArray:
        """A read-only view of the live array `name` (h, bed, u, w, ax or az), for code that only
        reads it: unlike `grid.h`, it does not make the next step re-read that array's statistics."""
        if name not in ARRAYS:
            raise KeyError(f"WaterGrid has no array {name!r}; its arrays are {', '.join(ARRAYS)}")
        view = self.__dict__["_" + name].view()
        view.flags.writeable = False
        return view

    def volume(self) -> float:
        """Water in the pool, m^3."""
        return float(self._h.sum() * self.dx * self.dx)

    def velocity_at(self, x: float, z: float) -> tuple[float, float]:
        """Horizontal water velocity (u, w) at a point, bilinear from the faces, m/s."""
        with self._writable("u", "w"):   # the kernel is compiled for writable arrays; it only reads
            u, w = water_velocity(self._u, self._w, float(x), float(z), float(self.dx))
        return float(u), float(w)

    def damp(self, factor: float) -> None:
        """Multiply every velocity by factor (0 <= factor <= 1: friction), keeping the statistics
        the next step starts from exact (one pass over u and w, which `grid.u *= factor` also
        takes, but without making the step re-read them)."""
        if not 0.0 <= factor <= 1.0:
            raise ValueError(f"damp needs a factor in [0, 1] (got {factor})")
        with self._writable("u", "w"):
            sw.scale_velocities(self._u, self._w, np.float32(factor), self._rows)

    def add_volume(self, x: float, z: float, m3: float, radius: float | None = None) -> float:
        """Add (or, negative, remove) water near a point, spread smoothly over nearby cells.

        Returns the volume actually moved (removal stops where cells run dry).
        """
        nz, nx = self.shape
        r = max(radius if radius is not None else 2.0 * self.dx, self.dx)
        i0, i1 = max(0, int((x - r) / self.dx)), min(nx, int((x + r) / self.dx) + 1)
        k0, k1 = max(0, int((z - r) / self.dx)), min(nz, int((z + r) / self.dx) + 1)
        if i0 >= i1 or k0 >= k1:
            i = min(max(int(x / self.dx), 0), nx - 1)
            k = min(max(int(z / self.dx), 0), nz - 1)
            i0, i1, k0, k1 = i, i + 1, k, k + 1
        xs = (np.arange(i0, i1) + 0.5) * self.dx
        zs = (np.arange(k0, k1) + 0.5) * self.dx
        d = np.hypot(xs[None, :] - x, zs[:, None] - z) / r
        wgt = np.maximum(1.0 - d, 0.0) + 1e-12
        block = self.h[k0:k1, i0:i1]   # through the attribute: the next step re-reads h
        if m3 < 0.0:
            wgt = wgt * (block > 0)
            if wgt.sum() == 0.0:
                return 0.0
        dh = m3 * wgt / (wgt.sum() * self.dx * self.dx)
        new = np.maximum(block + dh, 0.0)
        moved = float((new - block).sum() * self.dx * self.dx)
        block[...] = new
        self.source_volume += moved
        return moved

    def add_source(self, x: float, z: float, radius: float, rate: float) -> int:
        """Pour `rate` m^3/s in around (x, z) every step (negative: drain) until removed; return a handle."""
        if not (math.isfinite(rate) and math.isfinite(x) and math.isfinite(z)) or radius <= 0.0:
            raise ValueError(f"add_source needs a finite point and rate and a radius > 0 "
                             f"(got x={x}, z={z}, radius={radius}, rate={rate})")
        handle = self._next_source
        self._next_source += 1
        self._sources[handle] = (float(x), float(z), float(radius), float(rate))
        return handle

    def remove_source(self, handle: int) -> None:
        """Stop a source made by add_source."""
        if self._sources.pop(handle, None) is None:
            raise KeyError(f"no water source with handle {handle} (it may have been removed already)")

    def step(self, dt: float, time: float = 0.0) -> None:
        """Advance by dt seconds (CFL substeps inside); raise SimulationError on NaN or runaway."""
        self._pour(dt)
        threads = numba.get_num_threads()
        use = self._threads(threads)
        if use != threads:
            numba.set_num_threads(use)
        fresh, self._fresh = self._fresh, 0   # should the kernel fail half way, nothing is known
        self._set_writable(True)              # for the kernel: the flag is part of a numba signature
        try:
            t0 = perf_counter()
            status, t, n, inflow = sw.advance(
                self._h, self._bed, self._u, self._w, self._ax, self._az, self._rows, self._inflow, self._scale,
                self._sides, self._side_eta, float(self.dx), float(self.gravity), float(dt), sw.CFL,
                sw.FLOW_CFL, sw.CLAMP, sw.DRY, sw.MAX_SUBSTEPS, sw.RUNAWAY, self._split(use), self._steps, fresh)
            if self._steps > 0 and n > 0:   # the first step loads or compiles the kernels: not a pace
                recent = self._pace.setdefault(use, [])
                recent.append((perf_counter() - t0) / (n * self._h.size))
                del recent[:-2 * PROBE_STEPS + 1]
            self._last_threads = use
            self._steps += 1
        finally:
            if use != threads:
                numba.set_num_threads(threads)
        self.substeps = n
        self.source_volume += inflow
        sw.clear_pushed(self._ax, self._az, self._rows)   # the rows the kernel found pushed (the others hold +0.0)
        # the step left every statistic exact for the state it wrote (ax and az now all +0.0); the
        # arrays are read-only until taken from the grid again (see `_Live`)
        self._fresh = sw.ALL_FRESH
        self._set_writable(False)
        if status != sw.OK:
            raise SimulationError(self._failure(status, time + t))

    # -- internals ---------------------------------------------------------------------------
    def _split(self, threads: int) -> NDArray[np.int64]:
        """The row chunks of a pass on `threads` threads, kept between steps: each step sizes
        them by the last one's pace (`shallow_water._rebalance`)."""
        nz = self._h.shape[0]
        chunks = sw.chunks_for(nz, threads)
        split = self._splits.get(chunks)
        if split is None:
            split = self._splits[chunks] = sw.even_split(nz, chunks)
        return split

    def _set_writable(self, flag: bool) -> None:
        live = self.__dict__
        for slot in _SLOTS:
            live[slot].flags.writeable = flag

    @contextmanager
    def _writable(self, *names: str) -> Iterator[None]:
        """The arrays `names` writable within, for the grid's own kernels (numba compiles read-only
        arrays separately), then as they were."""
        arrays = [self.__dict__["_" + name] for name in names]
        was = [a.flags.writeable for a in arrays]
        for a in arrays:
            a.flags.writeable = True
        try:
            yield
        finally:
            for a, flag in zip(arrays, was):
                a.flags.writeable = flag

    def _threads(self, available: int) -> int:
        """How many threads this step runs on: one for small grids, else whichever was timed faster.

        Time all threads for PROBE_STEPS steps, then one thread; afterwards take the faster (median
        of its last few steps, since a parallel step is either quick or stalled) and re-time the
        other for PROBE_STEPS steps every PROBE_EVERY, since how busy the machine is changes.
        """
        if self._h.size < PARALLEL_MIN_CELLS or available <= 1:
            return 1
        if not ADAPTIVE_THREADS or len(self._pace.get(available, ())) < PROBE_STEPS:
            return available
        if len(self._pace.get(1, ())) < PROBE_STEPS:
            return 1
        one, many = _median(self._pace[1]), _median(self._pace[available])
        faster = 1 if one < many else available
        slower = available if faster == 1 else 1
        # one thread far slower than all (a quiet machine): its re-timings cost the most and tell
        # the least, so they come PROBE_SPARSE times less often; the parallel steps are timed all
        # along, and once they slow down (a busy machine) the ratio drops and the usual pace returns
        every = PROBE_EVERY * PROBE_SPARSE if faster == available and one > SPARSE_RATIO * many else PROBE_EVERY
        return slower if self._steps % every < PROBE_STEPS else faster

    def _pour(self, dt: float) -> None:
        """Apply the persistent sources and the level's inflow sides for one step of dt."""
        for x, z, radius, rate in self._sources.values():
            self.add_volume(x, z, rate * dt, radius)
        if self.boundary is not self._inflows_of:   # the boundary's inflow sides, found once
            self._inflows_of = self.boundary
            specs = [(side, self.boundary.spec(side)) for side in sw.SIDE]
            self._inflows = [(_EDGE[side], spec.rate) for side, spec in specs
                             if spec.kind == "inflow" and spec.rate > 0.0]
        for edge, rate in self._inflows:
            cells = self.h[edge]
            cells += rate * dt / (cells.size * self.dx * self.dx)
            self.source_volume += rate * dt

    def _failure(self, status: int, t: float) -> str:
        """Say what went wrong, at which cell and when (slow path: only runs once, on failure)."""
        nz, nx = self.shape
        h, bed, u, w = self._h, self._bed, self._u, self._w
        if status == sw.NOT_FINITE:
            k, i = _first_bad(h, u, w, nz, nx)
        elif status == sw.TOO_DEEP:
            k, i = (int(v) for v in np.unravel_index(int(np.argmax(h + np.abs(bed))), h.shape))
        else:
            k, i = _fastest(u, w, nz, nx)
        x, z = (i + 0.5) * self.dx, (k + 0.5) * self.dx
        where = f"at cell (k={k}, i={i}), x={x:.3f} m, z={z:.3f} m, t={t:.4f} s"
        if status == sw.NOT_FINITE:
            return (f"water state became NaN or infinite {where}; something wrote a non-finite value into "
                    f"h, u, w, ax or az, or a force on the water blew up. Check forces applied near that point.")
        if status == sw.TOO_DEEP:
            limit = 2.0 ** (31 - sw.HEADROOM_BITS - sw.MIN_SHIFT)
            return (f"water depth plus bed height is too high for the water kernel {where}: "
                    f"depth {h[k, i]:.6g} m over a bed of {bed[k, i]:.6g} m; depth plus |bed| must "
                    f"stay below {limit:g} m. Check sources pouring there, or the level's bed and water level.")
        return (f"water speed ran away {where}: it would need more than {sw.MAX_SUBSTEPS} CFL substeps in one "
                f"step (or exceeds {sw.RUNAWAY:g} m/s). Reduce the external acceleration or sources there, "
                f"or use a smaller dt.")


def _first_bad(h: NDArray, u: NDArray, w: NDArray, nz: int, nx: int) -> tuple[int, int]:
    """The cell (k, i) holding or bordering the first non-finite value of h, u, w."""
    for a in (h, u, w):
        bad = np.argwhere(~np.isfinite(a))
        if len(bad):
            k, i = (int(v) for v in bad[0])
            return min(k, nz - 1), min(i, nx - 1)
    return 0, 0


def _fastest(u: NDArray, w: NDArray, nz: int, nx: int) -> tuple[int, int]:
    """The cell (k, i) beside the fastest face."""
    ku, iu = np.unravel_index(int(np.argmax(np.abs(u))), u.shape)
    kw, iw = np.unravel_index(int(np.argmax(np.abs(w))), w.shape)
    k, i = (ku, iu) if abs(u[ku, iu]) >= abs(w[kw, iw]) else (kw, iw)
    return min(int(k), nz - 1), min(int(i), nx - 1)


def _initial_bed(level: Level, X: NDArray[np.float64], Z: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bed height at the cell centres (X, Z), m: the level's terrain and obstacles (engine/terrain.py)."""
    from engine.terrain import build_bed
    return build_bed(level, X, Z)


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def _grid_array(a: NDArray, name: str, dtype: type) -> NDArray:
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"WaterGrid.{name} must be a 2-D array (got shape {a.shape})")
    return np.array(a, dtype=dtype, order="C")   # a copy: the grid sets its arrays read-only between steps


def _mean_wet_surface(eta: NDArray[np.float64], h: NDArray[np.float64]) -> float:
    wet = h > sw.DRY
    return float(eta[wet].mean()) if wet.any() else float("-inf")
