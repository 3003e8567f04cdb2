"""`water_velocities` (the tracers' velocity, and the one the bodies feel) against an independent
bilinear interpolation of the staggered faces.

u lives on x faces at (i dx, (k + 1/2) dx), i in [0, nx]; w on z faces at ((i + 1/2) dx, k dx),
k in [0, nz]. Between four faces the value is bilinear,

    v = (1-fx)(1-fz) a[k, i] + fx (1-fz) a[k, i+1] + (1-fx) fz a[k+1, i] + fx fz a[k+1, i+1],

with the point clamped onto the rectangle the faces span (outside it, the nearest edge value).
"""
from __future__ import annotations

import numpy as np

from engine.kernels.coupling import water_velocities, water_velocity

# the reference clamps 1e-6 cell inside the far edge (so i + 1 stays in range); the kernel clamps
# onto the edge itself, so at the far edge they differ by at most 1e-6 of one face-to-face jump
EDGE = 1e-6


def _bilinear(a: np.ndarray, gx: np.ndarray, gz: np.ndarray) -> np.ndarray:
    rows, cols = a.shape
    gx = np.clip(gx, 0.0, cols - 1 - EDGE)
    gz = np.clip(gz, 0.0, rows - 1 - EDGE)
    i = gx.astype(np.int64)
    k = gz.astype(np.int64)
    fx, fz = gx - i, gz - k
    a = a.astype(np.float64)
    return ((1 - fx) * (1 - fz) * a[k, i] + fx * (1 - fz) * a[k, i + 1]
            + (1 - fx) * fz * a[k + 1, i] + fx * fz * a[k + 1, i + 1])


def _reference(u, w, dx, x, z):
    return _bilinear(u, x / dx, z / dx - 0.5), _bilinear(w, x / dx - 0.5, z / dx)


def test_water_velocities_match_the_bilinear_faces_inside_and_clamped_outside():
    """Random points over and around an nz x nx grid (a third of them outside it, so every edge
    clamps): vx, vz equal the independent bilinear formula to float64 rounding inside and to
    EDGE times the largest face jump at the far edges; the point-wise `water_velocity` agrees."""
    rng = np.random.default_rng(29)
    for nz, nx, dx in ((7, 11, 0.05), (12, 5, 0.02), (2, 2, 0.1)):
        u = rng.uniform(-1, 1, (nz, nx + 1)).astype(np.float32)
        w = rng.uniform(-1, 1, (nz + 1, nx)).astype(np.float32)
        n = 600
        x = rng.uniform(-0.3, 1.3, n) * nx * dx
        z = rng.uniform(-0.3, 1.3, n) * nz * dx
        # points exactly on the edges and corners too
        x = np.r_[x, 0.0, nx * dx, 0.0, nx * dx, 0.5 * nx * dx]
        z = np.r_[z, 0.0, nz * dx, nz * dx, 0.0, nz * dx]
        vx, vz = water_velocities(u, w, x, z, dx)
        rx, rz = _reference(u, w, dx, x, z)
        np.testing.assert_allclose(vx, rx, rtol=0, atol=4 * EDGE)
        np.testing.assert_allclose(vz, rz, rtol=0, atol=4 * EDGE)
        inside = (x > 0.6 * dx) & (x < (nx - 0.6) * dx) & (z > 0.6 * dx) & (z < (nz - 0.6) * dx)
        assert inside.sum() > 20
        np.testing.assert_allclose(vx[inside], rx[inside], rtol=0, atol=1e-14)
        np.testing.assert_allclose(vz[inside], rz[inside], rtol=0, atol=1e-14)
        for j in range(0, len(x), 37):
            assert water_velocity(u, w, x[j], z[j], dx) == (vx[j], vz[j])
