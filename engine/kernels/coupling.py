"""Body-water coupling kernels: forces of the water on bodies, and the water bodies displace.

Water to body: engine/kernels/water_forces.py (exact pressure and centre of pressure per
submerged piece, drag, skin friction, added mass, integrated implicitly).

The surface each body sees is a plane fitted to the water around it (a ring just outside its
bounding sphere), not the columns under it: those hold the body's own displaced volume, and
measuring against them would feed the body's displacement back into itself (the water under a
held body then never settles, and a floating body's restoring force lags by the time the water
needs to flow out). The plane follows waves longer than the body, tilts with them, and rises as
the displaced water spreads.

Body to water (Mueller's covered-height field): b[k, i] is the height of body inside column (k, i)
below that surface. A closed mesh crosses a vertical line alternately leaving (n_y > 0) and
entering (n_y < 0), so the thickness below eta is  sum_top min(y, eta) - sum_bottom min(y, eta).
The water takes h += b - b_prev each step: exactly the volume the bodies moved in or out.

Bodies are packed: models share one vertex array and one triangle array with per-model offsets;
each body has a model id, position of its centre of mass, orientation quaternion (w, x, y, z),
velocity and angular velocity (world frame).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from engine.kernels.rigid import quat_to_matrix

# The kernels' inputs, grouped (plain namedtuples: numba takes them in nopython mode, cached).
Models = namedtuple("Models", ("verts", "tris", "vert_off", "tri_off", "frames", "solids", "radius"))
Models.__doc__ = """Body models packed into shared arrays (pack_models): model m owns vertices
verts[vert_off[m]:vert_off[m + 1]] (V, 3) m, model frame, centre of mass at the origin, and triangles
tris[tri_off[m]:tri_off[m + 1]] (T, 3) indexing its own vertices from 0; frames (T, 7) each
triangle's unit normal, area and centroid (triangle_frames); solids (M, 4) each closed model's
volume and centroid, V = 0 for an open one (closed_solids); radius (M,) bounding radius about
the centre of mass, m."""
Bodies = namedtuple("Bodies", ("model_id", "pos", "quat", "vel", "angvel", "radius", "inv_mass", "inv_inertia"))
Bodies.__doc__ = """Per body slot (N rows): model id, centre of mass (m), orientation quaternion (w, x, y, z),
velocity (m/s), angular velocity (rad/s, world frame), bounding radius (m), inverse mass (1/kg) and
inverse inertia (body frame, (N, 3, 3))."""

Water = namedtuple("Water", ("h", "bed", "u", "w", "ax", "az", "dx"))
Water.__doc__ = """One water grid's arrays (engine/water/grid.py, [k, i] = (z, x)): depth h and bed (nz, nx) m,
face velocities u (nz, nx + 1) and w (nz + 1, nx) m/s, the accelerations ax, az (face shaped) the
next water step applies, m/s^2, and the cell size dx, m."""


Slots = namedtuple("Slots", ("alive", "sleep", "model_id", "kind", "static_set"))
Slots.__doc__ = """What prepare_bodies reads per body slot (N rows): in use (bool), seconds at rest, model id,
kind code (engine/bodies.py), and whether the slot is in the cached set of sleepers whose covered
height is kept (bool)."""

Masks = namedtuple("Masks", ("model_id", "radius", "active", "asleep", "forced", "fresh"))
Masks.__doc__ = """What prepare_bodies writes per body slot (N rows) for the rest of the step: model id
(int64), its model's bounding radius (m), and the masks active (in use), asleep, forced (its loads
computed this step) and fresh (its covered height computed this step)."""

def pack_models(surfaces) -> Models:
    """Pack (vertices, triangles) per model into one Models."""
    verts = [np.asarray(v, np.float64).reshape(-1, 3) for v, _ in surfaces]
    tris = [np.asarray(t, np.int64).reshape(-1, 3) for _, t in surfaces]
    vert_off = np.zeros(len(verts) + 1, np.int64)
    tri_off = np.zeros(len(verts) + 1, np.int64)
    vert_off[1:] = np.cumsum([len(v) for v in verts])
    tri_off[1:] = np.cumsum([len(t) for t in tris])
    radius = np.array([float(np.sqrt((v * v).sum(1).max())) if len(v) else 0.0 for v in verts])
    all_verts = np.ascontiguousarray(np.concatenate(verts)) if verts else np.zeros((0, 3))
    all_tris = np.ascontiguousarray(np.concatenate(tris)) if tris else np.zeros((0, 3), np.int64)
    return Models(all_verts, all_tris, vert_off, tri_off, triangle_frames(all_verts, all_tris, vert_off, tri_off),
                  closed_solids(all_verts, all_tris, vert_off, tri_off), radius)


def bodies_of(model_id, pos, quat, radius, vel=None, angvel=None, inv_mass=None, inv_inertia=None) -> Bodies:
    """A Bodies from per-body arrays (velocities zero and mass properties unit where not given)."""
    pos = np.ascontiguousarray(pos, np.float64).reshape(-1, 3)
    n = len(pos)
    z3 = np.zeros((n, 3))
    return Bodies(np.ascontiguousarray(model_id, np.int64).reshape(n), pos,
                  np.ascontiguousarray(quat, np.float64).reshape(n, 4),
                  z3 if vel is None else np.ascontiguousarray(vel, np.float64).reshape(n, 3),
                  z3.copy() if angvel is None else np.ascontiguousarray(angvel, np.float64).reshape(n, 3),
                  np.ascontiguousarray(radius, np.float64).reshape(n),
                  np.ones(n) if inv_mass is None else np.ascontiguousarray(inv_mass, np.float64).reshape(n),
                  np.tile(np.eye(3), (n, 1, 1)) if inv_inertia is None
                  else np.ascontiguousarray(inv_inertia, np.float64).reshape(n, 3, 3))


@njit(cache=True)
def sample_centered(a: np.ndarray, x: float, z: float, dx: float) -> float:
    """Bilinear value of a cell-centred (nz, nx) field at (x, z), clamped at the edges."""
    k0, k1, i0, i1, tz, tx = _centered_stencil(a.shape[0], a.shape[1], x, z, dx)
    return ((1.0 - tz) * ((1.0 - tx) * a[k0, i0] + tx * a[k0, i1])
            + tz * ((1.0 - tx) * a[k1, i0] + tx * a[k1, i1]))


@njit(cache=True, inline="always")
def _centered_stencil(nz, nx, x, z, dx):
    """The 2 x 2 cells around (x, z) on a cell-centred grid and the weights of the far ones:
    (k0, k1, i0, i1, tz, tx), clamped at the edges."""
    fx = min(max(x / dx - 0.5, 0.0), nx - 1.0)
    fz = min(max(z / dx - 0.5, 0.0), nz - 1.0)
    i0 = min(int(fx), nx - 2) if nx > 1 else 0
    k0 = min(int(fz), nz - 2) if nz > 1 else 0
    return k0, min(k0 + 1, nz - 1), i0, min(i0 + 1, nx - 1), fz - k0, fx - i0


@njit(cache=True)
def water_velocity(u: np.ndarray, w: np.ndarray, x: float, z: float, dx: float) -> tuple[float, float]:
    """Horizontal water velocity at (x, z) from the staggered faces (bilinear)."""
    return _water_velocity_scaled(u, w, x / dx, z / dx)


@njit(cache=True)
def water_velocities(u: np.ndarray, w: np.ndarray, x: np.ndarray, z: np.ndarray,
                     dx: float) -> tuple[np.ndarray, np.ndarray]:
    """`water_velocity` at the points (x[j], z[j]): the arrays (vx, vz)."""
    n = x.shape[0]
    vx = np.empty(n)
    vz = np.empty(n)
    for j in range(n):
        vx[j], vz[j] = _water_velocity_scaled(u, w, x[j] / dx, z[j] / dx)
    return vx, vz


@njit(cache=True, inline="always")
def _water_velocity_scaled(u, w, gx, gz):
    """`water_velocity` at (x, z) = (gx, gz) dx, given in cell units (a caller with many points
    multiplies by 1/dx once instead of dividing four times)."""
    nz = u.shape[0]
    nx = w.shape[1]
    # u lives at (i dx, (k + 0.5) dx), i in [0, nx]; w at ((i + 0.5) dx, k dx), k in [0, nz]
    fx = min(max(gx, 0.0), float(nx))
    fz = min(max(gz - 0.5, 0.0), nz - 1.0)
    i0 = min(int(fx), nx - 1)
    k0 = min(int(fz), max(nz - 2, 0))
    tx = fx - i0
    tz = fz - k0
    k1 = min(k0 + 1, nz - 1)
    uu = ((1.0 - tz) * ((1.0 - tx) * u[k0, i0] + tx * u[k0, i0 + 1])
          + tz * ((1.0 - tx) * u[k1, i0] + tx * u[k1, i0 + 1]))
    fx = min(max(gx - 0.5, 0.0), nx - 1.0)
    fz = min(max(gz, 0.0), float(nz))
    i0 = min(int(fx), max(nx - 2, 0))
    k0 = min(int(fz), nz - 1)
    tx = fx - i0
    tz = fz - k0
    i1 = min(i0 + 1, nx - 1)
    ww = ((1.0 - tz) * ((1.0 - tx) * w[k0, i0] + tx * w[k0, i1])
          + tz * ((1.0 - tx) * w[k0 + 1, i0] + tx * w[k0 + 1, i1]))
    return uu, ww


RING_SAMPLES = 16


@njit(cache=True, inline="always")
def _sample_sum(a, c, x, z, dx):
    """sample_centered of the field a + c (summed per cell, as the grid eta = bed + h would be)."""
    k0, k1, i0, i1, tz, tx = _centered_stencil(a.shape[0], a.shape[1], x, z, dx)
    return ((1.0 - tz) * ((1.0 - tx) * (a[k0, i0] + c[k0, i0]) + tx * (a[k0, i1] + c[k0, i1]))
            + tz * ((1.0 - tx) * (a[k1, i0] + c[k1, i0]) + tx * (a[k1, i1] + c[k1, i1])))


@njit(cache=True)
def ambient_planes_split(pos, radius, active, bed, h, dx, margin, planes):
    """ambient_planes with eta = bed + h summed where sampled (no eta grid per step)."""
    return _ambient_planes(pos, radius, active, bed, h, True, dx, margin, planes)


@njit(cache=True)
def ambient_planes(pos, radius, active, eta, dx, margin, planes):
    """Fit eta ~ p0 + p1 (x - x_c) + p2 (z - z_c) to 16 samples on a ring of radius
    `radius + margin` around each body's centre (x_c, z_c); planes (N, 3) is overwritten."""
    return _ambient_planes(pos, radius, active, eta, eta, False, dx, margin, planes)


