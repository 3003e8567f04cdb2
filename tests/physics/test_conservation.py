"""Water volume is conserved by the flux-form depth update; only explicit sources change it.

Law: h_t + div(h v) = 0 integrates to dV/dt = -(flux through the boundary). The scheme updates
h -= dt/dx (F_r - F_l + G_t - G_b) with each face flux leaving one cell exactly as it enters the
next, so in a closed pool V = sum(h) dx^2 drifts by round-off only: |V(t) - V(0)| / V(0) < 1e-6
after 10,000 steps. With open sides and sources, V(t) = V(0) + source_volume to the same bar.
"""
from __future__ import annotations

import numpy as np

from engine.levels.schema import Boundary, SideSpec
from engine.water import WaterGrid

DT = 1.0 / 120.0


def _stirred_pool(n: int = 16, dx: float = 0.05, boundary: Boundary = Boundary()) -> WaterGrid:
    """A small pool over a bumpy bed with a dry island and a mound of water on one side."""
    x = (np.arange(n) + 0.5) * dx
    X, Z = np.meshgrid(x, x)
    bed = 0.04 * np.sin(9 * X) * np.cos(7 * Z) + 0.25 * np.exp(-((X - 0.55) ** 2 + (Z - 0.5) ** 2) / 0.01)
    eta = 0.12 + 0.05 * np.exp(-((X - 0.2) ** 2 + (Z - 0.3) ** 2) / 0.005)
    h = np.maximum(eta - bed, 0.0)
    return WaterGrid(h=h, bed=bed, u=np.zeros((n, n + 1)), w=np.zeros((n + 1, n)), dx=dx, boundary=boundary)


def test_closed_pool_keeps_its_volume_for_10000_steps():
    grid = _stirred_pool()
    v0 = grid.volume()
    rng = np.random.default_rng(0)
    for step in range(10_000):
        if step % 50 == 0 and step < 5_000:   # keep it sloshing: gusts of wind over random patches
            k, i = rng.integers(0, 12, size=2)
            grid.ax[k:k + 4, i:i + 4] = rng.normal(0.0, 3.0)
            grid.az[k:k + 4, i:i + 4] = rng.normal(0.0, 3.0)
        grid.step(DT)
    assert grid.source_volume == 0.0
    assert abs(grid.volume() - v0) / v0 < 1e-6
    assert (grid.h >= 0.0).all()


def test_open_sides_and_sources_are_all_counted_in_source_volume():
    boundary = Boundary(x_min=SideSpec("inflow", rate=2e-3), x_max=SideSpec("outflow", level=0.08),
                        z_min=SideSpec("absorbing"), z_max=SideSpec("reflective"))
    grid = _stirred_pool(boundary=boundary)
    v0 = grid.volume()
    fountain = grid.add_source(0.3, 0.6, 0.1, 1e-3)
    drain = grid.add_source(0.6, 0.2, 0.1, -5e-4)
    for step in range(600):
        if step == 300:
            grid.remove_source(fountain)
            grid.remove_source(drain)
            grid.add_volume(0.4, 0.4, 2e-4)
        grid.step(DT)
    assert abs(grid.source_volume) > 1e-4          # the sides and sources really moved water
    assert abs(grid.volume() - (v0 + grid.source_volume)) / v0 < 1e-6


def test_reflective_walls_hold_the_water_whatever_velocity_was_written_on_them():
    """A reflective wall's face velocity is zero by definition: a pool whose wall faces were
    written outward (u[:, 0] < 0, u[:, nx] > 0, as a careless mod might) keeps every cubic metre,
    and its step leaves those faces at zero. 32 cells a row: the deep rows take the fast kernel,
    whose flux loop runs through the last cell on the wall face's velocity."""
    n, dx = 32, 0.05
    x = (np.arange(n) + 0.5) * dx
    X, Z = np.meshgrid(x, x)
    h = 0.5 + 0.05 * np.exp(-((X - 0.6) ** 2 + (Z - 0.9) ** 2) / 0.05)
    u = np.zeros((n, n + 1))
    u[:, 0], u[:, n] = -3.0, 3.0
    grid = WaterGrid(h=h, bed=np.zeros((n, n)), u=u, w=np.zeros((n + 1, n)), dx=dx)
    v0 = grid.volume()
    for _ in range(20):
        grid.step(DT)
    assert abs(grid.volume() - v0) / v0 < 1e-12
    assert not grid.read("u")[:, [0, n]].any()
