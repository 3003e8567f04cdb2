"""The moving-shard budget (Shatter, PhysicsSpec.max_moving_shards): shards older than SETTLE_GRACE
that are still awake past the budget fade out oldest first, then are removed; shards at rest
(asleep) are never taken by it. A shard's cost is its contacts and coupling while awake, so the
budget bounds the step's cost: the awake shards older than the grace settle at <= the budget."""
from __future__ import annotations

import math


from engine import Simulation
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec
from engine.systems.shatter import FADE_SECONDS, MOVING_CHECK, SETTLE_GRACE


def _sim(**phys) -> Simulation:
    return Simulation(Level(seed=3, pool=PoolSpec(size=(2.0, 1.0), cell=0.05), water=WaterSpec(level=0.0),
                            physics=PhysicsSpec(**phys)))


def _break_two(sim: Simulation) -> tuple[tuple[int, ...], tuple[int, ...]]:
    first = sim.shatter(sim.spawn_bottle((0.6, 0.2, 0.5)))
    sim.step(int(round(1.0 / sim.dt)))
    second = sim.shatter(sim.spawn_bottle((1.4, 0.2, 0.5)))
    return first, second


def test_awake_shards_past_the_budget_fade_oldest_first_and_go():
    """All awake (sleep_after = inf): after the grace the oldest past the budget fade, and once their
    fade ends exactly `budget` old shards remain, the newest of the first bottle's and the second's."""
    budget = 5
    sim = _sim(max_moving_shards=budget, max_shards=10_000)
    sim.body_store.sleep_after = math.inf
    first, second = _break_two(sim)
    assert len(first) > budget
    born_first = sim.time - 1.0
    # until the first bottle's shards are SETTLE_GRACE old nothing fades
    sim.step(int((born_first + SETTLE_GRACE - sim.time) / sim.dt) - 1)
    assert len(sim.bodies("shard")) == len(first) + len(second)
    assert sim.get_system("Shatter").fading == {}
    # then, within one check, the oldest len(first) - budget start fading, and go after FADE_SECONDS
    sim.step(MOVING_CHECK + 2)
    assert sorted(sim.get_system("Shatter").fading) == sorted(first)[:len(first) - budget]
    sim.step(int(math.ceil(FADE_SECONDS / sim.dt)) + MOVING_CHECK)
    left = sim.bodies("shard")
    assert sorted(left) == sorted(first)[len(first) - budget:] + sorted(second)
    # the second bottle's shards come of age one second later: the budget holds for all old shards
    sim.step(int(math.ceil((1.0 + FADE_SECONDS) / sim.dt)) + 2 * MOVING_CHECK)
    assert sorted(sim.bodies("shard")) == sorted(second)[len(second) - budget:]


def test_shards_at_rest_are_never_taken_by_the_budget():
    """Budget 0 on a dry floor: every shard still there after the grace and the fades is asleep, and
    some are left (the budget took only moving ones)."""
    sim = _sim(max_moving_shards=0, max_shards=10_000)
    first, second = _break_two(sim)
    st = sim.body_store
    sim.step(int((SETTLE_GRACE - 1.0) / sim.dt) - MOVING_CHECK)
    resting = [e for e in first + second if st.sleep[sim.body(e).slot] >= st.sleep_after]
    assert resting                                  # most glass settles within a second on a dry floor
    sim.step(int(math.ceil((2.0 + FADE_SECONDS + 1.0) / sim.dt)))
    left = sim.bodies("shard")
    assert left                                     # those at rest stayed ...
    assert all(st.sleep[sim.body(e).slot] >= st.sleep_after for e in left)