@njit(cache=True, inline="always")
def _ambient_planes(pos, radius, active, eta, h, split, dx, margin, planes):
    """Fit eta ~ p0 + p1 (x - x_c) + p2 (z - z_c) to 16 samples on a ring of radius
    `radius + margin` around each body's centre (x_c, z_c); planes (N, 3) is overwritten."""
    nz, nx = eta.shape
    xmax = nx * dx
    zmax = nz * dx
    ring_c = np.empty(RING_SAMPLES)
    ring_s = np.empty(RING_SAMPLES)
    for j in range(RING_SAMPLES):               # the ring's directions, once per call
        ang = 2.0 * np.pi * j / RING_SAMPLES
        ring_c[j] = np.cos(ang)
        ring_s[j] = np.sin(ang)
    for b in range(pos.shape[0]):
        planes[b, 0] = 0.0
        planes[b, 1] = 0.0
        planes[b, 2] = 0.0
        if not active[b]:
            continue
        r = radius[b] + margin
        # normal equations of the least-squares plane, in offsets from the centre
        s_xx = s_xz = s_zz = 0.0
        s_x = s_z = 0.0
        s_e = s_ex = s_ez = 0.0
        for j in range(RING_SAMPLES):
            x = min(max(pos[b, 0] + r * ring_c[j], 0.0), xmax)
            z = min(max(pos[b, 2] + r * ring_s[j], 0.0), zmax)
            e = _sample_sum(eta, h, x, z, dx) if split else sample_centered(eta, x, z, dx)
            ox = x - pos[b, 0]
            oz = z - pos[b, 2]
            s_x += ox
            s_z += oz
            s_xx += ox * ox
            s_xz += ox * oz
            s_zz += oz * oz
            s_e += e
            s_ex += e * ox
            s_ez += e * oz
        n = float(RING_SAMPLES)
        # Cramer's rule on [[n, s_x, s_z], [s_x, s_xx, s_xz], [s_z, s_xz, s_zz]] p = [s_e, s_ex, s_ez]
        det = (n * (s_xx * s_zz - s_xz * s_xz) - s_x * (s_x * s_zz - s_xz * s_z)
               + s_z * (s_x * s_xz - s_xx * s_z))
        if abs(det) > 1e-9 * n * (s_xx * s_zz + 1e-30):
            d0 = (s_e * (s_xx * s_zz - s_xz * s_xz) - s_x * (s_ex * s_zz - s_xz * s_ez)
                  + s_z * (s_ex * s_xz - s_xx * s_ez))
            d1 = (n * (s_ex * s_zz - s_xz * s_ez) - s_e * (s_x * s_zz - s_xz * s_z)
                  + s_z * (s_x * s_ez - s_ex * s_z))
            d2 = (n * (s_xx * s_ez - s_ex * s_xz) - s_x * (s_x * s_ez - s_ex * s_z)
                  + s_e * (s_x * s_xz - s_xx * s_z))
            planes[b, 0] = d0 / det
            planes[b, 1] = d1 / det
            planes[b, 2] = d2 / det
        else:  # ring squeezed against a corner: a level surface at the mean
            planes[b, 0] = s_e / n
    return 0


