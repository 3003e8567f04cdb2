"""Every bundled level loads, says what it demonstrates, and runs 2 simulated seconds headless
without NaN, its water volume conserved apart from its declared sources (inflow, outflow, wave
makers, add_volume): total_water() - source_volume stays what it was at t = 0.

Floating bodies push water aside through the covered-height field: CoupleWater moves their
submerged volume into water.h and keeps the amount in `displaced`; that is body, not water.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine import Simulation, load_level
from engine.paths import LEVELS

BUNDLED = sorted(LEVELS.glob("*.toml"))
REQUIRED = {"calm_pool", "wave_pool", "beach", "river", "shooting_gallery", "harbour"}


def water_budget(sim: Simulation) -> float:
    """Water that must stay constant: all water less what the sources added, less body volume in h."""
    total = sim.total_water()
    naive = sim.water.volume() + sim.body_store.held_water_total() + sim.water_in_flight
    try:
        displaced = float(getattr(sim.get_system("CoupleWater"), "displaced", 0.0))
    except KeyError:
        displaced = 0.0
    if abs(total - naive) > 1e-12:  # total_water() already leaves out the displaced volume
        displaced = 0.0
    return total - sim.water.source_volume - displaced


def test_the_bundled_levels_are_all_there():
    assert REQUIRED <= {p.stem for p in BUNDLED}


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_level_runs_two_seconds(path):
    assert path.read_text().startswith("# Demonstrates:"), "a bundled level opens with a # Demonstrates: line"
    level = load_level(path)
    assert level.description
    # keep the suite fast: a level is a few thousand to ~12k cells (calm pool: 128 x 96)
    nx, nz = level.pool.shape
    assert nx * nz <= 128 * 100, f"{path.name}: {nx} x {nz} cells is too many for a bundled level"
    sim = Simulation(level)
    before = water_budget(sim)
    sim.step(round(2.0 / sim.dt))
    w = sim.water
    assert sim.time == pytest.approx(2.0, abs=sim.dt)
    for name in ("h", "u", "w"):
        assert np.isfinite(getattr(w, name)).all(), f"{path.name}: water.{name} has NaN"
    for e in sim.bodies():
        assert np.isfinite(sim.body(e).position).all()
    after = water_budget(sim)
    # volume: round-off of sums over ~1e4 cells of ~0.3 m, relative to the pool's volume
    assert after == pytest.approx(before, rel=1e-9, abs=1e-9)
    assert sim.failures == []
    # every bottle and object the level places is in the simulation
    if hasattr(sim, "spawn_body"):
        assert len(sim.bodies()) >= len(level.bottles) + len(level.objects)


def test_wave_pool_makes_waves_and_beach_keeps_a_dry_shore():
    sim = Simulation(load_level(LEVELS / "beach.toml"))
    w = sim.water
    x = (np.arange(w.h.shape[1]) + 0.5) * w.dx
    # the shore beyond x = 3.4 m is dry sand (bed above the 0.25 m water level)
    assert (w.h[:, x > 3.6] == 0.0).all()
    assert (w.h[:, x < 1.4] > 0.2).all()
    sim = Simulation(load_level(LEVELS / "wave_pool.toml"))
    assert "WaveMakers" in sim.system_names()
    sim.step(240)
    eta = sim.water.eta
    assert np.ptp(eta) > 0.02, "a paddle with an 8 cm stroke makes waves several cm high"
