"""Solid columns in a height field (Kellomaki 2014's blockers): kernels.

A blocked column (k, i) has a top t[k, i] above the terrain bed B[k, i]; the water sees the bed
max(B, t). Raising a column's bed from b to b' keeps the water above b' and moves the rest,
v = h - max(0, b + h - b'), to the nearest free (unblocked) columns, wet ones first:

    sum h dx^2 is unchanged to round-off (the water is moved aside, never lost).

Lowering a bed (a blocker left) keeps h: the surface drops and the water flows into the hole.
Faces between a blocked column and its neighbours need nothing more: the water scheme passes no
flow across a face where the higher surface does not reach over the higher bed.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from engine.kernels.rigid import quat_to_matrix


# Triangle meshes of every model, packed: model m's vertices are verts[vert_start[m]:vert_start[m + 1]]
# ((V, 3) float, body frame, m), its triangles tris[tri_start[m]:tri_start[m + 1]] ((T, 3) int32
# indices into the model's own vertices)
Meshes = namedtuple("Meshes", ["verts", "tris", "vert_start", "tri_start"])
# The bodies to stand in the water: model_id (N,) int64, pos (N, 3) float m, quat (N, 4) float
# (w, x, y, z) body -> world, active (N,) bool (which of them count)
Poses = namedtuple("Poses", ["model_id", "pos", "quat", "active"])


@njit(cache=True)
def column_extent(meshes, poses, dx, top, bottom):
    """Highest and lowest point of the active bodies (Poses, Meshes) over each cell centre (cells dx
    wide): top[k, i] = max y, bottom[k, i] = min y over every triangle whose (x, z) projection holds
    the centre (top and bottom are only raised / lowered here: start them at -inf / +inf)."""
    model_verts, model_tris, vert_off, tri_off = meshes.verts, meshes.tris, meshes.vert_start, meshes.tri_start
    model_id, pos, quat, active = poses.model_id, poses.pos, poses.quat, poses.active
    nz, nx = top.shape
    world = np.empty((64, 3))
    for b in range(pos.shape[0]):
        if not active[b]:
            continue
        rot = quat_to_matrix(quat[b])
        m = model_id[b]
        v0 = vert_off[m]
        nv = vert_off[m + 1] - v0
        if world.shape[0] < nv:
            world = np.empty((nv, 3))
        for j in range(nv):
            lv = model_verts[v0 + j]
            for a in range(3):
                world[j, a] = pos[b, a] + rot[a, 0] * lv[0] + rot[a, 1] * lv[1] + rot[a, 2] * lv[2]
        for tri in range(tri_off[m], tri_off[m + 1]):
            a = world[model_tris[tri, 0]]
            bb = world[model_tris[tri, 1]]
            c = world[model_tris[tri, 2]]
            det = (bb[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (bb[2] - a[2])
            if det == 0.0:
                continue
            i0 = max(int(np.ceil(min(a[0], bb[0], c[0]) / dx - 0.5)), 0)
            i1 = min(int(np.floor(max(a[0], bb[0], c[0]) / dx - 0.5)), nx - 1)
            k0 = max(int(np.ceil(min(a[2], bb[2], c[2]) / dx - 0.5)), 0)
            k1 = min(int(np.floor(max(a[2], bb[2], c[2]) / dx - 0.5)), nz - 1)
            for k in range(k0, k1 + 1):
                pz = (k + 0.5) * dx
                for i in range(i0, i1 + 1):
                    px = (i + 0.5) * dx
                    l1 = ((px - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (pz - a[2])) / det
                    l2 = ((bb[0] - a[0]) * (pz - a[2]) - (px - a[0]) * (bb[2] - a[2])) / det
                    if l1 < 0.0 or l2 < 0.0 or l1 + l2 > 1.0:
                        continue
                    y = a[1] + l1 * (bb[1] - a[1]) + l2 * (c[1] - a[1])
                    if y > top[k, i]:
                        top[k, i] = y
                    if y < bottom[k, i]:
                        bottom[k, i] = y
    return 0


@njit(cache=True)
def resting_tops(top, bottom, terrain, gap, out):
    """out[k, i] = top[k, i] where a body stands on the terrain there (its bottom within `gap` of
    the terrain bed) and reaches above it, else -inf. Returns how many columns are blocked."""
    nz, nx = top.shape
    count = 0
    for k in range(nz):
        for i in range(nx):
            t = -np.inf
            if bottom[k, i] <= terrain[k, i] + gap and top[k, i] > terrain[k, i]:
                t = top[k, i]
                count += 1
            out[k, i] = t
    return count


@njit(cache=True)
def beds_differ(bed, terrain, tops):
    """True if the bed max(terrain, tops) differs from `bed` anywhere."""
    nz, nx = bed.shape
    for k in range(nz):
        for i in range(nx):
            if bed[k, i] != max(terrain[k, i], tops[k, i]):
                return True
    return False


@njit(cache=True)
def set_columns(h, bed, u, w, terrain, tops, max_radius):
    """Set bed = max(terrain, tops) (tops -inf where free), moving the water of every raised column
    to the nearest free columns (module docstring). Velocities on the faces of a raised column are
    zeroed (the column is solid). Returns the volume moved, in m (per dx^2)."""
    nz, nx = h.shape
    moved = 0.0
    pending = np.zeros(nz * nx)
    cells = np.empty(nz * nx, np.int64)
    n_pending = 0
    for k in range(nz):
        for i in range(nx):
            new = max(terrain[k, i], tops[k, i])
            old = bed[k, i]
            if new > old:
                keep = max(0.0, old + h[k, i] - new)
                v = h[k, i] - keep
                h[k, i] = keep
                if v > 0.0:
                    pending[n_pending] = v
                    cells[n_pending] = k * nx + i
                    n_pending += 1
                u[k, i] = 0.0
                u[k, i + 1] = 0.0
                w[k, i] = 0.0
                w[k + 1, i] = 0.0
            bed[k, i] = new
    for p in range(n_pending):
        v = pending[p]
        moved += v
        k0 = cells[p] // nx
        i0 = cells[p] % nx
        # the nearest square ring holding a free wet column; failing that, a free one
        target_r = -1
        dry_r = -1
        for r in range(1, max_radius + 1):
            wet = 0
            free = 0
            for k in range(max(k0 - r, 0), min(k0 + r, nz - 1) + 1):
                edge_k = k == k0 - r or k == k0 + r
                for i in range(max(i0 - r, 0), min(i0 + r, nx - 1) + 1):
                    if not edge_k and i != i0 - r and i != i0 + r:
                        continue
                    if tops[k, i] > terrain[k, i]:
                        continue
                    free += 1
                    if h[k, i] > 0.0:
                        wet += 1
            if wet > 0:
                target_r = r
                break
            if free > 0 and dry_r < 0:
                dry_r = r
        want_wet = target_r > 0
        r = target_r if want_wet else dry_r
        if r < 0:
            h[k0, i0] += v                       # nowhere free at all: the water stays on top
            continue
        count = 0
        for pas in range(2):
            for k in range(max(k0 - r, 0), min(k0 + r, nz - 1) + 1):
                edge_k = k == k0 - r or k == k0 + r
                for i in range(max(i0 - r, 0), min(i0 + r, nx - 1) + 1):
                    if not edge_k and i != i0 - r and i != i0 + r:
                        continue
                    if tops[k, i] > terrain[k, i] or (want_wet and not h[k, i] > 0.0):
                        continue
                    if pas == 0:
                        count += 1
                    else:
                        h[k, i] += v / count
    return moved
