"""WaveMakers: the level's paddles and periodic sources drive the water each step."""
from __future__ import annotations

import inspect
import math
from typing import Sequence

import numpy as np

from engine.levels.features import WaveMakerSpec
from engine.systems.base import System


def _smoothstep(x: float) -> float:
    x = min(max(x, 0.0), 1.0)
    return x * x * (3.0 - 2.0 * x)


class WaveMakers(System):
    """Push the water with every wave maker of the level; runs before StepFluid.

    paddle (a piston wave maker): the water within `width` of its side moves with the paddle,
        U(t) = (stroke / 2) omega cos(omega t + phase),
    given as the face acceleration a = (U(t + dt) - U(t)) / dt in WaterGrid.ax / .az, so it adds
    momentum but no volume. In shallow water a piston makes waves of height H ~ k h stroke
    (Dean & Dalrymple, ch. 6). source: adds rate(t) dt with rate = R sin(omega t + phase) near a
    point through WaterGrid.add_volume, which counts it in source_volume; over a period the net
    volume is zero (less what could not be taken from cells that ran dry).

    Reads: the level's wave makers, sim.time. Writes: WaterGrid ax, az, h. Emits: nothing.
    """

    def __init__(self, makers: Sequence[WaveMakerSpec]) -> None:
        self.makers = tuple(makers)
        self.masks: list[tuple[str, np.ndarray, float]] = []  # (array name, face mask, inward sign)

    def bind(self, sim) -> None:  # type: ignore[no-untyped-def]
        super().bind(sim)
        w = sim.water
        dx = float(w.dx)
        nz, nx = w.h.shape
        size = (nx * dx, nz * dx)
        self.masks = [self._paddle_mask(m, nx, nz, dx, size) if m.kind == "paddle" else ("", np.zeros(0), 0.0)
                      for m in self.makers]
        params = inspect.signature(w.add_volume).parameters
        self._radius_kw = "radius" in params

    @staticmethod
    def _paddle_mask(m: WaveMakerSpec, nx: int, nz: int, dx: float,
                     size: tuple[float, float]) -> tuple[str, np.ndarray, float]:
        """Interior faces within `width` of the paddle's side, over its span."""
        width = m.width if m.width is not None else 0.15
        width = max(width, dx)  # at least one face row
        if m.side in ("x_min", "x_max"):
            fx = np.arange(nx + 1) * dx              # x of u faces
            along = (np.arange(nz) + 0.5) * dx       # z of u-face rows
            near = fx <= width if m.side == "x_min" else fx >= size[0] - width
            near[[0, -1]] = False                    # the walls themselves stay closed
            lo, hi = m.span if m.span is not None else (0.0, size[1])
            rows = (along >= lo) & (along <= hi)
            return "ax", rows[:, None] & near[None, :], 1.0 if m.side == "x_min" else -1.0
        fz = np.arange(nz + 1) * dx
        along = (np.arange(nx) + 0.5) * dx
        near = fz <= width if m.side == "z_min" else fz >= size[1] - width
        near[[0, -1]] = False
        lo, hi = m.span if m.span is not None else (0.0, size[0])
        cols = (along >= lo) & (along <= hi)
        return "az", near[:, None] & cols[None, :], 1.0 if m.side == "z_min" else -1.0

    @staticmethod
    def _envelope(m: WaveMakerSpec, t: float) -> float:
        return _smoothstep(t / m.ramp) if m.ramp > 0.0 else 1.0

    def paddle_velocity(self, m: WaveMakerSpec, t: float) -> float:
        """Paddle speed at time t, m/s (positive: into the pool)."""
        omega = 2.0 * math.pi / m.period
        return self._envelope(m, t) * 0.5 * (m.stroke or 0.0) * omega * math.cos(omega * t + math.radians(m.phase))

    def source_rate(self, m: WaveMakerSpec, t: float) -> float:
        """Source volume rate at time t, m^3/s."""
        omega = 2.0 * math.pi / m.period
        return self._envelope(m, t) * (m.rate or 0.0) * math.sin(omega * t + math.radians(m.phase))

    def process(self, dt: float) -> None:
        w = self.sim.water
        t = self.sim.time
        for m, (name, mask, sign) in zip(self.makers, self.masks):
            if m.kind == "paddle":
                a = (self.paddle_velocity(m, t + dt) - self.paddle_velocity(m, t)) / dt
                getattr(w, name)[mask] += sign * a
            else:
                # midpoint of the step: the exact integral of a sine to second order
                volume = self.source_rate(m, t + 0.5 * dt) * dt
                x, z = m.position
                if self._radius_kw:
                    w.add_volume(x, z, volume, radius=m.radius if m.radius is not None else 0.15)
                else:
                    w.add_volume(x, z, volume)
