"""ConfineVortices: keep the eddies of the depth-averaged flow alive (vorticity confinement)."""
from __future__ import annotations

import esper

from engine.components import WaterGrid
from engine.kernels import dispersion as dk
from engine.systems.base import System

WET = 0.01   # m: cells shallower than this (or beside one) get no confinement force


class ConfineVortices(System):
    """Add the vorticity-confinement acceleration f = eps dx omega (N_z, -N_x) (Fedkiw, Stam & Jensen
    2001; engine.kernels.dispersion.confinement) to each WaterGrid's face accelerations, which the
    next shallow-water step applies. eps = level `[water] vorticity` (0: off). It turns the velocity
    only, so it adds no volume.

    Reads: WaterGrid. Writes: WaterGrid (ax, az). Emits: nothing.
    """

    def bind(self, sim) -> None:
        super().bind(sim)
        self.eps = float(sim.level.water.vorticity)

    def process(self, dt: float) -> None:
        if self.eps <= 0.0:
            return
        for _, grid in esper.get_component(WaterGrid):
            dk.confinement(grid.read("u"), grid.read("w"), grid.read("h"), float(grid.dx), self.eps, WET,
                           grid.ax, grid.az)
