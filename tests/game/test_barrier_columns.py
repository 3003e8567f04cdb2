"""Drawn barriers and the engine's solid columns (engine/blocking.py) share one bed."""
from __future__ import annotations

import numpy as np
import pytest

from engine import Simulation
from engine.levels import parse_level
from game.barriers import Barriers

LEVEL = "[pool]\nsize = [1.0, 0.6]\ncell = 0.05\nwall_height = 0.8\n[water]\nlevel = 0.2\n"


def test_a_drawn_barrier_survives_a_blocking_body_and_clears():
    """bed = max(terrain, barriers, bodies) (SolidColumns): a blocking body standing elsewhere must
    not lower a drawn barrier back to the terrain; clearing gives the terrain back. sum(h) dx^2 is
    unchanged throughout (the water moved aside, never lost)."""
    sim = Simulation(parse_level(LEVEL))
    cols = sim.get_system("CoupleWater").blockers.columns
    barriers = Barriers(sim)
    v0 = sim.total_water()
    assert barriers.draw_segment((0.5, 0.0), (0.5, 0.6)) > 0
    mask = barriers.mask.copy()
    top = float(sim.water.read("bed")[mask].max())
    assert top > 0.2
    body = cols.free_tops()
    body[1, 1] = 0.3                          # a blocking body's column, away from the barrier
    cols.set_bodies(sim.water, body)
    assert (sim.water.read("bed")[mask] == top).all()
    assert sim.water.read("bed")[1, 1] == 0.3
    assert sim.total_water() == pytest.approx(v0, rel=1e-12)
    barriers.clear()
    assert (sim.water.read("bed")[mask] == cols.terrain[mask]).all()
    cols.set_bodies(sim.water, cols.free_tops())
    assert np.array_equal(sim.water.read("bed"), cols.terrain)
    assert sim.total_water() == pytest.approx(v0, rel=1e-12)
