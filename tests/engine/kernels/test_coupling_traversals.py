"""The coupling's fast traversals against their plain forms and numpy references.

water_loads_threaded must give water_loads' bits for any number of threads (each body's row is
one function of the same operands); push_water's chord-restricted sweep must give the momentum
-F dt to exactly the wet faces within the body's radius, a = -F / (rho sum_f h_f dx^2), as a
plain numpy sweep over every face computes it.
"""
from __future__ import annotations

import numba
import numpy as np
import pytest

from engine.kernels import coupling, water_forces
from engine.pacing import Pacer

RHO, G = 1000.0, 9.81


def box(sx: float, sy: float, sz: float) -> tuple[np.ndarray, np.ndarray]:
    """A closed box centred on the origin, outward winding (12 triangles)."""
    v = np.array([[x, y, z] for x in (-sx / 2, sx / 2) for y in (-sy / 2, sy / 2) for z in (-sz / 2, sz / 2)])
    t = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], np.int64)
    return v, t


def random_scene(n: int, seed: int = 1, nz: int = 48, nx: int = 56, dx: float = 0.02):
    """n boxes of three sizes in random poses and motions around a wavy, partly dry pool."""
    rng = np.random.default_rng(seed)
    models = coupling.pack_models([box(0.04, 0.03, 0.05), box(0.2, 0.1, 0.12), box(0.5, 0.08, 0.3)])
    mid = rng.integers(0, 3, n)
    pos = np.column_stack([rng.uniform(0.1, nx * dx - 0.1, n), rng.uniform(0.0, 0.5, n),
                           rng.uniform(0.1, nz * dx - 0.1, n)])
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1)[:, None]
    bodies = coupling.bodies_of(mid, pos, q, models.radius[mid], vel=rng.normal(0, 0.5, (n, 3)),
                                angvel=rng.normal(0, 2.0, (n, 3)))
    kz, ix = np.meshgrid(np.arange(nz), np.arange(nx), indexing="ij")
    bed = 0.05 * (ix / nx)
    eta = 0.25 + 0.02 * np.sin(0.3 * ix) * np.cos(0.2 * kz)
    h = np.maximum(eta - bed, 0.0)
    h[:, : nx // 8] = 0.0                                       # a dry strip
    water = coupling.Water(h, bed, rng.normal(0, 0.2, (nz, nx + 1)).astype(np.float32),
                           rng.normal(0, 0.2, (nz + 1, nx)).astype(np.float32),
                           np.zeros((nz, nx + 1), np.float32), np.zeros((nz + 1, nx), np.float32), dx)
    planes = np.zeros((n, 3))
    active = rng.random(n) < 0.9
    coupling.ambient_planes_split(pos, bodies.radius, active, bed, h, dx, 3 * dx, planes)
    coefs = water_forces.Coefs(RHO, G, np.array([[0.47, 0.8, 1.1]] * 3), 0.007, 1.0, 0.004, 0.5, 1e-3,
                               np.where(rng.random(n) < 0.2, 0.9, 0.0))
    return models, bodies, active, planes, water, coefs


@pytest.mark.parametrize("threads", [1, 2])
def test_threaded_loads_are_the_plain_loads_bit_for_bit(threads):
    """The same rows, bit for bit, on any number of threads (no value is summed across bodies)."""
    models, bodies, active, planes, water, coefs = random_scene(150)
    plain = np.full((150, water_forces.LOADS), np.nan)
    water_forces.water_loads(models, bodies, active, planes, water, coefs, plain)
    assert np.abs(plain[:, water_forces.V_SUB]).max() > 0.0       # some bodies are in the water
    fast = np.full_like(plain, np.nan)
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        water_forces.water_loads_threaded(models, bodies, active, planes, water, coefs, fast)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(plain, fast)


def push_reference(water, covered, pos, radius, push, active, rho, wet_depth):
    """Algorithm 2's push by a plain sweep over every face: body b's -F spread over the faces
    between two columns at least wet_depth deep (h - covered) within max(r, dx) of its centre,
    a = -F / (rho sum_f h_f dx^2) (h_f the faces' mean depth). Returns (ax, az) added."""
    h, dx = water.h, water.dx
    nz, nx = h.shape
    hw = h - covered
    ax = np.zeros((nz, nx + 1))
    az = np.zeros((nz + 1, nx))
    # u faces (i dx, (k + 1/2) dx) between cells (k, i - 1), (k, i); w faces ((i + 1/2) dx, k dx)
    ku, iu = np.meshgrid(np.arange(nz), np.arange(1, nx), indexing="ij")
    hu_a, hu_b = hw[ku, iu - 1], hw[ku, iu]
    kw, iw = np.meshgrid(np.arange(1, nz), np.arange(nx), indexing="ij")
    hw_a, hw_b = hw[kw - 1, iw], hw[kw, iw]
    for b in np.flatnonzero(active):
        rc = max(radius[b], dx) / dx
        gx, gz = pos[b, 0] / dx, pos[b, 2] / dx
        for f, (kk, ii, xs, zs, ha, hb, out) in ((-push[b, 0], (ku, iu, iu, ku + 0.5, hu_a, hu_b, ax)),
                                                 (-push[b, 2], (kw, iw, iw + 0.5, kw, hw_a, hw_b, az))):
            if f == 0.0:
                continue
            take = (np.minimum(ha, hb) >= wet_depth) & ((xs - gx) ** 2 + (zs - gz) ** 2 <= rc * rc)
            mass = rho * (0.5 * (ha + hb))[take].sum() * dx * dx
            if mass > 0.0:
                out[kk[take], ii[take]] += f / mass
    return ax, az


def test_push_water_reaches_exactly_the_wet_faces_within_the_radius():
    """push_water's chord-by-chord sweep adds what the plain sweep over every face adds, so each
    body's -F dt goes to the water whole: sum a rho h_f dx^2 = -F on each axis."""
    models, bodies, active, planes, water, coefs = random_scene(60, seed=4)
    rng = np.random.default_rng(9)
    push = rng.normal(0, 2.0, (60, 3))
    push[::7, 0] = 0.0
    covered = np.where(rng.random(water.h.shape) < 0.2, 0.5 * water.h, 0.0)
    water_forces.push_water(water, covered, bodies, push, active, coefs)
    ax_ref, az_ref = push_reference(water, covered, bodies.pos, bodies.radius, push, active, RHO, coefs.wet_depth)
    assert np.abs(ax_ref).max() > 0.0 and np.abs(az_ref).max() > 0.0
    # ax, az are float32: each sum of pushes is good to float32 round-off of its largest term
    assert np.allclose(water.ax, ax_ref, rtol=0.0, atol=1e-6 * np.abs(ax_ref).max())
    assert np.allclose(water.az, az_ref, rtol=0.0, atol=1e-6 * np.abs(az_ref).max())
    assert np.array_equal(water.ax != 0.0, ax_ref != 0.0) and np.array_equal(water.az != 0.0, az_ref != 0.0)


def test_the_pacer_keeps_the_faster_traversal_and_never_threads_small_work():
    """Under min_work it always answers one thread; over it, after timing both, the faster one
    (the slower is timed again now and then)."""
    pacer = Pacer(min_work=10)
    assert not any(pacer.threaded(5) for _ in range(20))
    if numba.get_num_threads() < 2:
        assert not pacer.threaded(100)
        return
    answers = []
    for _ in range(400):
        threaded = pacer.threaded(100)
        answers.append(threaded)
        pacer.record(threaded, 1e-4 if threaded else 1.5e-4)   # threads faster here
    assert answers[:10].count(False) >= 2 and answers[:10].count(True) >= 2   # both timed first
    late = answers[100:]
    assert late.count(True) > 0.9 * len(late) and late.count(False) > 0     # the other re-timed now and then


def blur_reference(a: np.ndarray, passes: int) -> np.ndarray:
    """`passes` separable [1 2 1]/4 passes, each edge mirrored (a[-1] = a[0], a[n] = a[n - 1])."""
    a = a.copy()
    for _ in range(passes):
        for axis in (1, 0):
            p = np.concatenate([np.take(a, [0], axis), a, np.take(a, [-1], axis)], axis)
            n = a.shape[axis]
            a = 0.25 * np.take(p, range(0, n), axis) + 0.5 * a + 0.25 * np.take(p, range(2, n + 2), axis)
    return a


@pytest.mark.parametrize("shape", [(2, 2), (2, 7), (3, 5), (5, 3), (8, 9), (40, 33)])
def test_settle_covered_is_blur_clamp_and_displace(shape):
    """settle_covered's two-sweep form (one [1 4 6 4 1]/16 filter per axis) against the plain
    composition in numpy: b = blur2(max(raw, 0) + static), b = min(b, h), 0 where solid,
    h += b - b_old with each column's shortfall taken from the wet columns in proportion to depth;
    sum h + ... is conserved: sum h_after = sum h_before + sum b - sum b_old exactly as displace."""
    rng = np.random.default_rng(sum(shape))
    raw = rng.normal(0.0, 0.01, shape)
    static = np.where(rng.random(shape) < 0.3, rng.uniform(0, 0.02, shape), 0.0)
    h = rng.uniform(0.0, 0.03, shape)
    h[0, 0] = 0.0                                      # a dry column the body leaves: its debt is repaid
    b_old = rng.uniform(0.0, 0.01, shape)
    b_old[0, 0] = 0.005
    solid = rng.random(shape) < 0.1
    b = np.where(solid, 0.0, np.minimum(blur_reference(np.maximum(raw, 0.0) + static, 2), h))
    v = h + b - b_old
    debt = -v[v < 0].sum()
    v = np.maximum(v, 0.0)
    v *= 1.0 - debt / v.sum()
    b_new, h_new, old = raw.copy(), h.copy(), b_old.copy()
    total = coupling.settle_covered(b_new, static, np.zeros(shape), 2, h_new, old, solid)
    assert np.allclose(b_new, b, rtol=0, atol=1e-15)
    assert np.allclose(h_new, v, rtol=0, atol=1e-15)
    assert total == pytest.approx(b.sum(), rel=1e-13)
    assert h_new.sum() == pytest.approx(h.sum() + b.sum() - b_old.sum(), rel=1e-13)
    assert not old.any()


def test_the_pacer_re_times_a_far_slower_traversal_once_and_rarely():
    """Threads ten times slower (a busy machine): after the first timings one thread runs, and
    the threads are tried again one call at a time, at most once per PROBE_EVERY * PROBE_SPARSE calls."""
    from engine import pacing
    if numba.get_num_threads() < 2:
        return
    pacer = Pacer(min_work=10)
    answers = []
    for _ in range(3 * pacing.PROBE_EVERY * pacing.PROBE_SPARSE):
        threaded = pacer.threaded(100)
        answers.append(threaded)
        pacer.record(threaded, 1e-3 if threaded else 1e-4)
    late = answers[20:]
    assert 1 <= late.count(True) <= 3
