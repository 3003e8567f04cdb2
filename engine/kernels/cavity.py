"""Held-water kernel: how much of a bottle's cavity lies at or below a height (engine/pouring.py)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def weight_at_or_below(points: np.ndarray, weights: np.ndarray, up: np.ndarray, level: float) -> float:
    """sum of weights[j] over the elements with up . points[j] <= level (m^3): the volume of the
    cavity at or below `level`, heights measured along `up` (the world y axis in the model frame)."""
    total = 0.0
    for j in range(points.shape[0]):
        if up[0] * points[j, 0] + up[1] * points[j, 1] + up[2] * points[j, 2] <= level:
            total += weights[j]
    return total
