"""Vertex arrays for drawing, built in pure numpy (no GL): the pool, the bottle and its held water, shards,
debug lines. (The physics' meshes, volumes and mass properties are engine.meshes.)

Vertex arrays are float32 and interleaved; each builder documents its layout. World units are
metres, y up, the pool floor at y = 0 and its corner at x = z = 0.
"""
from __future__ import annotations

import math

import numpy as np
from typing import Any

from numpy.typing import ArrayLike, NDArray

F32 = np.float32

# (radius, y) of the outer glass surface, bottom to lip, in the body frame (origin near the centre
# of mass). Height 0.28 m, body diameter 7.6 cm: a 0.5-0.7 L bottle.
GLASS_THICKNESS = 0.003      # shards' thickness, m


def crest_diagonal(eta: ArrayLike) -> NDArray[np.bool_]:
    """Return, per quad of the height grid, True where the quad splits along (i,j)-(i+1,j+1).

    That diagonal is chosen when eta[i,j] + eta[i+1,j+1] > eta[i+1,j] + eta[i,j+1]: it follows the
    crest, which reduces artefacts (Chentanez & Mueller 2010). Arrays are indexed [k, i] (z, x).
    This is the numpy reference of what shaders/water.geom does.
    """
    e = np.asarray(eta, float)
    return (e[:-1, :-1] + e[1:, 1:]) > (e[:-1, 1:] + e[1:, :-1])


def _quad(p0: Any, p1: Any, p2: Any, p3: Any, n: Any, uv0: Any, uv1: Any, uv2: Any, uv3: Any, mat: float
          ) -> list[list[float]]:
    out = []
    for p, uv in ((p0, uv0), (p1, uv1), (p2, uv2), (p0, uv0), (p2, uv2), (p3, uv3)):
        out.append([*p, *n, *uv, mat])
    return out


def pool_mesh(size: tuple[float, float], wall_height: float, deck: float = 6.0,
              repeat: float = 1.0, deck_repeat: float = 2.4) -> NDArray[np.float32]:
    """Return the basin's triangles: floor, four inner walls and the deck around the rim.

    Layout per vertex: position (3), normal (3), uv (2, in texture repeats: `repeat` metres inside
    the pool, `deck_repeat` on the deck), material (1: 0 floor, 1 deck, 2 outer wall, 3 inner walls). Faces wind counter-clockwise seen from the side their normal
    points to.
    """
    sx, sz = size
    h = wall_height
    t = 1.0 / repeat
    v: list[list[float]] = []
    # floor (normal up); counter-clockwise seen from above means x then -z
    v += _quad((0, 0, sz), (sx, 0, sz), (sx, 0, 0), (0, 0, 0), (0, 1, 0),
               (0, sz * t), (sx * t, sz * t), (sx * t, 0), (0, 0), 0)
    # inner walls, normals into the pool (material 3: the walls' own material)
    v += _quad((0, 0, 0), (sx, 0, 0), (sx, h, 0), (0, h, 0), (0, 0, 1), (0, 0), (sx * t, 0), (sx * t, h * t), (0, h * t), 3)
    v += _quad((sx, 0, sz), (0, 0, sz), (0, h, sz), (sx, h, sz), (0, 0, -1), (0, 0), (sx * t, 0), (sx * t, h * t), (0, h * t), 3)
    v += _quad((0, 0, sz), (0, 0, 0), (0, h, 0), (0, h, sz), (1, 0, 0), (0, 0), (sz * t, 0), (sz * t, h * t), (0, h * t), 3)
    v += _quad((sx, 0, 0), (sx, 0, sz), (sx, h, sz), (sx, h, 0), (-1, 0, 0), (0, 0), (sz * t, 0), (sz * t, h * t), (0, h * t), 3)
    # deck: four slabs around the rim at y = h (normal up)
    d = deck
    td = 1.0 / deck_repeat
    for (x0, z0, x1, z1) in ((-d, -d, sx + d, 0), (-d, sz, sx + d, sz + d), (-d, 0, 0, sz), (sx, 0, sx + d, sz)):
        v += _quad((x0, h, z1), (x1, h, z1), (x1, h, z0), (x0, h, z0), (0, 1, 0),
                   (x0 * td, z1 * td), (x1 * td, z1 * td), (x1 * td, z0 * td), (x0 * td, z0 * td), 1)
    # outer skirt of the deck down to the ground, so the deck does not float
    for (a, b, n) in ((( -d, -d), (sx + d, -d), (0, 0, -1)), ((sx + d, sz + d), (-d, sz + d), (0, 0, 1)),
                      ((-d, sz + d), (-d, -d), (-1, 0, 0)), ((sx + d, -d), (sx + d, sz + d), (1, 0, 0))):
        length = math.hypot(b[0] - a[0], b[1] - a[1]) * td
        v += _quad((b[0], -0.2, b[1]), (a[0], -0.2, a[1]), (a[0], h, a[1]), (b[0], h, b[1]), n,
                   (0, 0), (length, 0), (length, h * td), (0, h * td), 2)
    return np.asarray(v, F32)


