"""Barriers drawn on the pool floor (seed 004): raise the bed in the drawn cells so that they stand
out of the water and block it at once, moving the water they held to the nearest free cells.

Volume is exact: the depth taken out of the barrier cells, sum(h) dx^2, is added back, spread
evenly over the free wet cells within BAND cells of the new barrier cells (a wider band if
there are none), so sum(h) over the pool is unchanged to float64 round-off.
The faces that touch a barrier cell get zero velocity (a wall). Clearing lowers the bed back to
what it was; the water does not move, and flows back in by itself.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

MIN_RADIUS = 0.03       # m, the brush radius at least (and at least one cell)
BAND = 6                # the displaced water spreads over the free wet cells within this many cells
CLEARANCE = 0.12        # m a barrier stands above the highest water surface (at most the wall height)


def _dilate(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    out = mask.copy()
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


class Barriers:
    """The barriers of one simulation: which cells they cover and the bed they replaced."""

    def __init__(self, sim) -> None:
        self.sim = sim
        nz, nx = sim.water.shape
        self.mask = np.zeros((nz, nx), bool)
        self.original_bed = np.zeros((nz, nx))
        self.version = 0            # bumps on every change (the renderer rebuilds the pool mesh)
        self.stroke_top: float | None = None   # one drag's barrier height, fixed when it begins

    def _register(self, change) -> None:
        """Tell the engine's solid columns (engine/blocking.py) about the change, so that the bed they
        recompute whenever a blocking body moves (max(terrain, barriers, bodies)) keeps these barriers.
        The bed and water are already as the columns want them: nothing more is moved."""
        cols = self.sim.columns
        tops = cols.barriers.copy()
        change(tops)
        cols.set_barriers(self.sim.water, tops)

    def top(self) -> float:
        """Height of a new barrier's top: CLEARANCE above the highest surface, at most the wall."""
        water = self.sim.water
        eta = (water.read("bed") + water.read("h"))[~self.mask]
        wall = float(self.sim.level.pool.wall_height)
        return min(float(eta.max()) + CLEARANCE if eta.size else wall, wall)

    def begin_stroke(self) -> None:
        """A drag begins: every segment it draws gets the height `top()` has now, so the waves the
        first segments make do not raise the later ones."""
        self.stroke_top = self.top()

    def end_stroke(self) -> None:
        self.stroke_top = None

    def cells_along(self, a: tuple[float, float], b: tuple[float, float], radius: float) -> NDArray[np.bool_]:
        """Cells whose centres lie within `radius` of the segment a-b (x, z in m)."""
        water = self.sim.water
        nz, nx = water.shape
        dx = float(water.dx)
        r = max(radius, MIN_RADIUS, 0.5 * dx)
        x = (np.arange(nx) + 0.5) * dx
        z = (np.arange(nz) + 0.5) * dx
        X, Z = np.meshgrid(x, z)
        ax, az = a
        bx, bz = b
        ex, ez = bx - ax, bz - az
        ll = ex * ex + ez * ez
        t = np.clip(((X - ax) * ex + (Z - az) * ez) / ll, 0.0, 1.0) if ll > 0 else np.zeros_like(X)
        d2 = (X - ax - t * ex) ** 2 + (Z - az - t * ez) ** 2
        return d2 <= r * r

    def add(self, cells: NDArray[np.bool_]) -> int:
        """Raise the bed in `cells` (those not barriers yet); return how many cells were added."""
        new = cells & ~self.mask
        if not new.any():
            return 0
        water = self.sim.water
        top = self.stroke_top if self.stroke_top is not None else self.top()
        bed_now = water.read("bed")
        new &= bed_now < top                           # already higher (an obstacle): leave it
        if not new.any():
            return 0
        self.original_bed[new] = bed_now[new]
        h = water.h                                    # live: writing counts as a change
        moved = float(h[new].sum())
        h[new] = 0.0
        bed = water.bed
        bed[new] = top
        self.mask |= new
        blocked = self.mask | (water.read("bed") >= top)
        if moved > 0.0:
            band = new
            for _ in range(BAND):
                band = _dilate(band)
            for _ in range(max(water.shape)):
                free = band & ~blocked & (h > 0.0)
                if free.any():
                    h[free] += moved / float(free.sum())
                    break
                grown = _dilate(band)
                if (grown == band).all():
                    free = ~blocked
                    h[free] += moved / float(max(free.sum(), 1))
                    break
                band = grown
        u, w = water.u, water.w
        k, i = np.nonzero(new)
        u[k, i] = 0.0
        u[k, i + 1] = 0.0
        w[k, i] = 0.0
        w[k + 1, i] = 0.0
        self._register(lambda tops: tops.__setitem__(new, top))
        self.version += 1
        return int(new.sum())

    def clear(self) -> None:
        """Lower every barrier's bed back to what it was (the water left in place flows back)."""
        if not self.mask.any():
            return
        bed = self.sim.water.bed
        bed[self.mask] = self.original_bed[self.mask]
        mask = self.mask.copy()
        self._register(lambda tops: tops.__setitem__(mask, -np.inf))
        self.mask[:] = False
        self.version += 1

    def draw_segment(self, a: tuple[float, float], b: tuple[float, float], radius: float = MIN_RADIUS) -> int:
        return self.add(self.cells_along(a, b, radius))
