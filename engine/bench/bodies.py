"""`bottles bench` section "bodies": 20 bottles and 500 shards tumbling in an empty pool.

Reports physics steps per wall (and CPU) second for the whole step and for IntegrateBodies alone
(target: >= 240 steps/s, twice real time at 120 Hz, on 2 cores), the contact count and how many
bodies sleep. CoupleWater is left out: the pool is empty.
"""
from __future__ import annotations

import time
from typing import Any

import esper
import numpy as np

from engine import bodies as bd
from engine.components import BodyRef, Shard
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec
from engine.meshes import load_bottle_set


def build(bottles: int = 20, shards: int = 500, seed: int = 1, couple: bool = False):
    """A 2 x 1 m dry pool with bottles and loose fragments thrown in at random."""
    from engine.world import Simulation
    # unbreakable bottles: the scene stays 20 bottles + 500 shards (shattering is timed elsewhere)
    sim = Simulation(Level(seed=seed, pool=PoolSpec(size=(2.0, 1.0), cell=0.02), water=WaterSpec(level=0.0),
                           physics=PhysicsSpec(glass_strength=1e6, max_moving_shards=100000)))
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


def _timed(sim, steps: int) -> dict[str, float]:
    """Run `steps` steps; wall and CPU rates for the whole step and for IntegrateBodies alone."""
    integ = sim.get_system("IntegrateBodies")
    inner = integ.process
    acc = {"t": 0.0, "cpu": 0.0, "contacts": 0, "sleeping": 0}

    def timed(dt: float) -> None:
        t0, c0 = time.perf_counter(), time.process_time()
        inner(dt)
        acc["t"] += time.perf_counter() - t0
        acc["cpu"] += time.process_time() - c0
        acc["contacts"] += integ.last_contacts
        acc["sleeping"] += integ.sleeping

    integ.process = timed
    t0, c0 = time.perf_counter(), time.process_time()
    sim.step(steps)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    integ.process = inner
    return {"steps_per_s": steps / wall, "steps_per_cpu_s": steps / cpu,
            "bodies_steps_per_s": steps / acc["t"], "bodies_steps_per_cpu_s": steps / acc["cpu"],
            "contacts_per_step": acc["contacts"] / steps, "sleeping": acc["sleeping"] / steps}


def run(quick: bool) -> dict[str, Any]:
    """20 bottles and 500 shards thrown into a dry 2 x 1 m pool: timed while they tumble and fall
    (the first 2 s) and once they have settled (the next 2 s). CPU rates are given beside wall
    rates because the machines these run on are shared."""
    sim = build()
    sim.step(2)                                  # compile / load kernels
    steps = 60 if quick else 240
    rows = []
    for phase in ("tumbling", "settled"):
        r = _timed(sim, steps)
        rows.append({"phase": phase, **r})
    st = sim.body_store
    n = st.n
    return {
        "rows": rows,
        "bodies": int(st.alive[:n].sum()),
        "steps_per_s": rows[0]["steps_per_s"],
        "target_steps_per_s": 240,
    }


if __name__ == "__main__":
    print(run(quick=False))