def _quads(p0: NDArray, p1: NDArray, p2: NDArray, p3: NDArray, n: NDArray, uv: NDArray, mat: float
           ) -> NDArray[np.float32]:
    """Many quads at once: corners (m, 3) each, normals (m, 3), uvs (m, 4, 2) -> (6 m, 9) vertices."""
    m = len(p0)
    corners = np.stack([p0, p1, p2, p0, p2, p3], 1)                     # (m, 6, 3)
    uvs = uv[:, [0, 1, 2, 0, 2, 3], :]                                   # (m, 6, 2)
    out = np.empty((m, 6, 9), F32)
    out[..., 0:3] = corners
    out[..., 3:6] = n[:, None, :]
    out[..., 6:8] = uvs
    out[..., 8] = mat
    return out.reshape(-1, 9)


def bed_mesh(bed: ArrayLike, dx: float, repeat: float = 1.0, floor: float = 1e-4,
             cliff: float | None = None) -> NDArray[np.float32]:
    """Return surfaces for the raised parts of the bed (terrain: slopes, heightmaps, mounds).

    Every cell whose bed is above `floor` gets a top whose corners are the mean height of the
    neighbouring cells that are within `cliff` of it (default: one cell width), so slopes come out
    smooth; faces between cells that differ by more than `cliff` get vertical sides from the lower
    to the higher, facing the lower one. Same vertex layout as pool_mesh (material 0, the floor);
    empty when the bed is flat. Obstacles are not part of it: obstacle_mesh draws each from its
    own geometry.
    """
    b = np.asarray(bed, float)
    nz, nx = b.shape
    t = 1.0 / repeat
    cliff = dx if cliff is None else cliff
    parts: list[NDArray[np.float32]] = []
    k, i = np.nonzero(b > floor)
    if len(k):
        pad = np.pad(b, 1, mode="edge")
        own = b[k, i]

        def corner(dk: int, di: int) -> NDArray:
            # the four cells around corner (k + dk, i + di) in cell units; keep those near own height
            total = np.zeros(len(k))
            count = np.zeros(len(k))
            for a in (dk - 1, dk):
                for c in (di - 1, di):
                    v = pad[k + 1 + a, i + 1 + c]
                    near = np.abs(v - own) <= cliff
                    total += np.where(near, v, 0.0)
                    count += near
            return total / np.maximum(count, 1)

        y00, y10, y11, y01 = corner(0, 0), corner(0, 1), corner(1, 1), corner(1, 0)   # (z, x) corners
        x0, x1, z0, z1 = i * dx, (i + 1) * dx, k * dx, (k + 1) * dx
        # one normal per quad, from its diagonals
        d1 = np.stack([np.full(len(k), dx), y11 - y00, np.full(len(k), dx)], 1)
        d2 = np.stack([np.full(len(k), -dx), y01 - y10, np.full(len(k), dx)], 1)
        n = np.cross(d2, d1)
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        uv = np.stack([np.stack([x0, z1], 1), np.stack([x1, z1], 1), np.stack([x1, z0], 1),
                       np.stack([x0, z0], 1)], 1) * t
        parts.append(_quads(np.stack([x0, y01, z1], 1), np.stack([x1, y11, z1], 1), np.stack([x1, y10, z0], 1),
                            np.stack([x0, y00, z0], 1), n, uv, 0.0))
    for axis in (1, 0):
        side = _cliff_sides(b, axis, dx, cliff, t)
        if side is not None:
            parts.append(side)
    return np.concatenate(parts) if parts else np.zeros((0, 9), F32)


