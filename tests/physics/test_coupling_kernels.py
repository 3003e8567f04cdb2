"""Water-to-body and body-to-water kernels against Archimedes and the sphere's geometry."""
from __future__ import annotations

import numpy as np
import pytest

from engine.kernels import coupling, water_forces

RHO, G = 1000.0, 9.81


def uv_sphere(r: float, nu: int = 48, nv: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """A closed UV sphere with outward winding."""
    verts = [[0.0, r, 0.0]]
    for j in range(1, nv):
        th = np.pi * j / nv
        for i in range(nu):
            ph = 2 * np.pi * i / nu
            verts.append([r * np.sin(th) * np.cos(ph), r * np.cos(th), r * np.sin(th) * np.sin(ph)])
    verts.append([0.0, -r, 0.0])
    tris = [[0, 1 + (i + 1) % nu, 1 + i] for i in range(nu)]
    for j in range(nv - 2):
        for i in range(nu):
            a, b = 1 + j * nu + i, 1 + j * nu + (i + 1) % nu
            tris += [[a, b, b + nu], [a, b + nu, a + nu]]
    last, base = len(verts) - 1, 1 + (nv - 2) * nu
    tris += [[last, base + i, base + (i + 1) % nu] for i in range(nu)]
    return np.array(verts), np.array(tris, np.int64)


def mesh_volume(v: np.ndarray, t: np.ndarray) -> float:
    return float(np.einsum("ij,ij->i", v[t[:, 0]], np.cross(v[t[:, 1]], v[t[:, 2]])).sum() / 6.0)


def cap_volume(r: float, depth: float) -> float:
    """Volume of a sphere's cap of height `depth` (0 <= depth <= 2 r)."""
    return np.pi * depth ** 2 * (3 * r - depth) / 3.0


class Pool:
    def __init__(self, n: int = 64, dx: float = 0.01, level: float = 0.5) -> None:
        self.eta = np.full((n, n), level)
        self.bed = np.zeros((n, n))
        self.u = np.zeros((n, n + 1))
        self.w = np.zeros((n + 1, n))
        self.dx = dx


def planes_for(pool, pos, radius):
    planes = np.zeros((1, 3))
    coupling.ambient_planes(np.array([pos], float), np.array([radius]), np.array([True]), pool.eta, pool.dx,
                            3 * pool.dx, planes)
    return planes


def loads_of(v, t, pos, vel=(0, 0, 0), pool=None, quat=(1, 0, 0, 0), cd=0.8, area_factor=0.9, c_skin=0.0,
             solids=None, angvel=(0, 0, 0)):
    """water_forces.water_loads for one body (row of LOADS values)."""
    pool = pool or Pool()
    models = coupling.pack_models([(v, t)])
    if solids is not None:
        models = models._replace(solids=solids)
    radius = models.radius[0]
    bodies = coupling.bodies_of([0], [pos], [quat], [radius], vel=[vel], angvel=[angvel])
    loads = np.zeros((1, water_forces.LOADS))
    water = coupling.Water(pool.eta - pool.bed, pool.bed, pool.u, pool.w, np.zeros_like(pool.u),
                           np.zeros_like(pool.w), pool.dx)
    coefs = water_forces.Coefs(RHO, G, np.full((1, 3), cd), 0.0, area_factor, c_skin, 0.0, 1e-3, np.zeros(1))
    water_forces.water_loads(models, bodies, np.array([True]), planes_for(pool, pos, radius), water, coefs, loads)
    return loads[0]


def forces(v, t, pos, vel=(0, 0, 0), pool=None, quat=(1, 0, 0, 0), cd=0.8):
    """(force, torque, submerged volume, wetted area) of the water on one body: pressure + drag."""
    row = loads_of(v, t, pos, vel, pool, quat, cd)
    wf = water_forces
    return (row[wf.F_P:wf.F_P + 3] + row[wf.F_D:wf.F_D + 3], row[wf.T_P:wf.T_P + 3] + row[wf.T_D:wf.T_D + 3],
            row[wf.V_SUB], row[wf.WET])


@pytest.mark.parametrize("depth", [0.02, 0.1, 0.17, 0.25])
def test_buoyancy_is_archimedes(depth):
    """F_y = rho g V_sub for a sphere of radius r whose bottom is `depth` below the surface."""
    r = 0.1
    v, t = uv_sphere(r)
    f, torque, sub, _ = forces(v, t, (0.32, 0.5 - depth + r, 0.32))
    exact = cap_volume(r, min(depth, 2 * r)) * mesh_volume(v, t) / (4 / 3 * np.pi * r ** 3)
    assert sub == pytest.approx(exact, rel=0.02)
    assert f[1] == pytest.approx(RHO * G * sub, rel=1e-9)
    assert abs(f[0]) < 1e-9 and abs(f[2]) < 1e-9
    # the pressure acts through the centre of buoyancy, on the vertical through the centre: each
    # piece's moment is integrated exactly, so no torque beyond round-off
    assert np.abs(torque).max() < 1e-9 * f[1] * r


def test_drag_opposes_relative_motion_with_the_effective_area():
    """Drag on a sphere moving at U: 1/2 rho C_D A_eff U^2, A_eff = pi r^2 (omega + 2 (1 - omega));
    omega = 1: the frontal area pi r^2, so C_D is the sphere's drag coefficient."""
    r = 0.1
    v, t = uv_sphere(r)
    for cd, omega, speed in ((0.8, 0.9, 1.0), (0.47, 1.0, 2.0)):
        row = loads_of(v, t, (0.32, 0.2, 0.32), vel=(speed, 0.0, 0.0), cd=cd, area_factor=omega)
        expected = 0.5 * RHO * cd * np.pi * r ** 2 * (omega + 2 * (1 - omega)) * speed ** 2
        assert row[water_forces.F_D] == pytest.approx(-expected, rel=0.02)


def test_current_pushes_a_still_body_downstream():
    r = 0.1
    v, t = uv_sphere(r)
    pool = Pool()
    pool.u[:] = 0.5
    f, *_ = forces(v, t, (0.32, 0.2, 0.32), pool=pool)
    assert f[0] > 0.0 and abs(f[2]) < 1e-6 * abs(f[0])


@pytest.mark.parametrize("height", [0.45, 0.5, 0.55, 0.3])
def test_covered_height_integrates_to_the_submerged_volume(height):
    """sum(b) dx^2 = volume of body below the surface (the water it must push aside)."""
    r = 0.1
    v, t = uv_sphere(r)
    pool = Pool()
    out = np.zeros_like(pool.eta)
    pos = np.array([[0.32, height, 0.32]])
    coupling.covered_height(coupling.pack_models([(v, t)]), coupling.bodies_of([0], pos, [[1.0, 0, 0, 0]], [r]),
                            np.array([True]), planes_for(pool, pos[0], r), pool.bed, pool.dx, out)
    _, _, sub, _ = forces(v, t, tuple(pos[0]), pool=pool)
    assert out.sum() * pool.dx ** 2 == pytest.approx(sub, rel=0.02)


def test_surface_plane_fits_a_tilted_surface():
    """The ring fit recovers eta = a + b x + c z exactly for a planar water surface."""
    pool = Pool()
    X = (np.arange(64) + 0.5) * pool.dx
    pool.eta = 0.5 + 0.02 * (X[None, :] - 0.32) - 0.01 * (X[:, None] - 0.32)
    p = planes_for(pool, (0.32, 0.5, 0.32), 0.1)
    assert p[0] == pytest.approx([0.5, 0.02, -0.01], abs=1e-9)


def test_displace_moves_volume_exactly_even_where_columns_run_dry():
    rng = np.random.default_rng(1)
    h = rng.uniform(0.0, 0.05, (16, 16))
    h[3, 3] = 0.0
    b_old = np.zeros_like(h)
    b_old[3, 3] = 0.2          # a body that had pushed 0.2 m out of a column that has since drained
    b_new = np.zeros_like(h)
    before = h.sum()
    coupling.displace(h, b_new, b_old, 1.0)
    assert h.min() >= 0.0
    assert h.sum() == pytest.approx(before - 0.2, abs=1e-12)


def test_the_submerged_shortcut_equals_the_per_triangle_sum():
    """A closed body wholly under water: rho g V through the centre of buoyancy (divergence theorem)
    is the same force as the clipped per-triangle pressure sum."""
    r = 0.1
    v, t = uv_sphere(r)
    pool = Pool()
    pos = np.array([[0.3, 0.2, 0.34]])
    quat = np.array([[0.9, 0.1, 0.3, 0.2]]) / np.linalg.norm([0.9, 0.1, 0.3, 0.2])
    offs = (np.array([0, len(v)]), np.array([0, len(t)]))
    results = []
    for solids in (coupling.closed_solids(v, t, *offs), np.zeros((1, 4))):   # shortcut on / off
        row = loads_of(v, t, tuple(pos[0]), quat=tuple(quat[0]), pool=pool, solids=solids)
        results.append((row[0:3], row[3:6], row[water_forces.V_SUB], None))
    (f1, t1, s1, _), (f2, t2, s2, _) = results
    assert coupling.closed_solids(v, t, *offs)[0, 0] == pytest.approx(mesh_volume(v, t), rel=1e-12)
    assert f1 == pytest.approx(f2, rel=1e-9, abs=1e-9)
    assert s1 == pytest.approx(s2, rel=1e-9)
    assert np.abs(t1 - t2).max() < 1e-9 * f1[1] * r           # both exact: the same torque


def test_the_fused_covered_height_step_equals_the_plain_one():
    """covered_height_raw + settle_covered == covered_height, + sleepers, blur, clamp to h, displace."""
    r = 0.1
    v, t = uv_sphere(r)
    offs = (np.array([0, len(v)]), np.array([0, len(t)]))
    pool = Pool()
    rng = np.random.default_rng(2)
    h = 0.5 + rng.uniform(-0.01, 0.01, pool.eta.shape)
    pos = np.array([[0.3, 0.5, 0.3], [0.32, 0.45, 0.36]])
    quat = np.array([[1.0, 0, 0, 0], [0.8, 0.6, 0.0, 0.0]])
    radius = np.array([r, r])
    planes = np.array([[0.5, 0.0, 0.0], [0.5, 0.01, -0.01]])
    awake, asleep = np.array([True, False]), np.array([False, True])
    b_old = rng.uniform(0.0, 0.02, h.shape)

    static = np.zeros_like(h)
    models, bodies = coupling.pack_models([(v, t)]), coupling.bodies_of([0, 0], pos, quat, radius)
    coupling.covered_height(models, bodies, asleep, planes, pool.bed, pool.dx, static)
    # the plain path
    b = np.zeros_like(h)
    coupling.covered_height(models, bodies, awake, planes, pool.bed, pool.dx, b)
    b += static
    coupling.blur(b, np.zeros_like(h), 2)
    h1 = h.copy()
    b = np.minimum(b, h1)
    coupling.displace(h1, b, b_old.copy(), 1.0)
    # the fused path
    b2 = np.zeros_like(h)
    coupling.covered_height_raw(models, bodies, awake, planes, pool.bed, pool.dx, b2)
    h2 = h.copy()
    old2 = b_old.copy()
    total = coupling.settle_covered(b2, static, np.zeros_like(h), 2, h2, old2, np.zeros(h.shape, np.bool_))
    assert np.allclose(b2, b, rtol=0, atol=1e-12)
    assert np.allclose(h2, h1, rtol=0, atol=1e-12)
    assert total == pytest.approx(b.sum(), rel=1e-12)
    assert not old2.any()                      # left zero for the next step


@pytest.mark.parametrize("height", [0.43, 0.5, 0.58])
def test_covered_height_of_a_closed_body_skips_what_is_above_the_surface(height):
    """A closed body's covered height is -sum sign max(eta - y, 0) (triangles above the surface
    skipped): the same field as the open-surface form sum sign min(y, eta), and its volume is the
    sphere's cap below the surface, V = pi d^2 (3 r - d) / 3, d = eta - (y_c - r)."""
    r = 0.1
    v, t = uv_sphere(r)
    pool = Pool()
    pos = np.array([[0.31, height, 0.33]])
    quat = np.array([[0.9, 0.1, 0.3, 0.2]]) / np.linalg.norm([0.9, 0.1, 0.3, 0.2])
    closed = coupling.pack_models([(v, t)])
    assert closed.solids[0, 0] > 0.0
    as_open = closed._replace(solids=np.zeros_like(closed.solids))
    bodies = coupling.bodies_of([0], pos, quat, [r])
    planes = planes_for(pool, pos[0], r)
    b_closed, b_open = np.zeros_like(pool.eta), np.zeros_like(pool.eta)
    coupling.covered_height(closed, bodies, np.array([True]), planes, pool.bed, pool.dx, b_closed)
    coupling.covered_height(as_open, bodies, np.array([True]), planes, pool.bed, pool.dx, b_open)
    assert np.abs(b_closed - b_open).max() < 1e-12
    depth = min(max(0.5 - (height - r), 0.0), 2 * r)
    assert b_closed.sum() * pool.dx ** 2 == pytest.approx(cap_volume(r, depth), rel=0.02)


def test_a_submerged_speck_covers_exactly_its_volume_around_its_centre():
    """A body under 2 cells in radius wholly under the surface pushes aside exactly its volume
    V = (1/6) sum a . (b x c), spread bilinearly over the four cells around its centre (whose
    first moment is the centre itself)."""
    r = 0.012
    v, t = uv_sphere(r, 12, 6)
    pool = Pool()                                  # dx 0.01: r is 1.2 cells
    pos = np.array([[0.3137, 0.2, 0.2581]])
    out = np.zeros_like(pool.eta)
    coupling.covered_height(coupling.pack_models([(v, t)]), coupling.bodies_of([0], pos, [[1.0, 0, 0, 0]], [r]),
                            np.array([True]), planes_for(pool, pos[0], r), pool.bed, pool.dx, out)
    assert out.sum() * pool.dx ** 2 == pytest.approx(mesh_volume(v, t), rel=1e-12)
    assert np.count_nonzero(out) == 4
    k, i = np.nonzero(out)
    xc = ((i + 0.5) * pool.dx * out[k, i]).sum() / out.sum()
    zc = ((k + 0.5) * pool.dx * out[k, i]).sum() / out.sum()
    assert (xc, zc) == pytest.approx((pos[0, 0], pos[0, 2]), abs=1e-12)
