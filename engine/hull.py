"""HullField: the bodies' covered height that the water's depth holds, a store of the Simulation.

CoupleWater moves water by the covered height b of the bodies (h += b - b_prev), so between steps
the depth h of each column counts the water plus `covered` (m), and the pool's depth sums to the
water's volume plus `displaced` (m^3, sum(covered) dx^2 as CoupleWater left it). CoupleWater
writes both; StepFluid's surface stage reads `covered` as the hull ramp it must not smooth away,
and Simulation.total_water subtracts `displaced`. Invariant: covered >= 0, displaced = 0 when no
body holds any water aside.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


class HullField:
    """The covered height counted in the water's depth (m, per cell [k, i]) and its volume (m^3)."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.covered: NDArray[np.float64] = np.zeros(shape)
        self.displaced = 0.0
