"""Put a level's contents into a fresh Simulation: its bottles, objects and level-driven systems."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.world import Simulation


def apply_level(sim: "Simulation") -> None:
    """Spawn what the level places at t = 0."""
    for spec in sim.level.bottles:
        sim.spawn_bottle(spec.position, spec.velocity, spec.angular_velocity, spec.orientation,
                         fill=spec.fill, sealed=spec.sealed, model=spec.model)
