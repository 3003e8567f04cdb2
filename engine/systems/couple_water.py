"""CoupleWater: bodies push the water, the water pushes the bodies."""
from __future__ import annotations

from engine.systems.base import System


class CoupleWater(System):
    """Exchange volume and momentum between bodies and the water (issue 5 fills this in).

    Reads: BodyStore, WaterGrid. Writes: both. Emits: Splash.
    """

    def process(self, dt: float) -> None:
        return None
