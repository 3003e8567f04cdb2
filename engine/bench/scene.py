"""`bottles bench` section "scene": the whole default scene with water and bodies coupled.

A 4 x 4 m pool, 0.5 m deep, at 256 x 256 cells with 20 bottles floating in it and 300 shards
sinking and resting on its floor: physics steps per wall second (target >= 240 on 2 cores, twice
real time at 120 Hz) and milliseconds per system per step. A third row times a crowded pool
(build_crowd: 100 bottles, 600 shards, 30 props, after 10 s of play; the step should stay well
under 8 ms, real time at 120 Hz).
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec


def _pool_with_shards(cells, level, physics, shards, seed, lo, hi, dispersion=True):
    """A 4 x 4 m pool of `cells`^2 cells, water `level` deep, holding exactly `shards` fragments of
    bottles broken where they were spawned (uniform in the box lo..hi); (sim, its generator).
    dispersion: the water's surface-wave stage (`[water] dispersion`, on in every bundled level)."""
    from engine.world import Simulation
    size = 4.0
    sim = Simulation(Level(seed=seed, pool=PoolSpec(size=(size, size), cell=size / cells, wall_height=0.9),
                           water=WaterSpec(level=level, dispersion=dispersion), physics=physics))
    rng = np.random.default_rng(seed)
    while len(sim.bodies("shard")) < shards:
        sim.shatter(sim.spawn_bottle(rng.uniform(lo, hi)))
    for extra in sim.bodies("shard")[shards:]:
        sim.remove_body(extra)
    return sim, rng


def build(cells: int = 256, bottles: int = 20, shards: int = 300, seed: int = 3, dispersion: bool = True):
    """The scene: bottles dropped on the water and bottles broken into `shards` fragments."""
    sim, rng = _pool_with_shards(cells, 0.5, PhysicsSpec(max_shards=10 * shards, max_moving_shards=10 * shards),
                                 shards, seed,
                                 (0.4, 0.3, 0.4), (3.6, 0.45, 3.6), dispersion)
    for _ in range(bottles):
        a = rng.uniform(0, math.pi)
        sim.spawn_bottle(rng.uniform((0.3, 0.6, 0.3), (3.7, 0.8, 3.7)),
                         orientation=(math.cos(a / 2), 0.0, 0.0, math.sin(a / 2)),
                         fill=float(rng.choice([0.0, 0.0, 0.3])))
    return sim


def build_crowd(cells: int = 128, bottles: int = 100, shards: int = 600, props: int = 30, seed: int = 5):
    """A crowded pool (issue 23's load): 100 bottles (a third open), 600 shards, 30 props (crates,
    boxes and balls), in a 4 x 4 m pool at 128 x 128 cells."""
    # the caps must hold the whole crowd, or spawning retires bodies as it goes (engine/retire.py)
    physics = PhysicsSpec(max_shards=2 * shards, max_moving_shards=2 * shards, max_bottles=bottles, max_props=props)
    sim, rng = _pool_with_shards(cells, 0.4, physics, shards, seed, (0.3, 0.2, 0.3), (3.7, 0.35, 3.7))
    for j in range(bottles):
        a = rng.uniform(0, math.pi)
        sim.spawn_bottle(rng.uniform((0.3, 0.5, 0.3), (3.7, 0.8, 3.7)),
                         orientation=(math.cos(a / 2), 0.0, 0.0, math.sin(a / 2)),
                         fill=float(rng.choice([0.0, 0.0, 0.3])), sealed=bool(j % 3))
    for j in range(props):
        at = tuple(rng.uniform((0.3, 0.5, 0.3), (3.7, 0.9, 3.7)))
        kind = j % 3
        if kind == 0:
            sim.spawn_body("crate", density=600.0, position=at)
        elif kind == 1:
            sim.spawn_body("box", density=float(rng.choice([300.0, 900.0, 2400.0])), position=at, size=(0.25, 0.12, 0.18))
        else:
            sim.spawn_body("sphere", density=float(rng.choice([200.0, 700.0])), position=at, radius=0.08)
    return sim


def _per_system(sim, steps: int) -> tuple[float, dict[str, float]]:
    """Wall seconds of `steps` steps and each system's ms per step (the simulation's own timings)."""
    sim.timings = {}
    t0 = time.perf_counter()
    sim.step(steps)
    wall = time.perf_counter() - t0
    acc, sim.timings = sim.timings, None
    return wall, {k: 1e3 * v / steps for k, v in acc.items()}


def _two_phases(dispersion: bool, steps: int) -> tuple[Any, float, dict, float, dict]:
    """The scene's first second and a second after 4 s: (sim, wall and systems of each)."""
    sim = build(dispersion=dispersion)
    sim.step(2)                                   # compile outside the timing
    wall_1, systems_1 = _per_system(sim, steps)
    sim.step(int(4.0 / sim.dt))
    wall_2, systems_2 = _per_system(sim, steps)
    return sim, wall_1, systems_1, wall_2, systems_2


def _row(phase: str, steps: int, wall: float, systems: dict[str, float], **extra: Any) -> dict[str, Any]:
    return {"phase": phase, "steps_per_second": round(steps / wall, 1), "ms_per_step": round(1e3 * wall / steps, 3),
            **{k: round(v, 3) for k, v in systems.items()}, **extra}


def run(quick: bool) -> dict[str, Any]:
    """Time the first second (everything falling, splashing, sinking) and a later second (bottles
    floating, shards resting on the floor, most of them asleep); the same two without the water's
    surface-wave stage (the bodies, the coupling and the shallow-water step alone); a crowd."""
    steps = 60 if quick else 120
    sim, wall_1, systems_1, wall_2, systems_2 = _two_phases(True, steps)
    integ = sim.get_system("IntegrateBodies")
    bare, wall_b1, systems_b1, wall_b2, systems_b2 = _two_phases(False, steps)
    crowd = build_crowd()
    crowd.step(int((1.0 if quick else 10.0) / crowd.dt))
    wall_3, systems_3 = _per_system(crowd, steps)
    return {
        "water_cells": int(sim.water.h.size),
        "bottles": len(sim.bodies("bottle")),
        "shards": len(sim.bodies("shard")),
        "target_steps_per_second": 240,
        "rows": [
            _row("first second", steps, wall_1, systems_1),
            _row("after 4 s", steps, wall_2, systems_2, asleep=int(integ.sleeping)),
            _row("first second, no surface-wave stage", steps, wall_b1, systems_b1),
            _row("after 4 s, no surface-wave stage", steps, wall_b2, systems_b2,
                 asleep=int(bare.get_system("IntegrateBodies").sleeping)),
            _row("crowd, 128^2, 100 bottles, 600 shards, 30 props, after 10 s", steps, wall_3, systems_3,
                 asleep=int(crowd.get_system("IntegrateBodies").sleeping)),
        ],
    }
