"""`bottles bench` water section: the water step against real time and against the seed's scheme.

Scene: a 4 m x 4 m pool, 0.5 m deep, reflective walls, with a 5 cm mound released at t = 0 so the
flow is not trivial; fixed step dt = 1/120 s. For each size the table gives wall ms per step of
`engine.water` as a grid steps it (the schedule's choice: the plain traversal on one thread below
`PARALLEL_MIN_CELLS`; above, whichever of the fast traversal on all threads and the plain one it
timed faster), of the plain traversal on one thread, and
of the reference column, the seed's scheme done plainly in numba (`seed_scheme`), each on a copy of
the same state and in the same run; `speedup_vs_seed` is the seed's ms over the grid's. A 512^2
"shore" row tilts the bed so a third of the pool is dry beach. The `level` row times the largest
shipped level's size, 128 x 96 (the calm pool). Rows give medians and bests of several batches (the
machines are shared and jitter) and `host_steal_pct`, the share of CPU time the hypervisor gave to
other guests while the row was timed (Linux).
"""
from __future__ import annotations

import functools

import os
import time
from typing import Any, Callable

import numba
import numpy as np

from engine.bench import seed_scheme
from engine.levels.schema import BumpSpec, Level, PoolSpec, WaterSpec
from engine.water import WaterGrid, plain, records, schedule
from engine.water.params import CFL

DT = 1.0 / 120.0
SIZES = (128, 256, 512, 1024)
QUICK_SIZES = (128, 256, 512)
TARGETS = {"512x512": 2.0}                   # the grid's step at least this many times faster than the seed's
LEVEL_TARGET_MS = 0.5                       # a 128 x 96 level step


def pool(n: int, m: int | None = None) -> WaterGrid:
    """The benchmark pool at n x m cells (m = n: square)."""
    m = n if m is None else m
    level = Level(pool=PoolSpec(size=(4.0, 4.0 * m / n), cell=4.0 / n, wall_height=1.0),
                  water=WaterSpec(level=0.5, bumps=(BumpSpec(center=(1.3, 1.7 * m / n), radius=0.4, height=0.05),),
                                  viscosity=0.0, manning=0.0, eddy_viscosity=0.0))
    return WaterGrid.from_level(level)


def shore(n: int) -> WaterGrid:
    """The benchmark pool with its bed rising from 0 to 0.75 m along x: the last third is dry beach."""
    grid = pool(n)
    x = (np.arange(n) + 0.5) * grid.dx
    grid.bed[...] = 0.75 * x[None, :] / 4.0
    grid.h[...] = np.maximum(0.5 - grid.bed, 0.0)
    return grid


def host_cpu_ticks(stat: str = "/proc/stat") -> tuple[int, int] | None:
    """(all CPU ticks, steal ticks) summed over the machine's CPUs from the first line of
    /proc/stat, or None where there is no such file (not Linux)."""
    try:
        with open(stat) as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 9:
        return None
    ticks = [int(x) for x in fields[1:9]]   # user nice system idle iowait irq softirq steal
    return sum(ticks), ticks[7]


