"""Bounces on the dry floor: apex heights e^(2n) h0, and a straight drop adds no spin.

A body dropped from rest with its lowest point h0 above the floor hits it at v = sqrt(2 g h0);
restitution e sends it back up at e v, to a height (e v)^2 / (2 g) = e^2 h0; after n bounces the
apex is e^(2n) h0 (Newton's law of restitution, no air drag: the pool is dry and CoupleWater is
removed). A vertical drop of a sphere, or of a box landing flat, is symmetric about the vertical
through its centre of mass: the floor's impulse passes through it, so no torque and no spin.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine import Simulation
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec

H0 = 1.0     # m, drop height of the lowest point


def _sim(e: float) -> Simulation:
    sim = Simulation(Level(seed=0, pool=PoolSpec(size=(2.0, 1.0), cell=0.05), water=WaterSpec(level=0.0),
                           physics=PhysicsSpec(restitution=e, friction=0.5, glass_strength=1e6)))
    sim.remove_system("CoupleWater")
    return sim


def _apexes(sim: Simulation, e: int, count: int) -> list[float]:
    """Highest sampled height of the body's lowest mesh point after each of its first `count`
    bounces (sampling each step: short of the true apex by at most g dt^2 / 8 = 0.09 mm)."""
    body = sim.body(e)
    out: list[float] = []
    rising = False
    best = 0.0
    for _ in range(int(10.0 / sim.dt)):
        sim.step(1)
        low = float(body.mesh_world()[0][:, 1].min())
        vy = float(body.velocity[1])
        if vy > 0.0:
            if not rising:
                rising, best = True, low
            best = max(best, low)
        elif rising:
            rising = False
            out.append(max(best, low))
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize("e", [0.5, 0.8, 0.95])
@pytest.mark.parametrize("shape", ["sphere", "box"])
def test_bounce_apexes_are_e_to_the_2n_times_the_drop_height(shape, e):
    """Apex n = e^(2n) h0 within 3% for n = 1, 2, 3; the drop stays vertical and spin-free."""
    sim = _sim(e)
    if shape == "sphere":
        b = sim.spawn_body("sphere", 500.0, (1.0, H0 + 0.1, 0.5), radius=0.1)
    else:   # dropped flat: its 0.1 m bottom face parallel to the floor
        b = sim.spawn_body("box", 500.0, (1.0, H0 + 0.05, 0.5), size=(0.2, 0.1, 0.2))
    apex = _apexes(sim, b, 3)
    assert len(apex) == 3
    for n, a in enumerate(apex, start=1):
        assert a == pytest.approx(e ** (2 * n) * H0, rel=0.03), f"bounce {n}"
    body = sim.body(b)
    assert np.abs(body.angular_velocity).max() < 1e-6          # rad/s: no spin
    assert abs(body.position[0] - 1.0) < 1e-6 and abs(body.position[2] - 0.5) < 1e-6
