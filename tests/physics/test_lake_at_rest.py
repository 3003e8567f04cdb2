"""Still water over any bed stays still: the scheme is well balanced.

Law: a flat surface eta = b + h = const with v = 0 is an exact steady state of
h_t + div(h v) = 0, v_t + (v . grad) v = -g grad(eta). Faces between wet cells see a zero surface
gradient (differences below 1e-12 m are the round-off of b + h); faces next to a dry cell whose
bed stands above the water carry no flow, so after 2,000 steps over a bumpy bed with a dry island
every velocity is exactly zero and every depth exactly what it was.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine.levels.schema import Boundary, SideSpec
from engine.water import WaterGrid

DT = 1.0 / 120.0
LEVEL = 0.2


def _lake(bed: np.ndarray, dx: float, boundary: Boundary) -> WaterGrid:
    nz, nx = bed.shape
    h = np.maximum(LEVEL - bed, 0.0)
    return WaterGrid(h=h, bed=bed, u=np.zeros((nz, nx + 1)), w=np.zeros((nz + 1, nx)), dx=dx, boundary=boundary,
                     open_level=(LEVEL,) * 4)


def _bumpy(n: int, dx: float) -> np.ndarray:
    x = (np.arange(n) + 0.5) * dx
    X, Z = np.meshgrid(x, x)
    island = 0.35 * np.exp(-((X - 0.7) ** 2 + (Z - 0.6) ** 2) / 0.02)     # peak 0.35 m > LEVEL: dry
    return 0.05 * np.sin(11 * X) * np.cos(9 * Z) + 0.03 * np.sin(23 * X + 5 * Z) + island


def _stepped(n: int, dx: float) -> np.ndarray:
    bed = np.zeros((n, n))
    bed[:, n // 3:] = 0.12                   # a ledge under water
    bed[n // 2:, 2 * n // 3:] = 0.3          # a block standing out of it
    bed[4:7, 4:7] = 0.25                     # a pillar
    return bed


OPEN_SIDES = Boundary(SideSpec("absorbing"), SideSpec("outflow"), SideSpec("absorbing"), SideSpec("reflective"))


@pytest.mark.parametrize("bed_of,boundary", [(_bumpy, Boundary()), (_stepped, OPEN_SIDES)],
                         ids=["bumpy-bed-walls", "stepped-bed-open-sides"])
def test_still_water_stays_still(bed_of, boundary):
    n, dx = 24, 0.05
    grid = _lake(bed_of(n, dx), dx, boundary)
    dry = grid.h == 0.0
    h0 = grid.h.copy()
    assert dry.any() and (~dry).any()
    for _ in range(2_000):
        grid.step(DT)
    speed = max(np.abs(grid.u).max(), np.abs(grid.w).max())
    assert speed == 0.0                        # exactly still: surface differences of round-off push nothing
    assert (grid.h == h0).all()                # the surface did not move either
    assert (grid.h[dry] == 0.0).all()          # and the island stayed dry


def test_still_water_stays_still_when_the_bed_changes_between_steps():
    """A body raising the bed at run time (a solid column, issue 24) keeps the lake at rest if the
    surface is kept: a column raised under water (h = eta - b) or out of it (h = 0, b above eta)
    is again a flat surface over a new bed, an exact steady state, and the water stays still."""
    n, dx = 24, 0.05
    grid = _lake(_bumpy(n, dx), dx, Boundary())
    for step in range(600):
        if step in (100, 300):
            eta = grid.bed + grid.h
            k0 = 5 + step // 100
            grid.bed[k0:k0 + 4, 6:10] = 0.1 if step == 100 else 0.4     # submerged, then out of the water
            grid.h[k0:k0 + 4, 6:10] = np.maximum(eta[k0:k0 + 4, 6:10] - grid.bed[k0:k0 + 4, 6:10], 0.0)
        grid.step(DT)
    assert max(np.abs(grid.u).max(), np.abs(grid.w).max()) == 0.0
    wet = grid.h > 0.0
    assert np.abs((grid.bed + grid.h)[wet] - LEVEL).max() < 1e-12
