"""`bottles bench` dispersion section: the whole water step with and without dispersive surface waves.

Scene: a 4 m x 4 m pool, 0.5 m deep, reflective walls, a 5 cm mound released at t = 0 (rows "flat"),
and the same pool with a beach rising across the last third of it (rows "beach": the bed varies, so
the surface waves are stepped at up to MAX_LEVELS depths); dt = 1/120 s. For each grid a row gives
wall ms per water step, median and best of several batches (the machines are shared), without the
stage (`[water] dispersion = false`, the shallow-water step alone) and with it (split,
shallow-water step, merge), their ratio, and `stage_ms`, the stage's own cost (the medians'
difference: a figure that does not move with the shallow-water step's own speed); vorticity
confinement is off in both and timed on its own (`confine_ms`); `cpu_ratio` is the same ratio in
this process's CPU time (best batches), which a shared host's load inflates less. The issue's floor: at 256^2 the step with dispersion costs at most
2x the step without. `levels`: every bundled level idle (a whole simulation step, after a second of
play), steps per wall and per CPU second with and without the stage, and the stage's wall ms per step
(`stage_ms`, from the best batches).
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from engine.levels.features import TerrainSpec
from engine.levels.schema import BumpSpec, Level, PoolSpec, WaterSpec
from engine.systems.step_fluid import StepFluid
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


def _time_water(sim: Simulation, steps: int, batches: int) -> tuple[float, float, float]:
    """Median and best wall ms per step of the water systems alone, in batches of `steps` steps, and
    the best CPU ms of this process per step (on a shared host a batch's wall time includes waiting
    for a core; the CPU time does not)."""
    systems = [sim.get_system(name) for name in WATER_SYSTEMS]
    times, cpu = [], []
    with sim._context():   # the systems find the grid in the simulation's esper world
        for _ in range(batches):
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(steps):
                for s in systems:
                    s.process(DT)
            times.append((time.perf_counter() - t0) / steps * 1e3)
            cpu.append((time.process_time() - c0) / steps * 1e3)
    return float(np.median(times)), float(min(times)), float(min(cpu))


def _time_level(level: Level, steps: int, batches: int) -> tuple[float, float]:
    """Best steps per wall second and per CPU second of a whole simulation step of `level`, idle (no
    input), after a second of play."""
    sim = Simulation(level)
    sim.step(120)
    wall, cpu = [], []
    for _ in range(batches):
        t0, c0 = time.perf_counter(), time.process_time()
        sim.step(steps)
        wall.append(steps / (time.perf_counter() - t0))
        cpu.append(steps / max(time.process_time() - c0, 1e-9))
    sim.close()
    return max(wall), max(cpu)


def level_rows(quick: bool) -> list[dict[str, Any]]:
    """Each bundled level idle, steps per second with and without the surface-wave stage."""
    from engine.levels import load_level
    from engine.paths import LEVELS
    steps, batches = (20, 3) if quick else (40, 5)
    rows = []
    for path in sorted(LEVELS.glob("*.toml")):
        level = load_level(path)
        got = {disp: _time_level(dataclasses.replace(level, water=dataclasses.replace(level.water, dispersion=disp)),
                                 steps, batches) for disp in (False, True)}
        rows.append({"level": path.stem, "cells": "x".join(map(str, level.pool.shape)),
                     "steps_per_s_without": round(got[False][0]), "steps_per_s_with": round(got[True][0]),
                     "cpu_steps_per_s_without": round(got[False][1]), "cpu_steps_per_s_with": round(got[True][1]),
                     "stage_ms": 1e3 / got[True][0] - 1e3 / got[False][0],
                     "cpu_ratio": got[False][1] / got[True][1]})
    return rows


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
                         "stage_ms": got[True][0] - got[False][0],
                         "ratio": got[True][0] / got[False][0], "cpu_ratio": got[True][2] / got[False][2],
                         "depth_levels": levels,
                         "confine_ms": confine})
    r256 = [r for r in rows if r["grid"] == "256^2" and r["scene"] == "flat"]
    out: dict[str, Any] = {"rows": rows}
    if r256:
        out["floor_256_flat"] = (f"ratio {r256[0]['ratio']:.2f} wall, {r256[0]['cpu_ratio']:.2f} CPU, "
                                 f"stage {r256[0]['stage_ms']:.2f} ms (floor: ratio at most 2)")
    rows.extend(level_rows(quick))
    return out


def _levels(sim: Simulation) -> int:
    """How many depth levels the surface-wave stage took at its last split."""
    step = sim.get_system("StepFluid")
    assert isinstance(step, StepFluid), "the bench scenes run the engine's own StepFluid"
    stages = step.stages
    surface = next(iter(stages.values())).surface if stages else None
    return len(surface.levels) if surface is not None else 0
