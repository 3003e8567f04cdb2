"""StepFluid: advance the pool's shallow water one fixed step."""
from __future__ import annotations

import esper

from engine.components import WaterGrid
from engine.systems.base import System


class StepFluid(System):
    """Advance every WaterGrid by one fixed step (CFL substeps inside). Damping is part of the
    water step, by the level's [water] keys: bottom friction (laminar boundary layer and Manning),
    eddy viscosity, and an optional extra uniform rate (`damping`).

    Contract: below (engine/contracts.py).
    """

    READS = ("WaterGrid.bed", "WaterGrid.sources")
    WRITES = ("WaterGrid.h", "WaterGrid.u", "WaterGrid.w", "WaterGrid.ax", "WaterGrid.az", "WaterGrid.source_volume",
              "WaterGrid.substeps")
    EMITS = ()

    def state(self) -> dict:
        """Nothing of its own to save: the water it steps is saved with the grid."""
        return {}

    def set_state(self, state: dict) -> None:
        """Nothing to restore (see state())."""

    def process(self, dt: float) -> None:
        for _, grid in esper.get_component(WaterGrid):
            grid.step(dt, self.sim.time)
