"""The pool's bed as a height field: terrain (flat, slope, heightmap, bumps) plus obstacles.

Pure numpy over cell centres. A cell belongs to an obstacle when its centre lies inside the
obstacle's footprint; the bed there is the higher of the terrain and the obstacle's top, so the
water treats obstacles as dry land (or shoals) and bodies collide with them through the bed.

    bed = build_bed(level)                        # (nz, nx), m above the floor y = 0
    bed = build_bed(level, X, Z, heightmap=img)   # given cell centres and a loaded image in [0, 1]
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from engine.levels.features import ObstacleSpec, TerrainSpec
    from engine.levels.schema import Level

Array = NDArray[np.float64]

DECK = 6.0      # m: the deck's width round the pool, at the walls' top (bodies land on it; the renderer draws it)


def outside_walls(x, z, size: tuple[float, float]):
    """How far (x, z) lies outside the pool's walls, m: its largest distance past any of them (<= 0
    inside; more than DECK past the deck's outer edge). Scalars or arrays (elementwise);
    engine.kernels.contacts._outside is the same in the kernels."""
    sx, sz = size
    return np.maximum(np.maximum(-x, x - sx), np.maximum(-z, z - sz))


def cell_centres(level: "Level") -> tuple[Array, Array]:
    """X and Z of every cell centre, each (nz, nx): cell (k, i) at ((i + 0.5) dx, (k + 0.5) dx)."""
    nx, nz = level.pool.shape
    dx = level.pool.cell
    return np.meshgrid((np.arange(nx) + 0.5) * dx, (np.arange(nz) + 0.5) * dx)


def build_bed(level: "Level", X: Array | None = None, Z: Array | None = None,
              heightmap: Array | None = None) -> Array:
    """Return the bed height at the cell centres: terrain, then obstacles on top.

    A heightmap terrain reads its image (relative to the level file) unless `heightmap` gives it
    already loaded, as values in [0, 1] with row 0 at z = 0.
    """
    if X is None or Z is None:
        X, Z = cell_centres(level)
    t = level.terrain
    if t.kind == "heightmap" and heightmap is None:
        from engine.levels.resources import image_path, read_heightmap
        heightmap = read_heightmap(image_path(t.image or "", level.path))
    bed = terrain_height(t, X, Z, level.pool.size, heightmap)
    for ob in level.obstacles:
        bed = np.maximum(bed, obstacle_height(ob, X, Z, level.pool.size))
    return bed


def terrain_height(t: "TerrainSpec", X: Array, Z: Array, size: tuple[float, float],
                   heightmap: Array | None = None) -> Array:
    """Bed height of the terrain alone (no obstacles), never below the floor."""
    if t.kind == "slope":
        s = X if (t.axis or "x") == "x" else Z
        length = size[0] if (t.axis or "x") == "x" else size[1]
        a, b = t.span if t.span is not None else (0.0, length)
        h0, h1 = t.heights or (0.0, 0.0)
        frac = np.clip((s - a) / max(b - a, 1e-12), 0.0, 1.0)
        bed = h0 + frac * (h1 - h0)
    elif t.kind == "heightmap":
        if heightmap is None:
            raise ValueError("a heightmap terrain needs its image")
        lo, hi = t.heights or (0.0, 0.3)
        bed = lo + (hi - lo) * sample_image(heightmap, X / size[0], Z / size[1])
    else:
        bed = np.full(X.shape, float(t.height or 0.0))
    for bump in t.bumps:
        r = np.hypot(X - bump.center[0], Z - bump.center[1]) / bump.radius
        bed = bed + np.where(r < 1.0, bump.height * 0.5 * (1.0 + np.cos(np.pi * np.minimum(r, 1.0))), 0.0)
    return np.maximum(bed, 0.0)


def sample_image(img: Array, fx: Array, fz: Array) -> Array:
    """Bilinear sample of an image (rows along z, columns along x) at fractions fx, fz in [0, 1]."""
    rows, cols = img.shape
    px = np.clip(fx * cols - 0.5, 0.0, cols - 1.0)
    pz = np.clip(fz * rows - 0.5, 0.0, rows - 1.0)
    i0 = np.minimum(np.floor(px).astype(int), cols - 2) if cols > 1 else np.zeros_like(px, int)
    k0 = np.minimum(np.floor(pz).astype(int), rows - 2) if rows > 1 else np.zeros_like(pz, int)
    i1 = np.minimum(i0 + 1, cols - 1)
    k1 = np.minimum(k0 + 1, rows - 1)
    tx, tz = px - i0, pz - k0
    top = img[k0, i0] * (1 - tx) + img[k0, i1] * tx
    bottom = img[k1, i0] * (1 - tx) + img[k1, i1] * tx
    return top * (1 - tz) + bottom * tz


def _local(X: Array, Z: Array, center: tuple[float, float], angle_deg: float) -> tuple[Array, Array]:
    """Coordinates in a frame centred at `center` and turned `angle_deg` about y."""
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    dx, dz = X - center[0], Z - center[1]
    return c * dx + s * dz, -s * dx + c * dz


def obstacle_height(ob: "ObstacleSpec", X: Array, Z: Array, size: tuple[float, float]) -> Array:
    """Top of one obstacle over each cell centre; 0 where the centre is outside its footprint."""
    kind = ob.kind
    # the loader checks each kind has its keys (features._OBSTACLE_KEYS): the asserts say which
    if kind == "pillar":
        assert ob.center is not None and ob.radius is not None and ob.height is not None
        inside = np.hypot(X - ob.center[0], Z - ob.center[1]) <= ob.radius
        return np.where(inside, ob.height, 0.0)
    if kind in ("box", "ramp"):
        assert ob.center is not None and ob.size is not None
        lx, lz = _local(X, Z, ob.center, ob.angle or 0.0)
        hx, hz = ob.size[0] / 2, ob.size[1] / 2
        inside = (np.abs(lx) <= hx) & (np.abs(lz) <= hz)
        if kind == "box":
            assert ob.height is not None
            return np.where(inside, ob.height, 0.0)
        assert ob.heights is not None
        lo, hi = ob.heights
        return np.where(inside, lo + (hi - lo) * (lx + hx) / (2 * hx), 0.0)
    if kind == "ledge":
        assert ob.side is not None and ob.width is not None and ob.height is not None
        along = Z if ob.side in ("x_min", "x_max") else X
        length = size[1] if ob.side in ("x_min", "x_max") else size[0]
        a, b = ob.span if ob.span is not None else (0.0, length)
        depth = {"x_min": X, "x_max": size[0] - X, "z_min": Z, "z_max": size[1] - Z}[ob.side]
        inside = (depth <= ob.width) & (along >= a) & (along <= b)
        return np.where(inside, ob.height, 0.0)
    if kind == "wall":
        assert ob.start is not None and ob.end is not None and ob.height is not None
        (x0, z0), (x1, z1) = ob.start, ob.end
        ex, ez = x1 - x0, z1 - z0
        length2 = ex * ex + ez * ez
        t = np.clip(((X - x0) * ex + (Z - z0) * ez) / length2, 0.0, 1.0)
        dist = np.hypot(X - (x0 + t * ex), Z - (z0 + t * ez))
        inside = dist <= (ob.thickness or 0.1) / 2
        return np.where(inside, ob.height, 0.0)
    raise ValueError(f"unknown obstacle kind {kind!r}")


def footprint_cells(ob: "ObstacleSpec", X: Array, Z: Array, size: tuple[float, float]) -> int:
    """How many cells an obstacle covers (0 means it is lost between cell centres)."""
    if ob.kind == "ramp":
        assert ob.center is not None and ob.size is not None
        lx, lz = _local(X, Z, ob.center, ob.angle or 0.0)
        return int(((np.abs(lx) <= ob.size[0] / 2) & (np.abs(lz) <= ob.size[1] / 2)).sum())
    return int((obstacle_height(ob, X, Z, size) > 0.0).sum())
