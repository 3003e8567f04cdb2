"""The dispersive stage's mask kernels against scipy.ndimage, an independent reference:
- the shore ramp stamped from the shore's cells equals clip((d - 1) / SHORE, 0, 1) with d the exact
  Euclidean distance transform to the nearest masked cell (scipy.ndimage.distance_transform_edt);
- the flood-fill basins equal scipy.ndimage.label's (4-connected, numbered in raster order)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from engine.water import dispersion as dk
from engine.water.surface import SHORE, ramp_table


def _masks():
    rng = np.random.default_rng(11)
    out = [np.zeros((9, 13), bool), np.ones((7, 5), bool)]
    for shape, p in (((40, 31), 0.05), ((33, 47), 0.3), ((1, 20), 0.2), ((25, 25), 0.6)):
        out.append(rng.random(shape) < p)
    blob = np.zeros((30, 40), bool)
    blob[5:12, 8:30] = True          # a wall standing out of the water
    blob[20:, :6] = True             # a beach in a corner
    out.append(blob)
    return out


@pytest.mark.parametrize("mask", _masks())
def test_distance_ramp_is_the_clipped_distance_transform(mask):
    out = np.full(mask.shape, -1.0)
    dk.distance_ramp(mask.astype(np.uint8), ramp_table(), out)
    want = np.ones(mask.shape) if not mask.any() else np.clip(
        (ndimage.distance_transform_edt(~mask) - 1.0) / SHORE, 0.0, 1.0)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("mask", _masks())
def test_basins_are_the_connected_regions(mask):
    labels = np.full(mask.shape, -1, np.int32)
    n = dk.label(mask.astype(np.uint8), labels, np.zeros(mask.size, np.int64))
    want, n_want = ndimage.label(mask)
    assert n == n_want
    np.testing.assert_array_equal(labels, want)
