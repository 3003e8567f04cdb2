"""StepFluid: advance the pool's water one fixed step, its detail stages included."""
from __future__ import annotations

import esper
from numpy.typing import NDArray

from engine.components import WaterGrid
from engine.systems.base import System
from engine.water.stages import WaterStages


class StepFluid(System):
    """Advance every WaterGrid by one fixed step (engine.water.stages: vorticity confinement, the
    dispersive surface-wave stage split off before the shallow-water step and merged back after
    it, CFL substeps inside). Damping is part of the water step, by the level's [water] keys:
    bottom friction (laminar boundary layer and Manning), eddy viscosity, and an optional extra
    uniform rate (`damping`); `dispersion` and `vorticity` switch the stages.

    Contract: below (engine/contracts.py).
    """

    READS = ("WaterGrid.bed", "WaterGrid.sources", "HullField.covered", "HullField.displaced")
    WRITES = ("WaterGrid.h", "WaterGrid.u", "WaterGrid.w", "WaterGrid.ax", "WaterGrid.az", "WaterGrid.source_volume",
              "WaterGrid.substeps")
    EMITS = ()

    def bind(self, sim) -> None:
        super().bind(sim)
        water = sim.level.water
        self.dispersion = bool(water.dispersion)
        self.vorticity = float(water.vorticity)
        self.damping = float(water.damping)
        self.stages: dict[int, WaterStages] = {}

    def state(self) -> dict:
        """Nothing of its own to save: the water it steps is saved with the grid (the stages keep
        only caches of it between steps)."""
        return {}

    def set_state(self, state: dict) -> None:
        """Nothing to restore (see state())."""

    def _covered(self, grid: WaterGrid) -> NDArray | None:
        """The covered height the bodies hold in the pool's h (sim.hull, CoupleWater writes it), or
        None where it holds nothing or the grid is not the pool's."""
        if grid is not self.sim.water:
            return None
        hull = self.sim.hull
        if hull.displaced == 0.0:
            return None
        b = hull.covered
        return b if b.shape == grid.shape else None

    def process(self, dt: float) -> None:
        for ent, grid in esper.get_component(WaterGrid):
            stages = self.stages.get(ent)
            if stages is None:
                stages = self.stages[ent] = WaterStages(self.dispersion, self.vorticity, self.damping)
            stages.step(grid, dt, self.sim.time, self._covered(grid))
