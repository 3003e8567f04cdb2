"""`bottles bench` water section: the shallow-water step against real time, numpy and memory bandwidth.

Scene: a 4 m x 4 m pool, 0.5 m deep, reflective walls, with a 5 cm mound released at t = 0 so the
flow is not trivial; fixed step dt = 1/120 s. A second 512^2 row, "shore", tilts the bed so a
third of the pool is dry beach: its rows take the kernel's general wet/dry loops instead of the
fast ones for wet rows over a level bed.

For each grid the table gives wall ms per step (median and best of several batches: the machines
are shared and jitter), CFL substeps and advection parts per step, simulated seconds per wall
second, the numpy reference's ms per step on the same state, and two memory floors over the copy
bandwidth measured in this same run at the grid's working-set size: `floor`, the bytes this
kernel must move (up to MAX_LEVELS levels, advection parts and substeps, per pass, so per pass it
reads h, u, w, and the bed where a row's bed is not one height, and writes h, u, w once), and
`unblocked_floor`, what a kernel sweeping the grid once per level would. Nothing writes the
benchmark pool between its steps, so its steps reuse the statistics the last one left (see
`water._Live`); a step after a write re-reads the arrays written, up to `statistics_ms` more.
From 512^2 up it also splits a step into its parts, timed on the kernel's own pieces
(`_breakdown`): the statistics read, a pass's loads and stores, one gravity substep and one
advection part, in ms; a step takes pass + substeps x substep + advection, plus statistics when
the state was written since the last step. Each row also gives `host_steal_pct`, the share of the
CPU time the hypervisor spent on other guests while the row was timed (Linux): the machines are
shared, and a row timed while they were busy says so.
"""
from __future__ import annotations

import math
import os
import time
from typing import Any

import numba
import numpy as np

from engine.kernels import reference as ref
from engine.kernels import shallow_water as sw
from engine.levels.schema import BumpSpec, Level, PoolSpec, WaterSpec
from engine import water
from engine.water import WaterGrid

DT = 1.0 / 120.0
SIZES = (128, 256, 512, 1024, 2048)
QUICK_SIZES = (128, 256, 512)
TARGETS = {512: 8.0, 1024: 2.0}          # simulated s per wall s wanted on the 2-core machine
# bytes per cell a pass must move: read h (float64) and u, w (float32), and the bed (float64) on
# rows whose bed is not one height; write h, u, w
PASS_BYTES = 8 + 4 + 4 + 8 + 4 + 4
BED_BYTES = 8
# bytes per cell a step reads first when every array was written since the last one, for the CFL
# speed, the depth units and which rows are pushed (`shallow_water._stats`): h, bed (float64),
# u, w, ax, az (float32); the benchmark pool writes nothing between steps, so its steps read none
STATS_BYTES = 8 + 8 + 4 + 4 + 4 + 4
STATE_BYTES = 8 + 8 + 4 + 4                # h, bed, u, w: the working set of a pass


def pool(n: int) -> WaterGrid:
    """The benchmark pool at n x n cells."""
    level = Level(pool=PoolSpec(size=(4.0, 4.0), cell=4.0 / n, wall_height=1.0),
                  water=WaterSpec(level=0.5, bumps=(BumpSpec(center=(1.3, 1.7), radius=0.4, height=0.05),)))
    return WaterGrid.from_level(level)


def shore(n: int) -> WaterGrid:
    """The benchmark pool with its bed rising from 0 to 0.75 m along x: the last third is dry beach."""
    grid = pool(n)
    x = (np.arange(n) + 0.5) * grid.dx
    grid.bed[...] = 0.75 * x[None, :] / 4.0
    grid.h[...] = np.maximum(0.5 - grid.bed, 0.0)
    return grid


