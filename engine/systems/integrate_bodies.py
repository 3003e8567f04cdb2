"""IntegrateBodies: move every rigid body one fixed step and resolve its contacts."""
from __future__ import annotations

from engine.systems.base import System


class IntegrateBodies(System):
    """Advance all bodies: gravity, Verlet integration, collisions with the pool and each other.

    Reads: BodyRef, Pool. Writes: the BodyStore arrays. Emits: Impact.
    """

    def process(self, dt: float) -> None:
        sim = self.sim
        sim.body_store.step(dt, sim.gravity)
