"""Warm every physics kernel the game can reach, group by group, before the first frame.

numba compiles a kernel the first time it is called (or loads it from the on-disk cache when it
was compiled before). A kernel first reached mid-game (the first shatter, the first open bottle
that tips) would freeze the game while it compiles or loads. `GROUPS` runs tiny scenes that reach
every kernel: the water alone, bodies in air and their contacts, bodies in water, pouring, a
shatter and its shards, every throwable shape, solid columns (barriers, heavy bodies on the bed),
and a pool big enough for the parallel water sweep.

`bottles warm` (run by `make setup`) calls `warm()` once, printing a line per group; the game runs
the same groups one per frame behind its "preparing physics..." screen (game/loading.py), where
each group takes a fraction of a second once the cache is warm.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Callable, Iterator, TextIO, cast


from engine.levels.loader import parse_level

# A dry corner and a wet corner: bodies meet the bed, the walls and the water in a handful of steps.
_SMALL = """
name = "warm-up"
seed = 1
dt = 0.008333333333333333
[pool]
size = [0.8, 0.6]
cell = 0.05
wall_height = 0.6
[water]
level = 0.25
"""

_LARGE = """
name = "warm-up, large pool"
seed = 1
dt = 0.008333333333333333
[pool]
size = [6.8, 6.8]
cell = 0.04
wall_height = 0.6
[water]
level = 0.2
"""


def _sim(text: str):
    from engine.world import Simulation
    return Simulation(parse_level(text))


def _water() -> None:
    import numpy as np

    from engine.kernels.coupling import water_velocities
    sim = _sim(_SMALL)
    sim.water.add_volume(0.4, 0.3, 1e-3, radius=0.1)
    sim.step(2)
    # the dye tracers' velocities (game/tracers.py), from the grid's read-only views
    water_velocities(sim.water.read("u"), sim.water.read("w"), np.full(2, 0.3), np.full(2, 0.2), sim.water.dx)
    sim.close()


def _bodies() -> None:
    """Bottles falling on each other, hitting a wall and the bed (contacts, impacts)."""
    sim = _sim(_SMALL)
    # one bottle resting on the bed of the dry corner with another falling onto it, one at a wall
    sim.water.h[:, :6] = 0.0
    sim.spawn_bottle((0.1, 0.12, 0.3), (0.0, -2.0, 0.0), (1.0, 0.0, 3.0))
    sim.spawn_bottle((0.1, 0.4, 0.3), (0.0, -4.0, 0.0))
    sim.spawn_bottle((0.72, 0.45, 0.3), (3.0, 0.0, 0.0), orientation=(0.7071, 0.0, 0.0, 0.7071))
    sim.step(6)
    from engine.render.vertex_arrays import quat_to_matrices
    quat_to_matrices(sim.body_store.quat[:3])     # the renderer's body frames
    sim.close()


def _floating() -> None:
    """Sealed and filled bottles in the water (the body-water coupling both ways)."""
    sim = _sim(_SMALL)
    sim.spawn_bottle((0.3, 0.3, 0.3), (0.5, -1.0, 0.0), fill=0.0)
    sim.spawn_bottle((0.5, 0.3, 0.3), (0.0, -1.0, 0.2), fill=1.0)
    sim.step(3)
    sim.close()


def _pouring() -> None:
    """An open bottle, part full, lying on its side: water pours out of its neck."""
    sim = _sim(_SMALL)
    sim.spawn_bottle((0.4, 0.45, 0.3), (0.0, 0.0, 0.0), (0.0, 0.0, 4.0),
                     orientation=(0.7071, 0.0, 0.0, 0.7071), fill=0.6, sealed=False)
    sim.spawn_bottle((0.2, 0.2, 0.3), (0.0, 0.0, 0.0), orientation=(0.0, 1.0, 0.0, 0.0), fill=0.0, sealed=False)
    sim.step(2)
    sim.close()


def _shatter() -> None:
    """A full bottle broken in the air over the water: shards, their contacts, falling water."""
    sim = _sim(_SMALL)
    e = sim.spawn_bottle((0.4, 0.4, 0.3), (0.0, -3.0, 0.0), fill=1.0)
    e2 = sim.spawn_bottle((0.2, 0.15, 0.3), (0.0, -1.0, 0.0))
    sim.step(1)
    sim.shatter(e)
    sim.shatter(e2)
    sim.step(4)
    sim.close()


def _objects() -> None:
    """Every shape a throwable can have: sphere, box and the bundled meshes."""
    from engine.paths import CONTENT
    sim = _sim(_SMALL)
    sim.spawn_body("sphere", 2600.0, (0.2, 0.4, 0.3), (0.0, -2.0, 0.0), radius=0.05)
    sim.spawn_body("box", 500.0, (0.45, 0.4, 0.3), (0.0, -2.0, 0.0), size=(0.1, 0.08, 0.06))
    x = 0.6
    for mesh in sorted((CONTENT / "models").glob("*.obj")):
        name = mesh.stem
        if name.endswith("_fragments") or (mesh.with_suffix(".json")).exists():
            continue    # bottle sets are bottles, not props
        try:
            sim.spawn_body(name, 600.0, (x, 0.45, 0.3), scale=min(1.0, 1.0))
        except Exception:
            continue    # a mesh that is not a closed solid is no prop: the game cannot throw it either
        x = 0.15 if x > 0.65 else x + 0.05
    sim.step(3)
    sim.close()


def _columns() -> None:
    """Solid columns in the water (engine/blocking.py), as the game makes them: a barrier stood on
    the bed (the barrier tool), then a heavy box standing on the bed (a blocker, found each step).
    SolidColumns.update compares the water's read-only bed view (WaterGrid.read) with the new tops,
    a signature no other group reaches."""
    sim = _sim(_SMALL)
    columns = sim.columns
    walls = columns.free_tops()
    walls[2:4, 2:10] = 0.5
    columns.set_barriers(sim.water, walls)
    # 0.3 x 0.2 x 0.3 m of glass-dense stone: 47 kg, over [physics] block_mass (40 kg), denser than water
    sim.spawn_body("box", 2600.0, (0.55, 0.1, 0.3), size=(0.3, 0.2, 0.3))
    sim.step(3)
    sim.close()


def _large() -> None:
    """A pool past engine.water's parallel threshold, so the threaded sweeps are compiled too; three
    bottles broken in it leave enough shards (48 bodies due) for CoupleWater's threaded loads."""
    sim = _sim(_LARGE)
    sim.water.add_volume(3.0, 3.0, 2e-3, radius=0.2)
    for k in range(3):
        sim.shatter(sim.spawn_bottle((2.0 + 1.0 * k, 0.1, 3.4)))
    sim.step(2)
    sim.close()


