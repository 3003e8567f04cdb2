"""The pool's water: the WaterGrid component, a shallow-water height field on a staggered grid.

The step's equations are in `engine.water.formulas`, its loops in `engine.water.plain` (and
`fast`); `engine.water.schedule` picks which runs. This module holds the state and the inputs
other systems use: `add_volume`, `velocity_at`, the external acceleration faces `ax`/`az`,
persistent sources (`add_source`) and the level's inflow/outflow sides.

Volume bookkeeping: the scheme moves water between cells in flux form, so the pool's volume changes
only through explicit sources, and always `volume() == initial volume + source_volume` up to round-off.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from engine.errors import SimulationError
from engine.kernels.coupling import water_velocity
from engine.levels.schema import Boundary, Level
from engine.water import formulas, records, schedule
from engine.water.params import MAX_SUBSTEPS, NOT_FINITE, OPEN, REFLECTIVE, RUNAWAY, SIDE, parameters

_SIDE_CODE = {"reflective": REFLECTIVE, "inflow": REFLECTIVE, "absorbing": OPEN, "outflow": OPEN}
ARRAYS = ("h", "bed", "u", "w", "ax", "az")
_EDGE: dict[str, tuple[slice | int, ...]] = {"x_min": np.s_[:, 0], "x_max": np.s_[:, -1], "z_min": np.s_[0, :], "z_max": np.s_[-1, :]}   # a side's cells


@dataclass
class WaterGrid:
    """Shallow-water state of one pool. Arrays are (nz, nx), SI units, index [k, i] <-> (z, x).

    Cell (k, i) has its centre at ((i + 0.5) dx, (k + 0.5) dx); u[k, i] is the x face at x = i dx,
    w[k, i] the z face at z = k dx. h, bed, u, w, ax and az are live arrays: write into them
    (`grid.h[...] = ...`, `grid.ax[k, i] += ...`); `grid.read("h")` gives a read-only view for
    code that only reads. The bed may change between steps (a solid column under a body): still
    water over the new bed stays still.
    Depths and bed are float64 (volume conserved to float64 round-off); velocities and
    accelerations float32. The whole state is these arrays and the scalar fields below (plain data:
    a save writes them and reads them back). The constructor copies the arrays it is given.

    Friction (all zero: inviscid; `from_level` takes the level's values): laminar bottom boundary
    layer of molecular viscosity `viscosity` (m^2/s) and thickness sqrt(viscosity wave_period / pi)
    (the Stokes layer of waves of that period), Manning's `manning` (s/m^(1/3)) for fast turbulent
    flow, and a horizontal `eddy_viscosity` (m^2/s) that damps short waves most (rate nu_t k^2);
    `damping` (1/s) adds a uniform rate on top, for a level that wants calmer water still.
    """
    h: NDArray[np.float64]       # depth above the bed, m, (nz, nx)
    bed: NDArray[np.float64]     # bed height, m, (nz, nx)
    u: NDArray[np.float32]       # x-face velocities, m/s, (nz, nx + 1)
    w: NDArray[np.float32]       # z-face velocities, m/s, (nz + 1, nx)
    dx: float
    gravity: float = 9.81
    boundary: Boundary = field(default_factory=Boundary)
    # external acceleration on the x and z faces, m/s^2, cleared each step
    ax: NDArray[np.float32] = None  # type: ignore[assignment]
    az: NDArray[np.float32] = None  # type: ignore[assignment]
    source_volume: float = 0.0    # net m^3 added by explicit sources (add_volume, sources, open and inflow sides)
    # outside surface height of each open (absorbing/outflow) side, x_min, x_max, z_min, z_max, m;
    # None: an outflow side's `level` if it has one, else the mean initial surface along that side.
    # Waves leave through an open side and the mean level relaxes towards this one, like a pool
    # opening onto a sea or a drain.
    open_level: tuple[float, float, float, float] | None = None
    viscosity: float = 0.0        # m^2/s, laminar bottom friction (0: none)
    wave_period: float = 2.0      # s, sets the laminar boundary layer's thickness
    manning: float = 0.0          # s/m^(1/3), turbulent bottom friction (0: none)
    eddy_viscosity: float = 0.0   # m^2/s, horizontal momentum diffusion (0: none)
    damping: float = 0.0          # 1/s, an extra uniform damping v *= exp(-damping dt) after each step
    substeps: int = field(default=0, init=False)  # CFL substeps the last step took (the next: params.SLACK)
    _sides: NDArray[np.int64] = field(init=False, repr=False)
    _side_eta: NDArray[np.float64] = field(init=False, repr=False)
    _sources: dict[int, tuple[float, float, float, float]] = field(init=False, repr=False)
    _next_source: int = field(default=1, init=False, repr=False)
    _scratch: records.Scratch = field(init=False, repr=False)
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
        self._sides = np.array([_SIDE_CODE[self.boundary.side(s)] for s in SIDE], dtype=np.int64)
        if self.open_level is None:
            eta = self.bed + self.h
            levels = []
            for side in SIDE:
                spec, edge = self.boundary.spec(side), _EDGE[side]
                drain_to = spec.kind == "outflow" and spec.level >= 0.0
                levels.append(spec.level if drain_to else _mean_wet_surface(eta[edge], self.h[edge]))
            self.open_level = tuple(levels)  # type: ignore[assignment]
        self._side_eta = np.array(self.open_level, dtype=np.float64)
        self._sources = {}
        self._scratch = records.scratch(nz, nx)

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
        for s in SIDE:
            spec = boundary.spec(s)
            open_level.append(spec.level if spec.kind == "outflow" and spec.level >= 0.0 else level.water.level)
        return cls(h=h, bed=bed, u=np.zeros((nz, nx + 1), np.float32), w=np.zeros((nz + 1, nx), np.float32), dx=dx,
                   gravity=level.gravity, boundary=boundary, open_level=tuple(open_level),  # type: ignore[arg-type]
                   viscosity=level.water.viscosity, wave_period=level.water.wave_period,
                   manning=level.water.manning, eddy_viscosity=level.water.eddy_viscosity,
                   damping=level.water.damping)

    @property
    def shape(self) -> tuple[int, int]:
        return self.h.shape

    @property
    def eta(self) -> NDArray[np.float64]:
        """Surface height bed + h (a new array)."""
        return self.bed + self.h

    def read(self, name: str) -> NDArray:
        """A read-only view of the live array `name` (h, bed, u, w, ax or az), for code that only reads it."""
        if name not in ARRAYS:
            raise KeyError(f"WaterGrid has no array {name!r}; its arrays are {', '.join(ARRAYS)}")
        view = getattr(self, name).view()
        view.flags.writeable = False
        return view

    def volume(self) -> float:
        """Water in the pool, m^3."""
        return float(self.h.sum() * self.dx * self.dx)

    def velocity_at(self, x: float, z: float) -> tuple[float, float]:
        """Horizontal water velocity (u, w) at a point, bilinear from the faces, m/s."""
        u, w = water_velocity(self.u, self.w, float(x), float(z), float(self.dx))
        return float(u), float(w)

    def damp(self, factor: float) -> None:
        """Multiply every velocity by factor (0 <= factor <= 1), on one thread."""
        if not 0.0 <= factor <= 1.0:
            raise ValueError(f"damp needs a factor in [0, 1] (got {factor})")
        schedule.scale(self.u, self.w, np.float32(factor))

    def parameters(self) -> NDArray[np.float64]:
        """The parameter vector the traversals take (`engine.water.params.parameters`)."""
        delta = math.sqrt(self.viscosity * self.wave_period / math.pi) if self.viscosity > 0.0 else 1.0
        return parameters(float(self.gravity), float(self.dx), nu=float(self.viscosity), delta=delta,
                          manning=float(self.manning), eddy=float(self.eddy_viscosity),
                          last_substeps=int(self.substeps))

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

    def step(self, dt: float, time: float = 0.0, scheduler: schedule.Scheduler | None = None) -> None:
        """Advance by dt seconds (CFL substeps inside); raise SimulationError on NaN or runaway.

        Order: sources and inflow sides pour, the shallow-water substeps run (`schedule.advance`),
        then the extra uniform damping. A further stage of the water step acting once per step
        (e.g. dispersive waves) goes after the substeps, on the same arrays; one acting per
        substep goes after the momentum phase in the traversals' `advance`. The traversal is the
        scheduler's choice (the stepping side owns it and its timings), plain without one: the
        same bits either way."""
        self._pour(dt)
        state = records.State(self.h, self.bed, self.u, self.w, self.ax, self.az)   # dtypes: __post_init__
        status, t, n, inflow = schedule.advance(state, self._scratch, records.Sides(self._sides, self._side_eta),
                                                self.parameters(), float(dt), scheduler)
        self.substeps = n
        self.source_volume += inflow
        if status != 0:
            raise SimulationError(self._failure(status, time + t))
        if self.damping > 0.0:
            schedule.scale(self.u, self.w, np.float32(math.exp(-self.damping * dt)))

    def _pour(self, dt: float) -> None:
        """Apply the persistent sources and the level's inflow sides for one step of dt."""
        for x, z, radius, rate in self._sources.values():
            self.add_volume(x, z, rate * dt, radius)
        if self.boundary is not self._inflows_of:   # the boundary's inflow sides, found once
            self._inflows_of = self.boundary
            specs = [(side, self.boundary.spec(side)) for side in SIDE]
            self._inflows = [(_EDGE[side], spec.rate) for side, spec in specs
                             if spec.kind == "inflow" and spec.rate > 0.0]
        for edge, rate in self._inflows:
            cells = self.h[edge]
            cells += rate * dt / (cells.size * self.dx * self.dx)
            self.source_volume += rate * dt

    def _failure(self, status: int, t: float) -> str:
        """Say what went wrong, at which cell and when (slow path: only runs once, on failure)."""
        nz, nx = self.shape
        h, u, w = self.h, self.u, self.w
        if status == NOT_FINITE:
            k, i = _first_bad(h, u, w, nz, nx)
        else:
            k, i = _fastest(u, w, nz, nx)
        x, z = (i + 0.5) * self.dx, (k + 0.5) * self.dx
        where = f"at cell (k={k}, i={i}), x={x:.3f} m, z={z:.3f} m, t={t:.4f} s"
        if status == NOT_FINITE:
            return (f"water state became NaN or infinite {where}; something wrote a non-finite value into "
                    f"h, u, w, ax or az, or a force on the water blew up. Check forces applied near that point.")
        return (f"water speed ran away {where}: it would need more than {MAX_SUBSTEPS} CFL substeps in one "
                f"step (or exceeds {RUNAWAY:g} m/s). Reduce the external acceleration or sources there, "
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


def _grid_array(a: NDArray, name: str, dtype: type) -> NDArray:
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"WaterGrid.{name} must be a 2-D array (got shape {a.shape})")
    return np.array(a, dtype=dtype, order="C")   # a copy, C-ordered as the traversals take it


def _mean_wet_surface(eta: NDArray[np.float64], h: NDArray[np.float64]) -> float:
    wet = h > formulas.DRY
    return float(eta[wet].mean()) if wet.any() else float("-inf")
