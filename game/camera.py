"""Drive the renderer's OrbitCamera from the mouse and keyboard: orbit, zoom and fly.

The camera itself (matrices, rays through pixels, projection to the screen) is
engine.render.camera.OrbitCamera; this module only turns input into its moves.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from engine.render.camera import OrbitCamera

ORBIT_DEG_PER_PIXEL = 0.3     # a 300-pixel drag turns the view 90 degrees
ZOOM_PER_CLICK = 0.9          # one wheel click moves 10% closer
FLY_SPEED = 0.8               # fraction of the orbit distance per second, so far views fly faster

_FLY = {"forward": (0, 0, 1), "back": (0, 0, -1), "left": (-1, 0, 0), "right": (1, 0, 0),
        "up": (0, 1, 0), "down": (0, -1, 0)}  # (right, up, forward) components


def orbit_by_drag(camera: OrbitCamera, dx: float, dy: float) -> None:
    """Turn the camera about its target by a mouse drag of (dx, dy) pixels (pyglet: y up)."""
    camera.orbit(-dx * ORBIT_DEG_PER_PIXEL, -dy * ORBIT_DEG_PER_PIXEL)


def zoom_by_wheel(camera: OrbitCamera, clicks: float) -> None:
    """Move closer for positive wheel clicks, further for negative ones."""
    camera.zoom(ZOOM_PER_CLICK ** clicks)


def fly(camera: OrbitCamera, directions: Iterable[str], seconds: float) -> None:
    """Move the camera and its target together: forward/back/left/right in the ground plane, up/down."""
    r = u = f = 0.0
    for d in directions:
        dr, du, df = _FLY[d]
        r += dr; u += du; f += df
    if r == u == f == 0.0 or seconds <= 0.0:
        return
    yaw = math.radians(camera.yaw)
    forward = np.array([-math.sin(yaw), 0.0, -math.cos(yaw)])   # towards the target, level
    right = np.array([math.cos(yaw), 0.0, -math.sin(yaw)])
    step = FLY_SPEED * camera.distance * seconds
    move = step * (r * right + f * forward + u * np.array([0.0, 1.0, 0.0]))
    camera.target = tuple(float(v) for v in np.asarray(camera.target, float) + move)
