"""Where the sky can show (pure numpy): the screen outside the projected deck.

The deck is a flat rectangle round the pool, and the pool inside it is closed (floor and walls),
so every pixel inside the deck's projected outline is covered by something nearer than the sky.
The sky pass is scissored to the bounding box of the rest of the screen. That box is bounded by
the screen's own corners outside the outline, the outline's corners on the screen, and the
points where the outline's edges cross the screen's border. The quad is first clipped to the
near and far planes in clip space (z >= -w, z <= w: Sutherland-Hodgman), so the outline is that of
the part of the deck the camera sees, a convex polygon, even when the camera stands over the deck.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

Box = tuple[int, int, int, int]    # x, y, width, height in pixels, y from the bottom (glScissor)


def _inside(poly: NDArray, pts: NDArray) -> NDArray[np.bool_]:
    """Points strictly inside a convex polygon (either winding)."""
    a, b = poly, np.roll(poly, -1, axis=0)
    cross = ((b[:, 0] - a[:, 0])[None, :] * (pts[:, 1:2] - a[:, 1][None, :])
             - (b[:, 1] - a[:, 1])[None, :] * (pts[:, 0:1] - a[:, 0][None, :]))
    return (cross > 0).all(axis=1) | (cross < 0).all(axis=1)


def _clip(poly: NDArray, sign: float) -> NDArray:
    """Clip a convex polygon in homogeneous clip coordinates (n, 4) to sign * z <= w."""
    out = []
    d = poly[:, 3] - sign * poly[:, 2]            # >= 0 inside
    for j in range(len(poly)):
        a, b, da, db = poly[j], poly[(j + 1) % len(poly)], d[j], d[(j + 1) % len(poly)]
        if da >= 0:
            out.append(a)
        if (da >= 0) != (db >= 0):
            out.append(a + (b - a) * (da / (da - db)))
    return np.array(out).reshape(-1, 4)


def sky_box(view_projection: ArrayLike, corners: ArrayLike, width: int, height: int,
            margin: int = 2) -> Box | None:
    """The scissor box of the screen outside the projected convex quad `corners` (4, 3), or None
    when the quad covers the whole screen."""
    vp = np.asarray(view_projection, float)
    c = _clip(_clip(np.c_[np.asarray(corners, float), np.ones(4)] @ vp.T, -1.0), 1.0)
    full: Box = (0, 0, int(width), int(height))
    if len(c) < 3 or (c[:, 3] <= 1e-9).any():
        return full
    poly = np.c_[(c[:, 0] / c[:, 3] * 0.5 + 0.5) * width, (c[:, 1] / c[:, 3] * 0.5 + 0.5) * height]
    screen = np.array([[0.0, 0.0], [width, 0.0], [width, height], [0.0, height]])
    pts = [screen[~_inside(poly, screen)]]
    on = (poly[:, 0] >= 0) & (poly[:, 0] <= width) & (poly[:, 1] >= 0) & (poly[:, 1] <= height)
    pts.append(poly[on])
    for p, q in zip(poly, np.roll(poly, -1, axis=0)):        # outline edges x screen border
        d = q - p
        for axis, limit in ((0, 0.0), (0, width), (1, 0.0), (1, height)):
            if abs(d[axis]) < 1e-12:
                continue
            t = (limit - p[axis]) / d[axis]
            if 0.0 <= t <= 1.0:
                x = p + t * d
                other = 1 - axis
                if -1e-6 <= x[other] <= (height if other else width) + 1e-6:
                    pts.append(x[None, :])
    if len(pts[0]) == 0:
        return None                     # every screen corner inside the outline: all covered
    allp = np.concatenate(pts)
    lo = np.floor(allp.min(axis=0)) - margin
    hi = np.ceil(allp.max(axis=0)) + margin
    x0, y0 = int(max(lo[0], 0)), int(max(lo[1], 0))
    x1, y1 = int(min(hi[0], width)), int(min(hi[1], height))
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1 - x0, y1 - y0


def bounds_box(view_projection: ArrayLike, lo: ArrayLike, hi: ArrayLike, width: int, height: int,
               margin: int = 2) -> Box:
    """The screen box (x, y, width, height in pixels, clipped to the screen) that holds the
    projection of the world box lo..hi (its eight corners; the projection of a convex body lies
    within the hull of its corners' projections), or the whole screen when a corner lies at or
    behind the camera's plane (w <= 0), where that bound fails."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    corners = np.array([[(lo, hi)[i][0], (lo, hi)[j][1], (lo, hi)[k][2], 1.0]
                        for i in (0, 1) for j in (0, 1) for k in (0, 1)])
    c = corners @ np.asarray(view_projection, float).T
    full: Box = (0, 0, int(width), int(height))
    if (c[:, 3] <= 1e-6).any():
        return full
    x = (c[:, 0] / c[:, 3] * 0.5 + 0.5) * width
    y = (c[:, 1] / c[:, 3] * 0.5 + 0.5) * height
    x0, y0 = int(max(np.floor(x.min()) - margin, 0)), int(max(np.floor(y.min()) - margin, 0))
    x1, y1 = int(min(np.ceil(x.max()) + margin, width)), int(min(np.ceil(y.max()) + margin, height))
    if x1 <= x0 or y1 <= y0:
        return 0, 0, 0, 0
    return x0, y0, x1 - x0, y1 - y0
