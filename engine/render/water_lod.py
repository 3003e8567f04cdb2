"""Level of detail for the water mesh (pure numpy): which quads the geometry shader draws.

The water grid's vertices are its cell centres; a quad of stride s joins vertices (i, k) and
(i + s, k + s). The grid is cut into tiles of TILE x TILE quads and each tile takes one stride,
a power of two, the largest that satisfies either rule:

- size: on screen a quad stays under `lod_pixels` (s * cell_px <= lod_pixels, cell_px the size
  of a cell at the tile's nearest point, an upper bound);
- flatness: where every cell of the tile (and its one-cell rim) is wet, the piecewise-linear
  surface through every s-th vertex departs from the full one by at most `error_pixels` on
  screen. Linear interpolation over a span L errs by at most L^2 / 8 |f''|, so for a quad of side
  s dx and its diagonal: delta <= (s dx)^2 / 8 (|eta_xx| + 2 |eta_xz| + |eta_zz|) (the maxima
  over the tile), seen at distance D as delta * focal_px / D pixels.

The fragment shader reads the normal, depth and foam of every cell either way, so the stride
only changes the geometry (positions, silhouettes), never the shading. Neighbouring tiles differ
by at most one level (a factor of 2): the geometry shader moves the vertices of the finer tile
that lie between two vertices of the coarser one onto the coarser one's edge, so no crack opens
(water.geom). A shore, an obstacle or any dry cell keeps a tile on the size rule.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

TILE = 16             # quads per tile side; every stride divides it
STRIDES = (1, 2, 4, 8, 16)


def tile_strides(eta: NDArray, wet: NDArray, dx: float, eye: NDArray, focal_px: float,
                 lod_pixels: float, error_pixels: float, water_y: float) -> NDArray[np.int32]:
    """Return the stride of each tile, (ceil((nz - 1) / TILE), ceil((nx - 1) / TILE)) int32.

    `eta`: surface heights (nz, nx) at the vertices; `wet`: (nz, nx) bool; `eye`: the camera
    position; `focal_px`: pixels per unit of tan(angle) (projection[1, 1] * height / 2).
    """
    nz, nx = eta.shape
    tz, tx = -(-(nz - 1) // TILE), -(-(nx - 1) // TILE)
    # nearest point of each tile (in xz, at the water's level) to the eye: an upper bound on the
    # size of one cell there, cell_px = dx focal_px / distance
    x0 = np.arange(tx) * TILE * dx
    z0 = np.arange(tz) * TILE * dx
    px = np.clip(eye[0], x0, x0 + TILE * dx)
    pz = np.clip(eye[2], z0, z0 + TILE * dx)
    dist = np.sqrt((px[None, :] - eye[0]) ** 2 + (pz[:, None] - eye[2]) ** 2 + (water_y - eye[1]) ** 2)
    px_per_m = focal_px / np.maximum(dist, 1e-6)
    cell_px = dx * px_per_m
    level = np.zeros((tz, tx), np.int32)
    if lod_pixels > 0:
        for n, s in enumerate(STRIDES[1:], 1):
            level[s * cell_px <= lod_pixels] = n
    if error_pixels > 0 and nz >= 3 and nx >= 3:
        e = np.asarray(eta, np.float32)
        curv = np.zeros((nz, nx), np.float32)          # |eta_xx| + 2 |eta_xz| + |eta_zz|, m^-1
        curv[:, 1:-1] += np.abs(e[:, 2:] - 2 * e[:, 1:-1] + e[:, :-2])
        curv[1:-1, :] += np.abs(e[2:, :] - 2 * e[1:-1, :] + e[:-2, :])
        curv[1:-1, 1:-1] += 0.5 * np.abs(e[2:, 2:] - e[2:, :-2] - e[:-2, 2:] + e[:-2, :-2])
        curv /= dx * dx
        dry = ~np.asarray(wet, bool)
        curv[dry] = np.inf
        # a tile of quads [t TILE, (t + 1) TILE) has vertices t TILE .. (t + 1) TILE; the 3 x 3
        # maximum takes in its last vertex and the second differences its rim vertices see
        near = curv.copy()                              # 3 x 3 maximum, one axis at a time
        np.maximum(near[1:], curv[:-1], out=near[1:])
        np.maximum(near[:-1], curv[1:], out=near[:-1])
        rows = near.copy()
        np.maximum(near[:, 1:], rows[:, :-1], out=near[:, 1:])
        np.maximum(near[:, :-1], rows[:, 1:], out=near[:, :-1])
        tile_curv = np.maximum.reduceat(np.maximum.reduceat(near, np.arange(0, nz - 1, TILE), axis=0),
                                        np.arange(0, nx - 1, TILE), axis=1)
        for n, s in enumerate(STRIDES[1:], 1):
            err_px = (s * dx) ** 2 / 8.0 * tile_curv * px_per_m
            level[(err_px <= error_pixels) & (level < n)] = n
    # neighbours differ by one level at most: lower a tile until no neighbour is two finer
    for _ in range(len(STRIDES)):
        p = np.pad(level, 1, mode="edge")
        lowest = np.minimum.reduce([p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]])
        capped = np.minimum(level, lowest + 1)
        if np.array_equal(capped, level):
            break
        level = capped
    return (1 << level).astype(np.int32)


def blocks(strides: NDArray[np.int32], shape: tuple[int, int]) -> NDArray[np.int32]:
    """Return the quads to draw, (n, 3) int32 rows (i, k, stride): each tile's quads of its stride,
    covering quads 0 .. nx - 2 by 0 .. nz - 2 (a last quad may reach past the grid; the shader
    clamps its far vertices onto the last row or column)."""
    nz, nx = shape
    out = []
    for s in np.unique(strides):
        tk, ti = np.nonzero(strides == s)
        a = np.arange(0, TILE, int(s))
        oi = (ti[:, None, None] * TILE + a[None, None, :]).repeat(len(a), 1)
        ok = (tk[:, None, None] * TILE + a[None, :, None]).repeat(len(a), 2)
        keep = (oi < nx - 1) & (ok < nz - 1)
        out.append(np.stack([oi[keep], ok[keep], np.full(int(keep.sum()), s)], 1))
    return np.concatenate(out).astype(np.int32) if out else np.zeros((0, 3), np.int32)
