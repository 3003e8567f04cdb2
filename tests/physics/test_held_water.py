"""HeldWater's invariant: the water out of the pool is moved, never made or lost.

    pool + sum(held_water) + water_in_flight = initial total + WaterGrid.source_volume

(pool = WaterGrid.volume() less the body volume the coupling holds in h), at every step boundary:
right after a bottle is broken between steps (its water waits in flight, in the Shattered event),
across a save and load made at that moment, while it falls, and after it has landed. Parcels fall
ballistically: a parcel released at height y0 above a surface at eta, at rest, lands after
t = sqrt(2 (y0 - eta) / g), to within a step.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation, events
from engine.levels import parse_level

LEVEL = "seed = 3\n[pool]\nsize = [1.5, 1.0]\ncell = 0.05\nwall_height = 1.0\n[water]\nlevel = 0.2\n"


def test_water_of_a_bottle_broken_between_steps_is_exact_through_a_save_and_its_fall():
    level = parse_level(LEVEL)
    sim = Simulation(level)
    e = sim.spawn_bottle((0.75, 0.8, 0.5), fill=0.6)
    total0 = sim.total_water()
    held = sim.body(e).held_water
    sim.shatter(e)
    assert sim.total_water() == pytest.approx(total0, rel=1e-13)          # in flight at once
    assert sim.water_in_flight == pytest.approx(held, rel=1e-13)
    tree, _ = sim.state()
    loaded = Simulation.from_state(tree, level)                            # the release waits in the queue
    assert loaded.water_in_flight == sim.water_in_flight
    assert loaded.total_water() == pytest.approx(total0, rel=1e-13)
    landed = None
    for k in range(120):
        sim.step()
        loaded.step()
        assert sim.total_water() == pytest.approx(total0, rel=1e-12)
        if landed is None and sim.water_in_flight == 0.0:
            landed = k
    assert loaded.fingerprint() == sim.fingerprint()
    assert loaded.water_in_flight == sim.water_in_flight == 0.0
    # the parcel leaves the bottle's centre (at rest) on the step after the shatter and falls freely
    # onto the surface; the bottle's centre of mass sits a little below 0.8 m
    eta = level.water.level
    g = sim.gravity
    t_fall = math.sqrt(2.0 * (0.8 - eta) / g)
    assert landed is not None and abs((landed + 1) * sim.dt - t_fall) < 3 * sim.dt
    sim.close()
    loaded.close()


def test_a_shattered_event_carries_the_bottles_velocity_and_water():
    sim = Simulation(parse_level(LEVEL))
    e = sim.spawn_bottle((0.75, 0.8, 0.5), velocity=(1.0, 0.5, -0.25), fill=0.3)
    held = sim.body(e).held_water
    got: list[events.Shattered] = []
    sim.on(events.Shattered, got.append)
    sim.shatter(e)
    sim.step()
    assert len(got) == 1
    assert got[0].velocity == (1.0, 0.5, -0.25) and got[0].released_volume == held
    assert np.isclose(sim.water_in_flight, held, rtol=1e-13)    # still falling after one step
