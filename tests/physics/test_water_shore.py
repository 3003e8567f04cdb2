"""A wave running up a beach: wet/dry without negative depth or shoreline velocity spikes.

Bounds, not a profile: depth never goes negative (the upwind flux empties a cell at most, as
|v| dt/dx <= 1/4 per face); volume stays constant (flux form); and no face moves faster than the
fastest physical speed around, a bore's 2 sqrt(g h_max) (Ritter's dry-bed front speed), even
where the water is a film a micron thick.
"""
from __future__ import annotations

import math

import numpy as np

from engine.water import WaterGrid

G = 9.81
DT = 1.0 / 120.0


def test_wave_runs_up_a_beach_and_back_without_spikes():
    nx, nz, dx = 120, 6, 0.02                                # a 2.4 m flume
    x = (np.arange(nx) + 0.5) * dx
    bed = np.repeat(np.clip((x - 1.2) * 0.25, 0.0, None)[None, :], nz, axis=0)   # 1:4 beach from x = 1.2 m
    eta = 0.15 + 0.04 * np.exp(-((x - 0.5) / 0.12) ** 2)
    h = np.maximum(eta[None, :] - bed, 0.0)
    grid = WaterGrid(h=h, bed=bed, u=np.zeros((nz, nx + 1)), w=np.zeros((nz + 1, nx)), dx=dx, gravity=G)
    v0 = grid.volume()
    dry0 = int((grid.h[2] == 0.0).sum())
    limit = 2.0 * math.sqrt(G * float(grid.h.max()))
    reach = []
    for _ in range(int(4.0 / DT)):
        grid.step(DT)
        assert (grid.h >= 0.0).all()
        assert max(np.abs(grid.u).max(), np.abs(grid.w).max()) <= limit
        reach.append(int((grid.h[2] > 1e-4).sum()))
    assert max(reach) > nx - dry0                           # the wave did run up onto dry sand
    assert abs(grid.volume() - v0) / v0 < 1e-9
