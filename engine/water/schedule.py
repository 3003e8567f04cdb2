"""Which traversal runs a step, and on how many threads: the one place that decides.

Grids under PARALLEL_MIN_CELLS cells (every shipped level) take the plain traversal on one thread:
there a substep takes microseconds, and waking a worker thread costs more than it saves (on a busy
machine a parallel sweep of a 40 x 40 pool waited milliseconds for its worker). Larger grids take
the fast traversal on numba's threads. Both give the same bits, so the choice never changes the
water.
"""
from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from engine.water import fast, plain

PARALLEL_MIN_CELLS = 160 * 160


class Scratch:
    """The step's scratch arrays for an nz x nx grid, allocated once per grid."""

    def __init__(self, nz: int, nx: int) -> None:
        self.u = np.zeros((nz, nx + 1), dtype=np.float32)
        self.w = np.zeros((nz + 1, nx), dtype=np.float32)
        self.qx = np.zeros((nz, nx + 1))
        self.qz = np.zeros((nz + 1, nx))
        self.rates = np.zeros((nz, 2), dtype=np.int64)


def parallel(cells: int) -> bool:
    """Whether a grid of this many cells steps on threads."""
    return cells >= PARALLEL_MIN_CELLS and numba.get_num_threads() > 1


def advance(h: NDArray, bed: NDArray, u: NDArray, w: NDArray, ax: NDArray, az: NDArray, sides: NDArray,
            side_eta: NDArray, p: NDArray, dt: float, scratch: Scratch) -> tuple[int, float, int, float]:
    """One step (see `plain.advance`) by the traversal this grid's size calls for."""
    run = fast.advance if parallel(h.size) else plain.advance
    return run(h, bed, u, w, ax, az, scratch.u, scratch.w, scratch.qx, scratch.qz, scratch.rates, sides,
               side_eta, p, dt)


def scale(u: NDArray, w: NDArray, factor: np.float32) -> None:
    """u, w *= factor, on one thread (a whole sweep costs less than waking a worker)."""
    plain.scale(u, w, factor)
