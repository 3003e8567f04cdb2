"""WaveMakers: the level's paddles and periodic sources drive the water each step."""
from __future__ import annotations

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

    paddle (a piston wave maker): the water within `width` of its side is steered towards the
    paddle's motion U(t) = (stroke / 2) omega cos(omega t + phase), ramping linearly from the wall
    (at rest) to full at `width`, by the face acceleration a = (U profile - u) / tau (tau = 2 dt)
    in WaterGrid.ax / .az. That moves water but adds none. A body force alone would mostly be
    balanced by a surface slope a / g; steering the velocity makes the zone act as a piston, whose
    waves in shallow water have height H ~ stroke omega h / c = k h stroke (Dean & Dalrymple, ch. 6).
    source: adds rate(t) dt with rate = R sin(omega t + phase) near a point through
    WaterGrid.add_volume, which counts it in source_volume; over a period the net volume is zero
    (less what could not be taken from cells that ran dry).

    Reads the level's wave makers and the clock (configuration) and the contract below.
    """

    READS = ("WaterGrid.u", "WaterGrid.w")
    WRITES = ("WaterGrid.ax", "WaterGrid.az", "WaterGrid.h", "WaterGrid.source_volume")
    EMITS = ()

    def __init__(self, makers: Sequence[WaveMakerSpec]) -> None:
        self.makers = tuple(makers)
        # per maker: (velocity array name, face mask, inward sign, profile 0..1 on the masked faces)
        self.masks: list[tuple[str, np.ndarray, float, np.ndarray]] = []

    def bind(self, sim) -> None:
        super().bind(sim)
        w = sim.water
        dx = float(w.dx)
        nz, nx = w.h.shape
        size = (nx * dx, nz * dx)
        self.masks = [self._paddle_mask(m, nx, nz, dx, size) if m.kind == "paddle"
                      else ("", np.zeros(0, bool), 0.0, np.zeros(0)) for m in self.makers]

    @staticmethod
    def _paddle_mask(m: WaveMakerSpec, nx: int, nz: int, dx: float,
                     size: tuple[float, float]) -> tuple[str, np.ndarray, float, np.ndarray]:
        """Interior faces within `width` of the paddle's side, over its span, and their profile."""
        width = m.width if m.width is not None else 0.3
        width = max(width, 2.0 * dx)  # at least two face rows
        if m.side in ("x_min", "x_max"):
            f = np.arange(nx + 1) * dx               # x of u faces
            along = (np.arange(nz) + 0.5) * dx       # z of u-face rows
            length = size[1]
            depth = f if m.side == "x_min" else size[0] - f
        else:
            f = np.arange(nz + 1) * dx
            along = (np.arange(nx) + 0.5) * dx
            length = size[0]
            depth = f if m.side == "z_min" else size[1] - f
        near = depth <= width + 1e-9
        near[[0, -1]] = False                        # the walls themselves stay closed
        lo, hi = m.span if m.span is not None else (0.0, length)
        across = (along >= lo) & (along <= hi)
        sign = 1.0 if m.side in ("x_min", "z_min") else -1.0
        if m.side in ("x_min", "x_max"):
            mask = across[:, None] & near[None, :]
            profile = np.broadcast_to(depth[None, :] / width, mask.shape)[mask]
            return "u", mask, sign, profile
        mask = near[:, None] & across[None, :]
        profile = np.broadcast_to(depth[:, None] / width, mask.shape)[mask]
        return "w", mask, sign, profile

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

    def state(self) -> dict:
        """Nothing of its own to save: the paddles and sources follow the level and the clock."""
        return {}

    def set_state(self, state: dict) -> None:
        """Nothing to restore (see state())."""

    def process(self, dt: float) -> None:
        w = self.sim.water
        t = self.sim.time
        for m, (name, mask, sign, profile) in zip(self.makers, self.masks):
            if m.kind == "paddle":
                target = sign * self.paddle_velocity(m, t + dt) * profile
                vel = getattr(w, name)
                acc = w.ax if name == "u" else w.az
                acc[mask] += (target - vel[mask]) / (2.0 * dt)
            else:
                # midpoint of the step: the exact integral of a sine to second order
                volume = self.source_rate(m, t + 0.5 * dt) * dt
                assert m.position is not None          # the loader: a source has a position
                x, z = m.position
                w.add_volume(x, z, volume, radius=m.radius if m.radius is not None else 0.15)