def bandwidth(nbytes: int, repeats: int = 5) -> float:
    """Copy bandwidth in bytes/s (read + write counted), best of a few copies of an nbytes array.

    Sized like a grid's working set it says what its cache level delivers (a 512^2 grid's arrays
    fit a 32 MB L3; 1024^2 and up stream from main memory).
    """
    a = np.ones(max(nbytes // 8, 1024))
    b = np.empty_like(a)
    np.copyto(b, a)
    best = math.inf
    for _ in range(repeats):
        t = time.perf_counter()
        np.copyto(b, a)
        best = min(best, time.perf_counter() - t)
    return 2.0 * a.nbytes / best


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


def _time_steps(grid: WaterGrid, budget_s: float) -> tuple[float, float, int]:
    """Median and best wall seconds per step over batches filling about budget_s; substeps of the last step."""
    per_step: list[float] = []
    start = time.perf_counter()
    batch = 1
    while time.perf_counter() - start < budget_s or len(per_step) < 3:
        t = time.perf_counter()
        for _ in range(batch):
            grid.step(DT)
        per_step.append((time.perf_counter() - t) / batch)
        if per_step[-1] * batch < 0.02:
            batch *= 2                   # keep batches long enough to time
    return float(np.median(per_step)), float(np.min(per_step)), grid.substeps


def _breakdown(grid: WaterGrid, substeps: int, threads: int) -> dict[str, float]:
    """Wall ms of the parts of a step, from the kernel's own pieces on a copy of the grid's state:
    the statistics read (`_stats`), one pass's loads and stores, a gravity substep and an
    advection part, and a whole step timed among them (the machines are shared: parts and step
    are timed under the same load, so they may be compared; the step reuses the statistics the
    pieces before it left, as a grid's step does when nothing was written). A pass of k substeps
    takes pass + k substep; the differences between passes of 1, k and 1 + k levels give the
    parts (medians of several timings, on `threads` threads)."""
    # copies: writable, as the kernel takes them
    h, bed, u, w = (grid.read(name).copy() for name in ("h", "bed", "u", "w"))
    ax, az = np.zeros_like(u), np.zeros_like(w)
    nz, nx = h.shape
    rows = np.zeros((nz + 1, sw.NSTAT), dtype=np.int64)
    inflow = np.zeros(nz)
    chunks = sw.chunks_for(nz, threads)
    split = sw.even_split(nz, chunks)    # the pieces' passes: equal chunks (their timings are not used)
    k = max(2, min(substeps, sw.MAX_LEVELS - 1))
    s = DT / substeps
    scale = float(grid._scale[0]) or 2.0 ** sw.MAX_SHIFT
    dq, wq = np.int32(sw.DRY * scale), np.int32(sw.WET * scale)
    vcap = sw.CLAMP * grid.dx / s
    reach = sw.LAG * (k + 1) + 1         # halo rows for the longest pass timed
    halos = (np.empty((chunks, 2 * reach + 1, nx)), np.empty((chunks, 2 * reach + 1, nx + 1), np.float32),
             np.empty((chunks, 2 * reach + 1, nx), np.float32))
    wrapped = np.zeros(chunks, dtype=np.int64)
    lefts = np.zeros(nz, dtype=np.bool_)
    sw._stats(h, bed, u, w, ax, az, rows, 0)   # a pass reads the rows' level beds and pushes from here

    def sweep(kinds: list[int]) -> float:
        plan = np.array(kinds, dtype=np.int64)
        t = time.perf_counter()
        sw._sweep(h, bed, u, w, ax, az, plan, rows, inflow, grid._sides, grid._side_eta, grid.gravity, grid.dx,
                  s, DT, vcap, scale, dq, wq, split, *halos, wrapped, lefts, 0)
        return time.perf_counter() - t

    def stats() -> float:
        t = time.perf_counter()
        sw._stats(h, bed, u, w, ax, az, rows, 0)
        return time.perf_counter() - t

    step_scale = np.array([scale])
    step_split = sw.even_split(nz, chunks)   # kept between the timed steps, as a grid keeps it

    def step() -> float:
        t = time.perf_counter()
        sw.advance(h, bed, u, w, ax, az, rows, inflow, step_scale, grid._sides, grid._side_eta, grid.dx,
                   grid.gravity, DT, sw.CFL, sw.FLOW_CFL, sw.CLAMP, sw.DRY, sw.MAX_SUBSTEPS, sw.RUNAWAY, step_split, 0,
                   sw.ALL_FRESH)
        return time.perf_counter() - t

    cases = {"stats": stats, "one": lambda: sweep([0]), "k": lambda: sweep([0] * k),
             "k_adv": lambda: sweep([1] + [0] * k), "step": step}
    threads_before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        for f in cases.values():
            f()                          # first calls: allocation, caches
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(9):               # interleaved, so a busy moment slows every part alike
            for name, f in cases.items():
                times[name].append(f())
    finally:
        numba.set_num_threads(threads_before)
    med = {name: float(np.median(v)) * 1e3 for name, v in times.items()}
    substep = (med["k"] - med["one"]) / (k - 1)
    return {"statistics": med["stats"], "pass": med["one"] - substep, "substep": substep,
            "advection": med["k_adv"] - med["k"], "step_beside_parts": med["step"]}


def _time_reference(grid: WaterGrid, substeps: int, whole_step: bool) -> float:
    """Seconds per step of the numpy reference on a copy of the grid's state (above 512^2: one
    gravity substep times the substep count, plus one advection)."""
    h, u, w = grid.read("h").copy(), grid.read("u").copy(), grid.read("w").copy()
    bed = grid.read("bed")
    args = (grid.read("ax"), grid.read("az"), grid._sides, grid._side_eta, grid.dx, grid.gravity)
    t = time.perf_counter()
    if whole_step:
        ref.advance(h, bed, u, w, *args, DT)
        return time.perf_counter() - t
    ref.substep(h, bed, u, w, *args, DT / substeps)
    gravity = (time.perf_counter() - t) * substeps
    t = time.perf_counter()
    ref.advect(h, u, w, grid.dx, DT)
    return gravity + time.perf_counter() - t


def run(quick: bool) -> dict[str, Any]:
    """Time the water step at each size; return the table and the machine's figures."""
    dram = bandwidth(256 * 2 ** 20, 3 if quick else 5)
    t = time.perf_counter()
    first = pool(32)
    first.step(DT)                       # loads the kernels from the cache (or compiles them)
    first_call = time.perf_counter() - t
    rows = []
    cases = [(n, "pool") for n in (QUICK_SIZES if quick else SIZES)]
    cases.insert(3, (512, "shore"))
    for n, scene in cases:
        grid = pool(n) if scene == "pool" else shore(n)
        for _ in range(2):
            grid.step(DT)                # start the flow; first touches of the arrays
        cpu_before = host_cpu_ticks()
        wall, best, substeps = _time_steps(grid, 0.5 if quick else 2.0)
        steal = steal_percent(cpu_before, host_cpu_ticks())
        ref_s = _time_reference(grid, substeps, whole_step=n <= 512)
        cells = n * n
        bw = bandwidth(STATE_BYTES * cells)   # copying the state's worth into as much again
        vmax = max(float(np.abs(grid.read("u")).max()), float(np.abs(grid.read("w")).max()))
        parts = sw.advections_for(DT, grid.dx, vmax)
        levels = parts + substeps
        passes = -(-levels // sw.MAX_LEVELS)
        bed = grid.read("bed")
        varied = float(np.mean(np.any(bed != bed[:, :1], axis=1)))   # rows that read their bed
        per_pass = PASS_BYTES + BED_BYTES * varied
        floor = passes * per_pass * cells / bw
        unblocked = levels * per_pass * cells / bw
        row: dict[str, Any] = {
            "cells": f"{n}x{n}" + ("" if scene == "pool" else f" {scene}"),
            "ms_per_step": wall * 1e3,
            "best_ms_per_step": best * 1e3,
            "substeps": substeps,
            "advection_parts": parts,
            "threads_used": grid._last_threads,
            "sim_s_per_wall_s": DT / wall,
            "best_sim_s_per_wall_s": DT / best,
            "numpy_ms_per_step": ref_s * 1e3,
            "copy_GBps": bw / 1e9,
            "speedup_vs_numpy": ref_s / wall,
            "floor_ms": floor * 1e3,
            "floor_sim_s_per_wall_s": DT / floor,
            "unblocked_floor_sim_s_per_wall_s": DT / unblocked,
            "ns_per_cell_substep": wall / (substeps * cells) * 1e9,
        }
        if steal is not None:
            row["host_steal_pct"] = steal
        if n >= 512:
            for part, ms in _breakdown(grid, substeps, max(grid._last_threads, 1)).items():
                row[f"{part}_ms"] = ms
        if n in TARGETS and scene == "pool":
            row["target_sim_s_per_wall_s"] = TARGETS[n]
            row["met"] = DT / wall >= TARGETS[n]
        rows.append(row)
    return {
        "rows": rows,
        "scene": ("4 m x 4 m pool, 0.5 m deep, 5 cm mound, dt = 1/120 s; grid depths float64 (int32 units of a "
                  "few nm inside a pass), velocities float32; "
                  "shore: the bed rises to 0.75 m along x"),
        "threads": numba.get_num_threads(),
        "threads_note": (f"grids under {water.PARALLEL_MIN_CELLS} cells step on one thread; larger ones time "
                         f"1 and all threads and keep the faster (a busy machine stalls parallel sweeps)"),
        "cpus": os.cpu_count(),
        "main_memory_copy_GBps": dram / 1e9,
        "load_average": round(os.getloadavg()[0], 2),   # the machines are shared: busy ones time slower
        "host_steal": ("host_steal_pct: the share of this machine's CPU time that the hypervisor gave to other "
                       "guests while the row's steps were timed (/proc/stat; Linux only); above a few percent, "
                       "the row timed the host's load as well as the kernel"),
        "first_call_s": first_call,
        "cfl": sw.CFL,
        "floor": (f"{PASS_BYTES} B per cell per pass of up to {sw.MAX_LEVELS} levels (advection parts and "
                  f"substeps; read h as float64 and u, w as float32, and the bed on rows whose bed is not one "
                  f"height, {BED_BYTES} B more; write h, u, w) / copy_GBps at the grid's working-set size; "
                  f"unblocked: the passes' bytes per level; a step after writes to the state also reads "
                  f"the arrays written for its statistics, up to {STATS_BYTES} B per cell (statistics_ms)"),
        "numpy_reference": "whole steps up to 512^2; above, one substep times the substep count plus one advection",
    }
