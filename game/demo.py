"""The no-display fallback of `bottles play`: record a short clip of scripted throws, headless.

The clip is made by game/record.py (the same code as `bottles record`), so what it shows is what
the renderer draws in a window.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.levels import Level, load_level

DEMO_SECONDS = 4.0
DEMO_FPS = 20.0
DEMO_SIZE = "640x360"
DEFAULT_OUT = Path("out") / "demo.gif"
FLIGHT = 0.7            # s from release to landing for every scripted throw
THROW_TIMES = (0.3, 1.0, 1.7, 2.4)
WALL_TIME = 2.0         # s: the throw at the far wall
WALL_FLIGHT = 0.35      # s: fast enough to break on the wall (about 7 m/s across a 4 m pool)


def demo_throws(level: Level, gravity: float | None = None) -> list[str]:
    """Scripted throws as `bottles record --throw` strings "T:X,Y,Z:VX,VY,VZ".

    Each starts above the near corner of the pool and lands, FLIGHT seconds later and without
    drag, on the water at a different spot: v = (target - start) / T + (0, g T / 2, 0); one more
    reaches the far wall above the water in WALL_FLIGHT seconds and shatters there.
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
    wall = (0.55 * sx, wall_y, sz)
    vx, vz = (wall[0] - start[0]) / WALL_FLIGHT, (wall[2] - start[2]) / WALL_FLIGHT
    vy = (wall[1] - start[1]) / WALL_FLIGHT + 0.5 * g * WALL_FLIGHT
    out.append(f"{WALL_TIME:g}:{start[0]:.4f},{start[1]:.4f},{start[2]:.4f}:{vx:.4f},{vy:.4f},{vz:.4f}")
    for t, (fx, fz), kind in zip(THROW_TIMES, targets, kinds):
        tx, tz = fx * sx, fz * sz
        vx = (tx - start[0]) / FLIGHT
        vz = (tz - start[2]) / FLIGHT
        vy = (y_water - start[1]) / FLIGHT + 0.5 * g * FLIGHT
        out.append(f"{t:g}:{start[0]:.4f},{start[1]:.4f},{start[2]:.4f}:{vx:.4f},{vy:.4f},{vz:.4f}{kind}")
    return out


def record_args(level_path: str | Path, mods: list[str], out: str | Path) -> argparse.Namespace:
    """The arguments `bottles record` would get for the demo clip."""
    level = load_level(level_path)
    return argparse.Namespace(level=str(level_path), seconds=DEMO_SECONDS, out=str(out), fps=DEMO_FPS,
                              size=DEMO_SIZE, throw=demo_throws(level), script=None, debug=None,
                              mod=list(mods))


def run(level_path: str | Path, mods: list[str] | None = None, out: str | Path = DEFAULT_OUT) -> int:
    """Record the demo clip; print where it went; return an exit code."""
    args = record_args(level_path, list(mods or ()), out)
    try:
        from game.record import record
    except ImportError as exc:
        print(f"bottles play: cannot record a demo clip: the recorder is not available ({exc})", file=sys.stderr)
        return 1
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    code = int(record(args) or 0)
    if code == 0:
        print(f"demo clip written to {out}")
    return code
