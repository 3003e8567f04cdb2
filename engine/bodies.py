"""Rigid bodies as structure-of-arrays. PLACEHOLDER (issue 4 owns mass properties from meshes,
collisions, shatter); the `Body` view and `BodyStore` interface are what the rest of the engine uses.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

KINDS = ("bottle", "shard", "prop")


class BodyStore:
    """Positions, velocities, orientations and mass properties of every body, one row per slot."""

    def __init__(self, capacity: int = 64) -> None:
        self.n = 0
        self._alloc(capacity)
        self.free: list[int] = []

    def _alloc(self, cap: int) -> None:
        def grow(name: str, shape: tuple, dtype=np.float64, fill=0.0):
            old = getattr(self, name, None)
            new = np.full((cap,) + shape, fill, dtype=dtype)
            if old is not None:
                new[: len(old)] = old
            setattr(self, name, new)
        grow("pos", (3,)); grow("vel", (3,)); grow("quat", (4,)); grow("angvel", (3,))
        grow("mass", ()); grow("volume", ()); grow("held_water", ()); grow("inner_volume", ())
        grow("alive", (), np.bool_, False); grow("kind", (), np.int8, 0)
        self.capacity = cap

    def spawn(self, kind: str, position, velocity=(0, 0, 0), angular_velocity=(0, 0, 0),
              orientation=(1, 0, 0, 0), mass: float = 0.4, volume: float = 1e-3,
              inner_volume: float = 0.0, fill: float = 0.0) -> int:
        if self.free:
            s = self.free.pop()
        else:
            if self.n == self.capacity:
                self._alloc(self.capacity * 2)
            s = self.n
            self.n += 1
        self.pos[s] = position; self.vel[s] = velocity; self.angvel[s] = angular_velocity
        q = np.asarray(orientation, float); self.quat[s] = q / np.linalg.norm(q)
        self.inner_volume[s] = inner_volume
        self.held_water[s] = fill * inner_volume
        self.mass[s] = mass; self.volume[s] = volume
        self.alive[s] = True; self.kind[s] = KINDS.index(kind)
        return s

    def remove(self, slot: int) -> None:
        self.alive[slot] = False
        self.free.append(slot)

    def held_water_total(self) -> float:
        return float(self.held_water[: self.n][self.alive[: self.n]].sum())

    def step(self, dt: float, gravity: float) -> None:
        n = self.n
        live = self.alive[:n]
        self.vel[:n][live, 1] -= gravity * dt
        self.pos[:n][live] += self.vel[:n][live] * dt
        below = live & (self.pos[:n, 1] < 0.05)
        self.pos[:n][below, 1] = 0.05
        self.vel[:n][below, 1] = np.abs(self.vel[:n][below, 1]) * 0.3

    def view(self, slot: int) -> "Body":
        return Body(self, slot)


@dataclass(slots=True)
class Body:
    """A live view of one body's state in the store (reads and writes go to the arrays)."""
    store: BodyStore
    slot: int

    @property
    def position(self) -> NDArray[np.float64]:
        return self.store.pos[self.slot]

    @property
    def velocity(self) -> NDArray[np.float64]:
        return self.store.vel[self.slot]

    @property
    def orientation(self) -> NDArray[np.float64]:
        return self.store.quat[self.slot]

    @property
    def angular_velocity(self) -> NDArray[np.float64]:
        return self.store.angvel[self.slot]

    @property
    def mass(self) -> float:
        return float(self.store.mass[self.slot])

    @property
    def volume(self) -> float:
        return float(self.store.volume[self.slot])

    @property
    def kind(self) -> str:
        return KINDS[int(self.store.kind[self.slot])]

    @property
    def submerged_volume(self) -> float:
        return 0.0

    @property
    def held_water(self) -> float:
        return float(self.store.held_water[self.slot])

    def mesh_world(self) -> tuple[NDArray[np.float64], NDArray[np.int32]]:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int32)
