"""The whole water step of one grid: its detail stages around the shallow-water step.

    confinement          vorticity confinement into ax / az (engine/water/vortices.py), which the
                         shallow-water step applies; `[water] vorticity` (eps, 0: off)
    SurfaceWaves.split   take the surface part out of h, u, w and step it (engine/water/surface.py)
    WaterGrid.step       the shallow-water step of the bulk (sources, substeps, damping), by the
                         traversal this object's `schedule.Scheduler` picks
    SurfaceWaves.merge   carry the stepped surface part by the bulk flow and add it back

`[water] dispersion = false` leaves out the two halves of the surface-wave stage. Nothing else runs
between the halves, so every other system sees the whole water.
"""
from __future__ import annotations

from numpy.typing import NDArray

from engine.water import dispersion as dk
from engine.water import schedule
from engine.water.grid import WaterGrid
from engine.water.surface import SurfaceWaves
from engine.water.vortices import Confinement


def _sides(grid: WaterGrid, kinds: tuple[str, ...]) -> tuple[bool, bool, bool, bool]:
    return tuple(grid.boundary.side(s) in kinds for s in ("x_min", "x_max", "z_min", "z_max"))  # type: ignore[return-value]


class WaterStages:
    """The stages of one grid's water step, built for its shape, cell and sides (and built again
    when those change)."""

    def __init__(self, dispersion: bool, vorticity: float, damping: float = 0.0) -> None:
        self.dispersion = bool(dispersion)
        self.vorticity = float(vorticity)
        self.damping = float(damping)   # the extra uniform rate on the surface part's potential
        self.surface: SurfaceWaves | None = None
        self.confine: Confinement | None = None
        self.scheduler = schedule.Scheduler()   # the traversal (and threads) the grid's steps take

    def _surface(self, grid: WaterGrid) -> SurfaceWaves:
        st = self.surface
        open_sides = _sides(grid, ("absorbing", "outflow"))
        inflow_sides = _sides(grid, ("inflow",))
        if (st is None or st.shape != grid.shape or st.dx != float(grid.dx) or st.open_sides != open_sides
                or st.eddy_viscosity != float(grid.eddy_viscosity) or st.inflow_sides != inflow_sides):
            st = self.surface = SurfaceWaves(grid.shape, grid.dx, grid.gravity, open_sides, self.damping,
                                             float(grid.eddy_viscosity), inflow_sides)
        return st

    def _threaded(self, grid: WaterGrid) -> bool:
        """Whether confinement and the surface-wave stage's passes run on threads this step: where
        the shallow-water step's scheduler (`schedule.Scheduler`) is about to take its threaded
        traversal and has not found it the slower (its re-timing of a slower traversal stays its own). Then numba's
        workers are awake and a core is free; threaded passes beside a one-thread step wake
        sleeping workers on every pass and wait for them (docs/dispersion.md, session 15). Both
        ways give the same bits: this only moves the time."""
        return self.scheduler.threads_next(grid.h.size)

    def step(self, grid: WaterGrid, dt: float, time: float = 0.0, covered: NDArray | None = None) -> None:
        """Advance the grid by dt: confinement, split, the shallow-water step, merge. `covered` (m,
        cells): the height of floating bodies counted in h, which the surface part treats as shore."""
        if self.vorticity > 0.0:
            if self.confine is None or self.confine.shape != grid.shape:
                self.confine = Confinement(grid.shape, self.vorticity)
            self.confine(grid, self._threaded(grid))
        pending = None
        if self.dispersion:
            stage = self._surface(grid)
            water = dk.Water(grid.h, grid.bed, grid.u, grid.w)
            pending = stage.split(water, dt, covered, self._threaded(grid))
        grid.step(dt, time, self.scheduler)
        if pending is not None:
            stage.merge(pending, dk.Water(grid.h, grid.bed, grid.u, grid.w), dt, covered)
