"""StepFluid: advance the pool's shallow water one fixed step."""
from __future__ import annotations

import math

import esper

from engine.components import WaterGrid
from engine.systems.base import System


class StepFluid(System):
    """Advance every WaterGrid by one fixed step (CFL substeps inside; bottom friction and eddy
    viscosity are part of the step, set by the level's [water] keys), then apply the level's extra
    uniform damping if it asks for one: v *= exp(-damping dt).

    Reads: WaterGrid. Writes: WaterGrid. Emits: nothing.
    """

    def bind(self, sim) -> None:
        super().bind(sim)
        self.damping = float(sim.level.water.damping)

    def process(self, dt: float) -> None:
        keep = math.exp(-self.damping * dt) if self.damping > 0.0 else 1.0
        for _, grid in esper.get_component(WaterGrid):
            grid.step(dt, self.sim.time)
            if keep != 1.0:
                grid.damp(keep)