def _cliff_sides(b: NDArray, axis: int, dx: float, cliff: float, t: float) -> NDArray[np.float32] | None:
    """Vertical quads where the bed steps by more than `cliff` between neighbours along `axis`
    (1: across x faces, between columns i and i + 1; 0: across z faces, between rows k and k + 1),
    from the lower bed to the higher, facing the lower cell; None where there are none."""
    kk, ii = np.nonzero(np.abs(np.diff(b, axis=axis)) > cliff)
    if not len(kk):
        return None
    across_x = axis == 1
    near, far = b[kk, ii], (b[kk, ii + 1] if across_x else b[kk + 1, ii])
    lo, hi = np.minimum(near, far), np.maximum(near, far)
    at = ((ii if across_x else kk) + 1) * dx           # the face's x (or z)
    along = kk if across_x else ii                     # the cell along the face
    a0, a1 = along * dx, (along + 1) * dx
    facing_neg = near < far                            # the lower cell is on the - side
    sign = np.where(facing_neg, -1.0, 1.0)
    zero = np.zeros_like(sign)
    n = np.stack([sign, zero, zero] if across_x else [zero, zero, sign], 1)
    if not across_x:                                   # counter-clockwise seen from the lower cell
        a0, a1 = a1, a0
    pa = np.where(facing_neg, a0, a1)
    pb = np.where(facing_neg, a1, a0)
    uv = np.stack([np.stack([pa, lo], 1), np.stack([pb, lo], 1), np.stack([pb, hi], 1),
                   np.stack([pa, hi], 1)], 1) * t

    def corner(a: NDArray, y: NDArray) -> NDArray:
        return np.stack([at, y, a] if across_x else [a, y, at], 1)

    return _quads(corner(pa, lo), corner(pb, lo), corner(pb, hi), corner(pa, hi), n, uv, 0.0)


def _bottle() -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """The bottle of content/models (the one the physics uses): outer vertices and triangles,
    cavity profile (r, y), all in a frame centred on the outer solid's centroid."""
    from engine.meshes import load_bottle_set, mass_properties
    bs = load_bottle_set("bottle")
    verts, tris = (np.asarray(a) for a in bs.outer)
    com = mass_properties(np.asarray(verts, float), np.asarray(tris)).com
    prof = np.asarray(bs.cavity_profile, float) - (0.0, com[1])
    return np.asarray(verts, float) - com, np.asarray(tris, np.int64), prof, com


def bottle_mesh(segments: int = 24) -> tuple[NDArray[np.float32], NDArray[np.uint32]]:
    """Return the glass bottle of content/models/bottle.obj with smooth normals: (vertices (n, 6)
    position + normal, triangles), centred on its centroid. One geometry for every use: the
    physics loads the same file (engine.meshes.load_bottle_set). `segments` is kept for callers."""
    from engine.meshes import vertex_normals
    v, t, _, _ = _bottle()
    n = vertex_normals(v, t)
    return np.c_[v, n].astype(F32), t.astype(np.uint32)


def inner_profile() -> NDArray[np.float64]:
    """Return the (radius, y) profile of the bottle's inside, where held water sits: the cavity
    profile of content/models/bottle.json, in bottle_mesh's frame."""
    return _bottle()[2]


