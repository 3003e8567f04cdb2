"""StepFluid: advance the pool's shallow water one fixed step."""
from __future__ import annotations

import math

import esper

from engine.components import WaterGrid
from engine.systems.base import System


class StepFluid(System):
    """Advance every WaterGrid by one fixed step (CFL substeps inside), then damp its velocities.

    Damping: v *= exp(-gamma dt), gamma = level water.damping (1/s), standing in for bottom
    friction and viscosity so that a pool calms down after a splash.

    Reads: WaterGrid. Writes: WaterGrid. Emits: nothing.
    """

    def bind(self, sim) -> None:
        super().bind(sim)
        self.damping = float(sim.level.water.damping)

    def state(self) -> dict:
        """Nothing of its own to save: the water it steps is saved with the grid."""
        return {}

    def set_state(self, state: dict) -> None:
        """Nothing to restore (see state())."""

    def process(self, dt: float) -> None:
        keep = math.exp(-self.damping * dt) if self.damping > 0.0 else 1.0
        for _, grid in esper.get_component(WaterGrid):
            grid.step(dt, self.sim.time)
            if keep != 1.0:
                grid.damp(keep)