@njit(cache=True, inline="always")
def _plane(planes, b, pos, x, z):
    return planes[b, 0] + planes[b, 1] * (x - pos[b, 0]) + planes[b, 2] * (z - pos[b, 2])



@njit(cache=True)
def triangle_frames(model_verts, model_tris, vert_off, tri_off):
    """Unit normal (model frame, outward for a counter-clockwise winding), area and centroid of
    every packed triangle: (T, 7) rows n_x, n_y, n_z, area, c_x, c_y, c_z; a degenerate triangle
    gets area 0."""
    out = np.zeros((model_tris.shape[0], 7))
    for m in range(vert_off.shape[0] - 1):
        v0 = vert_off[m]
        for tri in range(tri_off[m], tri_off[m + 1]):
            a = model_verts[v0 + model_tris[tri, 0]]
            b = model_verts[v0 + model_tris[tri, 1]]
            c = model_verts[v0 + model_tris[tri, 2]]
            e1x = b[0] - a[0]; e1y = b[1] - a[1]; e1z = b[2] - a[2]
            e2x = c[0] - a[0]; e2y = c[1] - a[1]; e2z = c[2] - a[2]
            nx_ = e1y * e2z - e1z * e2y
            ny_ = e1z * e2x - e1x * e2z
            nz_ = e1x * e2y - e1y * e2x
            ln = np.sqrt(nx_ * nx_ + ny_ * ny_ + nz_ * nz_)
            if ln > 0.0:
                out[tri, 0] = nx_ / ln
                out[tri, 1] = ny_ / ln
                out[tri, 2] = nz_ / ln
                out[tri, 3] = 0.5 * ln
            for a_ in range(3):
                out[tri, 4 + a_] = (a[a_] + b[a_] + c[a_]) / 3.0
    return out