def liquid_mesh(segments: int = 20) -> tuple[NDArray[np.float32], NDArray[np.uint32]]:
    """Return the closed inner surface that held water fills (vertices (n, 6) position + smooth
    normal, triangles): the cavity profile lathed (engine.meshes.lathe), closed on the axis at
    both ends."""
    from engine.meshes import lathe, vertex_normals
    prof = inner_profile()
    if prof[0, 0] != 0.0:
        prof = np.vstack([[0.0, prof[0, 1]], prof])
    if prof[-1, 0] != 0.0:
        prof = np.vstack([prof, [0.0, prof[-1, 1]]])
    v, t = lathe(prof, segments)
    return np.c_[v, vertex_normals(v, t)].astype(F32), t.astype(np.uint32)


def inner_samples(n: int = 1200, seed: int = 1) -> NDArray[np.float64]:
    """Return points spread uniformly through the bottle's inside, body frame, (n, 3).

    The fill level of a tilted bottle is the height below which a fraction `fill` of them lie.
    """
    prof = inner_profile()
    rng = np.random.default_rng(seed)
    y0, y1 = prof[:, 1].min(), prof[:, 1].max()
    rmax = prof[:, 0].max()
    pts = np.empty((0, 3))
    while len(pts) < n:
        c = rng.uniform((-rmax, y0, -rmax), (rmax, y1, rmax), (4 * n, 3))
        r_at = np.interp(c[:, 1], prof[1:, 1], prof[1:, 0])
        pts = np.vstack([pts, c[np.hypot(c[:, 0], c[:, 2]) < r_at]])
    return pts[:n]


def fill_levels(samples: NDArray[np.float64], rotations: NDArray[np.float64], positions: NDArray[np.float64],
                fractions: NDArray[np.float64]) -> NDArray[np.float64]:
    """Return the world height of the water surface inside each bottle.

    `rotations` (m, 3, 3) body-to-world, `positions` (m, 3), `fractions` (m,) of the inner volume
    filled. The surface stays horizontal however the bottle tilts.
    """
    if len(rotations) == 0:
        return np.zeros(0)
    y = samples @ rotations[:, 1, :].T + positions[None, :, 1]     # (S, m) world heights
    ys = np.sort(y, axis=0)
    idx = np.clip((np.asarray(fractions) * (len(samples) - 1)).round().astype(int), 0, len(samples) - 1)
    out = ys[idx, np.arange(len(idx))]
    return np.where(np.asarray(fractions) <= 0.0, -1e9, out)


def flat_shade(vertices: ArrayLike, triangles: ArrayLike) -> NDArray[np.float32]:
    """Unshare vertices so each triangle has its own face normal: (3m, 9) position, normal, barycentric.

    The barycentric coordinates let the fragment shader brighten the sharp edges of shards.
    """
    v = np.asarray(vertices, float)
    t = np.asarray(triangles, int)
    p = v[t]                                        # (m, 3, 3)
    n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-12
    bary = np.broadcast_to(np.eye(3), p.shape)
    out = np.concatenate([p, np.repeat(n[:, None, :], 3, 1), bary], 2)
    return out.reshape(-1, 9).astype(F32)


def with_bary(verts6: NDArray[np.float32], triangles: NDArray[np.uint32]) -> NDArray[np.float32]:
    """Unindex a smooth (n, 6) mesh into (3m, 9) with barycentric (1, 1, 1): no edge highlight."""
    v = np.asarray(verts6, F32)[np.asarray(triangles).ravel()]
    return np.concatenate([v, np.ones((len(v), 3), F32)], 1)


