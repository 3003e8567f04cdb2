"""Checks across a level's sections: things inside the pool, known materials, files that exist.

`check_contents(level)` runs once every value is valid on its own (from Level.check);
`check_files(level)` runs whenever the level has a path, so missing images and models are reported
together with every other problem.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.levels.features import unknown_material
from engine.levels.fields import Problem
from engine.levels.resources import ResourceError, find_model, read_heightmap, resolve

if TYPE_CHECKING:
    from engine.levels.schema import Level


def _inside(x: float, z: float, size: tuple[float, float]) -> bool:
    return 0.0 <= x <= size[0] and 0.0 <= z <= size[1]


def _side_length(side: str, size: tuple[float, float]) -> float:
    return size[1] if side in ("x_min", "x_max") else size[0]


def check_contents(level: "Level") -> list[Problem]:
    """Cross-section problems of a level whose values are each valid."""
    from engine.terrain import cell_centres, footprint_cells, obstacle_height
    out: list[Problem] = []
    size = level.pool.size
    sx, sz = size
    t = level.terrain
    if t.kind == "slope" and t.span is not None:
        length = sx if (t.axis or "x") == "x" else sz
        if t.span[1] > length + 1e-9:
            out.append(("terrain.span", f"ends at {t.span[1]:g} m, beyond the pool ({length:g} m along {t.axis or 'x'})"))
    for j, bump in enumerate(t.bumps):
        if not _inside(*bump.center, size):
            out.append((f"terrain.bump[{j}].center", f"({bump.center[0]:g}, {bump.center[1]:g}) is outside the pool"))

    X, Z = cell_centres(level)
    for j, ob in enumerate(level.obstacles):
        key = f"obstacle[{j}]"
        if ob.center is not None and not _inside(*ob.center, size):
            out.append((f"{key}.center", f"({ob.center[0]:g}, {ob.center[1]:g}) is outside the pool "
                        f"(x in [0, {sx:g}], z in [0, {sz:g}])"))
            continue
        for end in ("start", "end"):
            p = getattr(ob, end)
            if p is not None and not _inside(*p, size):
                out.append((f"{key}.{end}", f"({p[0]:g}, {p[1]:g}) is outside the pool"))
        if ob.kind == "ledge" and ob.span is not None and ob.span[1] > _side_length(ob.side, size) + 1e-9:
            out.append((f"{key}.span", f"ends at {ob.span[1]:g} m, beyond side {ob.side} "
                        f"({_side_length(ob.side, size):g} m long)"))
            continue
        if not any(k.startswith(key) for k, _ in out) and footprint_cells(ob, X, Z, size) == 0:
            out.append((key, f"covers no water cell (cell = {level.pool.cell:g} m): make it larger or the cell smaller"))

    for j, wm in enumerate(level.wave_makers):
        key = f"wave_maker[{j}]"
        if wm.position is not None and not _inside(*wm.position, size):
            out.append((f"{key}.position", f"({wm.position[0]:g}, {wm.position[1]:g}) is outside the pool"))
        if wm.side is not None:
            across = sx if wm.side in ("x_min", "x_max") else sz
            if (wm.width or 0.3) >= across / 2:
                out.append((f"{key}.width", f"{wm.width or 0.3:g} m is half the pool or more; keep the paddle zone narrow"))
            if wm.span is not None and wm.span[1] > _side_length(wm.side, size) + 1e-9:
                out.append((f"{key}.span", f"ends at {wm.span[1]:g} m, beyond side {wm.side}"))

    def in_obstacle(x: float, y: float, z: float) -> str | None:
        for k, ob in enumerate(level.obstacles):
            top = float(obstacle_height(ob, np.array([x]), np.array([z]), size)[0])
            if y < top:
                return f"is inside obstacle[{k}] ({ob.kind} with its top at {top:.3g} m): raise y above it"
        return None

    for section, items in (("bottle", level.bottles), ("object", level.objects)):
        for j, b in enumerate(items):
            x, y, z = b.position
            if section == "object" and (not _inside(x, z, size) or y < 0.0):
                out.append((f"object[{j}].position", f"({x:g}, {y:g}, {z:g}) is outside the pool "
                            f"(x in [0, {sx:g}], z in [0, {sz:g}], y >= 0)"))
                continue
            msg = in_obstacle(x, y, z) if _inside(x, z, size) else None
            if msg:
                out.append((f"{section}[{j}].position", msg))
    for section, items in (("object", level.objects), ("throwable", level.throwables)):
        for j, b in enumerate(items):
            if b.material is not None:
                msg = unknown_material(b.material, level.materials or {})
                if msg:
                    out.append((f"{section}[{j}].material", msg))
    seen: dict[str, int] = {}
    for j, th in enumerate(level.throwables):
        if th.name in seen:
            out.append((f"throwable[{j}].name", f'"{th.name}" is already throwable[{seen[th.name]}]; names must differ'))
        seen.setdefault(th.name, j)
    return out


def check_files(level: "Level") -> list[Problem]:
    """Problems with the files a level names: its heightmap image and its object models."""
    out: list[Problem] = []
    t = level.terrain
    if t is not None and t.kind == "heightmap" and t.image:
        try:
            read_heightmap(resolve(t.image, level.path))
        except ResourceError as exc:
            out.append(("terrain.image", str(exc)))
    for section, items in (("object", level.objects), ("throwable", level.throwables)):
        for j, b in enumerate(items or ()):
            if b is None or (section == "throwable" and b.kind != "object") or not b.model:
                continue
            try:
                find_model(b.model, level.path)
            except ResourceError as exc:
                out.append((f"{section}[{j}].model", str(exc)))
    return out
