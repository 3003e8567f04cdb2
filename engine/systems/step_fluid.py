"""StepFluid: advance the pool's shallow water one fixed step."""
from __future__ import annotations

import esper

from engine.components import WaterGrid
from engine.systems.base import System


class StepFluid(System):
    """Advance every WaterGrid by one fixed step (CFL substeps inside).

    Reads: WaterGrid. Writes: WaterGrid. Emits: nothing.
    """

    def process(self, dt: float) -> None:
        for _, grid in esper.get_component(WaterGrid):
            grid.step(dt, self.sim.time)
