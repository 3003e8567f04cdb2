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


@njit(cache=True)
def level_of(points: np.ndarray, weights: np.ndarray, up: np.ndarray, held: float) -> float:
    """The free surface of `held` m^3 (> 0) settled in the cavity: the lowest element height
    y_j = up . points[j] whose elements at or below it weigh at least `held`; the highest height
    if they all weigh less. A weighted quickselect (three-way partitions around a median-of-three
    pivot): O(n) expected, no sort."""
    n = points.shape[0]
    y = np.empty(n)
    w = np.empty(n)
    top = -np.inf
    for j in range(n):
        y[j] = up[0] * points[j, 0] + up[1] * points[j, 1] + up[2] * points[j, 2]
        w[j] = weights[j]
        top = max(top, y[j])
    lo, hi = 0, n
    target = held
    while hi > lo:
        a, b, c = y[lo], y[(lo + hi) // 2], y[hi - 1]
        pivot = max(min(a, b), min(max(a, b), c))          # the median of the three
        lt, i, gt = lo, lo, hi
        while i < gt:                                       # [lo, lt) < pivot, [lt, gt) == pivot, [gt, hi) >
            if y[i] < pivot:
                y[i], y[lt] = y[lt], y[i]
                w[i], w[lt] = w[lt], w[i]
                lt += 1
                i += 1
            elif y[i] > pivot:
                gt -= 1
                y[i], y[gt] = y[gt], y[i]
                w[i], w[gt] = w[gt], w[i]
            else:
                i += 1
        below = 0.0
        for j in range(lo, lt):
            below += w[j]
        at = 0.0
        for j in range(lt, gt):
            at += w[j]
        if below >= target:
            hi = lt
        elif below + at >= target:
            return pivot
        else:
            target -= below + at                            # stays > 0: below + at < target
            lo = gt
    return top
