"""The held-water level kernels against a sort (numpy argsort + cumsum)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.kernels.cavity import level_of, weight_at_or_below


def sorted_level(points, weights, up, held):
    """The reference: sort the element heights, the first whose cumulative weight reaches held."""
    y = points @ up
    order = np.argsort(y, kind="stable")
    k = int(np.searchsorted(np.cumsum(weights[order]), held))
    return float(y[order[min(k, len(y) - 1)]])


@pytest.mark.parametrize("seed", range(6))
def test_level_of_equals_the_sorted_cumulative_sum(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 4000))
    points = rng.normal(size=(n, 3))
    if seed % 2:                                   # many ties: heights on a coarse lattice
        points = np.round(points * 4) / 4
    weights = rng.uniform(0.1, 1.0, n)
    up = rng.normal(size=3)
    up /= np.linalg.norm(up)
    if seed % 2:
        up = np.array([0.0, 1.0, 0.0])
    total = weights.sum()
    for held in rng.uniform(0.0, 1.0, 20) * total:
        # (the same element: heights agree to the rounding of a dot product)
        assert level_of(points, weights, up, held) == pytest.approx(sorted_level(points, weights, up, held),
                                                                    rel=0, abs=1e-14)
    top = level_of(points, weights, up, 2.0 * total)             # more than it holds: the top
    assert top == pytest.approx((points @ up).max(), rel=0, abs=1e-14)


def test_weight_at_or_below_sums_the_elements_under_a_height():
    rng = np.random.default_rng(9)
    points, weights = rng.normal(size=(500, 3)), rng.uniform(size=500)
    up = np.array([0.6, 0.8, 0.0])
    for level in (-1.0, 0.0, 0.3, 5.0):
        assert weight_at_or_below(points, weights, up, level) == pytest.approx(weights[points @ up <= level].sum(),
                                                                               rel=1e-12, abs=0)
