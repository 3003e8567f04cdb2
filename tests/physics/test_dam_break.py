"""Dam break on a dry bed against Ritter's analytic solution.

Ritter (1892): still water of depth h_l behind a dam at x0 on a dry, flat, frictionless bed,
released at t = 0. With c0 = sqrt(g h_l), for t > 0

    h = h_l                                         x <= x0 - c0 t            (undisturbed)
    h = (4 / 9g) (c0 - (x - x0) / (2t))^2           x0 - c0 t < x < x0 + 2 c0 t
    h = 0                                           x >= x0 + 2 c0 t          (dry, ahead of the front)

Checked before either wave reaches a wall: the L1 difference of the depth profile is within 5%
of the L1 norm of the analytic profile. The wet/dry front must not throw velocity spikes: the
water never moves faster than the front speed 2 c0 (plus 10%).
"""
from __future__ import annotations

import math

import numpy as np

from engine.water import WaterGrid

G = 9.81
DT = 1.0 / 120.0


def ritter(x: np.ndarray, t: float, h_l: float, x0: float) -> np.ndarray:
    c0 = math.sqrt(G * h_l)
    h = (4.0 / (9.0 * G)) * (c0 - (x - x0) / (2.0 * t)) ** 2
    h = np.where(x <= x0 - c0 * t, h_l, h)
    return np.where(x >= x0 + 2.0 * c0 * t, 0.0, h)


def test_dam_break_on_dry_bed_matches_ritter():
    nx, nz, dx = 400, 3, 0.01                # a 4 m channel
    h_l, x0 = 0.1, 1.5
    x = (np.arange(nx) + 0.5) * dx
    h = np.repeat(np.where(x < x0, h_l, 0.0)[None, :], nz, axis=0)
    grid = WaterGrid(h=h, bed=np.zeros((nz, nx)), u=np.zeros((nz, nx + 1)), w=np.zeros((nz + 1, nx)), dx=dx,
                     gravity=G)
    v0 = grid.volume()
    c0 = math.sqrt(G * h_l)
    steps = 96                               # t = 0.8 s: front at 3.08 m, tail at 0.71 m, both clear of the walls
    t = steps * DT
    assert x0 + 2 * c0 * t < nx * dx and x0 - c0 * t > 0.0
    vmax = 0.0
    for _ in range(steps):
        grid.step(DT)
        vmax = max(vmax, float(np.abs(grid.u).max()))
        assert (grid.h >= 0.0).all()
    exact = ritter(x, t, h_l, x0)
    l1 = np.abs(grid.h[1] - exact).sum() / exact.sum()
    assert l1 < 0.05
    assert vmax <= 1.1 * 2.0 * c0
    assert abs(grid.volume() - v0) / v0 < 1e-9
