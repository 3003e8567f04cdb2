"""World-space overlays drawn over the scene: the aim arc from the hand, the landing marker, the
goal ring, barrier outlines and dye tracers.

Each is a set of world points projected through the game's camera each frame (so the arc is a
real arc in the world, seen from the eye, not a screen-space line), drawn with pyglet shapes from
pools that grow as needed and are reused frame to frame.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from game.controller import Game

ARC_SEGMENTS = 48
MARKER_SEGMENTS = 28
MARKER_RADIUS = 0.08       # m
MAX_DRAWN_TRACERS = 1200
DYE = ((255, 60, 140), (60, 220, 255), (255, 210, 40), (140, 255, 90))


def circle(centre: NDArray[np.float64], radius: float, normal: NDArray[np.float64], n: int) -> NDArray[np.float64]:
    """n + 1 world points of a circle about `centre` in the plane of unit `normal` (closed)."""
    nrm = np.asarray(normal, float)
    a = np.cross(nrm, (0.0, 1.0, 0.0) if abs(nrm[1]) < 0.9 else (1.0, 0.0, 0.0))
    a /= np.linalg.norm(a)
    b = np.cross(nrm, a)
    t = np.linspace(0.0, 2 * math.pi, n + 1)
    return centre + radius * (np.outer(np.cos(t), a) + np.outer(np.sin(t), b))


def marker_normal(game: "Game", p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Up on the water or a floor, out of the wall on a pool side or the deck's face."""
    sx, sz = game.sim.level.pool.size
    x, z = float(p[0]), float(p[2])
    if 0.0 <= x <= sx and 0.0 <= z <= sz:
        return np.array([0.0, 1.0, 0.0])
    d = [x - sx, -x, z - sz, -z]          # how far outside each side
    k = int(np.argmax(d))
    if p[1] < game.sim.level.pool.wall_height - 0.01:
        return np.array([[-1, 0, 0], [1, 0, 0], [0, 0, -1], [0, 0, 1]][k], float)
    return np.array([0.0, 1.0, 0.0])


class _Pool:
    """Reusable pyglet shapes of one kind in one batch."""

    def __init__(self, make: Any) -> None:
        self.make = make
        self.items: list[Any] = []
        self.used = 0

    def take(self) -> Any:
        if self.used == len(self.items):
            self.items.append(self.make())
        item = self.items[self.used]
        item.visible = True
        self.used += 1
        return item

    def finish(self) -> None:
        for item in self.items[self.used:]:
            item.visible = False
        self.used = 0


