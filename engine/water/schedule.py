"""Which traversal runs a step, and on how many threads: the one place that decides.

Grids under PARALLEL_MIN_CELLS cells (every shipped level) take the plain traversal on one thread:
there a substep takes microseconds, and waking a worker thread costs more than it saves (on a busy
machine a parallel sweep of a 40 x 40 pool waited milliseconds for its worker). Larger grids may
take the fast traversal on numba's threads: the stepping side's `Scheduler` (not the grid) times
the grid's steps on both now and then and keeps the faster, since on a machine whose cores are all busy a parallel sweep waits for descheduled
workers and runs slower than one thread. Both give the same bits, so the choice never changes
the water.
"""
from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from engine import pacing
from engine.water import fast, plain
from engine.water.records import Scratch, Sides, State

from time import perf_counter

PARALLEL_MIN_CELLS = 160 * 160
PROBE_STEPS = 2       # steps per timing of each traversal (the policy: engine.pacing.choose)
PROBE_EVERY, PROBE_SPARSE = pacing.PROBE_EVERY, pacing.PROBE_SPARSE


def parallel(cells: int) -> bool:
    """Whether a grid of this many cells may step on threads."""
    return cells >= PARALLEL_MIN_CELLS and numba.get_num_threads() > 1


class Scheduler:
    """The stepping side's choice of traversal for one grid: it times the grid's steps and keeps the
    faster traversal (the grid itself holds only state and inputs). Owned by whoever steps the grid
    (`engine.water.stages.WaterStages`, the bench); a grid stepped without one takes `plain`."""

    def __init__(self) -> None:
        self.cells = -1
        self.steps = 0
        self.pace: dict[bool, list[float]] = {False: [], True: []}   # parallel? -> recent s per step

    def _choose(self) -> bool:
        """Whether this step runs the fast traversal (`engine.pacing.choose`, PROBE_STEPS steps a timing)."""
        return pacing.choose(self.pace, self.steps, PROBE_STEPS)

    def threads_next(self, cells: int) -> bool:
        """Whether the next step of a grid of `cells` cells takes the threaded traversal as the
        faster one (its re-timing of a slower traversal not counted): then numba's workers are
        awake and a core is free for another threaded pass in the same step."""
        if not parallel(cells):
            return False
        if cells != self.cells:   # new to this grid: it starts by timing the threaded traversal
            return True
        if not self._choose():
            return False
        threaded, one = self.pace[True], self.pace[False]
        return not one or not threaded or pacing.median(threaded) < pacing.median(one)

    def advance(self, state: State, scratch: Scratch, sides: Sides, p: NDArray,
                dt: float) -> tuple[int, float, int, float]:
        """One step (see `plain.advance`) by the traversal this grid's size (and pace) calls for."""
        cells = state.h.size
        if cells != self.cells:           # another grid (or a resized one): its paces start afresh
            self.cells, self.steps, self.pace = cells, 0, {False: [], True: []}
        threaded = parallel(cells) and self._choose()
        run = fast.advance if threaded else plain.advance
        t0 = perf_counter()
        out = run(state, scratch, sides, p, dt)
        if parallel(cells) and self.steps > 0:      # the first step loads or compiles: not a pace
            recent = self.pace[threaded]
            recent.append(perf_counter() - t0)
            del recent[:-2 * PROBE_STEPS - 1]
        self.steps += 1
        return out


def advance(state: State, scratch: Scratch, sides: Sides, p: NDArray, dt: float,
            scheduler: Scheduler | None = None) -> tuple[int, float, int, float]:
    """One step (see `plain.advance`): by the scheduler's choice, or the plain traversal without one
    (both give the same bits)."""
    if scheduler is not None:
        return scheduler.advance(state, scratch, sides, p, dt)
    return plain.advance(state, scratch, sides, p, dt)


def scale(u: NDArray, w: NDArray, factor: np.float32) -> None:
    """u, w *= factor, on one thread (a whole sweep costs less than waking a worker)."""
    plain.scale(u, w, factor)
