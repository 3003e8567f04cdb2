"""The grid's shortest wave under and around floating bottles: it dies out, it is never pumped up.

The 2 dx checker of the surface eta = bed + h (the mode (pi, pi), eta ~ (-1)^(i+k)) is isolated
by the 3 x 3 kernel [[1, -2, 1], [-2, 4, -2], [1, -2, 1]] / 16 (the product of the second
differences along x and z over 16): its response is sin^2(k_x dx / 2) sin^2(k_z dx / 2), 1 for
the checker, 0 for any field constant along one axis, and (k dx)^4 / 16 for a smooth bump.

A bottle's displaced height is rasterised smooth ([1 4 6 4 1] / 16 along each axis, whose
response at the checker is exactly 0): a bottle set down in still water leaves a checker of
0.003-0.035 mm rms around it 1-6 s later (measured, open and sealed: the short waves of its own
setting down, sloshing in the small pool), 0.002 mm in the columns the hulls cover; the bound
below, 0.05 mm rms, sits above that and far below a checker that grows (tens of mm). The
volume stays exact (sim.total_water(), to 1e-12 relative).

Before session 16 a checker under a hull never died: the surface-wave stage treats the covered
columns as shore, the shallow-water bulk keeps the checker there, undamped, and amplifies it from
about 2-3 cm on; one seeded at 30 mm stayed at 13-37 mm rms, and in the calm pool a bottle dropped
beside the level's two left 2-3 mm rms (max 37-40 mm) under every hull (docs/coupling.md).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation
from engine.levels import load_level, parse_level
from engine.paths import LEVELS

SIDEWAYS = (math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4))   # bottle axis along x, lying
BOUND = 0.05e-3          # m: rms of the checker around a settled bottle


def checker(eta: np.ndarray) -> np.ndarray:
    """The (pi, pi) part of eta at the interior cells (0 on the edge cells): the 3 x 3 kernel above."""
    e = np.asarray(eta, float)
    c = np.zeros_like(e)
    c[1:-1, 1:-1] = (e[:-2, :-2] - 2 * e[:-2, 1:-1] + e[:-2, 2:]
                     - 2 * e[1:-1, :-2] + 4 * e[1:-1, 1:-1] - 2 * e[1:-1, 2:]
                     + e[2:, :-2] - 2 * e[2:, 1:-1] + e[2:, 2:]) / 16.0
    return c


def rms(a: np.ndarray) -> float:
    return float(np.sqrt(np.mean(a * a)))


@pytest.mark.parametrize("sealed", [False, True])
def test_a_2dx_checker_under_a_floating_bottle_dies_out(sealed):
    """A bottle lying in still water (1.5 m pool, 0.5 m deep, 48 x 48 cells), settled for 3 s; a
    zero-sum checker of 30 mm amplitude under and around it (8 cells in radius: the hull and the
    ring where the stage's surface part ramps in). Linear waves of that length are damped by the
    bulk's eddy viscosity and by the surface-wave stage in open water; 2 s later the checker
    around the bottle is below BOUND again, and the water's volume is what it was."""
    sim = Simulation(parse_level("[pool]\nsize = [1.5, 1.5]\ncell = 0.03125\nwall_height = 0.9\n"
                                 "[water]\nlevel = 0.5\n"))
    e = sim.spawn_bottle((0.75, 0.49, 0.75), orientation=SIDEWAYS, fill=0.3, sealed=sealed)
    sim.step(int(3.0 / sim.dt))
    dx = sim.water.dx
    nz, nx = sim.water.shape
    k, i = np.mgrid[0:nz, 0:nx]
    b = sim.body(e)
    r2 = (k + 0.5 - b.position[2] / dx) ** 2 + (i + 0.5 - b.position[0] / dx) ** 2
    near = r2 < 10.0 ** 2
    settled = rms(checker(sim.water.eta)[near])
    assert settled < BOUND                      # the smooth displacement makes none
    patch = r2 < 8.0 ** 2
    seed = np.where(patch, (-1.0) ** (k + i) * np.cos(np.pi * np.sqrt(r2) / 16.0) ** 2, 0.0)
    seed[patch] -= seed[patch].mean()           # moves no volume
    sim.water.h[...] += 0.03 * seed
    w0 = sim.total_water()
    assert rms(checker(sim.water.eta)[near]) > 100 * BOUND
    sim.step(int(2.0 / sim.dt))
    assert rms(checker(sim.water.eta)[near]) < BOUND
    assert sim.total_water() == pytest.approx(w0, rel=1e-12)


@pytest.mark.parametrize("sealed", [False, True])
def test_bottles_settled_in_the_calm_pool_leave_no_checker_under_their_hulls(sealed):
    """The calm pool as a player finds it (content/levels/calm_pool.toml: its two bottles, one
    tumbling in) and a bottle dropped lying beside them at (1.0, 0.6, 1.0), 30% full; after 5 s,
    over the next 0.5 s, the checker in the columns the three hulls cover stays below BOUND, and
    the water's volume is exact."""
    sim = Simulation(load_level(LEVELS / "calm_pool.toml"))
    sim.spawn_bottle((1.0, 0.6, 1.0), orientation=SIDEWAYS, fill=0.3, sealed=sealed)
    w0 = sim.total_water()
    sim.step(int(5.0 / sim.dt))
    worst = 0.0
    for _ in range(4):
        sim.step(15)
        hulls = sim.hull.covered > 0.0
        assert hulls.any()
        worst = max(worst, rms(checker(sim.water.eta)[hulls]))
    assert worst < BOUND
    assert sim.total_water() == pytest.approx(w0, rel=1e-12)
