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


# -- materials: (size, size, 4) uint8, rgb colour and a gloss (specular) map in alpha -------------
def _smooth_noise(size: int, cells: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """Tiling value noise in [0, 1]: a `cells` x `cells` random lattice, bicubic-smoothed."""
    lattice = rng.random((cells, cells))
    u = (np.arange(size) + 0.5) / size * cells
    i0 = np.floor(u).astype(int)
    f = u - i0
    f = f * f * (3 - 2 * f)
    i1 = (i0 + 1) % cells
    i0 %= cells
    a = lattice[i0][:, i0] * (1 - f)[None, :] + lattice[i0][:, i1] * f[None, :]
    b = lattice[i1][:, i0] * (1 - f)[None, :] + lattice[i1][:, i1] * f[None, :]
    return a * (1 - f)[:, None] + b * f[:, None]


def _fractal(size: int, rng: np.random.Generator, octaves: tuple[int, ...] = (4, 8, 16, 32, 64)) -> NDArray[np.float64]:
    total = np.zeros((size, size))
    amp, norm = 1.0, 0.0
    for cells in octaves:
        total += amp * _smooth_noise(size, cells, rng)
        norm += amp
        amp *= 0.55
    return total / norm


def _pack(diffuse: NDArray[np.float64], gloss: NDArray[np.float64]) -> NDArray[np.uint8]:
    return (np.clip(np.dstack([diffuse, gloss]), 0, 1) * 255).astype(np.uint8)


def sand_map(size: int = 256, seed: int = 5) -> NDArray[np.uint8]:
    """Beach sand: warm, grainy, faint ripples; matte. One repeat covers one metre."""
    rng = np.random.default_rng(seed)
    n = _fractal(size, rng)
    grain = rng.random((size, size))
    y, x = np.mgrid[0:size, 0:size] / size
    ripple = 0.5 + 0.5 * np.sin(2 * np.pi * (6 * x + 1 * y) + 3.0 * (n - 0.5))
    shade = 0.80 + 0.16 * n + 0.06 * ripple + 0.08 * (grain - 0.5)
    base = np.array([0.86, 0.76, 0.56])
    return _pack(base * shade[..., None], 0.05 + 0.05 * grain)


def stone_map(size: int = 256, seed: int = 7, blocks: int = 3) -> NDArray[np.uint8]:
    """Harbour stone: rough grey-brown setts in offset courses with dark joints; low gloss."""
    rng = np.random.default_rng(seed)
    n = _fractal(size, rng)
    v = (np.arange(size) + 0.5) / size * blocks
    row = np.floor(v).astype(int)
    fy = v % 1.0
    u = (np.arange(size) + 0.5) / size * blocks
    fx = (u[None, :] + 0.5 * (row[:, None] % 2)) % 1.0
    col = np.floor(u[None, :] + 0.5 * (row[:, None] % 2)).astype(int) % blocks
    fy = np.broadcast_to(fy[:, None], fx.shape)
    edge = np.minimum(np.minimum(fx, 1 - fx), np.minimum(fy, 1 - fy))
    joint = edge < 0.035
    tone = rng.uniform(0.75, 1.05, (blocks, blocks))[row[:, None] % blocks, col]
    base = np.array([0.56, 0.54, 0.50])
    shade = tone * (0.78 + 0.32 * n) * (0.85 + 0.15 * np.clip(edge / 0.12, 0, 1))
    diffuse = base * shade[..., None]
    diffuse[joint] = (0.22, 0.21, 0.20)
    return _pack(diffuse, np.where(joint, 0.02, 0.10 + 0.1 * n))


def concrete_map(size: int = 256, seed: int = 9) -> NDArray[np.uint8]:
    """Cast concrete: mid grey, mottled, with small pits; matte."""
    rng = np.random.default_rng(seed)
    n = _fractal(size, rng, (8, 16, 32, 64))
    pits = rng.random((size, size)) < 0.004
    shade = 0.70 + 0.22 * n
    diffuse = np.array([0.66, 0.66, 0.63]) * shade[..., None]
    diffuse[pits] *= 0.55
    return _pack(diffuse, 0.08 + 0.04 * n)


def wood_map(size: int = 256, seed: int = 13, planks: int = 4) -> NDArray[np.uint8]:
    """Weathered planks: grain along u, dark gaps between planks; a little sheen."""
    rng = np.random.default_rng(seed)
    n = _fractal(size, rng)
    v = (np.arange(size) + 0.5) / size * planks
    plank = np.floor(v).astype(int)
    gap = (v % 1.0) < 0.05
    u = np.arange(size) / size
    grain = 0.5 + 0.5 * np.sin(2 * np.pi * (14 * v[:, None] + 2.5 * n) + 0.3 * u[None, :])
    tone = rng.uniform(0.8, 1.1, planks)[plank]
    diffuse = np.array([0.55, 0.38, 0.22]) * (tone[:, None] * (0.75 + 0.25 * grain))[..., None]
    diffuse[gap] = (0.16, 0.11, 0.07)
    return _pack(diffuse, 0.15 + 0.1 * grain)


def tile_map(size: int = 256) -> NDArray[np.uint8]:
    """Glazed pool tiles (tile_maps) as one RGBA array."""
    d, s = tile_maps(size)
    return np.dstack([d, s])


MATERIALS = {"tile": tile_map, "sand": sand_map, "stone": stone_map, "concrete": concrete_map, "wood": wood_map}


def material_map(name: str) -> NDArray[np.uint8]:
    """The (256, 256, 4) colour + gloss map of a [look] material name."""
    return MATERIALS[name]()


def streak_map(size: int = 128, seed: int = 17) -> NDArray[np.uint8]:
    """A tiling foam pattern (size, size) uint8: patchy bright blobs and threads on dark, for the
    foam the water carries along (water.frag reads it at offsets that move with the flow)."""
    rng = np.random.default_rng(seed)
    n = _fractal(size, rng, (4, 8, 16, 32))
    m = _fractal(size, rng, (8, 16, 32))
    threads = 1.0 - np.abs(2.0 * m - 1.0)            # ridges of the second noise
    v = 0.6 * n + 0.55 * threads ** 3
    v = (v - v.min()) / (v.max() - v.min())
    return (v * 255).astype(np.uint8)


# -- palettes for the debug views (water.frag reads them; the legends show the same rows) -----------
def palettes(n: int = 256) -> NDArray[np.uint8]:
    """(2, n, 4) uint8: row 0 sequential, pale sand (shallow) to deep navy (deep), lightness falling
    steadily; row 1 diverging, blue (negative) - near white (0) - red (positive)."""
    t = np.linspace(0.0, 1.0, n)
    seq_stops = np.array([[0.99, 0.96, 0.78], [0.63, 0.85, 0.73], [0.25, 0.67, 0.78],
                          [0.13, 0.40, 0.68], [0.05, 0.12, 0.36]])
    div_stops = np.array([[0.13, 0.30, 0.67], [0.50, 0.70, 0.88], [0.96, 0.96, 0.94],
                          [0.93, 0.60, 0.45], [0.70, 0.10, 0.15]])

    def ramp(stops: NDArray[np.float64]) -> NDArray[np.float64]:
        x = np.linspace(0.0, 1.0, len(stops))
        return np.stack([np.interp(t, x, stops[:, c]) for c in range(3)], 1)

    out = np.ones((2, n, 4))
    out[0, :, :3] = ramp(seq_stops)
    out[1, :, :3] = ramp(div_stops)
    return (out * 255).round().astype(np.uint8)


def legend_image(title: str, lo: float, hi: float, unit: str, row: int, width: int = 220,
                 height: int = 58) -> NDArray[np.uint8]:
    """A legend (height, width, 4) uint8, top row first: title, the palette row as a bar, and the
    values at its ends and middle. Drawn with Pillow's built-in font (no font files needed)."""
    from PIL import Image, ImageDraw
    img = Image.new("RGBA", (width, height), (20, 24, 28, 200))
    d = ImageDraw.Draw(img)
    d.text((6, 3), title, fill=(240, 240, 240, 255))
    bar = palettes(256)[row]
    x0, x1, y0, y1 = 8, width - 8, 18, 34
    cols = np.linspace(0, 255, x1 - x0).astype(int)
    strip = np.repeat(bar[cols][None, :, :], y1 - y0, 0)
    img.paste(Image.fromarray(strip, "RGBA"), (x0, y0))
    d.rectangle((x0 - 1, y0 - 1, x1, y1), outline=(230, 230, 230, 255))
    for frac, value in ((0.0, lo), (0.5, 0.5 * (lo + hi)), (1.0, hi)):
        x = x0 + frac * (x1 - x0 - 1)
        d.line((x, y1, x, y1 + 3), fill=(230, 230, 230, 255))
        text = f"{value:.3g}"
        if frac == 1.0:
            text += f" {unit}"
        tw = d.textlength(text)
        d.text((min(max(x - tw / 2, 2), width - tw - 2), y1 + 5), text, fill=(240, 240, 240, 255))
    return np.asarray(img, np.uint8)
