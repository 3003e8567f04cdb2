"""Visual-only effects driven by simulation events: spray particles and surface foam (pure numpy).

Nothing here writes simulation state; it has its own seeded generator, so a recording replays.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.typing import NDArray


class Spray:
    """Droplets thrown up by splashes and shatters; they fall ballistically back into the pool."""

    def __init__(self, capacity: int = 6000, gravity: float = 9.81, seed: int = 11) -> None:
        self.capacity = capacity
        self.gravity = gravity
        self.rng = np.random.default_rng(seed)
        self.pos = np.zeros((0, 3))
        self.vel = np.zeros((0, 3))
        self.age = np.zeros(0)
        self.life = np.zeros(0)
        self.size = np.zeros(0)
        self.landed: list[NDArray[np.float64]] = []   # where droplets fell back in (for foam)

    def __len__(self) -> int:
        return len(self.pos)

    def emit(self, position: tuple[float, float, float], speed: float, count: int,
             spread: float = 0.45, up: float = 1.0, size: float = 0.008) -> None:
        """Throw `count` droplets from `position`, in an upward cone, about `speed` m/s fast."""
        count = int(min(count, self.capacity - len(self.pos)))
        if count <= 0:
            return
        r = self.rng
        ang = r.uniform(0, 2 * np.pi, count)
        horiz = speed * spread * r.uniform(0.2, 1.0, count)
        vy = up * speed * r.uniform(0.35, 1.0, count) + 0.4
        vel = np.stack([np.cos(ang) * horiz, vy, np.sin(ang) * horiz], 1)
        pos = np.asarray(position, float) + np.stack(
            [np.cos(ang), np.zeros(count), np.sin(ang)], 1) * r.uniform(0.0, 0.04, (count, 1))
        self.pos = np.vstack([self.pos, pos])
        self.vel = np.vstack([self.vel, vel])
        self.age = np.concatenate([self.age, np.zeros(count)])
        self.life = np.concatenate([self.life, r.uniform(0.8, 2.0, count)])
        self.size = np.concatenate([self.size, size * r.uniform(0.5, 1.5, count)])

    def step(self, dt: float, surface: "Callable[[NDArray, NDArray], NDArray] | None" = None) -> None:
        """Advance by dt seconds; drop droplets that fell below the water surface or aged out."""
        if dt <= 0.0 or len(self.pos) == 0:
            return
        self.vel[:, 1] -= self.gravity * dt
        self.vel *= np.exp(-0.3 * dt)                     # air drag on small drops
        self.pos += self.vel * dt
        self.age += dt
        keep = self.age < self.life
        if surface is not None:
            below = (self.pos[:, 1] < surface(self.pos[:, 0], self.pos[:, 2])) & (self.vel[:, 1] < 0)
            if below.any():
                self.landed.append(self.pos[below & keep].copy())
            keep &= ~below
        keep &= self.pos[:, 1] > -0.5
        if not keep.all():
            self.pos, self.vel = self.pos[keep], self.vel[keep]
            self.age, self.life, self.size = self.age[keep], self.life[keep], self.size[keep]

    def vertices(self) -> NDArray[np.float32]:
        """Return (n, 5) float32: position, remaining life fraction, size."""
        rem = np.clip(1.0 - self.age / np.maximum(self.life, 1e-6), 0.0, 1.0)
        return np.c_[self.pos, rem, self.size].astype(np.float32)


class Foam:
    """A foam coverage field on the water grid, 0..1, that fades over a couple of seconds."""

    def __init__(self, shape: tuple[int, int], dx: float, half_life: float = 1.2) -> None:
        self.field = np.zeros(shape, np.float32)
        self.dx = dx
        self.half_life = half_life
        self.active = False

    def add(self, x: float, z: float, radius: float, amount: float = 1.0) -> None:
        """Add foam in a soft ring-edged disc at (x, z)."""
        nz, nx = self.field.shape
        r = max(radius, self.dx)
        i0, i1 = max(int((x - 2 * r) / self.dx), 0), min(int((x + 2 * r) / self.dx) + 1, nx)
        k0, k1 = max(int((z - 2 * r) / self.dx), 0), min(int((z + 2 * r) / self.dx) + 1, nz)
        if i0 >= i1 or k0 >= k1:
            return
        xs = (np.arange(i0, i1) + 0.5) * self.dx - x
        zs = (np.arange(k0, k1) + 0.5) * self.dx - z
        d = np.hypot(xs[None, :], zs[:, None]) / r
        ring = np.exp(-d * d) + 0.6 * np.exp(-((d - 1.1) / 0.25) ** 2)
        sub = self.field[k0:k1, i0:i1]
        np.minimum(sub + amount * ring, 1.0, out=sub)
        self.active = True

    def add_points(self, pts: NDArray[np.float64], amount: float = 0.15) -> None:
        """Add a little foam where droplets landed."""
        if len(pts) == 0:
            return
        nz, nx = self.field.shape
        i = np.clip((pts[:, 0] / self.dx).astype(int), 0, nx - 1)
        k = np.clip((pts[:, 2] / self.dx).astype(int), 0, nz - 1)
        np.add.at(self.field, (k, i), amount)
        np.minimum(self.field, 1.0, out=self.field)
        self.active = True

    def step(self, dt: float) -> None:
        """Fade the foam by dt seconds."""
        if not self.active or dt <= 0.0:
            return
        self.field *= np.float32(0.5 ** (dt / self.half_life))
        if self.field.max() < 1e-3:
            self.field[:] = 0.0
            self.active = False
