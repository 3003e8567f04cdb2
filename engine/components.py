"""The nouns of the world: small plain-data components.

Hot data lives in arrays: the water grid is one component holding arrays, and every rigid body's
state lives in the structure-of-arrays `BodyStore` (engine/bodies.py); an entity only holds a
`BodyRef` handle into it.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.levels.schema import Boundary, PoolSpec
from engine.water import WaterGrid

__all__ = ["Pool", "WaterGrid", "BodyRef", "Bottle", "ShatterRequest", "Shard", "Prop"]


@dataclass(slots=True)
class Pool:
    """The basin: its extent, wall height and what each side does to waves."""
    spec: PoolSpec
    boundary: Boundary


@dataclass(slots=True)
class BodyRef:
    """Handle of an entity's rigid body: its slot in the BodyStore arrays."""
    slot: int


@dataclass(slots=True)
class Bottle:
    """A glass bottle that may hold water and shatters above `strength` (N s)."""
    model: str
    sealed: bool
    strength: float


@dataclass(slots=True)
class ShatterRequest:
    """A bottle asked to break (Simulation.shatter, a tool, a mod): the Shatter system breaks it in
    its next pass as an impact whose glass share is `impulse` (N s) would, and removes it with the
    bottle."""
    impulse: float


@dataclass(slots=True)
class Shard:
    """A fragment of a shattered bottle."""
    bottle: int        # entity id of the bottle it came from
    piece: int         # index in the fragment set
    born: float        # simulated time of the shatter, s


@dataclass(slots=True)
class Prop:
    """Any other rigid body: a crate, a ball, a duck."""
    model: str
