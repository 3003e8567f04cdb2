"""Gravity waves travel at sqrt(g h); a closed basin sloshes with period 2L / sqrt(g h).

Linearised shallow water over a flat bed, eta' << h: eta'_tt = g h eta'_xx, so a small pulse
splits in two fronts moving at c = sqrt(g h), and the gravest standing wave of a basin of length
L (walls at both ends) is eta' = a cos(pi x / L) cos(2 pi t / T) with T = 2 L / c (Merian's
formula, n = 1). Both are checked to 3% in a narrow channel (a few cells across, reflective sides).
"""
from __future__ import annotations

import math

import numpy as np

from engine.water import WaterGrid

G = 9.81
DT = 1.0 / 120.0
DEPTH = 0.1
C = math.sqrt(G * DEPTH)


def _channel(eta: np.ndarray, dx: float, nz: int = 3) -> WaterGrid:
    """A flat-bed channel along x whose surface is eta(x) above the bed."""
    nx = eta.size
    h = np.repeat(eta[None, :], nz, axis=0)
    return WaterGrid(h=h, bed=np.zeros((nz, nx)), u=np.zeros((nz, nx + 1)), w=np.zeros((nz + 1, nx)), dx=dx,
                     gravity=G)


def _front(x: np.ndarray, eta: np.ndarray) -> float:
    """Leading (largest-x) point where the pulse crosses half its height, linearly interpolated."""
    half = 0.5 * eta.max()
    j = int(np.nonzero(eta >= half)[0].max())
    return float(x[j] + (x[j + 1] - x[j]) * (eta[j] - half) / (eta[j] - eta[j + 1]))


def test_pulse_front_travels_at_sqrt_gh():
    nx, dx = 400, 0.01                                    # a 4 m channel
    x = (np.arange(nx) + 0.5) * dx
    amp = 1e-3 * DEPTH                                    # eta'/h = 0.001: linear (nonlinear speed-up 1.5 eta'/h)
    grid = _channel(DEPTH + amp * np.exp(-((x - 1.0) / 0.05) ** 2), dx)
    times, fronts = [], []
    for step in range(1, 181):
        grid.step(DT)
        if step in (60, 180):                             # t = 0.5 s and 1.5 s; the right pulse is then past x = 1 m
            right = x > 1.0
            times.append(step * DT)
            fronts.append(_front(x[right], grid.h[1, right] - DEPTH))
    speed = (fronts[1] - fronts[0]) / (times[1] - times[0])
    assert abs(speed / C - 1.0) < 0.03


def test_seiche_period_is_2L_over_sqrt_gh():
    nx, dx = 50, 0.02                                     # basin length L = 1 m
    L = nx * dx
    x = (np.arange(nx) + 0.5) * dx
    grid = _channel(DEPTH + 1e-3 * DEPTH * np.cos(np.pi * x / L), dx)
    period = 2.0 * L / C                                  # 2.02 s
    signal = []
    for _ in range(int(4.5 * period / DT)):
        grid.step(DT)
        signal.append(grid.h[1, 0] - DEPTH)               # the surface at the left wall
    s = np.array(signal)
    ups = [j + s[j] / (s[j] - s[j + 1]) for j in range(len(s) - 1) if s[j] < 0.0 <= s[j + 1]]
    assert len(ups) >= 3
    measured = float(np.mean(np.diff(ups))) * DT
    assert abs(measured / period - 1.0) < 0.03
