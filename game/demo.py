"""The no-display fallback of `bottles play`: record a short clip of scripted throws, headless.

The clip is made by game/record.py (the same code as `bottles record`), so what it shows is what
the renderer draws in a window.
"""
from __future__ import annotations

import argparse

import numpy as np
from pathlib import Path

from engine.levels import Level

DEMO_SECONDS = 4.0
DEMO_FPS = 20.0
DEMO_SIZE = "640x360"
DEFAULT_OUT = Path("out") / "demo.webp"   # the demo's own file: rewritten each run
FLIGHT = 0.7            # s from release to landing for every scripted throw
THROW_TIMES = (0.3, 1.0, 1.7, 2.4)
WALL_TIME = 2.0         # s: the throw at the far wall
WALL_SPEED = 7.0        # m/s across: a bottle this fast breaks on a wall (glass_strength, schema.py)


def demo_throws(level: Level, gravity: float | None = None) -> list[str]:
    """Scripted throws as `bottles record --throw` strings "T:X,Y,Z:VX,VY,VZ".

    Each starts above the near corner of the pool and lands, FLIGHT seconds later and without
    drag, on the water at a different spot: v = (target - start) / T + (0, g T / 2, 0); one more
    reaches a wall the camera sees at WALL_SPEED and shatters there.
    """
    g = level.gravity if gravity is None else gravity
    sx, sz = level.pool.size
    y_water = level.water.level
    start = (0.15 * sx, y_water + 0.6, 0.15 * sz)
    targets = ((0.5, 0.5), (0.7, 0.35), (0.35, 0.7), (0.62, 0.62))
    kinds = ("", "", "", "")
    out = []
    # one fast throw at the far wall above the water: it shatters there (glass_strength, schema.py)
    wall_y = min(y_water + 0.2, level.pool.wall_height - 0.05)
    wall = _wall_facing_camera(level, wall_y, start)
    flight = float(np.hypot(wall[0] - start[0], wall[2] - start[2])) / WALL_SPEED
    vx, vz = (wall[0] - start[0]) / flight, (wall[2] - start[2]) / flight
    vy = (wall[1] - start[1]) / flight + 0.5 * g * flight
    out.append(f"{WALL_TIME:g}:{start[0]:.4f},{start[1]:.4f},{start[2]:.4f}:{vx:.4f},{vy:.4f},{vz:.4f}")
    for t, (fx, fz), kind in zip(THROW_TIMES, targets, kinds):
        tx, tz = fx * sx, fz * sz
        vx = (tx - start[0]) / FLIGHT
        vz = (tz - start[2]) / FLIGHT
        vy = (y_water - start[1]) / FLIGHT + 0.5 * g * FLIGHT
        out.append(f"{t:g}:{start[0]:.4f},{start[1]:.4f},{start[2]:.4f}:{vx:.4f},{vy:.4f},{vz:.4f}{kind}")
    return out


def _wall_facing_camera(level: Level, y: float, start: tuple[float, float, float]) -> tuple[float, float, float]:
    """A point at height y on a pool wall whose inner face the level's camera sees, nearest the
    eye along it (within the middle half of the wall), at least a third of the pool's size from
    `start` so the flight shows: where a break shows biggest. Each wall's score is
    cos(angle between its inner normal and the way to the eye) / distance^2."""
    from engine.render.camera import OrbitCamera
    sx, sz = level.pool.size
    eye = OrbitCamera.from_level(level, 16 / 9).eye
    cx = min(max(float(eye[0]), 0.25 * sx), 0.75 * sx)
    cz = min(max(float(eye[2]), 0.25 * sz), 0.75 * sz)
    walls = (((0.0, y, cz), (1.0, 0.0, 0.0)), ((sx, y, cz), (-1.0, 0.0, 0.0)),
             ((cx, y, 0.0), (0.0, 0.0, 1.0)), ((cx, y, sz), (0.0, 0.0, -1.0)))

    def score(wall: tuple) -> float:
        p, n = (np.asarray(v, float) for v in wall)
        to_eye = eye - p
        d = float(np.linalg.norm(to_eye))
        far = np.hypot(p[0] - start[0], p[2] - start[2]) >= max(sx, sz) / 3.0
        return float(to_eye @ n) / (d ** 3) if far else -np.inf

    return max(walls, key=score)[0]


def record_args(level_path: str | Path, mods: list[str], out: str | Path, level_mods: bool = False) -> argparse.Namespace:
    """The arguments `bottles record` would get for the demo clip (the level read with the mods it
    will run, whose sections it may use)."""
    from engine.mods import load_level_with_mods
    level = load_level_with_mods(level_path, mods, level_mods=level_mods)
    return argparse.Namespace(level=str(level_path), seconds=DEMO_SECONDS, out=str(out), fps=DEMO_FPS,
                              size=DEMO_SIZE, throw=demo_throws(level), script=None, debug=None,
                              mod=list(mods), mods=level_mods, force=True)


def run(level_path: str | Path, mods: list[str] | None = None, out: str | Path = DEFAULT_OUT,
        level_mods: bool = False) -> int:
    """Record the demo clip; print where it went; return an exit code."""
    args = record_args(level_path, list(mods or ()), out, level_mods)
    from game.record import record
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    code = int(record(args) or 0)
    if code == 0:
        print(f"demo clip written to {out}")
    return code
