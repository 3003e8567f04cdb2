"""Dye: tracer particles dropped on the water that drift with the flow (seed 004's particles).

Tracers are massless points on the surface, moved each physics step by the depth-averaged
velocity at their position (bilinear in the staggered faces, the engine's
`engine.kernels.coupling.water_velocities`), midpoint rule:

    x* = x + (dt/2) v(x),   x' = x + dt v(x*)

A tracer on a dry cell, or older than LIFETIME, is removed. The system only reads the water, so
the simulation is the same with or without dye; its state is saved with the game.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from engine.kernels.coupling import water_velocities
from engine.systems.base import System

if TYPE_CHECKING:
    from engine.world import Simulation

LIFETIME = 40.0      # s a tracer lives
MAX_TRACERS = 3000
BLOB = 120           # tracers per drop
BLOB_RADIUS = 0.12   # m


class Tracers(System):
    """Move dye particles with the water.

    Reads: WaterGrid (h, u, w). Writes: its own particle arrays. Emits: nothing.
    """

    READS = ("WaterGrid.h", "WaterGrid.u", "WaterGrid.w")
    WRITES = ()
    EMITS = ()

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        self.xz = np.zeros((0, 2))
        self.born = np.zeros(0)
        self.colour = np.zeros(0, np.int64)
        self._drops = 0

    def drop(self, x: float, z: float, rng: np.random.Generator, n: int = BLOB, radius: float = BLOB_RADIUS) -> int:
        """Add a blob of n tracers around (x, z); return how many were added (the cap keeps the newest)."""
        r = radius * np.sqrt(rng.random(n))
        a = rng.random(n) * 2 * np.pi
        pts = np.c_[x + r * np.cos(a), z + r * np.sin(a)]
        self.xz = np.vstack([self.xz, pts])[-MAX_TRACERS:]
        self.born = np.r_[self.born, np.full(n, self.sim.time)][-MAX_TRACERS:]
        self.colour = np.r_[self.colour, np.full(n, self._drops % 4)][-MAX_TRACERS:]
        self._drops += 1
        return n

    def clear(self) -> None:
        self.xz = np.zeros((0, 2)); self.born = np.zeros(0); self.colour = np.zeros(0, np.int64)

    def process(self, dt: float) -> None:
        if not len(self.xz):
            return
        water = self.sim.water
        u, w, dx = water.read("u"), water.read("w"), float(water.dx)
        x, z = np.ascontiguousarray(self.xz[:, 0]), np.ascontiguousarray(self.xz[:, 1])
        vx, vz = water_velocities(u, w, x, z, dx)
        xm, zm = x + 0.5 * dt * vx, z + 0.5 * dt * vz
        vx, vz = water_velocities(u, w, xm, zm, dx)
        self.xz = np.c_[x + dt * vx, z + dt * vz]
        h = water.read("h")
        nz, nx = h.shape
        i = np.clip((self.xz[:, 0] / dx).astype(np.int64), 0, nx - 1)
        k = np.clip((self.xz[:, 1] / dx).astype(np.int64), 0, nz - 1)
        keep = (h[k, i] > 1e-4) & (self.sim.time - self.born < LIFETIME)
        if not keep.all():
            self.xz, self.born, self.colour = self.xz[keep], self.born[keep], self.colour[keep]

    def points(self) -> NDArray[np.float64]:
        """World positions (n, 3) of the tracers, on the water surface."""
        if not len(self.xz):
            return np.zeros((0, 3))
        water = self.sim.water
        eta = water.read("bed") + water.read("h")
        nz, nx = eta.shape
        dx = float(water.dx)
        i = np.clip((self.xz[:, 0] / dx).astype(np.int64), 0, nx - 1)
        k = np.clip((self.xz[:, 1] / dx).astype(np.int64), 0, nz - 1)
        return np.c_[self.xz[:, 0], eta[k, i] + 0.004, self.xz[:, 1]]

    def state(self) -> dict[str, NDArray]:
        return {"xz": self.xz.copy(), "born": self.born.copy(), "colour": self.colour.copy(),
                "drops": np.array([self._drops])}

    def set_state(self, state: dict[str, NDArray]) -> None:
        self.xz = np.asarray(state["xz"], float).reshape(-1, 2).copy()
        self.born = np.asarray(state["born"], float).copy()
        self.colour = np.asarray(state["colour"], np.int64).copy()
        self._drops = int(np.asarray(state.get("drops", [0]))[0])
