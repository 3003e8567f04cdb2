"""`bottles bench` section "bodies": 20 bottles and 500 shards tumbling in an empty pool.

Reports physics steps per wall second for the whole step and for IntegrateBodies alone (target:
>= 240 steps/s, twice real time at 120 Hz, on 2 cores), and the contact count.
"""
from __future__ import annotations

import time
from typing import Any

import esper
import numpy as np

from engine import bodies as bd
from engine.components import BodyRef, Shard
from engine.levels import Level
from engine.levels.schema import PoolSpec, WaterSpec
from engine.meshes import load_bottle_set


def build(bottles: int = 20, shards: int = 500, seed: int = 1, couple: bool = False):
    """A 2 x 1 m dry pool with bottles and loose fragments thrown in at random."""
    from engine.world import Simulation
    sim = Simulation(Level(seed=seed, pool=PoolSpec(size=(2.0, 1.0), cell=0.02), water=WaterSpec(level=0.0)))
    if couple is False:
        sim.remove_system("CoupleWater")   # an empty pool: nothing to couple
    rng = np.random.default_rng(seed)
    for _ in range(bottles):
        q = rng.normal(size=4)
        sim.spawn_bottle(rng.uniform((0.2, 0.2, 0.2), (1.8, 0.8, 0.8)), velocity=rng.normal(0, 1.0, 3),
                         angular_velocity=rng.normal(0, 3.0, 3), orientation=q / np.linalg.norm(q),
                         fill=float(rng.uniform(0, 1)))
    bs = load_bottle_set()
    phys = sim.level.physics
    parts = bd.fragment_properties(bs, phys.glass_density)
    st = sim.body_store
    with sim._context():
        for i in range(shards):
            piece = i % len(parts)
            mid = bd.fragment_model(st, bs, piece, phys.glass_density)
            q = rng.normal(size=4)
            s = st.spawn("shard", mid, parts[piece], rng.uniform((0.1, 0.05, 0.1), (1.9, 0.6, 0.9)),
                         rng.normal(0, 1.0, 3), rng.normal(0, 5.0, 3), q / np.linalg.norm(q),
                         restitution=phys.restitution, friction=phys.friction)
            esper.create_entity(BodyRef(s), Shard(-1, piece, 0.0))
    return sim


def run(quick: bool) -> dict[str, Any]:
    sim = build()
    sim.step(2)                                  # compile / load kernels
    warm = 30 if quick else 120
    sim.step(warm)                               # let the throw settle into tumbling
    steps = 60 if quick else 480
    integ = sim.get_system("IntegrateBodies")
    t_int = 0.0
    contacts = 0
    inner = integ.process

    def timed(dt: float) -> None:
        nonlocal t_int, contacts
        t0 = time.perf_counter()
        inner(dt)
        t_int += time.perf_counter() - t0
        contacts += integ.last_contacts

    integ.process = timed  # type: ignore[method-assign]
    t0 = time.perf_counter()
    sim.step(steps)
    wall = time.perf_counter() - t0
    integ.process = inner  # type: ignore[method-assign]
    st = sim.body_store
    n = st.n
    speed = np.linalg.norm(st.vel[:n][st.alive[:n]], axis=1)
    return {
        "bodies": int(st.alive[:n].sum()),
        "steps": steps,
        "steps_per_s": steps / wall,
        "integrate_steps_per_s": steps / t_int,
        "contacts_per_step": contacts / steps,
        "mean_speed_m_s": float(speed.mean()),
        "target_steps_per_s": 240,
    }


if __name__ == "__main__":
    print(run(quick=False))
