"""A heavy body striking light ones lying on the floor: no energy is made, and a resting shard moves.

Work-energy theorem: contacts with restitution e <= 1 and Coulomb friction only take kinetic
energy away, and gravity is conservative, so the total mechanical energy of all bodies,
    E = sum (m |v|^2 / 2 + w . I_w w / 2 + m g y),   y the centre of mass's height,
never rises above its value before the strike (up to the split-impulse push-out, which may lift
a body out of an overlap: a few mm, m g x 5 mm = 0.1 J for the ball below). A stone ball (2600
kg/m^3, 6 cm, 2.35 kg) thrown onto a heap of glass shards (15-25 g each) squeezes them against
the floor: the mass ratio of about 100 is what sequential impulses converge on slowest.

A shard at rest on the floor is asleep. Momentum: a ball of mass M striking a free body of mass m
at speed v keeps at least v (1 - (1 + e) m / (M + m)) of its speed; for a 20 g shard and this
ball that is over 98% of it. The floor's friction under the shard changes that by at most
mu m g dt per step. Dry pool, CoupleWater removed.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec

G = 9.81
BALL = dict(model="sphere", density=2600.0, radius=0.06)


def _shards_at_rest(seed: int) -> tuple[Simulation, list[int]]:
    """A bottle shattered on the dry floor, its shards at rest (asleep) after 2 s."""
    sim = Simulation(Level(seed=seed, pool=PoolSpec(size=(2.0, 1.0), cell=0.05), water=WaterSpec(level=0.0),
                           physics=PhysicsSpec()))
    sim.remove_system("CoupleWater")
    bottle = sim.spawn_bottle((1.0, 0.2, 0.5), velocity=(0.0, -1.0, 0.0), fill=0.0)
    shards = list(sim.shatter(bottle))
    sim.step(round(2.0 / sim.dt))
    return sim, shards


def _energy(sim: Simulation) -> float:
    total = 0.0
    for e in sim.bodies():
        b = sim.body(e)
        v, w = b.velocity, b.angular_velocity
        total += 0.5 * b.mass * float(v @ v) + 0.5 * float(w @ b.inertia_world @ w) + b.mass * G * float(b.position[1])
    return total


@pytest.mark.parametrize("seed", [5, 11])
@pytest.mark.parametrize("angle", [90.0, 60.0, 45.0, 30.0])
@pytest.mark.parametrize("offset", [0.0, 0.02, 0.04])
@pytest.mark.parametrize("speed", [6.0, 10.0, 14.0])
def test_a_ball_thrown_onto_a_heap_of_shards_makes_no_energy(seed, angle, offset, speed):
    """E(t) <= E(0) + 0.15 J at every step of the half second after the throw, and no shard
    leaves faster than sqrt(2 E(0) / m), all of the energy there is."""
    sim, shards = _shards_at_rest(seed)
    target = max(shards, key=lambda e: sim.body(e).mass)
    a = math.radians(angle)
    d = np.array([math.cos(a), -math.sin(a), 0.0])
    start = sim.body(target).position + (offset, 0.0, 0.0) - 0.25 * d
    sim.spawn_body(**BALL, position=tuple(start), velocity=tuple(speed * d))
    e0 = _energy(sim)
    light = min(sim.body(e).mass for e in shards)
    worst, fastest = -math.inf, 0.0
    for _ in range(round(0.5 / sim.dt)):
        sim.step()
        worst = max(worst, _energy(sim) - e0)
        fastest = max(fastest, max(float(np.linalg.norm(sim.body(e).velocity)) for e in shards))
    assert worst <= 0.15, f"the bodies gained {worst:.2f} J of {e0:.1f} J"
    assert fastest <= math.sqrt(2.0 * e0 / light), f"a shard left at {fastest:.0f} m/s"


@pytest.mark.parametrize("speed", [1.5, 3.0])
@pytest.mark.parametrize("density", [2600.0, 7800.0])
def test_a_ball_rolling_into_a_sleeping_shard_knocks_it_aside(speed, density):
    """The ball keeps its way (at least 90% of its speed, along +x) and the shard moves off: it is
    not an immovable wall for the strike because it slept."""
    sim, shards = _shards_at_rest(5)
    target = max(shards, key=lambda e: sim.body(e).mass)
    for e in shards:
        if e != target:
            sim.remove_body(e)
    sim.step(round(1.5 / sim.dt))
    st = sim.body_store
    shard = sim.body(target)
    assert st.sleep[shard.slot] >= st.sleep_after, "the lone shard should be asleep"
    p = shard.position.copy()
    r = 0.06
    # rolling without slipping along +x, its centre in line with the shard's, 0.2 m before it
    ball = sim.spawn_body(**{**BALL, "density": density}, position=(p[0] - 0.2, r + 1e-4, p[2]),
                          velocity=(speed, 0.0, 0.0), angular_velocity=(0.0, 0.0, -speed / r))
    before = sim.body(ball).velocity[0]
    sim.step(round(0.25 / sim.dt))
    after = sim.body(ball).velocity[0]
    assert after >= 0.9 * before, f"the ball went from {before:.2f} to {after:.2f} m/s along x"
    assert np.linalg.norm(shard.position - p) > 0.01, "the shard did not move"
