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


@pytest.mark.parametrize("speed", [0.3, 2.5])
def test_carry_is_bilinear_semi_lagrangian(speed):
    """`carry` (before limiting) is q(x) = damp(x) pending(x - v(x) dt), pending interpolated bilinearly
    at the foot clamped to the grid, v at the cell centre the mean of its two faces; reference
    scipy.ndimage.map_coordinates (order 1). speed: the largest |v| dt / dx, beyond one cell (2.5)
    as well as within it (0.3, where the kernel takes its 3 x 3 tent form)."""
    rng = np.random.default_rng(5)
    nz, nx, dx, dt = 19, 27, 0.02, 0.01
    u = (rng.uniform(-1, 1, (nz, nx + 1)) * speed * dx / dt).astype(np.float32)
    w = (rng.uniform(-1, 1, (nz + 1, nx)) * speed * dx / dt).astype(np.float32)
    pending = dk.Surface(rng.standard_normal((nz, nx)), rng.standard_normal((nz, nx)))
    damp = rng.uniform(0.5, 1.0, (nz, nx))
    water = dk.Water(np.full((nz, nx), 100.0), np.zeros((nz, nx)), u, w)   # deep: nothing is clipped
    lim = dk.Limit(np.ones((nz, nx)), np.ones((nz, nx)), np.ones((nz, nx)), np.zeros((nz, nx), np.uint8),
                   np.ones((nz, nx), np.uint8))
    labels = np.ones((nz, nx), np.int32)
    basins = dk.Basins(labels, *(np.zeros(2) for _ in range(5)), np.zeros((dk.blocks(nz), 5, 2)))
    out = dk.Surface(np.zeros((nz, nx)), np.zeros((nz, nx)))
    dk.carry(pending, water, lim, basins, damp, dx, dt, out)
    vx = 0.5 * (u[:, :-1] + u[:, 1:]).astype(float)    # the faces' sum in their own float32, as the kernel
    vz = 0.5 * (w[:-1] + w[1:]).astype(float)
    k, i = np.mgrid[0:nz, 0:nx].astype(float)
    foot = [np.clip(k - vz * dt / dx, 0, nz - 1), np.clip(i - vx * dt / dx, 0, nx - 1)]
    for got, q in ((out.eta, pending.eta), (out.phi, pending.phi)):
        want = damp * ndimage.map_coordinates(q, foot, order=1, mode="nearest")
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
