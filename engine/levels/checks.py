"""Checks across a level's sections: things inside the pool, known materials, files that exist.

Both run on every load, even when some values are bad, so the list of problems is complete: they
skip the parts whose keys already have a problem (`bad`, a set of key paths), where a placeholder
stands in for the bad value. Missing images and models come in the same list as everything else.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np

from engine.levels.features import MAX_THROWABLES, unknown_material
from engine.levels.fields import Problem
from engine.levels.resources import ResourceError, check_obj, find_model, image_path, read_heightmap

MIN_BODY_VOLUME = 1e-6   # m^3: smaller bodies have no mass or inertia a step can invert

if TYPE_CHECKING:
    from engine.levels.schema import Level


def _groups(*groups: tuple[str, Any]) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """(section name, its specs) pairs, typed for the loops that check several kinds of spec alike."""
    return tuple((name, tuple(items or ())) for name, items in groups)


def _inside(x: float, z: float, size: tuple[float, float]) -> bool:
    return 0.0 <= x <= size[0] and 0.0 <= z <= size[1]


def _side_length(side: str | None, size: tuple[float, float]) -> float:
    return size[1] if side in ("x_min", "x_max") else size[0]


def _clean(bad: Iterable[str]) -> Callable[[str], bool]:
    """ok(prefix): no problem has been found at or under the key path `prefix`."""
    bad = tuple(bad)

    def ok(prefix: str) -> bool:
        return not any(b == prefix or b.startswith(prefix + ".") or b.startswith(prefix + "[") for b in bad)
    return ok


def check_contents(level: "Level", bad: Iterable[str] = ()) -> list[Problem]:
    """Cross-section problems: things outside the pool or too small for its grid, unknown materials."""
    from engine.terrain import cell_centres, footprint_cells, obstacle_height
    ok = _clean(bad)
    out: list[Problem] = []
    if not ok("pool"):
        return out
    size = level.pool.size
    sx, sz = size
    t = level.terrain
    if ok("terrain") and t.kind == "slope" and t.span is not None:
        length = sx if (t.axis or "x") == "x" else sz
        if t.span[1] > length + 1e-9:
            out.append(("terrain.span", f"ends at {t.span[1]:g} m, beyond the pool ({length:g} m along {t.axis or 'x'})"))
    for j, bump in enumerate(t.bumps if ok("terrain") else ()):
        if not _inside(*bump.center, size):
            out.append((f"terrain.bump[{j}].center", f"({bump.center[0]:g}, {bump.center[1]:g}) is outside the pool"))

    X, Z = cell_centres(level)
    obstacles = [(j, ob) for j, ob in enumerate(level.obstacles) if ok(f"obstacle[{j}]")]
    for j, ob in obstacles:
        key = f"obstacle[{j}]"
        if ob.center is not None and not _inside(*ob.center, size):
            out.append((f"{key}.center", f"({ob.center[0]:g}, {ob.center[1]:g}) is outside the pool "
                        f"(x in [0, {sx:g}], z in [0, {sz:g}])"))
            continue
        for end in ("start", "end"):
            p = getattr(ob, end)
            if p is not None and not _inside(p[0], p[1], size):
                out.append((f"{key}.{end}", f"({p[0]:g}, {p[1]:g}) is outside the pool"))
        if ob.kind == "ledge" and ob.width is not None and ob.side is not None:
            across = sx if ob.side in ("x_min", "x_max") else sz
            if ob.width >= across:
                out.append((f"{key}.width", f"{ob.width:g} m reaches across the whole pool ({across:g} m from "
                            f"side {ob.side}); a ledge is a shelf along its wall: make it narrower"))
                continue
        if ob.kind == "ledge" and ob.span is not None and ob.span[1] > _side_length(ob.side, size) + 1e-9:
            out.append((f"{key}.span", f"ends at {ob.span[1]:g} m, beyond side {ob.side} "
                        f"({_side_length(ob.side, size):g} m long)"))
            continue
        if not any(k.startswith(key) for k, _ in out) and footprint_cells(ob, X, Z, size) == 0:
            out.append((key, f"covers no water cell (cell = {level.pool.cell:g} m): make it larger or the cell smaller"))

    for j, wm in enumerate(level.wave_makers):
        key = f"wave_maker[{j}]"
        if not ok(key):
            continue
        if wm.position is not None and not _inside(*wm.position, size):
            out.append((f"{key}.position", f"({wm.position[0]:g}, {wm.position[1]:g}) is outside the pool"))
        if wm.side is not None:
            across = sx if wm.side in ("x_min", "x_max") else sz
            if (wm.width or 0.3) >= across / 2:
                out.append((f"{key}.width", f"{wm.width or 0.3:g} m is half the pool or more; keep the paddle zone narrow"))
            if wm.span is not None and wm.span[1] > _side_length(wm.side, size) + 1e-9:
                out.append((f"{key}.span", f"ends at {wm.span[1]:g} m, beyond side {wm.side}"))

    def in_obstacle(x: float, y: float, z: float) -> str | None:
        for k, ob in obstacles:
            top = float(obstacle_height(ob, np.array([x]), np.array([z]), size)[0])
            # top 0: (x, z) is off the obstacle's footprint; y < 0 is "below the floor", said elsewhere
            if 0.0 <= y < top:
                return f"is inside obstacle[{k}] ({ob.kind} with its top at {top:.3g} m): raise y above it"
        return None

    for section, items in _groups(("bottle", level.bottles), ("object", level.objects)):
        for j, b in enumerate(items):
            if not ok(f"{section}[{j}]"):
                continue
            x, y, z = b.position
            if section == "object" and (not _inside(x, z, size) or y < 0.0):
                out.append((f"object[{j}].position", f"({x:g}, {y:g}, {z:g}) is outside the pool "
                            f"(x in [0, {sx:g}], z in [0, {sz:g}], y >= 0)"))
                continue
            msg = in_obstacle(x, y, z) if _inside(x, z, size) else None
            if msg:
                out.append((f"{section}[{j}].position", msg))
    for section, items in _groups(("object", level.objects), ("throwable", level.throwables)):
        for j, b in enumerate(items):
            if b.material is not None and ok("materials") and ok(f"{section}[{j}].material"):
                msg = unknown_material(b.material, level.materials or {})
                if msg:
                    out.append((f"{section}[{j}].material", msg))
    for section, items in _groups(("object", level.objects), ("throwable", level.throwables)):
        for j, b in enumerate(items):
            key = f"{section}[{j}]"
            if not ok(key) or getattr(b, "kind", "object") != "object":
                continue
            if b.model == "box":    # (the defaults as engine/levels/setup.py spawns them)
                volume = float(np.prod(b.size or (0.3, 0.3, 0.3))) * float(b.scale) ** 3
            elif b.model == "sphere":
                volume = 4.0 / 3.0 * np.pi * (float(b.radius or 0.1) * float(b.scale)) ** 3
            else:
                continue
            if volume < MIN_BODY_VOLUME:
                out.append((f"{key}.{'size' if b.model == 'box' else 'radius'}",
                            f"makes a body of {volume:.3g} m^3; a body encloses at least {MIN_BODY_VOLUME:g} m^3 (1 cm^3)"))
    phys = level.physics
    if ok("physics"):
        for section, items, cap in (("bottle", level.bottles, "max_bottles"), ("object", level.objects, "max_props")):
            limit = getattr(phys, cap, None)
            if limit is not None and len(items) > limit:
                top = next(f.metadata.get("max") for f in dataclasses.fields(phys) if f.name == cap)
                fix = (f"place at most {limit}" if top is not None and limit >= top
                       else f"raise it (at most {top}) or place fewer")
                out.append((f"{section}[{limit}]", f"{len(items)} [[{section}]] tables; physics.{cap} is {limit}: "
                            f"{fix}"))
    if len(level.throwables) > MAX_THROWABLES:
        out.append((f"throwable[{MAX_THROWABLES}]", f"{len(level.throwables)} [[throwable]] tables; the game's keys "
                    f"1-{MAX_THROWABLES} pick at most {MAX_THROWABLES} (offer fewer)"))
    seen: dict[str, int] = {}
    for j, th in enumerate(level.throwables):
        if not ok(f"throwable[{j}].name"):
            continue
        if th.name in seen:
            out.append((f"throwable[{j}].name", f'"{th.name}" is already throwable[{seen[th.name]}]; names must differ'))
        seen.setdefault(th.name, j)
    return out


def bottle_model_problem(name: str) -> str | None:
    """Why a bottle model name cannot be used (None when it can): a bottle set is three files in
    content/models/ (<name>.obj, <name>_fragments.obj, <name>.json), named, never a path."""
    import re

    from engine.meshes import load_bottle_set
    if not re.fullmatch(r"[A-Za-z0-9_\-]{1,64}", name):
        return f'"{name[:60]}" is not a bottle model name (letters, digits, "_" and "-": a set in content/models/)'
    from engine.paths import MODELS
    if not (MODELS / f"{name}.json").is_file():
        sets = sorted(p.stem for p in MODELS.glob("*.json"))
        also = (f'; "{name}" is a model for an [[object]] or an object [[throwable]]'
                if (MODELS / f"{name}.obj").is_file() else "")
        return f'no bottle model "{name}": the bottle models are {", ".join(sets)}{also}'
    try:
        load_bottle_set(name)
    except Exception as exc:   # missing or broken files: say which and why
        return f'bottle model "{name}" cannot be loaded: {type(exc).__name__}: {str(exc)[:200]}'
    return None


def check_files(level: "Level", bad: Iterable[str] = ()) -> list[Problem]:
    """Problems with the files a level names: its heightmap image and its object models."""
    ok = _clean(bad)
    out: list[Problem] = []
    t = level.terrain
    if t is not None and t.kind == "heightmap" and t.image and ok("terrain.image"):
        try:
            read_heightmap(image_path(t.image, level.path))
        except ResourceError as exc:
            out.append(("terrain.image", str(exc)))
    for section, items in _groups(("bottle", level.bottles), ("throwable", level.throwables)):
        for j, b in enumerate(items or ()):
            if b is None or (section == "throwable" and b.kind != "bottle") or not ok(f"{section}[{j}].model"):
                continue
            msg = bottle_model_problem(b.model or "bottle")
            if msg:
                out.append((f"{section}[{j}].model", msg))
    for section, items in _groups(("object", level.objects), ("throwable", level.throwables)):
        for j, b in enumerate(items or ()):
            if b is None or (section == "throwable" and b.kind != "object") or not b.model:
                continue
            if not ok(f"{section}[{j}].model"):
                continue
            try:
                path = find_model(b.model, level.path)
                if path is not None and ok(f"{section}[{j}].scale"):
                    volume = check_obj(path) * float(b.scale) ** 3
                    if volume < MIN_BODY_VOLUME:
                        out.append((f"{section}[{j}].scale", f"makes the model enclose {volume:.3g} m^3; a body "
                                    f"encloses at least {MIN_BODY_VOLUME:g} m^3 (1 cm^3)"))
            except ResourceError as exc:
                out.append((f"{section}[{j}].model", str(exc)))
    return out


START_TOLERANCE = 0.005   # m: how far a body placed at t = 0 may reach into the bed, a wall or another body


def _start_meshes(level: "Level") -> list[tuple[str, np.ndarray]]:
    """(key, world vertices) of every body the level places at t = 0, as the simulation builds
    them (engine.levels.setup: the same models, centre of mass at `position`)."""
    from engine.kernels.rigid import quat_to_matrix
    from engine.levels.setup import bottle_shape, object_shape
    out = []
    for j, b in enumerate(level.bottles):
        v = bottle_shape(level, b.model or "bottle", b.fill).vertices
        out.append((f"bottle[{j}]", v @ quat_to_matrix(np.asarray(b.orientation, float)).T + np.asarray(b.position)))
    for j, ob in enumerate(level.objects):
        v = object_shape(level, ob).vertices
        out.append((f"object[{j}]", v @ quat_to_matrix(np.asarray(ob.orientation, float)).T + np.asarray(ob.position)))
    return out


def check_start_poses(level: "Level") -> list[Problem]:
    """Bodies placed where the first step would fling them: reaching more than START_TOLERANCE
    into the bed (floor, terrain, obstacles), into a wall below its top, or into another body
    (their convex hulls overlapping along every face normal of either; an edge-to-edge overlap of
    two hulls turned across each other can read a little deep). Run on a level with no other
    problem."""
    from scipy.spatial import ConvexHull, QhullError

    from engine.terrain import build_bed, outside_walls
    out: list[Problem] = []
    terrain = build_bed(dataclasses.replace(level, obstacles=()))
    if float(terrain.max()) > level.pool.wall_height:
        out.append(("terrain", f"rises to {float(terrain.max()):.3g} m, above the walls' top "
                    f"({level.pool.wall_height:g} m): raise pool.wall_height or lower the terrain"))
    bodies = _start_meshes(level)
    if not bodies:
        return out
    sx, sz = level.pool.size
    dx = level.pool.cell
    bed = build_bed(level)
    nz, nx = bed.shape
    tol = START_TOLERANCE
    for key, v in bodies:
        i = np.clip((v[:, 0] / dx).astype(int), 0, nx - 1)
        k = np.clip((v[:, 2] / dx).astype(int), 0, nz - 1)
        over = outside_walls(v[:, 0], v[:, 2], (sx, sz))
        inside = over <= 0.0
        deep = float((bed[k, i] - v[:, 1])[inside].max()) if inside.any() else 0.0
        if deep > tol:
            out.append((f"{key}.position", f"puts the body {deep * 1000:.0f} mm into the pool's bed "
                        f"(raise its y by at least {deep:.3g} m)"))
            continue
        # outside the walls the solid is the wall and the deck on it, up to wall_height
        below = ~inside & (v[:, 1] < level.pool.wall_height)
        if below.any():
            side = float(over[below].max())
            up = float((level.pool.wall_height - v[:, 1])[below].max())
            if min(side, up) > tol:
                out.append((f"{key}.position", f"puts the body {side * 1000:.0f} mm into a wall of the pool "
                            f"(move it {side:.3g} m into the pool, or raise it {up:.3g} m over the walls' top)"))
    hulls = []
    for _, v in bodies:
        try:
            hulls.append(ConvexHull(v).equations)
        except QhullError:
            hulls.append(None)
    centre = [v.mean(axis=0) for _, v in bodies]
    reach = [float(np.linalg.norm(v - c, axis=1).max()) for (_, v), c in zip(bodies, centre)]
    for a in range(len(bodies)):
        for b in range(a + 1, len(bodies)):
            if np.linalg.norm(centre[a] - centre[b]) >= reach[a] + reach[b]:
                continue
            if hulls[a] is None and hulls[b] is None:
                continue
            # overlap along the hulls' face normals (separating axes): the least is the depth
            axes = np.vstack([h for h in (hulls[a], hulls[b]) if h is not None])[:, :3]
            pa, pb = bodies[a][1] @ axes.T, bodies[b][1] @ axes.T
            depth = float((np.minimum(pa.max(axis=0), pb.max(axis=0))
                           - np.maximum(pa.min(axis=0), pb.min(axis=0))).min())
            if depth > tol:
                out.append((f"{bodies[b][0]}.position", f"puts the body {depth * 1000:.0f} mm into "
                            f"{bodies[a][0]}; move one of them apart"))
    return out