class WorldOverlays:
    """Draw the game's world overlays (needs a current GL context)."""

    def __init__(self) -> None:
        import pyglet
        self.batch = pyglet.graphics.Batch()
        b = self.batch
        self.lines = _Pool(lambda: pyglet.shapes.Line(0, 0, 1, 1, thickness=2, color=(255, 230, 120, 220), batch=b))
        self.dots = _Pool(lambda: pyglet.shapes.Rectangle(0, 0, 4, 4, color=(255, 255, 255, 230), batch=b))

    def _polyline(self, px: NDArray[np.float64], h: int, color: tuple[int, int, int, int], thickness: float) -> None:
        ok = np.isfinite(px).all(axis=1) & (np.abs(px[:, 2]) <= 1.0)
        for a, c, good in zip(px[:-1], px[1:], ok[:-1] & ok[1:]):
            if not good:
                continue
            ln = self.lines.take()
            ln.x, ln.y, ln.x2, ln.y2 = a[0], h - a[1], c[0], h - c[1]
            ln.color = color
            ln.thickness = thickness

    def draw(self, game: "Game") -> None:
        w, h = game.width, game.height
        camera = game.camera
        # goal ring
        ring = game.goal.ring()
        if ring is not None:
            cx, cz, r = ring
            pts = circle(np.array([cx, game.surface_y + 0.005, cz]), r, np.array([0.0, 1.0, 0.0]), 48)
            self._polyline(camera.project(pts, w, h), h, (255, 255, 255, 200), 2.0)
        # barrier outlines: the top edges of the barrier cells' boundary
        mask = game.barriers.mask
        if mask.any():
            self._barrier_edges(game, mask, w, h)
        # dye
        self._tracers(game, w, h)
        # aim: the arc from the hand and the landing marker, while throwing (or hovering, dimmer)
        if game.tool == "throw" and game.error is None:
            try:
                arc = game.predicted_arc()
                marker = game.landing_marker()
            except Exception:   # noqa: BLE001 - an overlay must never stop the frame
                arc, marker = np.zeros((0, 3)), None
            alpha = 230 if game.charging else 110
            if len(arc) > 1:
                idx = np.unique(np.linspace(0, len(arc) - 1, ARC_SEGMENTS + 1).astype(int))
                self._polyline(camera.project(arc[idx], w, h), h, (255, 230, 120, alpha), 2.5 if game.charging else 1.5)
            if marker is not None:
                nrm = marker_normal(game, marker)
                for rad, col in ((MARKER_RADIUS, (255, 80, 60, alpha)), (0.5 * MARKER_RADIUS, (255, 255, 255, alpha))):
                    pts = circle(marker + 0.004 * nrm, rad, nrm, MARKER_SEGMENTS)
                    self._polyline(camera.project(pts, w, h), h, col, 2.5)
        self.lines.finish()
        self.dots.finish()
        self.batch.draw()

    def _tracers(self, game: "Game", w: int, h: int) -> None:
        try:
            tr = game.sim.get_system("Tracers")
        except KeyError:
            return
        pts = tr.points()  # type: ignore[attr-defined]
        if not len(pts):
            return
        step = max(1, len(pts) // MAX_DRAWN_TRACERS)
        cols = tr.colour[::step]  # type: ignore[attr-defined]
        px = game.camera.project(pts[::step], w, h)
        ok = np.isfinite(px).all(axis=1) & (np.abs(px[:, 2]) <= 1.0)
        for p, c, good in zip(px, cols, ok):
            if not good:
                continue
            d = self.dots.take()
            d.x, d.y = p[0] - 2.0, h - p[1] - 2.0
            d.color = (*DYE[int(c) % len(DYE)], 235)

    def _barrier_edges(self, game: "Game", mask: NDArray[np.bool_], w: int, h: int) -> None:
        water = game.sim.water
        dx = float(water.dx)
        bed = water.read("bed")
        nz, nx = mask.shape
        segs = []
        k, i = np.nonzero(mask)
        for kk, ii in zip(k, i):
            y = float(bed[kk, ii]) + 0.002
            x0, x1, z0, z1 = ii * dx, (ii + 1) * dx, kk * dx, (kk + 1) * dx
            if ii == 0 or not mask[kk, ii - 1]:
                segs.append(((x0, y, z0), (x0, y, z1)))
            if ii == nx - 1 or not mask[kk, ii + 1]:
                segs.append(((x1, y, z0), (x1, y, z1)))
            if kk == 0 or not mask[kk - 1, ii]:
                segs.append(((x0, y, z0), (x1, y, z0)))
            if kk == nz - 1 or not mask[kk + 1, ii]:
                segs.append(((x0, y, z1), (x1, y, z1)))
        if not segs:
            return
        arr = np.array(segs, float).reshape(-1, 3)
        px = game.camera.project(arr, w, h).reshape(-1, 2, 3)
        for a, c in px:
            if np.isfinite(a).all() and np.isfinite(c).all() and abs(a[2]) <= 1 and abs(c[2]) <= 1:
                ln = self.lines.take()
                ln.x, ln.y, ln.x2, ln.y2 = a[0], h - a[1], c[0], h - c[1]
                ln.color = (250, 150, 60, 255)
                ln.thickness = 2.0
