"""A shattered bottle's shards come to rest in a heap, without jitter.

Resting contact is static equilibrium: once the shards stop, every velocity is zero and stays zero
(the solver's impulses balance gravity exactly; split impulses remove overlap without adding
velocity). Checked in the game's set-up (bodies may sleep) and with every body kept awake (so
the heap's stillness is the contacts', not sleep's). Dry pool, CoupleWater removed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec


@pytest.mark.parametrize("sleep", [True, False], ids=["sleeping allowed", "always awake"])
def test_shards_of_a_shattered_bottle_come_to_rest_within_3_s(sleep):
    """All shard speeds (centre and rim, |v| + |w| r) under 1 mm/s within 3 s of the shatter, and
    they stay in a heap on the floor: none below it by more than 5 mm."""
    sim = Simulation(Level(seed=5, pool=PoolSpec(size=(2.0, 1.0), cell=0.05), water=WaterSpec(level=0.0),
                           physics=PhysicsSpec()))
    sim.remove_system("CoupleWater")
    if not sleep:
        sim.get_system("IntegrateBodies").sleep_after = math.inf
    bottle = sim.spawn_bottle((1.0, 0.2, 0.5), velocity=(0.0, -1.0, 0.0), fill=0.0)
    shards = sim.shatter(bottle)
    assert len(shards) > 5
    sim.step(round(3.0 / sim.dt))
    st = sim.body_store
    for e in shards:
        b = sim.body(e)
        speed = np.linalg.norm(b.velocity) + np.linalg.norm(b.angular_velocity) * st.radius[b.slot]
        assert speed < 1e-3, f"shard {e} still moves at {speed:.2e} m/s"
        assert b.mesh_world()[0][:, 1].min() > -5e-3
    xz = np.array([sim.body(e).position[[0, 2]] for e in shards])
    assert np.linalg.norm(xz - (1.0, 0.5), axis=1).max() < 0.5       # a heap, not scattered over the pool