def steal_percent(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """Percent of the CPU ticks between two `host_cpu_ticks` readings that were stolen by the
    hypervisor (a virtual machine's CPU waiting while the host ran another guest), or None."""
    if before is None or after is None or after[0] <= before[0]:
        return None
    return round(100.0 * (after[1] - before[1]) / (after[0] - before[0]), 2)


def _time(step: Callable[[], Any], budget_s: float) -> tuple[float, float]:
    """Median and best wall seconds per call over batches filling about budget_s."""
    per: list[float] = []
    start = time.perf_counter()
    batch = 1
    while time.perf_counter() - start < budget_s or len(per) < 3:
        t = time.perf_counter()
        for _ in range(batch):
            step()
        per.append((time.perf_counter() - t) / batch)
        if per[-1] * batch < 0.02:
            batch *= 2
    return float(np.median(per)), float(np.min(per))


def _plain_stepper(grid: WaterGrid) -> Callable[[], Any]:
    """Steps of the plain traversal on a copy of the grid's state, on one thread."""
    h, bed, u, w = (grid.read(n).copy() for n in ("h", "bed", "u", "w"))
    ax, az = np.zeros_like(u), np.zeros_like(w)
    state, s = records.state(h, bed, u, w, ax, az), records.scratch(*h.shape)
    p = grid.parameters()
    sides = records.sides(np.zeros(4, np.int64), np.zeros(4))
    return lambda: plain.advance(state, s, sides, p, DT)


def _seed_stepper(grid: WaterGrid) -> Callable[[], Any]:
    """Steps of the seed's scheme (float64, plain numba, one thread) on a copy of the grid's state."""
    h, bed = grid.read("h").copy(), grid.read("bed").copy()
    u, w = grid.read("u").astype(np.float64), grid.read("w").astype(np.float64)
    un, wn, hn = np.zeros_like(u), np.zeros_like(w), np.zeros_like(h)
    return lambda: seed_scheme.advance(h, bed, u, w, un, wn, hn, grid.dx, grid.gravity, DT)


def _one_thread(step: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            return step()
        finally:
            numba.set_num_threads(threads)
    return run


def run(quick: bool) -> dict[str, Any]:
    """Time the water step at each size; return the table and the machine's figures."""
    t = time.perf_counter()
    first = pool(32)
    first.step(DT, 0.0, schedule.Scheduler())   # loads the kernels from the cache (or compiles them)
    _seed_stepper(first)()
    _plain_stepper(first)()
    first_call = time.perf_counter() - t
    budget = 0.5 if quick else 2.0
    cases = [("level", pool(128, 96))] + [(f"{n}x{n}", pool(n)) for n in (QUICK_SIZES if quick else SIZES)]
    cases.insert(4, ("512x512 shore", shore(512)))
    rows = []
    for name, grid in cases:
        scheduler = schedule.Scheduler()
        for _ in range(3):
            grid.step(DT, 0.0, scheduler)   # start the flow
        cpu_before = host_cpu_ticks()
        wall, best = _time(functools.partial(grid.step, DT, 0.0, scheduler), budget)
        plain_wall, _ = _time(_one_thread(_plain_stepper(grid)), budget)
        seed_wall, seed_best = _time(_seed_stepper(grid), budget)
        steal = steal_percent(cpu_before, host_cpu_ticks())
        nz, nx = grid.shape
        row: dict[str, Any] = {
            "cells": name if name != "level" else f"{nx}x{nz} level",
            "ms_per_step": wall * 1e3,
            "best_ms_per_step": best * 1e3,
            "traversal": "timed: fast or plain" if schedule.parallel(grid.h.size) else "plain",
            "threads": numba.get_num_threads() if schedule.parallel(grid.h.size) else 1,
            "substeps": grid.substeps,
            "plain_1_thread_ms": plain_wall * 1e3,
            "seed_scheme_ms": seed_wall * 1e3,
            "speedup_vs_seed": seed_wall / wall,
            "sim_s_per_wall_s": DT / wall,
            "ns_per_cell_substep": wall / (max(grid.substeps, 1) * grid.h.size) * 1e9,
        }
        if steal is not None:
            row["host_steal_pct"] = steal
        if name in TARGETS:
            row["target_speedup_vs_seed"] = TARGETS[name]
            row["met"] = seed_wall / wall >= TARGETS[name]
        if name == "level":
            row["target_ms"] = LEVEL_TARGET_MS
            row["met"] = wall * 1e3 <= LEVEL_TARGET_MS
        rows.append(row)
    return {
        "rows": rows,
        "scene": ("4 m x 4 m pool, 0.5 m deep, 5 cm mound, dt = 1/120 s, inviscid; depths float64, velocities "
                  "float32; shore: the bed rises to 0.75 m along x; level: 128 x 96 cells of 3.125 cm"),
        "reference": ("seed_scheme_ms: the seed's semi-Lagrangian scheme done plainly in numba (float64, one "
                      "thread, CFL 0.66), on a copy of the same state in the same run"),
        "threads": numba.get_num_threads(),
        "threads_note": (f"grids under {schedule.PARALLEL_MIN_CELLS} cells step on one thread (plain traversal); "
                         f"larger ones time the fast traversal on all threads against the plain one and keep "
                         f"the faster (the same bits either way)"),
        "cpus": os.cpu_count(),
        "load_average": round(os.getloadavg()[0], 2),
        "first_call_s": first_call,
        "cfl": CFL,
    }
