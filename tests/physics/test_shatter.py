"""Shattering: the threshold, exact bookkeeping (mass, momentum, water) and determinism."""
from __future__ import annotations

import numpy as np
import pytest

from engine import Simulation, events
from engine.bodies import glass_properties
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec
from engine.kernels.rigid import quat_to_matrix
from engine.meshes import load_bottle_set
from engine.systems import System


class Watch(System):
    """Record one body's state just before Shatter runs (what the fragments must inherit)."""

    def __init__(self, entity: int) -> None:
        self.entity = entity
        self.state: dict[str, np.ndarray | float] = {}

    def process(self, dt: float) -> None:
        try:
            b = self.sim.body(self.entity)
        except KeyError:
            return
        self.state = dict(pos=b.position.copy(), vel=b.velocity.copy(), w=b.angular_velocity.copy(),
                          quat=b.orientation.copy(), mass=b.mass, offset=b.model.offset.copy())


def _sim(water_level: float = 0.0, seed: int = 5, **phys) -> Simulation:
    sim = Simulation(Level(seed=seed, pool=PoolSpec(size=(2.0, 1.0), cell=0.05), water=WaterSpec(level=water_level),
                           physics=PhysicsSpec(**phys)))
    sim.remove_system("CoupleWater")      # water displacement by bodies is issue 5's; here: release only
    return sim


def _throw(sim: Simulation, speed: float, fill: float = 0.5, y: float = 0.4) -> int:
    return sim.spawn_bottle((2.0 - 0.3, y, 0.5), velocity=(speed, 1.0, 0.0), angular_velocity=(0.0, 0.0, 4.0),
                            orientation=(0.7071, 0.0, 0.0, 0.7071), fill=fill)


def test_a_hard_throw_at_the_wall_shatters_the_bottle():
    sim = _sim()
    e = _throw(sim, 12.0)
    got: list[events.Shattered] = []
    sim.on(events.Shattered, got.append)
    sim.step(30)
    assert len(got) == 1
    s = got[0]
    assert s.entity == e and s.impulse > sim.level.physics.glass_strength
    assert e not in sim.bodies()
    assert sorted(s.shards) == sim.bodies("shard")
    assert len(s.shards) == len(load_bottle_set().fragments)
    with pytest.raises(KeyError):
        sim.body(e)


def test_a_gentle_drop_bounces_and_stays_whole():
    sim = _sim()
    e = sim.spawn_bottle((1.0, 0.2, 0.5), orientation=(0.7071, 0.0, 0.0, 0.7071))   # ~15 cm drop, on its side
    hits: list[events.Impact] = []
    sim.on(events.Impact, hits.append)
    sim.step(120)
    assert hits and max(h.impulse for h in hits) < sim.level.physics.glass_strength
    assert sim.bodies("bottle") == [e] and sim.bodies("shard") == []


def test_shatter_keeps_mass_and_momentum_and_releases_water_below_the_surface():
    sim = _sim(water_level=0.3)
    e = _throw(sim, 10.0, fill=0.6, y=0.1)           # under water (no coupling here: it flies as in air)
    watch = sim.add_system(Watch(e), before="Shatter")
    got: list[events.Shattered] = []
    sim.on(events.Shattered, got.append)
    total0 = sim.total_water()
    held = sim.body(e).held_water
    pool0 = sim.water.volume()
    while not got:
        sim.step(1)
        assert sim.total_water() == pytest.approx(total0, rel=1e-12, abs=1e-15)
    st = watch.state
    shards = [sim.body(s) for s in got[0].shards]
    glass = glass_properties(load_bottle_set(), sim.level.physics.glass_density)
    # mass: the fragments are exactly the glass
    assert sum(b.mass for b in shards) == pytest.approx(glass.mass, rel=1e-12)
    # momentum: the glass's share of the bottle's momentum, m_g (v + w x (c_g - c))
    r_g = quat_to_matrix(st["quat"]) @ (glass.com - st["offset"])
    p_glass = glass.mass * (st["vel"] + np.cross(st["w"], r_g))
    p_frag = sum(b.mass * b.velocity for b in shards)
    assert np.linalg.norm(p_frag - p_glass) < 0.01 * np.linalg.norm(p_glass)
    # water: all of it went into the pool at once (the break was under the surface)
    assert got[0].released_volume == pytest.approx(held, rel=1e-12)
    assert sim.water_in_flight == 0.0
    assert sim.water.volume() - pool0 == pytest.approx(held, rel=1e-9)
    assert sim.total_water() == pytest.approx(total0, rel=1e-12)


def test_water_released_above_the_pool_falls_then_lands():
    sim = _sim(water_level=0.05)
    e = _throw(sim, 12.0, fill=0.5, y=0.5)
    total0 = sim.total_water()
    held = sim.body(e).held_water
    got: list[events.Shattered] = []
    sim.on(events.Shattered, got.append)
    while not got:
        sim.step(1)
    assert sim.water_in_flight == pytest.approx(held, rel=1e-12)
    assert sim.total_water() == pytest.approx(total0, rel=1e-12)
    for _ in range(120):
        sim.step(1)
        assert sim.total_water() == pytest.approx(total0, rel=1e-12)
    assert sim.water_in_flight == 0.0


def test_same_seed_same_fragments_and_paths_bitwise():
    def run(seed: int) -> tuple[str, np.ndarray]:
        sim = _sim(seed=seed)
        _throw(sim, 12.0, fill=0.3)
        sim.spawn_bottle((0.5, 0.3, 0.5), velocity=(-3.0, 0.0, 0.2))
        sim.step(90)
        vel = np.array([sim.body(s).velocity for s in sim.bodies("shard")])
        return sim.fingerprint(), vel

    a, va = run(11)
    b, vb = run(11)
    c, vc = run(12)
    assert a == b and np.array_equal(va, vb)
    assert a != c and not np.array_equal(va, vc)      # the seeded spread differs


def test_oldest_shards_go_past_max_shards():
    """Past max_shards the oldest shards fade for FADE_SECONDS, then exactly max_shards remain."""
    from engine.systems.shatter import FADE_SECONDS
    sim = _sim(max_shards=30)
    _throw(sim, 12.0)
    sim.step(20)
    sim.spawn_bottle((0.3, 0.3, 0.5), velocity=(-12.0, 0.0, 0.0), orientation=(0.7071, 0.0, 0.0, 0.7071))
    sim.step(20)
    assert len(sim.bodies("bottle")) == 0
    assert len(sim.bodies("shard")) > 30                       # the oldest are fading, still there
    sim.step(int(np.ceil(FADE_SECONDS / sim.dt)) + 1)
    assert len(sim.bodies("shard")) == 30
