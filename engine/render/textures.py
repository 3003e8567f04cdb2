"""Procedural textures in numpy: pool tiles (diffuse + specular) and the sky cube map.

Generated in code, so the repository holds no binary assets; the same seed gives the same tiles.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from engine.levels.schema import SkySpec


def tile_maps(size: int = 256, tiles: int = 4, grout: float = 0.05, seed: int = 3
              ) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """Return (diffuse (size, size, 3), specular (size, size)) for `tiles` x `tiles` square tiles.

    Glazed tiles: near-white with a slight per-tile shade and a soft bevel, glossy (specular high);
    grout lines: grey and matte. One texture repeat covers `tiles` tiles.
    """
    rng = np.random.default_rng(seed)
    u = (np.arange(size) + 0.5) / size * tiles
    fu = u % 1.0
    iu = np.floor(u).astype(int)
    fx, fy = np.meshgrid(fu, fu)
    ix, iy = np.meshgrid(iu, iu)
    edge = np.minimum(np.minimum(fx, 1 - fx), np.minimum(fy, 1 - fy))   # distance to the tile border
    is_grout = edge < grout / 2
    bevel = np.clip((edge - grout / 2) / 0.06, 0, 1) ** 0.5
    shade = rng.uniform(0.93, 1.0, (tiles, tiles))[iy % tiles, ix % tiles]
    speck = rng.normal(0, 0.015, (size, size))
    base = np.array([0.86, 0.93, 0.96])
    diffuse = base[None, None, :] * (shade * (0.9 + 0.1 * bevel) + speck)[..., None]
    diffuse[is_grout] = (0.55, 0.58, 0.58)
    spec = np.where(is_grout, 0.08, 0.85 * bevel + 0.1)
    return ((np.clip(diffuse, 0, 1) * 255).astype(np.uint8), (np.clip(spec, 0, 1) * 255).astype(np.uint8))


def sky_color(directions: NDArray[np.float64], sky: SkySpec) -> NDArray[np.float64]:
    """Return the sky's linear RGB for unit view directions (..., 3): gradient plus sun glow."""
    d = np.asarray(directions, float)
    y = d[..., 1:2]
    zen, hor = np.asarray(sky.zenith), np.asarray(sky.horizon)
    up = hor + (zen - hor) * np.sqrt(np.clip(y, 0, 1))
    ground = hor * 0.8                       # below the horizon: hazy distance, a little darker
    col = np.where(y >= 0, up, ground + (hor - ground) * np.exp(np.clip(y, -1, 0) * 6))
    sun = np.asarray(sky.sun_direction, float)
    sun = sun / np.linalg.norm(sun)
    c = np.clip(d @ sun, 0, 1)[..., None]
    col = col + np.asarray(sky.sun_color) * (0.35 * c ** 16 + 4.0 * c ** 2000)
    return col


def cube_faces(sky: SkySpec, n: int = 64) -> list[NDArray[np.uint8]]:
    """Return the six sky faces (n, n, 3) uint8 in GL order +x, -x, +y, -y, +z, -z."""
    t, s = np.meshgrid((np.arange(n) + 0.5) / n * 2 - 1, (np.arange(n) + 0.5) / n * 2 - 1, indexing="ij")
    one = np.ones_like(s)
    dirs = [np.stack(v, -1) for v in (
        (one, -t, -s), (-one, -t, s), (s, one, t), (s, -one, -t), (s, -t, one), (-s, -t, -one))]
    out = []
    for d in dirs:
        d = d / np.linalg.norm(d, axis=-1, keepdims=True)
        out.append((np.clip(sky_color(d, sky), 0, 1) ** (1 / 1.0) * 255).astype(np.uint8))
    return out
