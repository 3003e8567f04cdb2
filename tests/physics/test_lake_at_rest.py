"""Still water over any bed stays still: the scheme is well balanced.

Law: a flat surface eta = b + h = const with v = 0 is an exact steady state of
h_t + div(h v) = 0, v_t + (v . grad) v = -g grad(eta). Faces between wet cells see a zero surface
gradient; faces next to a dry cell whose bed stands above the water carry no flow, so after
2,000 steps over a bumpy bed with a dry island the largest speed stays below 1e-5 m/s.
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
    assert speed < 1e-5
    assert np.abs(grid.h - h0).max() < 1e-6   # the surface did not move either
    assert (grid.h[dry] == 0.0).all()          # and the island stayed dry
