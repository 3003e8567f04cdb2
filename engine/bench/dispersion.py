"""`bottles bench` dispersion section: the whole water step with and without dispersive surface waves.

Scene: a 4 m x 4 m pool, 0.5 m deep, reflective walls, a 5 cm mound released at t = 0 (rows "flat"),
and the same pool with a beach rising across the last third of it (rows "beach": the bed varies, so
the surface waves are stepped at up to MAX_LEVELS depths); dt = 1/120 s. For each grid a row gives
wall ms per water step, median and best of several batches (the machines are shared), without the
stage (`[water] dispersion = false`, the shallow-water step alone) and with it (split,
shallow-water step, merge), and their ratio; vorticity confinement is off in both and timed on its own
(`confine_ms`). The issue's floor: at 256^2 the step with dispersion costs at most 2x the step without.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from engine.levels.features import TerrainSpec
from engine.levels.schema import BumpSpec, Level, PoolSpec, WaterSpec
from engine.world import Simulation

DT = 1.0 / 120.0
WATER_SYSTEMS = ("StepFluid",)   # the water step: confinement (off here), split, shallow-water step, merge


def _level(n: int, beach: bool, dispersion: bool, vorticity: float = 0.0) -> Level:
    size = 4.0
    terrain = (TerrainSpec(kind="slope", axis="x", span=(size * 2 / 3, size), heights=(0.0, 0.7)) if beach
               else TerrainSpec())
    water = WaterSpec(level=0.5, damping=0.0, dispersion=dispersion, vorticity=vorticity,
                      bumps=(BumpSpec(center=(size / 3, size / 2), radius=0.3, height=0.05),))
    return Level(pool=PoolSpec(size=(size, size), cell=size / n, wall_height=2.0), water=water,
                 terrain=terrain, dt=DT)


def _time_water(sim: Simulation, steps: int, batches: int) -> tuple[float, float]:
    """Median and best ms per step of the water systems alone, in batches of `steps` steps."""
    systems = [sim.get_system(name) for name in WATER_SYSTEMS]
    times = []
    with sim._context():   # the systems find the grid in the simulation's esper world
        for _ in range(batches):
            t0 = time.perf_counter()
            for _ in range(steps):
                for s in systems:
                    s.process(DT)
            times.append((time.perf_counter() - t0) / steps * 1e3)
    return float(np.median(times)), float(min(times))


def _time_confine(sim: Simulation, steps: int) -> float:
    from engine.water.vortices import Confinement
    confine = Confinement(sim.water.shape, 1.0)
    t0 = time.perf_counter()
    for _ in range(steps):
        confine(sim.water)
    return (time.perf_counter() - t0) / steps * 1e3


def run(quick: bool) -> dict[str, Any]:
    sizes = (128, 256) if quick else (128, 256, 512)
    steps, batches = (10, 3) if quick else (20, 7)
    rows = []
    for n in sizes:
        for beach in (False, True):
            got = {}
            for disp in (False, True):
                sim = Simulation(_level(n, beach, disp))
                sim.step(5)   # compile or load the kernels, let the mound start moving
                got[disp] = _time_water(sim, steps, batches)
                sim.close()
            sim = Simulation(_level(n, beach, True, vorticity=1.0))
            sim.step(2)
            confine = _time_confine(sim, steps)
            levels = _levels(sim)
            sim.close()
            rows.append({"grid": f"{n}^2", "scene": "beach" if beach else "flat",
                         "sw_ms": got[False][0], "sw_best_ms": got[False][1],
                         "dispersive_ms": got[True][0], "dispersive_best_ms": got[True][1],
                         "ratio": got[True][0] / got[False][0], "depth_levels": levels,
                         "confine_ms": confine})
    r256 = [r for r in rows if r["grid"] == "256^2" and r["scene"] == "flat"]
    out: dict[str, Any] = {"rows": rows}
    if r256:
        out["floor_256_flat"] = f"ratio {r256[0]['ratio']:.2f} (floor: at most 2)"
    return out


def _levels(sim: Simulation) -> int:
    """How many depth levels the surface-wave stage took at its last split."""
    stages = sim.get_system("StepFluid").stages
    surface = next(iter(stages.values())).surface if stages else None
    return len(surface.levels) if surface is not None else 0