@njit(cache=True)
def closed_solids(model_verts, model_tris, vert_off, tri_off):
    """Volume and centroid (model frame) of every packed model whose surface is closed: (M, 4) rows
    V, c_x, c_y, c_z. A model whose surface is not a closed, consistently wound 2-manifold (every
    directed edge once, its reverse once) or that encloses no volume gets V = 0: the water forces
    then never take the fully-submerged shortcut for it."""
    n_models = vert_off.shape[0] - 1
    out = np.zeros((n_models, 4))
    for m in range(n_models):
        v0 = vert_off[m]
        nv = vert_off[m + 1] - v0
        t0 = tri_off[m]
        nt = tri_off[m + 1] - t0
        if nt == 0:
            continue
        keys = np.empty(3 * nt, np.int64)
        for t in range(nt):
            for e in range(3):
                a = model_tris[t0 + t, e]
                b = model_tris[t0 + t, (e + 1) % 3]
                keys[3 * t + e] = a * nv + b
        keys.sort()
        closed = True
        for j in range(3 * nt):
            if j > 0 and keys[j] == keys[j - 1]:
                closed = False
                break
            a = keys[j] // nv
            b = keys[j] % nv
            rev = b * nv + a
            pos = np.searchsorted(keys, rev)
            if a == b or pos >= keys.shape[0] or keys[pos] != rev:
                closed = False
                break
        if not closed:
            continue
        vol = 0.0
        cx = cy = cz = 0.0
        for t in range(nt):
            a = model_verts[v0 + model_tris[t0 + t, 0]]
            b = model_verts[v0 + model_tris[t0 + t, 1]]
            c = model_verts[v0 + model_tris[t0 + t, 2]]
            # signed volume of the tetrahedron (origin, a, b, c)
            d = (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                 + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0
            vol += d
            cx += d * (a[0] + b[0] + c[0]) / 4.0
            cy += d * (a[1] + b[1] + c[1]) / 4.0
            cz += d * (a[2] + b[2] + c[2]) / 4.0
        if vol > 0.0:
            out[m, 0] = vol
            out[m, 1] = cx / vol
            out[m, 2] = cy / vol
            out[m, 3] = cz / vol
    return out


@njit(cache=True, inline="always")
def _rotate(r, x, y, z):
    """R (x, y, z) for a 3x3 rotation R."""
    return (r[0, 0] * x + r[0, 1] * y + r[0, 2] * z, r[1, 0] * x + r[1, 1] * y + r[1, 2] * z,
            r[2, 0] * x + r[2, 1] * y + r[2, 2] * z)


SMALL_BODY = 8.0       # bodies with a bounding radius under this many cells ...
TINY_BODY = 2.0        # ... but at least this many (smaller ones are specks to the water) ...
SUBSAMPLES = 2         # ... are sampled at SUBSAMPLES^2 points per cell by the covered height
SPECK_CELLS = 3.0      # a closed body under this many cells in radius wholly under water: its volume at its centre


@njit(cache=True, inline="always")
def _owns_edge(p, q, sign: float) -> bool:
    """Tie rule for cell centres exactly on edge p->q (oriented to the triangle's winding)."""
    ex = (q[0] - p[0]) * sign
    ez = (q[2] - p[2]) * sign
    return ez > 0.0 or (ez == 0.0 and ex > 0.0)


@njit(cache=True)
def covered_height(models, bodies, active, planes, bed, dx, out):
    """Height of body inside each water column, below the surface (m): out[k, i], overwritten
    (see _covered_height)."""
    return _covered_height(models, bodies, active, planes, bed, dx, out, True, np.empty((active.shape[0], 4), np.int64))


@njit(cache=True)
def covered_height_raw(models, bodies, active, planes, bed, dx, out):
    """covered_height added into out, which must be all zero on entry, and not clamped at zero
    (settle_covered clamps): saves two passes over the grid per step."""
    return _covered_height(models, bodies, active, planes, bed, dx, out, False, np.empty((active.shape[0], 4), np.int64))


@njit(cache=True, inline="always")
def _covered_height(models, bodies, active, planes, bed, dx, out, fresh, boxes):
    """Height of body inside each water column, below the surface (m): out[k, i], overwritten.
    boxes (N, 4) int64: each active body's cells, rows k0..k1 and columns i0..i1 (k1 < k0 where it
    covers none), before the blur; the rows of the others are left as they were.

    Per triangle, every cell centre (or sample point, for a small body) inside its (x, z)
    footprint gets +min(y, eta) for an upward facing triangle and -min(y, eta) for a downward
    facing one (y: the triangle's height there, clamped to the bed). Serial: several bodies write
    the same cells.

    For a closed model (solids V > 0) every vertical line crosses as many upward as downward
    facing triangles (the tie rule counts each point once per sheet), so sum sign eta = 0 and the
    same sum is  -sum sign max(eta - y, 0):  a triangle wholly above the surface adds nothing and
    is skipped. An open model keeps the min(y, eta) form.
    """
    model_verts, model_tris, vert_off, tri_off = models.verts, models.tris, models.vert_off, models.tri_off
    solids = models.solids
    model_id, pos, quat, radius = bodies.model_id, bodies.pos, bodies.quat, bodies.radius
    nz, nx = out.shape
    if fresh:
        out[:, :] = 0.0
    world = np.empty((64, 6))     # per body: world x, y, z, x and z in cell units, depth below the plane
    kmin, kmax, imin, imax = nz, -1, nx, -1
    for b in range(pos.shape[0]):
        if not active[b]:
            continue
        boxes[b, 0] = nz
        boxes[b, 1] = -1
        boxes[b, 2] = nx
        boxes[b, 3] = -1
        com = pos[b]
        if com[1] - radius[b] > planes[b, 0] + radius[b] * (abs(planes[b, 1]) + abs(planes[b, 2])):
            continue
        m = model_id[b]
        v0, v1 = vert_off[m], vert_off[m + 1]
        closed = solids[m, 0] > 0.0
        if closed and radius[b] < SPECK_CELLS * dx and com[1] + radius[b] < (
                planes[b, 0] - radius[b] * (abs(planes[b, 1]) + abs(planes[b, 2]))):
            # a speck (under 3 cells in radius: a shard) wholly under the surface: its volume V,
            # spread bilinearly over the 4 cells around its centre (sum V / dx^2 exactly). The
            # field is then blurred over 5 cells (settle_covered), so a body this small is
            # resolved no better by its ~80 triangles, which at one sample per cell gave its
            # volume only on average (0 to 4 cell centres under it); the bed clamp is dropped: a
            # resting speck sinks into the bed by the contacts' slop at most
            k0, k1, i0, i1, tz, tx = _centered_stencil(nz, nx, com[0], com[2], dx)
            vol = solids[m, 0] / (dx * dx)
            out[k0, i0] += (1.0 - tz) * (1.0 - tx) * vol
            out[k0, i1] += (1.0 - tz) * tx * vol
            out[k1, i0] += tz * (1.0 - tx) * vol
            out[k1, i1] += tz * tx * vol
            boxes[b, 0] = k0
            boxes[b, 1] = k1
            boxes[b, 2] = i0
            boxes[b, 3] = i1
            continue
        rot = quat_to_matrix(quat[b])
        if world.shape[0] < v1 - v0:
            world = np.empty((v1 - v0, 6))
        # a body a few cells across is sampled at sub x sub points per cell (each weighing
        # 1 / sub^2): at one point per cell, the chords of a 3-cell-wide bottle missed 12% of it;
        # a speck under 2 cells in radius (a shard) crossing the surface is sampled once per
        # cell: its error is unbiased and its volume small
        sub = SUBSAMPLES if TINY_BODY * dx <= radius[b] < SMALL_BODY * dx else 1
        step = 1.0 / sub
        lo = 0.5 * step                             # the first and last sample point's offset in a cell
        hi = 1.0 - lo
        weight = step * step
        for j in range(v1 - v0):
            lv = model_verts[v0 + j]
            for a in range(3):
                world[j, a] = com[a] + rot[a, 0] * lv[0] + rot[a, 1] * lv[1] + rot[a, 2] * lv[2]
            # in cell units, for the footprint's cell range (x -> x / dx is monotone, so the
            # min over a triangle's corners is the same as the corner min transformed)
            world[j, 3] = world[j, 0] / dx
            world[j, 4] = world[j, 2] / dx
            world[j, 5] = _plane(planes, b, pos, world[j, 0], world[j, 2]) - world[j, 1]
        for tri in range(tri_off[m], tri_off[m + 1]):
            ja = model_tris[tri, 0]
            jb = model_tris[tri, 1]
            jc = model_tris[tri, 2]
            if closed and world[ja, 5] <= 0.0 and world[jb, 5] <= 0.0 and world[jc, 5] <= 0.0:
                continue                            # eta - y <= 0 at the corners, so all over it
            i0 = max(int(np.ceil(min(world[ja, 3], world[jb, 3], world[jc, 3]) - hi)), 0)
            i1 = min(int(np.floor(max(world[ja, 3], world[jb, 3], world[jc, 3]) - lo)), nx - 1)
            if i0 > i1:
                continue                            # no sample point under it
            k0 = max(int(np.ceil(min(world[ja, 4], world[jb, 4], world[jc, 4]) - hi)), 0)
            k1 = min(int(np.floor(max(world[ja, 4], world[jb, 4], world[jc, 4]) - lo)), nz - 1)
            if k0 > k1:
                continue
            a = world[ja]
            bb = world[jb]
            c = world[jc]
            # signed area in the x-z plane (the y component of the normal, times 2)
            ny2 = (bb[2] - a[2]) * (c[0] - a[0]) - (bb[0] - a[0]) * (c[2] - a[2])
            if ny2 == 0.0:
                continue
            sign = 1.0 if ny2 > 0.0 else -1.0
            kmin = min(kmin, k0); kmax = max(kmax, k1); imin = min(imin, i0); imax = max(imax, i1)
            boxes[b, 0] = min(boxes[b, 0], k0)
            boxes[b, 1] = max(boxes[b, 1], k1)
            boxes[b, 2] = min(boxes[b, 2], i0)
            boxes[b, 3] = max(boxes[b, 3], i1)
            for k in range(k0, k1 + 1):
              for sk in range(sub):
                pz = (k + lo + sk * step) * dx
                for i in range(i0, i1 + 1):
                  for si in range(sub):
                    px = (i + lo + si * step) * dx
                    # barycentric weights in the x-z plane, made positive inside; a point on an
                    # edge belongs to the triangle only if the (oriented) edge passes the tie rule,
                    # so neighbouring triangles of one sheet count it exactly once
                    w0 = sign * ((bb[2] - pz) * (c[0] - px) - (bb[0] - px) * (c[2] - pz))
                    w1 = sign * ((c[2] - pz) * (a[0] - px) - (c[0] - px) * (a[2] - pz))
                    w2 = sign * ((a[2] - pz) * (bb[0] - px) - (a[0] - px) * (bb[2] - pz))
                    if w0 < 0.0 or w1 < 0.0 or w2 < 0.0:
                        continue
                    if w0 == 0.0 and not _owns_edge(bb, c, sign):
                        continue
                    if w1 == 0.0 and not _owns_edge(c, a, sign):
                        continue
                    if w2 == 0.0 and not _owns_edge(a, bb, sign):
                        continue
                    w0 *= sign
                    w1 *= sign
                    w2 *= sign
                    y = (w0 * a[1] + w1 * bb[1] + w2 * c[1]) / ny2
                    if y < bed[k, i]:
                        y = bed[k, i]
                    e = _plane(planes, b, pos, px, pz)
                    if closed:
                        if y < e:
                            out[k, i] -= weight * sign * (e - y)
                    else:
                        out[k, i] += weight * sign * (y if y < e else e)
    for k in range(kmin, kmax + 1 if fresh else kmin):   # only cells a triangle touched can be negative
        for i in range(imin, imax + 1):
            if out[k, i] < 0.0:
                out[k, i] = 0.0
    return 0


@njit(cache=True)
def blur(a, tmp, passes):
    """Smooth a cell field with `passes` separable [1 2 1]/4 passes; the sum is kept exactly
    (edges mirror). Takes the flicker out of a covered-height field rasterised at cell centres."""
    nz, nx = a.shape
    if nx < 2 or nz < 2:
        return _blur_small(a, tmp, passes)
    for _ in range(passes):
        # interiors without edge branches (the loops vectorise); the edges mirror
        for k in range(nz):
            tmp[k, 0] = 0.5 * a[k, 0] + 0.25 * (a[k, 0] + a[k, 1])
            for i in range(1, nx - 1):
                tmp[k, i] = 0.5 * a[k, i] + 0.25 * (a[k, i - 1] + a[k, i + 1])
            tmp[k, nx - 1] = 0.5 * a[k, nx - 1] + 0.25 * (a[k, nx - 2] + a[k, nx - 1])
        for i in range(nx):
            a[0, i] = 0.5 * tmp[0, i] + 0.25 * (tmp[0, i] + tmp[1, i])
        for k in range(1, nz - 1):
            for i in range(nx):
                a[k, i] = 0.5 * tmp[k, i] + 0.25 * (tmp[k - 1, i] + tmp[k + 1, i])
        for i in range(nx):
            a[nz - 1, i] = 0.5 * tmp[nz - 1, i] + 0.25 * (tmp[nz - 2, i] + tmp[nz - 1, i])
    return 0


@njit(cache=True)
def _blur_small(a, tmp, passes):
    """blur for grids one cell wide or tall."""
    nz, nx = a.shape
    for _ in range(passes):
        for k in range(nz):
            for i in range(nx):
                west = a[k, i - 1] if i > 0 else a[k, i]
                east = a[k, i + 1] if i < nx - 1 else a[k, i]
                tmp[k, i] = 0.5 * a[k, i] + 0.25 * (west + east)
        for k in range(nz):
            for i in range(nx):
                d = tmp[k - 1, i] if k > 0 else tmp[k, i]
                u = tmp[k + 1, i] if k < nz - 1 else tmp[k, i]
                a[k, i] = 0.5 * tmp[k, i] + 0.25 * (d + u)
    return 0


@njit(cache=True, inline="always")
def _repay(h, debt):
    """Take `debt` m (per dx^2) of water from every cell in proportion to its depth: the columns
    a body left could not give back all it had put in; this cannot make any cell negative."""
    if debt <= 0.0:
        return
    nz, nx = h.shape
    wet = 0.0
    for k in range(nz):
        for i in range(nx):
            wet += h[k, i]
    if wet > debt:
        scale = 1.0 - debt / wet
        for k in range(nz):
            for i in range(nx):
                h[k, i] *= scale


@njit(cache=True)
def displace(h, b_new, b_old, alpha):
    """Move the water the bodies displaced: h += alpha (b_new - b_old), volume-exact.

    Where a column would go dry, its shortfall is taken evenly from every wet cell instead, so the
    total change is exactly alpha * sum(b_new - b_old). Returns the volume moved per dx^2.
    """
    nz, nx = h.shape
    debt = 0.0
    moved = 0.0
    for k in range(nz):
        for i in range(nx):
            d = alpha * (b_new[k, i] - b_old[k, i])
            moved += d
            v = h[k, i] + d
            if v < 0.0:
                debt -= v
                v = 0.0
            h[k, i] = v
    _repay(h, debt)
    return moved


@njit(cache=True, inline="always")
def _taps5(a0, a1, a2, a3, a4):
    """Two [1 2 1]/4 passes in one: [1 4 6 4 1]/16 about a2."""
    return 0.0625 * ((a0 + a4) + 4.0 * (a1 + a3) + 6.0 * a2)


@njit(cache=True)
def settle_covered(b_new, b_static, tmp, passes, h, b_old, solid):
    """The per-step tail of the covered height, in as few passes over the grid as it takes:
    b_new = max(b_new, 0) + b_static (b_new from covered_height_raw), `passes` blur passes (as
    blur), b_new = min(b_new, h) (a body displaces only water that is there) and 0 in solid
    columns (engine/blocking.py: a solid column holds no water to displace), then
    displace(h, b_new, b_old, 1), leaving b_old all zero (ready for the next covered_height_raw).
    Returns sum(b_new) (the displaced volume per dx^2).

    Two passes (the default) are one [1 4 6 4 1]/16 filter along each axis, the edges mirrored as
    blur mirrors them (a[-1] = a[0], a[-2] = a[1]: the two passes' edge rule, applied twice): a
    row pass into tmp, then a column pass that clamps and displaces as it goes, two sweeps of the
    grid in all."""
    nz, nx = b_new.shape
    if passes != 2 or nx < 2 or nz < 2:
        return _settle_plain(b_new, b_static, tmp, passes, h, b_old, solid)
    row = np.empty(nx + 4)                          # one row of max(b_new, 0) + b_static, mirrored 2 deep
    for k in range(nz):
        for i in range(nx):
            row[i + 2] = max(b_new[k, i], 0.0) + b_static[k, i]
        row[1] = row[2]
        row[0] = row[3]
        row[nx + 2] = row[nx + 1]
        row[nx + 3] = row[nx]
        for i in range(nx):
            tmp[k, i] = _taps5(row[i], row[i + 1], row[i + 2], row[i + 3], row[i + 4])
    # the column pass, then per row the clamp to the water there, the displacement and b_old's
    # zeroing; the row's sum in four interleaved partial sums (one running sum is a chain of
    # dependent additions as long as the grid)
    debt = 0.0
    total = 0.0
    for k in range(nz):
        k0 = k - 2 if k >= 2 else 1 - k            # mirrored: -1 -> 0, -2 -> 1
        k1 = k - 1 if k >= 1 else 0
        k3 = k + 1 if k + 1 < nz else nz - 1
        k4 = k + 2 if k + 2 < nz else 2 * nz - 3 - k   # nz -> nz - 1, nz + 1 -> nz - 2
        for i in range(nx):
            b = _taps5(tmp[k0, i], tmp[k1, i], tmp[k, i], tmp[k3, i], tmp[k4, i])
            b_new[k, i] = 0.0 if solid[k, i] else min(b, h[k, i])
        s0 = s1 = s2 = s3 = 0.0
        i = 0
        while i + 4 <= nx:
            s0 += b_new[k, i]
            s1 += b_new[k, i + 1]
            s2 += b_new[k, i + 2]
            s3 += b_new[k, i + 3]
            i += 4
        while i < nx:
            s0 += b_new[k, i]
            i += 1
        total += (s0 + s1) + (s2 + s3)
        low = False
        for i in range(nx):
            v = h[k, i] + (b_new[k, i] - b_old[k, i])
            b_old[k, i] = 0.0
            low |= v < 0.0
            h[k, i] = v
        if low:                                     # a column would run dry: its shortfall is a debt
            for i in range(nx):
                if h[k, i] < 0.0:
                    debt -= h[k, i]
                    h[k, i] = 0.0
    _repay(h, debt)
    return total


@njit(cache=True)
def _settle_plain(b_new, b_static, tmp, passes, h, b_old, solid):
    """settle_covered for any number of passes and any grid: pass by pass."""
    nz, nx = b_new.shape
    for k in range(nz):
        for i in range(nx):
            v = b_new[k, i]
            if v < 0.0:
                v = 0.0
            b_new[k, i] = v + b_static[k, i]
    if passes:
        blur(b_new, tmp, passes)
    debt = 0.0
    total = 0.0
    for k in range(nz):
        for i in range(nx):
            bn = 0.0 if solid[k, i] else min(b_new[k, i], h[k, i])
            b_new[k, i] = bn
            total += bn
            v = h[k, i] + (bn - b_old[k, i])
            b_old[k, i] = 0.0
            if v < 0.0:
                debt -= v
                v = 0.0
            h[k, i] = v
    _repay(h, debt)
    return total


@njit(cache=True)
def prepare_bodies(slots, model_radius, sleep_after, steps, wake_check, prop, out):
    """The step's per-slot inputs (`Slots` in, `Masks` out), in one sweep: out.model_id = model_id
    (int64), out.radius its model's bounding radius, active = alive, asleep = active and sleep >= sleep_after, forced = active and
    (awake or (b + steps) % wake_check == 0) (a sleeper's loads are looked at every wake_check-th
    step, in turn), fresh = active and not in static_set (the sleepers whose covered height is
    cached). Returns (woke, slept, due, props): how many of static_set are no longer asleep, how
    many sleepers are not in it, how many bodies are forced, and how many alive bodies are of
    kind `prop` (the bodies that may block the flow, engine/blocking.py)."""
    woke = 0
    slept = 0
    due = 0
    props = 0
    static_set = slots.static_set
    for b in range(slots.alive.shape[0]):
        m = slots.model_id[b]
        out.model_id[b] = m
        out.radius[b] = model_radius[m]
        a = slots.alive[b]
        s = a and slots.sleep[b] >= sleep_after
        out.active[b] = a
        out.asleep[b] = s
        f = a and (not s or (b + steps) % wake_check == 0)
        out.forced[b] = f
        out.fresh[b] = a and not static_set[b]
        due += f
        props += a and slots.kind[b] == prop
        if static_set[b] and not s:
            woke += 1
        if s and not static_set[b]:
            slept += 1
    return woke, slept, due, props


@njit(cache=True)
def surface_planes(pos, radius, active, bed, h, dx, margin, planes, smooth, a, jump):
    """ambient_planes_split, then filter_planes (one call)."""
    _ambient_planes(pos, radius, active, bed, h, True, dx, margin, planes)
    filter_planes(planes, smooth, a, jump)
    return 0


@njit(cache=True)
def covered_step(models, bodies, fresh, planes, bed, dx, b_new, b_static, tmp, passes, h, b_old, solid, boxes):
    """covered_height_raw of the fresh bodies into b_new (all zero on entry), then settle_covered
    (one call). Returns settle_covered's sum(b_new). boxes (N, 4): each fresh body's cells (as
    _covered_height leaves them)."""
    _covered_height(models, bodies, fresh, planes, bed, dx, b_new, False, boxes)
    return settle_covered(b_new, b_static, tmp, passes, h, b_old, solid)


@njit(cache=True)
def filter_planes(planes, smooth, a, jump):
    """Low-pass the fitted planes: a row of smooth that is unset (NaN) or more than `jump` from the
    fresh fit restarts at it; then smooth += a (planes - smooth) and planes = smooth."""
    for b in range(planes.shape[0]):
        if not np.isfinite(smooth[b, 0]) or abs(smooth[b, 0] - planes[b, 0]) > jump:
            for c in range(3):
                smooth[b, c] = planes[b, c]
        for c in range(3):
            smooth[b, c] += a * (planes[b, c] - smooth[b, c])
            planes[b, c] = smooth[b, c]
    return 0


@njit(cache=True)
def gather_forces(forced, active, response, vel, force, torque, submerged, was_wet, splash_speed, entering):
    """force += response.force, torque += response.torque, submerged = response.submerged where
    forced (a water_forces.Response); then the bodies entering the water
    (wet now, not wet before, falling faster than splash_speed) into entering, was_wet updated.
    Returns how many entered."""
    f, t, s = response.force, response.torque, response.submerged
    count = 0
    for b in range(f.shape[0]):
        for c in range(3):
            force[b, c] += f[b, c]
            torque[b, c] += t[b, c]
        if forced[b]:
            submerged[b] = s[b]
        wet = submerged[b] > 0.0 and active[b]
        entering[b] = wet and not was_wet[b] and vel[b, 1] < -splash_speed
        if entering[b]:
            count += 1
        was_wet[b] = wet
    return count


# The water around a hull is the surface-wave stage's shore (engine/water/surface.py, `_hull`): the
# stage, which carries (and damps) the waves a few cells long in open water, leaves them to the
# shallow-water bulk there. The bulk's explicit step holds the grid's shortest wave, the 2 dx
# checker of eta (mode (pi, pi)), with no damping but its eddy viscosity's, and amplifies it from a
# few centimetres of amplitude on (docs/coupling.md, session 16); a body entering fast seeds it.
# `damp_short_waves` gives that zone the damping the stage gives open water, of the flow's
# grid-scale divergence only.
SHORT_WAVE_REACH = 6      # cells beyond the columns a body covers: the covered height's blur (2), the hull ramp (4)
SHORT_WAVE_TAPER = 3.0    # cells: the damping fades out over the zone's outer rim (> 0)
SHORT_WAVE_RATE = 0.25    # the share of the checker's velocity taken out per step


@njit(cache=True)
def damp_short_waves(water, boxes, radius, fresh, asleep, reach, taper, rate, wet_depth, scratch):
    """Damp the grid-scale part of the water's divergence around every body that covers columns,
    on the face velocities themselves (water.u, water.w, in place):

        v += s nu dt grad(D - S D),  nu dt = rate dx^2 / 8,

    D = div v per cell, S the [1 2 1]/4 filter along each axis (edges clamped). D - S D keeps the
    checker D = (-1)^(i+k) A wholly (S's response there is 0) and a smooth field only to
    -dx^2 lap D / 4: grad(div) of the checker's velocity is -(8 / dx^2) times it, so a step takes
    the share `rate` of the checker's velocity, and of a wave along an axis the share
    (rate / 2) sin^4(k dx / 2) ~ rate (k dx)^4 / 32 (6e-5 at k dx = 0.3, rate 0.25). The faces
    change, not the depths: the volume is untouched. On the velocities directly, not as an
    acceleration of the next step: the checker turns a quarter period in a step of the bulk
    (omega dt = 2 sqrt(2) c dt / dx ~ pi / 2 at c dt / dx ~ 0.6), and a force taken from the
    velocity at the start of the step then works against the wave's position, not its motion
    (measured: no damping, or growth, from rates of 0.6 on).

    The zone, per fresh body that is awake (a body at rest seeds nothing), covers columns and is at
    least SPECK_CELLS cells in bounding radius (radius, m: a speck's covered height is too small to
    matter): the box of the cells it covers (boxes, from covered_step) grown by `reach` cells;
    s = s_x s_z, each 1 up to reach - taper cells outside the box along its axis and fading
    linearly to 0 at reach (a sharp edge would itself make short waves there); faces between two
    columns at least wet_depth deep only. Bodies whose zones overlap each damp the faces in both,
    one after the other in slot order. scratch: float64 (4, rows, cols), grown as needed and returned."""
    u, w, h, dx = water.u, water.w, water.h, water.dx
    nz, nx = h.shape
    c = rate * dx / 8.0                 # nu dt / dx
    inv_dx = 1.0 / dx
    inv_taper = 1.0 / taper
    speck = SPECK_CELLS * dx
    for b in range(boxes.shape[0]):
        if not fresh[b] or asleep[b] or radius[b] < speck:
            continue
        if boxes[b, 1] < boxes[b, 0] or boxes[b, 3] < boxes[b, 2]:
            continue                                    # it covers no column
        bk0, bk1, bi0, bi1 = boxes[b, 0], boxes[b, 1], boxes[b, 2], boxes[b, 3]
        i0 = max(bi0 - reach, 0)
        i1 = min(bi1 + reach, nx - 1)
        k0 = max(bk0 - reach, 0)
        k1 = min(bk1 + reach, nz - 1)
        rows = k1 - k0 + 3                              # the square and a border of one cell
        cols = i1 - i0 + 3
        if scratch.shape[1] < max(rows, 4) or scratch.shape[2] < max(cols, rows):
            size = max(rows, cols, 4, scratch.shape[1], scratch.shape[2])
            scratch = np.empty((4, size, size))
        # the tapers along each axis, 1 - (distance outside the box - (reach - taper)) / taper
        # clipped to [0, 1]: tp[0, ii] at the centre of cell column i = i0 - 1 + ii, tp[1, ii] at
        # its west face; tp[2, kk], tp[3, kk] the same along z (the box spans cells bi0..bi1, that
        # is x in [bi0, bi1 + 1])
        tp = scratch[3]
        lo = reach - taper
        for ii in range(1, cols - 1):
            x = i0 - 1 + ii + 0.5
            tp[0, ii] = min(max(1.0 - (max(bi0 - x, x - (bi1 + 1), 0.0) - lo) * inv_taper, 0.0), 1.0)
            x -= 0.5
            tp[1, ii] = min(max(1.0 - (max(bi0 - x, x - (bi1 + 1), 0.0) - lo) * inv_taper, 0.0), 1.0)
        for kk in range(1, rows - 1):
            z = k0 - 1 + kk + 0.5
            tp[2, kk] = min(max(1.0 - (max(bk0 - z, z - (bk1 + 1), 0.0) - lo) * inv_taper, 0.0), 1.0)
            z -= 0.5
            tp[3, kk] = min(max(1.0 - (max(bk0 - z, z - (bk1 + 1), 0.0) - lo) * inv_taper, 0.0), 1.0)
        # one sweep down the rows: d[kk, ii] = D of the cell (k0 - 1 + kk, i0 - 1 + ii) (clamped
        # into the grid) and its row pass t; then e = D - S D of the row above and that row's faces.
        # A face changes two rows after the D that read it: every D is of the velocities on entry
        d = scratch[0]
        t = scratch[1]
        e = scratch[2]
        tx_c = tp[0]
        tx_f = tp[1]
        for kk in range(rows):
            k = min(max(k0 - 1 + kk, 0), nz - 1)
            uk = u[k]
            ws = w[k]
            wn = w[k + 1]
            dk = d[kk]
            for ii in range(1, cols - 1):
                i = i0 - 1 + ii
                dk[ii] = (float(uk[i + 1] - uk[i]) + float(wn[i] - ws[i])) * inv_dx
            dk[0] = dk[1] if i0 == 0 else (float(uk[i0] - uk[i0 - 1]) + float(wn[i0 - 1] - ws[i0 - 1])) * inv_dx
            dk[cols - 1] = dk[cols - 2] if i1 == nx - 1 else (float(uk[i1 + 2] - uk[i1 + 1])
                                                              + float(wn[i1 + 1] - ws[i1 + 1])) * inv_dx
            tk = t[kk]
            for ii in range(1, cols - 1):
                tk[ii] = 0.25 * (dk[ii - 1] + dk[ii + 1]) + 0.5 * dk[ii]
            if kk < 2:
                continue
            r = kk - 1                                   # the row whose e is now known
            er = e[r]
            dr = d[r]
            ta = t[r - 1]
            tr = t[r]
            for ii in range(1, cols - 1):
                er[ii] = dr[ii] - (0.25 * (ta[ii] + tk[ii]) + 0.5 * tr[ii])
            k = k0 - 1 + r
            uk = u[k]
            hk = h[k]
            sz = c * tp[2, r]                            # u faces between two cells of the row
            for ii in range(2, cols - 1):
                i = i0 - 1 + ii
                wet = 1.0 if min(hk[i - 1], hk[i]) >= wet_depth else 0.0
                uk[i] += (sz * tx_f[ii] * wet) * (er[ii] - er[ii - 1])
            if r < 2:
                continue
            ea = e[r - 1]
            ha = h[k - 1]
            wk = w[k]
            sz = c * tp[3, r]                            # w faces between the row and the one above
            for ii in range(1, cols - 1):
                i = i0 - 1 + ii
                wet = 1.0 if min(ha[i], hk[i]) >= wet_depth else 0.0
                wk[i] += (sz * tx_c[ii] * wet) * (er[ii] - ea[ii])
    return scratch
