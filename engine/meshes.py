"""Closed triangle meshes: OBJ read/write, mass properties, and the shape builders bodies use.

Mass properties come from the divergence theorem: a closed, outward-oriented triangle mesh is cut
into tetrahedra (origin, a, b, c), and volume, first and second moments are summed over them
exactly (no sampling). Builders (lathe, box, sphere, hexahedral blocks) produce meshes that are
closed and outward-oriented by construction; `orient_outward` fixes the global sign.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np
from numpy.typing import NDArray

from engine.paths import MODELS

F64 = NDArray[np.float64]
I32 = NDArray[np.integer]   # triangle vertex indices (int32 or int64)


# -- mass properties ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MassProperties:
    """Of a solid of uniform density: mass (kg), volume (m^3), centre of mass (m, mesh frame) and
    the inertia tensor about the centre of mass (kg m^2, mesh axes)."""
    mass: float
    volume: float
    com: F64
    inertia: F64

    def __add__(self, other: "MassProperties") -> "MassProperties":
        """Combine two solids (parallel-axis theorem about the joint centre of mass)."""
        m = self.mass + other.mass
        c = (self.mass * self.com + other.mass * other.com) / m
        return MassProperties(m, self.volume + other.volume, c,
                              _shift(self.inertia, self.mass, self.com - c)
                              + _shift(other.inertia, other.mass, other.com - c))


def _shift(inertia: F64, mass: float, d: F64) -> F64:
    """Inertia about a point displaced by -d from the centre of mass: I + m (|d|^2 E - d d^T)."""
    return inertia + mass * (np.dot(d, d) * np.eye(3) - np.outer(d, d))


def mass_properties(vertices: F64, triangles: I32, density: float = 1.0) -> MassProperties:
    """Return mass, volume, centre of mass and inertia of the solid bounded by a closed mesh.

    Each triangle (a, b, c) and the origin span a tetrahedron of signed volume det[a b c] / 6; its
    second moment is  int x x^T dV = det/120 (a a^T + b b^T + c c^T + s s^T),  s = a + b + c.
    Summing over the closed surface gives the solid's exact moments (divergence theorem). Then
    C_com = rho C - m c c^T  and  I = tr(C_com) E - C_com.
    """
    v = np.asarray(vertices, dtype=np.float64)
    t = np.asarray(triangles, dtype=np.int64)
    ref = v.mean(axis=0)          # moments about a nearby point: less cancellation far from the origin
    v = v - ref
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    det = np.einsum("ij,ij->i", a, np.cross(b, c))
    vol = det.sum() / 6.0
    if not vol > 0.0:
        raise ValueError(f"mesh encloses no positive volume ({vol:g} m^3): is it closed and outward-oriented?")
    s = a + b + c
    com = (det[:, None] * s).sum(axis=0) / (24.0 * vol)
    cov = np.einsum("i,ij,ik->jk", det, a, a) + np.einsum("i,ij,ik->jk", det, b, b) \
        + np.einsum("i,ij,ik->jk", det, c, c) + np.einsum("i,ij,ik->jk", det, s, s)
    cov *= density / 120.0
    mass = density * vol
    cov_c = cov - mass * np.outer(com, com)
    inertia = np.trace(cov_c) * np.eye(3) - cov_c
    return MassProperties(float(mass), float(vol), com + ref, 0.5 * (inertia + inertia.T))


def signed_volume(vertices: F64, triangles: I32) -> float:
    """Volume enclosed by a closed mesh; negative when it is oriented inward."""
    v = np.asarray(vertices, dtype=np.float64)
    t = np.asarray(triangles, dtype=np.int64)
    return float(np.einsum("ij,ij->i", v[t[:, 0]], np.cross(v[t[:, 1]], v[t[:, 2]])).sum() / 6.0)


# -- mesh hygiene --------------------------------------------------------------------------------
def clean(vertices: F64, triangles: I32) -> tuple[F64, I32]:
    """Merge bit-identical vertices, drop triangles that collapse onto an edge or a point."""
    v = np.asarray(vertices, dtype=np.float64) + 0.0  # -0.0 -> 0.0, so poles merge
    uniq, inv = np.unique(v, axis=0, return_inverse=True)
    t = inv.reshape(-1)[np.asarray(triangles, dtype=np.int64)]
    keep = (t[:, 0] != t[:, 1]) & (t[:, 1] != t[:, 2]) & (t[:, 0] != t[:, 2])
    return uniq, t[keep].astype(np.int32)


def orient_outward(vertices: F64, triangles: I32) -> I32:
    """Flip every triangle if the mesh is oriented inward (its signed volume is negative)."""
    t = np.asarray(triangles, dtype=np.int32)
    return t[:, ::-1].copy() if signed_volume(vertices, t) < 0.0 else t


def is_closed(triangles: I32) -> bool:
    """Every directed edge is matched by its reverse exactly once (closed, consistently oriented)."""
    t = np.asarray(triangles, dtype=np.int64)
    e = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
    fwd = np.unique(e, axis=0)
    if len(fwd) != len(e):
        return False
    rev = np.unique(e[:, ::-1], axis=0)
    return bool(np.array_equal(fwd, rev))


def vertex_normals(vertices: F64, triangles: I32) -> F64:
    """Area-weighted vertex normals."""
    v, t = vertices, triangles
    fn = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
    n = np.zeros_like(v)
    for k in range(3):
        np.add.at(n, t[:, k], fn)
    return n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-30)


# -- builders ----------------------------------------------------------------------------------
def _grid_triangles(index: NDArray[np.int64]) -> NDArray[np.int64]:
    """Two triangles per cell of a (P, Q) grid of vertex indices, (p,q)->(p+1,q)->(p+1,q+1) order."""
    a = index[:-1, :-1].ravel(); b = index[1:, :-1].ravel()
    c = index[1:, 1:].ravel(); d = index[:-1, 1:].ravel()
    return np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])


def _surface_of_grids(grids: list[F64]) -> tuple[F64, I32]:
    verts, tris, base = [], [], 0
    for g in grids:
        p, q = g.shape[:2]
        idx = np.arange(p * q, dtype=np.int64).reshape(p, q) + base
        verts.append(g.reshape(-1, 3))
        tris.append(_grid_triangles(idx))
        base += p * q
    v, t = clean(np.concatenate(verts), np.concatenate(tris))
    return v, orient_outward(v, t)


def revolve(profile: F64, theta: F64) -> F64:
    """Points of an (r, y) profile rotated about the y axis: (len(theta), len(profile), 3)."""
    r, y = profile[:, 0], profile[:, 1]
    ct, st = np.cos(theta), np.sin(theta)
    return np.stack([ct[:, None] * r[None, :], np.broadcast_to(y, (len(theta), len(y))),
                     st[:, None] * r[None, :]], axis=-1)


def lathe(profile: F64, segments: int = 32) -> tuple[F64, I32]:
    """Closed surface of revolution about y of an (r, y) polyline that starts and ends on the axis."""
    p = np.asarray(profile, dtype=np.float64)
    if p[0, 0] != 0.0 or p[-1, 0] != 0.0:
        raise ValueError("a lathe profile must start and end on the axis (r = 0)")
    theta = 2.0 * np.pi * np.arange(segments + 1) / segments
    theta[-1] = 0.0  # close the seam on bit-identical points
    return _surface_of_grids([revolve(p, theta)])


def lathe_profile(vertices: F64, triangles: I32) -> F64:
    """The (r, y) profile of a closed surface of revolution about y (as lathe makes it): the
    vertices on the half-plane z = 0, x > 0, walked along the mesh edges from the lower pole to
    the upper one."""
    v = np.asarray(vertices, float)
    r2 = v[:, 0] ** 2 + v[:, 2] ** 2
    pole = r2 < 1e-18
    on = pole | ((np.abs(v[:, 2]) < 1e-12) & (v[:, 0] > 0.0))
    nbr: dict[int, set[int]] = {int(i): set() for i in np.flatnonzero(on)}
    for tri in np.asarray(triangles):
        for a, b in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])):
            if on[a] and on[b]:
                nbr[int(a)].add(int(b)); nbr[int(b)].add(int(a))
    poles = np.flatnonzero(pole)
    if len(poles) != 2:
        raise ValueError("lathe_profile needs a surface of revolution closed by two poles on the y axis")
    start, end = (int(i) for i in poles[np.argsort(v[poles, 1])])
    path, prev = [start], -1
    while path[-1] != end:
        nxt = sorted(n for n in nbr[path[-1]] if n != prev and n not in path)
        if not nxt:
            raise ValueError("lathe_profile: the half-plane vertices do not form one polyline")
        prev = path[-1]
        path.append(nxt[0] if len(nxt) == 1 else min(nxt, key=lambda n: (v[n, 1], -r2[n])))
    return np.column_stack([np.sqrt(r2[path]), v[path, 1]])


def coarse_lathe(vertices: F64, triangles: I32, segments: int) -> tuple[F64, I32]:
    """A surface of revolution re-lathed with fewer segments, its radius scaled so that every
    cross-section keeps the area of the original polygon (so the enclosed volume, and the volume
    below any level plane across the axis, stay those of the original)."""
    prof = lathe_profile(vertices, triangles)
    fine = _ring_count(vertices, prof)
    def area(n: int) -> float:
        return 0.5 * n * np.sin(2.0 * np.pi / n)
    prof = prof * np.array([np.sqrt(area(fine) / area(segments)), 1.0])
    return lathe(prof, segments)


def _ring_count(vertices: F64, profile: F64) -> int:
    """Segments of a lathed surface: the vertices of its first off-axis ring."""
    r, y = profile[1]
    v = np.asarray(vertices, float)
    ring = (np.abs(v[:, 1] - y) < 1e-12) & (np.abs(np.hypot(v[:, 0], v[:, 2]) - r) < 1e-9)
    return int(ring.sum())


def block_surface(x: F64) -> tuple[F64, I32]:
    """Closed surface of a hexahedral block given as a grid of points x[a, b, c] (A+1, B+1, C+1, 3).

    The six faces are emitted with normals along +-x_a, +-x_b, +-x_c of a right-handed block;
    a left-handed block is flipped as a whole. Degenerate faces (collapsed on an axis) drop out.
    """
    g = [x[:, :, -1], x[:, :, 0].transpose(1, 0, 2),
         x[-1, :, :], x[0, :, :].transpose(1, 0, 2),
         x[:, -1, :].transpose(1, 0, 2), x[:, 0, :]]
    return _surface_of_grids([np.ascontiguousarray(a) for a in g])


def box(size: tuple[float, float, float]) -> tuple[F64, I32]:
    """A box centred on the origin with edge lengths `size` (m)."""
    h = 0.5 * np.asarray(size, dtype=np.float64)
    s = np.array([-1.0, 1.0])
    x = np.stack(np.meshgrid(s * h[0], s * h[1], s * h[2], indexing="ij"), axis=-1)
    return block_surface(x)


def sphere(radius: float, subdivisions: int = 2) -> tuple[F64, I32]:
    """An icosphere of circumradius `radius` (m): 12, 42, 162 ... vertices."""
    p = (1.0 + 5.0 ** 0.5) / 2.0
    v = np.array([[-1, p, 0], [1, p, 0], [-1, -p, 0], [1, -p, 0], [0, -1, p], [0, 1, p],
                  [0, -1, -p], [0, 1, -p], [p, 0, -1], [p, 0, 1], [-p, 0, -1], [-p, 0, 1]], float)
    t = np.array([[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4],
                  [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8],
                  [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]], np.int64)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    for _ in range(subdivisions):
        mids: dict[tuple[int, int], int] = {}
        verts = list(v)

        def mid(i: int, j: int, mids: dict[tuple[int, int], int] = mids, verts: list = verts) -> int:
            key = (min(i, j), max(i, j))
            if key not in mids:
                m = verts[i] + verts[j]
                verts.append(m / np.linalg.norm(m))
                mids[key] = len(verts) - 1
            return mids[key]

        nt = []
        for a, b, c in t:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            nt += [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
        v, t = np.array(verts), np.array(nt, np.int64)
    v = v * radius
    return v, orient_outward(v, t.astype(np.int32))


# -- OBJ ---------------------------------------------------------------------------------------
def write_obj(path: Path, groups: dict[str, tuple[F64, I32]], header: str = "") -> None:
    """Write one or more named closed meshes to an OBJ file (one `o` object each, 1-based faces)."""
    lines = [f"# {ln}" for ln in header.splitlines()]
    base = 1
    for name, (v, t) in groups.items():
        lines.append(f"o {name}")
        lines += [f"v {a:.17g} {b:.17g} {c:.17g}" for a, b, c in np.asarray(v, float)]
        lines += [f"f {a + base} {b + base} {c + base}" for a, b, c in np.asarray(t, np.int64)]
        base += len(v)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def read_obj(path: Path) -> dict[str, tuple[F64, I32]]:
    """Read an OBJ file into {object or group name: (vertices, triangles)}; polygons are fanned.

    Vertex indices are global in OBJ; each group gets its own compact vertex array.
    """
    path = Path(path)
    verts: list[list[float]] = []
    faces: dict[str, list[list[int]]] = {}
    current = path.stem
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        parts = raw.split("#", 1)[0].split()
        if not parts:
            continue
        tag = parts[0]
        try:
            if tag == "v":
                verts.append([float(x) for x in parts[1:4]])
            elif tag in ("o", "g"):
                current = " ".join(parts[1:]) or path.stem
            elif tag == "f":
                idx = []
                for tok in parts[1:]:
                    k = int(tok.split("/")[0])
                    idx.append(k - 1 if k > 0 else len(verts) + k)
                for j in range(1, len(idx) - 1):
                    faces.setdefault(current, []).append([idx[0], idx[j], idx[j + 1]])
        except ValueError as exc:
            raise ValueError(f"{path}:{lineno}: cannot read {tag!r} line: {exc}") from None
    if not faces:
        raise ValueError(f"{path}: no faces")
    allv = np.array(verts, dtype=np.float64)
    out: dict[str, tuple[F64, I32]] = {}
    for name, f in faces.items():
        t = np.array(f, dtype=np.int64)
        used, inv = np.unique(t, return_inverse=True)
        out[name] = (allv[used], inv.reshape(-1, 3).astype(np.int32))
    return out


# -- collision geometry ------------------------------------------------------------------------
CAPSULE, BOX = 0, 1


def vec3(v: Iterable[float]) -> tuple[float, float, float]:
    """Three numbers as a tuple of floats (a point or a vector, m)."""
    x, y, z = (float(c) for c in v)
    return (x, y, z)


@dataclass(frozen=True, slots=True)
class Primitive:
    """A convex collision primitive in a model's frame: a capsule (segment a-b, radius) or an oriented
    box (centre, axes as rows, half extents)."""
    kind: int
    a: tuple[float, float, float] = (0.0, 0.0, 0.0)
    b: tuple[float, float, float] = (0.0, 0.0, 0.0)
    radius: float = 0.0
    axes: tuple[tuple[float, float, float], ...] = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    half: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def shifted(self, d: F64) -> "Primitive":
        """The same primitive with its frame origin moved by d (coordinates minus d)."""
        return Primitive(self.kind, vec3(np.asarray(self.a) - d), vec3(np.asarray(self.b) - d), self.radius,
                         self.axes, self.half)

    def pack(self) -> F64:
        """15 floats: capsule a, b, r; box centre (in a), axes (9), half (3) in the last slots."""
        out = np.zeros(16)
        out[0:3] = self.a
        if self.kind == CAPSULE:
            out[3:6] = self.b
            out[6] = self.radius
        else:
            out[3:12] = np.asarray(self.axes, float).ravel()
            out[12:15] = self.half
        out[15] = self.kind
        return out


def fit_box(vertices: F64) -> Primitive:
    """Oriented bounding box of the vertex cloud: along its principal axes or along the model's own
    axes, whichever encloses less volume. (Principal axes are arbitrary in a plane where two
    variances are equal, as for a 0.3 x 0.2 x 0.2 crate: its own axes then give the exact box.)"""
    c0 = vertices.mean(axis=0)
    _, vecs = np.linalg.eigh(np.cov((vertices - c0).T) + 1e-18 * np.eye(3))
    pca = vecs.T.copy()
    if np.linalg.det(pca) < 0:
        pca[2] *= -1.0
    best: tuple[float, F64] | None = None
    for axes in (np.eye(3), pca):
        loc = (vertices - c0) @ axes.T
        vol = float(np.prod(loc.max(axis=0) - loc.min(axis=0)))
        if best is None or vol < best[0] * (1.0 - 1e-9):
            best = (vol, axes)
    assert best is not None
    axes = best[1]
    loc = (vertices - c0) @ axes.T
    lo, hi = loc.min(axis=0), loc.max(axis=0)
    centre = c0 + (0.5 * (lo + hi)) @ axes
    half = np.maximum(0.5 * (hi - lo), 1e-4)
    return Primitive(BOX, a=vec3(centre), axes=tuple(vec3(r) for r in axes), half=vec3(half))


def farthest_points(points: F64, k: int) -> F64:
    """Pick up to k well-spread points (greedy farthest-point sampling, deterministic)."""
    p = np.unique(np.asarray(points, float) + 0.0, axis=0)
    if len(p) <= k:
        return p
    c = p.mean(axis=0)
    chosen = [int(np.argmax(np.einsum("ij,ij->i", p - c, p - c)))]
    d = np.einsum("ij,ij->i", p - p[chosen[0]], p - p[chosen[0]])
    for _ in range(k - 1):
        j = int(np.argmax(d))
        chosen.append(j)
        d = np.minimum(d, np.einsum("ij,ij->i", p - p[j], p - p[j]))
    return p[np.sort(chosen)]


def hull_mask(vertices: F64) -> NDArray[np.bool_]:
    """Which vertices are vertices of their convex hull (all of them where the hull is flat or
    there are fewer than 5): the only candidates for the deepest point against a plane."""
    v = np.asarray(vertices, float)
    mask = np.ones(len(v), np.bool_)
    if len(v) < 5:
        return mask
    try:
        from scipy.spatial import ConvexHull
        hull = ConvexHull(v)
    except Exception:      # degenerate (flat or collinear): every vertex may support
        return mask
    mask[:] = False
    mask[hull.vertices] = True
    return mask


def rim_circles(vertices: F64, min_ring: int = 8) -> tuple[F64, NDArray[np.bool_]]:
    """The widest rims of a body of revolution about y (a lathe): (circles (C, 7): centre xyz,
    axis xyz (0, 1, 0), radius; and a mask of the vertices that are NOT on the widest rings).

    A ring is min_ring or more vertices at one height and one distance from the y axis; the
    widest rings lie on one cylinder of radius R, whose support against a plane is on its two
    end rims (C = 2: the lowest and the highest of them). A polygon ring rolled over a plane
    strikes it at each vertex and loses a share 1 - (1 - (m R^2 / I_pivot)(1 - cos(2 pi / N)))^2
    of its energy there (a solid 32-gon: 2.5% a facet, half its speed within 54 facets);
    as circles the same rims roll as a true cylinder does. Empty when there is no such ring."""
    v = np.asarray(vertices, float)
    r = np.hypot(v[:, 0], v[:, 2])
    keep = np.ones(len(v), np.bool_)
    if len(v) == 0:
        return np.zeros((0, 7)), keep
    tol = 1e-9 * max(1.0, float(np.abs(v).max()))
    keys = np.stack([np.round(v[:, 1] / tol), np.round(r / tol)], axis=1)
    rings, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    ring = counts >= min_ring
    if not ring.any():
        return np.zeros((0, 7)), keep
    widest = rings[ring, 1].max()
    chosen = np.flatnonzero(ring & (rings[:, 1] == widest))
    keep[np.isin(inverse, chosen)] = False
    ends = (chosen[np.argmin(rings[chosen, 0])], chosen[np.argmax(rings[chosen, 0])])
    circles = []
    for j in dict.fromkeys(ends):
        on = inverse == j
        c = v[on].mean(axis=0)
        circles.append((c[0], c[1], c[2], 0.0, 1.0, 0.0, float(r[on].mean())))
    return np.array(circles, float), keep


# -- models on disk --------------------------------------------------------------------------
@dataclass(slots=True)
class Model:
    """A rigid shape in its BODY frame: origin at the centre of mass, axes as in the source mesh.

    `vertices`/`triangles` are the closed outer surface (what the renderer draws and what
    `volume` encloses). `points` are the vertices tested against the pool, `pair_points` (a
    subset) those tested against other bodies' `prims`, the convex shapes that stand for it. `offset` is where the body-frame origin sits in the
    source mesh's frame (its centre of mass there).
    """
    name: str
    vertices: F64
    triangles: I32
    points: F64
    prims: tuple[Primitive, ...]
    offset: F64
    normals: F64 | None = None
    radius: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)
    pair_points: F64 | None = None   # points tested against other bodies (default: `points`)
    # closed surface the water couples to (buoyancy, drag, displacement), body frame; None: the
    # outer surface itself. Mass properties always come from the outer surface.
    coupling: tuple[F64, I32] | None = None
    # each contact point is a ball of this radius (a sphere model: its centre and radius, so it
    # meets the pool analytically); 0 for polyhedra, whose hull vertices are their support points
    point_radius: float = 0.0
    # pair contacts: besides its primitives' manifolds, its pair_points meet the other body's
    # primitives (a bottle: its capsules are the convex decomposition, its vertices the flat base)
    pair_with_points: bool = False
    # pressure-drag coefficient for flow along each body axis (engine/drag.py); None: a sphere,
    # [physics] drag_coefficient
    drag: tuple[float, float, float] | None = None
    # rims that meet the pool as true circles (body frame, rows: centre xyz, axis xyz, radius;
    # `rim_circles`), their ring vertices left out of `points`: a lying bottle or cylinder rolls
    circles: F64 = field(default_factory=lambda: np.zeros((0, 7)))

    def __post_init__(self) -> None:
        if self.pair_points is None:
            self.pair_points = self.points
        if self.radius == 0.0:
            self.radius = float(np.sqrt(np.einsum("ij,ij->i", self.vertices, self.vertices).max()))


@dataclass(frozen=True, slots=True)
class BottleSet:
    """A bottle model as it comes from tools/make_bottle.py, in the model frame (base at y = 0).

    `outer`: closed outer surface. `fragments`: closed glass pieces that tile the shell exactly.
    `cavity_profile`: (r, y) polyline of the inner surface from the base centre to the mouth, and
    `segments` the angular resolution, so water filling the cavity to any height can be built.
    """
    name: str
    outer: tuple[F64, I32]
    fragments: tuple[tuple[F64, I32], ...]
    cavity_profile: F64
    segments: int
    inner_volume: float
    neck: F64            # mouth centre, model frame, m
    neck_axis: F64       # unit vector out of the mouth
    capsules: tuple[Primitive, ...]


_bottle_cache: dict[str, BottleSet] = {}


def load_bottle_set(name: str = "bottle", folder: Path = MODELS) -> BottleSet:
    """Read content/models/<name>.obj, <name>_fragments.obj and <name>.json (cached)."""
    key = str(Path(folder) / name)
    if key in _bottle_cache:
        return _bottle_cache[key]
    meta_path = Path(folder) / f"{name}.json"
    if not meta_path.exists():
        raise FileNotFoundError(f"no bottle model {name!r}: {meta_path} is missing "
                                f"(run `python tools/make_bottle.py` to generate the default bottle)")
    meta = json.loads(meta_path.read_text())
    outer = next(iter(read_obj(Path(folder) / f"{name}.obj").values()))
    frags = read_obj(Path(folder) / f"{name}_fragments.obj")
    ordered = tuple(frags[k] for k in sorted(frags, key=lambda s: int(s.rsplit("_", 1)[1])))
    caps = tuple(Primitive(CAPSULE, tuple(c["a"]), tuple(c["b"]), float(c["radius"]))
                 for c in meta["capsules"])
    bs = BottleSet(name, outer, ordered, np.asarray(meta["cavity_profile"], float), int(meta["segments"]),
                   float(meta["inner_volume"]), np.asarray(meta["neck"], float),
                   np.asarray(meta["neck_axis"], float), caps)
    _bottle_cache[key] = bs
    return bs


def cavity_water(bs: BottleSet, volume: float) -> tuple[F64, I32] | None:
    """Closed mesh of `volume` m^3 of water settled in the bottom of the cavity (model frame).

    The cavity is a lathe of `cavity_profile`; the water surface height is found by bisection on
    the exact volume of the clipped lathe.
    """
    if volume <= 0.0:
        return None
    prof = bs.cavity_profile
    volume = min(volume, bs.inner_volume)

    def clipped(yf: float) -> F64:
        pts = [prof[0]]
        for p, q in zip(prof[:-1], prof[1:]):
            if q[1] <= yf:
                pts.append(q)
            else:
                if p[1] < yf:
                    s = (yf - p[1]) / (q[1] - p[1])
                    pts.append(p + s * (q - p))
                break
        pts.append(np.array([0.0, min(yf, prof[-1, 1])]))
        return np.array(pts)

    def vol(yf: float) -> float:
        v, t = lathe(clipped(yf), bs.segments)
        return signed_volume(v, t)

    lo, hi = float(prof[0, 1]), float(prof[:, 1].max())
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if vol(mid) < volume:
            lo = mid
        else:
            hi = mid
    return lathe(clipped(0.5 * (lo + hi)), bs.segments)


def load_obj_model(name: str, folder: Path = MODELS) -> tuple[F64, I32]:
    """Read content/models/<name>.obj as one closed mesh (all its groups merged)."""
    path = Path(folder) / f"{name}.obj"
    if not path.exists():
        have = sorted(p.stem for p in Path(folder).glob("*.obj"))
        raise FileNotFoundError(f"no model {name!r}: {path} is missing (models: {', '.join(have)})")
    groups = read_obj(path)
    vs, ts, base = [], [], 0
    for v, t in groups.values():
        vs.append(v); ts.append(t + base); base += len(v)
    v, t = clean(np.concatenate(vs), np.concatenate(ts))
    if not is_closed(t):
        raise ValueError(f"{path}: the mesh is not closed (every edge must be shared by two faces)")
    return v, orient_outward(v, t)
