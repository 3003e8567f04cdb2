"""A short soak of scripted random play (the `bottles bench` session, shortened): bodies stay within
the level's caps, the water total stays exact, memory stays flat. No timing here (that is the bench)."""
from __future__ import annotations

import numba
import numpy as np
import pytest

from engine.bench.session import play
from engine.levels import parse_level
from engine.retire import counts
from engine.systems.shatter import FADE_SECONDS
from engine.world import Simulation

LEVEL = """seed = 4
dt = 0.016666666666666666
[pool]
size = [2.0, 1.5]
cell = 0.05
wall_height = 0.8
[water]
level = 0.3
[physics]
max_bottles = 4
max_props = 3
max_shards = 24
"""


@pytest.fixture
def one_thread():
    """One numba thread: the state does not depend on the thread count (bit for bit), and on a busy
    shared host a small pool's parallel sweeps wait milliseconds for a worker each."""
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


@pytest.mark.parametrize("seed", [2, 4, 5, 7])
def test_a_short_session_keeps_caps_exact_water_and_flat_memory(one_thread, seed):
    """20 simulated seconds of throws of every kind, pokes, rain and shatters (four seeds: seed 5
    once made 2.6e-5 m^3 of water where a hull walled off a small basin of the surface-wave stage,
    tests/physics/test_dispersion_basins.py).

    Water: total_water() - source_volume - (water spawned inside full bottles) is constant, since
    every other transfer (pouring, filling, shattering, retiring, landing parcels) moves water
    between the pool, the bottles and the air: |drift| <= 1e-9 m^3 (float64 sums of ~1e4 terms of
    ~1e-4 m^3). Memory: resident size grows by less than 40 MiB between 10 s and the end (a leak
    of one body's arrays per throw would grow without bound; caches reach their size early).
    """
    sim = Simulation(parse_level(LEVEL))
    seen = []
    # sampled every step: the counts (caps reached and held) and the water total at each one
    log = play(sim, 20.0, seed=seed, every=sim.dt, on_sample=lambda p: seen.append(counts(sim)))
    phys = sim.level.physics
    assert sum(log.throws.values()) >= 20 and log.shatters >= 4 and log.pokes >= 10 and log.rain >= 1
    assert {"full bottle", "open bottle", "empty bottle", "box", "ball"} <= set(log.throws)
    assert log.most["bottle"] <= phys.max_bottles and log.most["prop"] <= phys.max_props
    # Shatter's one shard cap (issue 22): past max_shards the oldest shards fade out over
    # FADE_SECONDS and are then removed, so the shards not fading never exceed the cap, and no
    # shard fades for longer than FADE_SECONDS (plus the step that removes it)
    assert log.most["kept shard"] <= phys.max_shards
    assert log.longest_fade <= FADE_SECONDS + sim.dt
    assert log.most["shard"] > phys.max_shards     # the cap was reached (shards did fade)
    assert max(c["bottle"] for c in seen) >= phys.max_bottles - 1   # the session came near the cap
    # ... and the cap holds once reached: cap + 2 more bottles spawned over the water leave exactly
    # the cap (whether the random play itself peaks at the cap on a sample is luck of the trajectory)
    for j in range(phys.max_bottles + 2):
        sim.spawn_bottle((0.3 + 0.25 * j, 0.6, 0.75))
    assert counts(sim)["bottle"] == phys.max_bottles
    water = np.array([w for _, w in log.water])
    assert np.abs(water - water[0]).max() <= 1e-9
    mid = next(b for t, b in log.rss if t >= 10.0)
    assert log.rss[-1][1] - mid < 40 * 2**20
    st = sim.body_store
    assert np.isfinite(st.pos[: st.n][st.alive[: st.n]]).all()
    sim.close()


# Unbreakable glass for the retiring test: it is about which body retires, and half-full bottles
# dropped into 0.3 m of water reach the floor at about 1.3 m/s under the physical drag law (issue
# 24), an impulse of 1.42 N s against the default strength of 1.4 (issue 22's breaking is tested
# in tests/physics/test_glass_strength.py).
TOUGH = LEVEL + "glass_strength = 1000.0\n"


def test_retiring_takes_the_oldest_settled_body_first_and_keeps_the_water():
    sim = Simulation(parse_level(TOUGH))
    first = [sim.spawn_bottle((0.3 + 0.4 * i, 0.5, 0.7), fill=0.5, sealed=True) for i in range(4)]
    sim.step(120)                                      # they settle (sleep) in the water
    ib = sim.get_system("IntegrateBodies")
    asleep = [e for e in first if sim.body_store.sleep[sim.body(e).slot] >= ib.sleep_after]
    before = sim.total_water() - sim.water.source_volume
    new = sim.spawn_bottle((1.0, 0.7, 0.7), fill=1.0)
    held_new = sim.body(new).held_water
    gone = sorted(set(first) - set(sim.bodies("bottle")))
    assert len(sim.bodies("bottle")) == 4 and new in sim.bodies("bottle")
    assert gone == [min(asleep)] if asleep else gone == [first[0]]
    after = sim.total_water() - sim.water.source_volume
    assert abs(after - before - held_new) < 1e-12          # the retired bottle's water went to the pool
    sim.close()