def shard_shape(seed: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Return a fallback glass shard: a thin curved-glass prism with a jagged 3-5 sided outline."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 6))
    ang = np.sort(rng.uniform(0, 2 * math.pi, k))
    rad = rng.uniform(0.012, 0.035, k)
    outline = np.stack([np.cos(ang) * rad, np.sin(ang) * rad], 1)
    half = GLASS_THICKNESS / 2
    top = np.c_[outline[:, 0], np.full(k, half), outline[:, 1]]
    bot = np.c_[outline[:, 0], np.full(k, -half), outline[:, 1]]
    v = np.vstack([top, bot])
    tris = []
    for j in range(1, k - 1):
        tris += [(0, j + 1, j), (k, k + j, k + j + 1)]
    for j in range(k):
        a, b = j, (j + 1) % k
        tris += [(a, b, k + b), (a, k + b, k + a)]
    return v, np.asarray(tris)


def box_lines(lo: ArrayLike, hi: ArrayLike) -> NDArray[np.float64]:
    """Return the 12 edges of an axis-aligned box as (24, 3) segment endpoints."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    c = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
    corners = lo + c * (hi - lo)
    edges = [(a, b) for a in range(8) for b in range(a + 1, 8) if bin(a ^ b).count("1") == 1]
    return corners[np.asarray(edges).ravel()]


def arrow_lines(starts: NDArray[np.float64], vectors: NDArray[np.float64], head: float = 0.3) -> NDArray[np.float64]:
    """Return arrows as line segments: shaft plus two head strokes each, (6n, 3) endpoints."""
    s = np.asarray(starts, float)
    v = np.asarray(vectors, float)
    e = s + v
    side = np.cross(v, (0.0, 1.0, 0.0))
    side /= np.linalg.norm(side, axis=1, keepdims=True) + 1e-12
    ln = np.linalg.norm(v, axis=1, keepdims=True)
    back = -v * head
    h1 = e + back + side * ln * head * 0.5
    h2 = e + back - side * ln * head * 0.5
    return np.stack([s, e, e, h1, e, h2], 1).reshape(-1, 3)


def quat_to_matrices(q: ArrayLike) -> NDArray[np.float64]:
    """Return rotation matrices (n, 3, 3) of quaternions (n, 4) given as (w, x, y, z), normalised
    first (the physics' own quat_to_matrix, engine.kernels.rigid, row by row)."""
    from engine.kernels.rigid import quat_to_matrices as fill
    q = np.asarray(q, float).reshape(-1, 4)
    q = np.ascontiguousarray(q / (np.linalg.norm(q, axis=1, keepdims=True) + 1e-300))
    out = np.empty((len(q), 3, 3))
    fill(q, out)
    return out


def model_matrices(rot: NDArray[np.float64], pos: NDArray[np.float64], scale: NDArray[np.float64] | None = None
                   ) -> NDArray[np.float32]:
    """Return per-instance model matrices as (n, 16) float32, column by column (GLSL mat4 order)."""
    n = len(rot)
    m = np.zeros((n, 4, 4))
    m[:, :3, :3] = rot if scale is None else rot * np.asarray(scale)[:, None, :]
    m[:, :3, 3] = pos
    m[:, 3, 3] = 1.0
    return m.transpose(0, 2, 1).reshape(n, 16).astype(F32)


# -- obstacles and wave makers, from their own geometry ---------------------------------------------
OBSTACLE_SURFACE = 4.0      # pool.frag surface id: the level's obstacle material
MACHINE_SURFACE = 5.0       # pool.frag surface id: painted wave-maker parts


def prism(corners: ArrayLike, tops: ArrayLike, bottom: float = 0.0, mat: float = OBSTACLE_SURFACE
          ) -> NDArray[np.float32]:
    """A four-sided block standing on y = `bottom`: corners (4, 2) are (x, z) counter-clockwise seen
    from above, tops (4,) the height of the top over each (a box has them equal, a ramp not).
    Returns the top and the four sides (no bottom), in pool_mesh's vertex layout, uv in metres."""
    c = np.asarray(corners, float)
    y = np.asarray(tops, float)
    out: list[list[float]] = []
    p = [np.array([c[j, 0], y[j], c[j, 1]]) for j in range(4)]
    # top: counter-clockwise seen from above is the order (x, z) -> with y up that is clockwise in
    # (x, z); the quad is wound p0, p3, p2, p1 so its normal points up
    top = [p[0], p[3], p[2], p[1]]
    nrm = np.cross(top[1] - top[0], top[2] - top[0])
    nrm = nrm / (np.linalg.norm(nrm) + 1e-12)
    if nrm[1] < 0:
        top = top[::-1]
        nrm = -nrm
    (p0, p1, p2, p3), (uv0, uv1, uv2, uv3) = top, [(q[0], q[2]) for q in top]
    out += _quad(p0, p1, p2, p3, tuple(nrm), uv0, uv1, uv2, uv3, mat)
    for j in range(4):
        a, b = c[j], c[(j + 1) % 4]
        edge = b - a
        length = float(np.hypot(*edge))
        if length < 1e-9:
            continue
        n = np.array([edge[1], 0.0, -edge[0]]) / length        # outward for counter-clockwise (x, z)
        if np.dot(n[[0, 2]], a + b - 2 * c.mean(0)) < 0:
            n = -n
        ya, yb = y[j], y[(j + 1) % 4]
        q = [(a[0], bottom, a[1]), (b[0], bottom, b[1]), (b[0], yb, b[1]), (a[0], ya, a[1])]
        uv = [(0, bottom), (length, bottom), (length, yb), (0, ya)]
        if np.dot(np.cross(np.subtract(q[1], q[0]), np.subtract(q[2], q[0])), n) < 0:
            q = [q[1], q[0], q[3], q[2]]
            uv = [uv[1], uv[0], uv[3], uv[2]]
        out += _quad(q[0], q[1], q[2], q[3], tuple(n), uv[0], uv[1], uv[2], uv[3], mat)
    return np.asarray(out, F32)


def cylinder(center: tuple[float, float], radius: float, height: float, bottom: float = 0.0,
             segments: int = 40, mat: float = OBSTACLE_SURFACE) -> NDArray[np.float32]:
    """An upright round column with smooth side normals and a flat top (pool_mesh's layout)."""
    cx, cz = center
    a = np.linspace(0.0, 2 * np.pi, segments + 1)
    out: list[list[float]] = []
    for j in range(segments):
        a0, a1 = a[j], a[j + 1]
        d0 = np.array([np.cos(a0), 0.0, np.sin(a0)])
        d1 = np.array([np.cos(a1), 0.0, np.sin(a1)])
        p0 = (cx + radius * d0[0], bottom, cz + radius * d0[2])
        p1 = (cx + radius * d1[0], bottom, cz + radius * d1[2])
        u0, u1 = a0 * radius, a1 * radius
        # side: counter-clockwise seen from outside (angle grows from +x towards +z)
        for p, n, uv in (((p1[0], bottom, p1[2]), d1, (u1, bottom)), ((p0[0], bottom, p0[2]), d0, (u0, bottom)),
                         ((p0[0], height, p0[2]), d0, (u0, height)), ((p1[0], bottom, p1[2]), d1, (u1, bottom)),
                         ((p0[0], height, p0[2]), d0, (u0, height)), ((p1[0], height, p1[2]), d1, (u1, height))):
            out.append([*p, *n, *uv, mat])
        for p in ((cx, height, cz), (p1[0], height, p1[2]), (p0[0], height, p0[2])):
            out.append([*p, 0.0, 1.0, 0.0, p[0], p[2], mat])
    return np.asarray(out, F32)


def _rotated_rect(center: tuple[float, float], half: tuple[float, float], angle_deg: float) -> NDArray[np.float64]:
    """Corners (4, 2) of a rectangle turned by angle about y, counter-clockwise in (x, z), starting
    at local (-hx, -hz) then (+hx, -hz): local x runs from corner 0 to corner 1."""
    hx, hz = half
    local = np.array([[-hx, -hz], [hx, -hz], [hx, hz], [-hx, hz]])
    t = np.radians(angle_deg)
    c, s = np.cos(t), np.sin(t)
    # the same turn as engine.terrain._local's inverse: world = centre + R(angle) local
    rot = np.array([[c, -s], [s, c]])
    return np.asarray(center, float) + local @ rot.T


def obstacle_mesh(ob: Any, size: tuple[float, float]) -> NDArray[np.float32]:
    """The solid an obstacle spec describes (box, pillar, ramp, ledge, wall), standing on y = 0."""
    kind = ob.kind
    if kind == "pillar":
        return cylinder(ob.center, ob.radius, ob.height)
    if kind in ("box", "ramp"):
        corners = _rotated_rect(ob.center, (ob.size[0] / 2, ob.size[1] / 2), ob.angle or 0.0)
        if kind == "box":
            return prism(corners, [ob.height] * 4)
        lo, hi = ob.heights                      # rises along local x: corners 1 and 2 are high
        return prism(corners, [lo, hi, hi, lo])
    sx, sz = size
    if kind == "ledge":
        length = sz if ob.side in ("x_min", "x_max") else sx
        a, b = ob.span if ob.span is not None else (0.0, length)
        w = ob.width
        rect = {"x_min": (0.0, a, w, b), "x_max": (sx - w, a, sx, b),
                "z_min": (a, 0.0, b, w), "z_max": (a, sz - w, b, sz)}[ob.side]
        x0, z0, x1, z1 = rect
        return prism([(x0, z0), (x1, z0), (x1, z1), (x0, z1)], [ob.height] * 4)
    if kind == "wall":
        (x0, z0), (x1, z1) = ob.start, ob.end
        t = (ob.thickness or 0.1) / 2
        length = float(np.hypot(x1 - x0, z1 - z0))
        ex, ez = (x1 - x0) / length, (z1 - z0) / length
        nx, nz = -ez * t, ex * t
        body = prism([(x0 - nx, z0 - nz), (x1 - nx, z1 - nz), (x1 + nx, z1 + nz), (x0 + nx, z0 + nz)],
                     [ob.height] * 4)
        caps = [cylinder(p, t, ob.height, segments=16) for p in ((x0, z0), (x1, z1))]   # rounded ends
        return np.concatenate([body, *caps])
    raise ValueError(f"unknown obstacle kind {kind!r}")


def paddle_mesh(m: Any, size: tuple[float, float], offset: float, height: float) -> NDArray[np.float32]:
    """A piston wave maker's plate: `offset` metres in from its side (its face at rest stands at
    the edge of its zone, `width`), over its span, from the floor to `height`, with an arm to the
    wall above the water."""
    sx, sz = size
    along_x = m.side in ("z_min", "z_max")
    length = sx if along_x else sz
    a, b = m.span if m.span is not None else (0.0, length)
    a, b = a + 0.02, b - 0.02
    t = 0.03
    d = min(max(offset, t), (sz if along_x else sx) - t)
    if m.side in ("x_max", "z_max"):
        d = (sx if not along_x else sz) - d
    if along_x:
        plate = [(a, d - t), (b, d - t), (b, d + t), (a, d + t)]
        wall = 0.0 if m.side == "z_min" else sz
        mid = 0.5 * (a + b)
        arm = [(mid - 0.03, min(wall, d)), (mid + 0.03, min(wall, d)), (mid + 0.03, max(wall, d)),
               (mid - 0.03, max(wall, d))]
    else:
        plate = [(d - t, a), (d + t, a), (d + t, b), (d - t, b)]
        wall = 0.0 if m.side == "x_min" else sx
        mid = 0.5 * (a + b)
        arm = [(min(wall, d), mid - 0.03), (max(wall, d), mid - 0.03), (max(wall, d), mid + 0.03),
               (min(wall, d), mid + 0.03)]
    return np.concatenate([prism(plate, [height] * 4, mat=MACHINE_SURFACE),
                           prism(arm, [height] * 4, bottom=height - 0.04, mat=MACHINE_SURFACE)])


def source_mesh(m: Any, bottom: float, top: float) -> NDArray[np.float32]:
    """A periodic source: a pipe from the floor whose mouth sits just under the water."""
    r = min(max((m.radius or 0.1) * 0.35, 0.03), 0.08)
    return cylinder(m.position, r, top, bottom=bottom, segments=20, mat=MACHINE_SURFACE)
