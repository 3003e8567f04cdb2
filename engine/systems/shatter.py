"""Shatter: break bottles whose impact impulse exceeded their strength."""
from __future__ import annotations

from engine.systems.base import System


class Shatter(System):
    """Replace over-stressed bottles by their fragments (issue 4 fills this in).

    Reads: Impact events, Bottle. Writes: entities. Emits: Shattered.
    """

    def process(self, dt: float) -> None:
        return None
