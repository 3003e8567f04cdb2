"""Steady open-channel flow: over a bump (subcritical) and through a hydraulic jump.

Over a smooth bump, steady flow of discharge q per unit width conserves the energy head where it
accelerates (Bernoulli):

    E = h + q^2 / (2 g h^2) + b = const,

so the depth at the crest h_c is the subcritical root of h_c + q^2 / (2 g h_c^2) = E_up - b_max,
with E_up taken from the depth measured upstream. Across a hydraulic jump momentum is conserved
instead and energy is lost; the conjugate depths obey Belanger's relation

    h_2 / h_1 = (sqrt(1 + 8 Fr_1^2) - 1) / 2,     Fr_1 = q / (h_1 sqrt(g h_1)).

The crest depth within 1% (the energy-head form is exact for it), the conjugate-depth ratio within
3%; the flow is fed by an inflow side of known rate and leaves through an outflow side.
"""
from __future__ import annotations

import math

import numpy as np

from engine.levels.schema import Boundary, SideSpec
from engine.water import WaterGrid

G = 9.81
DT = 1.0 / 120.0


def channel(bed: np.ndarray, h: np.ndarray, dx: float, rate: float, level: float, manning: float = 0.0) -> WaterGrid:
    nz, nx = 3, bed.size
    boundary = Boundary(x_min=SideSpec("inflow", rate=rate), x_max=SideSpec("outflow", level=level))
    return WaterGrid(h=np.repeat(h[None, :], nz, 0), bed=np.repeat(bed[None, :], nz, 0), u=np.zeros((nz, nx + 1)),
                     w=np.zeros((nz + 1, nx)), dx=dx, gravity=G, boundary=boundary, manning=manning)


def settle(grid: WaterGrid, seconds: float, average: float) -> np.ndarray:
    """The depth along the channel's middle row, averaged over the last `average` seconds."""
    steps, keep = int(seconds / DT), int(average / DT)
    total = np.zeros(grid.shape[1])
    for step in range(steps):
        grid.step(DT)
        if step >= steps - keep:
            total += grid.h[1]
    return total / keep


def crest_depth(e: float, q: float) -> float:
    """Subcritical root of h + q^2 / (2 g h^2) = e, by bisection above the critical depth."""
    lo, hi = (q * q / G) ** (1.0 / 3.0), e
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if mid + q * q / (2 * G * mid * mid) < e else (lo, mid)
    return 0.5 * (lo + hi)


def test_subcritical_flow_over_a_bump_keeps_its_energy_head():
    nx, dx, width = 100, 0.05, 3 * 0.05
    x = (np.arange(nx) + 0.5) * dx
    bump = 0.06 * np.exp(-((x - 2.5) / 0.35) ** 2)
    q = 0.05                                             # m^2/s: Fr about 0.1 downstream
    grid = channel(bump, np.maximum(0.3 - bump, 0.0), dx, q * width, 0.3)
    h = settle(grid, 40.0, 5.0)
    up = int(1.2 / dx)                                   # upstream, clear of the inflow edge and the bump
    e_up = h[up] + q * q / (2 * G * h[up] ** 2)
    crest = int(2.5 / dx)
    expected = crest_depth(e_up - bump[crest], q)
    assert abs(h[crest] - expected) / expected < 0.01, (h[crest], expected, h[up])
    assert h[crest] < h[up] - 0.04                       # the surface dips over the bump, as it must


def test_hydraulic_jump_has_belanger_conjugate_depths():
    nx, dx, width = 160, 0.05, 3 * 0.05
    x = (np.arange(nx) + 0.5) * dx
    bed = np.clip(0.6 * (1.5 - x) / 1.5, 0.0, None)      # a steep chute down to a flat floor at x = 1.5 m
    q = 0.08
    # a little bed friction holds the jump in place on the floor (on a frictionless floor it sits
    # only where the tailwater is exactly the conjugate depth); over the jump's few cells it is small
    grid = channel(bed, np.full(nx, 0.02), dx, q * width, 0.15, manning=0.012)
    h = settle(grid, 40.0, 4.0)
    flat = x > 1.7
    jump = int(np.argmax(np.diff(h) * flat[1:]))         # the steepest rise on the flat floor
    assert 1.9 < x[jump] < x[-1] - 1.0, f"jump at {x[jump]:.2f} m"
    h1 = float(h[jump - 3])                              # supercritical, just ahead of the jump
    h2 = float(np.median(h[jump + 8: jump + 20]))        # subcritical, behind it
    fr1 = q / (h1 * math.sqrt(G * h1))
    assert fr1 > 1.5
    ratio = (math.sqrt(1.0 + 8.0 * fr1 * fr1) - 1.0) / 2.0
    assert abs(h2 / h1 - ratio) / ratio < 0.03, (h1, h2, fr1, ratio)
