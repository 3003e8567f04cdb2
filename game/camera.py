"""Drive the renderer's OrbitCamera from the mouse and keyboard: orbit, zoom and fly.

The camera itself (matrices, rays through pixels, projection to the screen) is
engine.render.camera.OrbitCamera; this module only turns input into its moves.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from engine.meshes import vec3
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
    step = min(FLY_SPEED * camera.distance, MAX_FLY_SPEED) * seconds
    move = step * (r * right + f * forward + u * np.array([0.0, 1.0, 0.0]))
    camera.target = vec3(np.asarray(camera.target, float) + move)


REACH = 1.5          # the target stays within this many pool diagonals of the pool's middle
MAX_DISTANCE = 3.0   # and the eye within this many pool diagonals of the target
MAX_FLY_SPEED = 4.0  # m/s, however far the camera is


def keep_in_reach(camera: OrbitCamera, level) -> None:
    """Clamp the camera so the pool stays in reach: the target within REACH pool diagonals of the
    pool's middle (and between the floor and a diagonal above it), the distance at most MAX_DISTANCE
    diagonals."""
    sx, sz = level.pool.size
    diag = math.hypot(sx, sz)
    c = np.array([sx / 2.0, 0.0, sz / 2.0])
    t = np.asarray(camera.target, float)
    off = t[[0, 2]] - c[[0, 2]]
    r = float(np.hypot(*off))
    if r > REACH * diag / 2.0:
        off *= REACH * diag / 2.0 / r
    y = min(max(t[1], -0.5), diag)
    camera.target = (float(c[0] + off[0]), float(y), float(c[2] + off[1]))
    camera.distance = float(min(camera.distance, MAX_DISTANCE * diag))


def to_dict(camera: OrbitCamera) -> dict[str, object]:
    """The camera as plain JSON values (for the quick save's 'camera' entry)."""
    return {"target": [float(v) for v in camera.target], "distance": float(camera.distance),
            "yaw": float(camera.yaw), "pitch": float(camera.pitch), "fov": float(camera.fov)}


def from_dict(camera: OrbitCamera, d: dict) -> bool:
    """Set the camera from to_dict's values; False (camera untouched) if they are not valid."""
    try:
        target = tuple(float(v) for v in d["target"])
        vals = float(d["distance"]), float(d["yaw"]), float(d["pitch"]), float(d.get("fov", camera.fov))
    except (KeyError, TypeError, ValueError, OverflowError):
        return False
    if len(target) != 3 or not all(math.isfinite(v) for v in (*target, *vals)) or vals[0] <= 0.0 \
            or not 10.0 <= vals[3] <= 120.0:   # fov, degrees: the level schema's range
        return False
    camera.target = target
    camera.distance, camera.yaw, camera.pitch, camera.fov = vals[0], vals[1] % 360.0, max(-89.0, min(89.0, vals[2])), vals[3]
    return True