@dataclass(frozen=True, slots=True)
class Group:
    """One group of kernels, warmed by running a tiny scene that reaches them."""
    name: str
    run: Callable[[], None]


GROUPS: tuple[Group, ...] = (
    Group("water", _water),
    Group("bodies and contacts", _bodies),
    Group("bodies in water", _floating),
    Group("pouring", _pouring),
    Group("shatter", _shatter),
    Group("throwable shapes", _objects),
    Group("solid columns", _columns),
    Group("large pools (threads)", _large),
)


def steps() -> Iterator[tuple[int, int, str, float]]:
    """Run the groups one by one, yielding (done, total, name, seconds it took) after each.

    A group that fails is skipped (its kernels compile later, at first use); the failure is not
    hidden from the caller: it is re-raised after the last group.
    """
    failed: list[BaseException] = []
    for k, g in enumerate(GROUPS):
        t0 = time.perf_counter()
        try:
            g.run()
        except Exception as exc:   # noqa: BLE001 - reported after the rest are warmed
            failed.append(exc)
        yield k + 1, len(GROUPS), g.name, time.perf_counter() - t0
    if failed:
        raise failed[0]


_STDOUT = object()


def warm(out: TextIO | None | object = _STDOUT) -> float:
    """Warm every group, printing one progress line per group to `out` (standard output by
    default, nothing for None); return the seconds taken."""
    stream = sys.stdout if out is _STDOUT else out
    t0 = time.perf_counter()
    for done, total, name, took in steps():
        if stream is not None:
            print(f"physics kernels [{done}/{total}] {name}: {took:.1f} s", file=cast(TextIO, stream), flush=True)
    return time.perf_counter() - t0
