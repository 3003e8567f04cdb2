"""Vorticity confinement's kernels against an independent reference, bit for bit.

Law (Fedkiw, Stam & Jensen 2001; engine/water/vortices.py eq. 3): with omega_y = dw/dx - du/dz by
central differences at cell centres and N = grad|omega_y| / |grad|omega_y||, the cell force is
f = eps dx omega_y (N_z, -N_x) on interior cells whose 5-point neighbourhood is deeper than `wet`,
and each face gets the mean of its two cells' forces (rounded once to float32) added to ax / az,
nothing at all when no cell has a force. The reference below is that definition written out as
three full-grid passes (the kernel as it stood before session 16), kept here on its own: it
imports nothing from the module under test. The kernel must give the same ax, az bits and the same
count of forced cells on one thread and on two.
"""
from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from numba import njit

from engine.water.vortices import Confinement

WET = 0.01


@njit(cache=False)
def _reference(u, w, h, dx, eps, wet, ax, az):
    """Eq. (3) by three full-grid passes in float64 scratch (om, then fx / fz, then the faces)."""
    nz, nx = h.shape
    om = np.zeros((nz, nx))
    fx = np.zeros((nz, nx))
    fz = np.zeros((nz, nx))
    for k in range(1, nz - 1):
        for i in range(1, nx - 1):
            wl = 0.5 * (w[k, i - 1] + w[k + 1, i - 1])
            wr = 0.5 * (w[k, i + 1] + w[k + 1, i + 1])
            ud = 0.5 * (u[k - 1, i] + u[k - 1, i + 1])
            uu = 0.5 * (u[k + 1, i] + u[k + 1, i + 1])
            om[k, i] = (wr - wl) / (2.0 * dx) - (uu - ud) / (2.0 * dx)
    forced = 0
    for k in range(2, nz - 2):
        for i in range(2, nx - 2):
            if (h[k, i] <= wet or h[k, i - 1] <= wet or h[k, i + 1] <= wet
                    or h[k - 1, i] <= wet or h[k + 1, i] <= wet):
                continue
            gx = (abs(om[k, i + 1]) - abs(om[k, i - 1])) / (2.0 * dx)
            gz = (abs(om[k + 1, i]) - abs(om[k - 1, i])) / (2.0 * dx)
            norm = math.sqrt(gx * gx + gz * gz) + 1e-20
            fx[k, i] = eps * dx * om[k, i] * (gz / norm)
            fz[k, i] = -eps * dx * om[k, i] * (gx / norm)
            if fx[k, i] != 0.0 or fz[k, i] != 0.0:
                forced += 1
    if forced:
        for k in range(nz):
            for i in range(1, nx):
                ax[k, i] += np.float32(0.5 * (fx[k, i - 1] + fx[k, i]))
        for k in range(1, nz):
            for i in range(nx):
                az[k, i] += np.float32(0.5 * (fz[k - 1, i] + fz[k, i]))
    return forced


class _Grid:
    """The fields Confinement reads and writes."""

    def __init__(self, u, w, h, dx, ax, az):
        self.u, self.w, self.h, self.dx, self.ax, self.az = u, w, h, dx, ax, az


def _random_flow(rng, nz, nx, dry=0.1):
    """A random float32 flow: face velocities of mixed signs and sizes, random depths with a
    fraction `dry` of cells at or under WET (some exactly at it), and random ax, az to add to."""
    u = (rng.standard_normal((nz, nx + 1)) * rng.choice([1e-3, 0.1, 1.0], (nz, nx + 1))).astype(np.float32)
    w = (rng.standard_normal((nz + 1, nx)) * rng.choice([1e-3, 0.1, 1.0], (nz + 1, nx))).astype(np.float32)
    h = rng.uniform(0.02, 0.6, (nz, nx)).astype(np.float32)
    cut = rng.random((nz, nx)) < dry
    h[cut] = rng.choice(np.array([0.0, 0.005, WET], np.float32), int(cut.sum()))
    ax = rng.standard_normal((nz, nx + 1)).astype(np.float32) * np.float32(0.01)
    az = rng.standard_normal((nz + 1, nx)).astype(np.float32) * np.float32(0.01)
    ax[rng.random(ax.shape) < 0.5] = 0.0
    az[rng.random(az.shape) < 0.5] = 0.0
    return u, w, h, ax, az


def _river_flow(nz, nx, dx):
    """A river-like flow: a uniform stream past a dry pillar, with a shear layer and a pair of
    eddies in its wake (float32 faces), banks dry; a still stretch upstream (om exactly 0 there)."""
    x_u = np.arange(nx + 1) * dx
    z_c = (np.arange(nz) + 0.5) * dx
    x_c = (np.arange(nx) + 0.5) * dx
    z_w = np.arange(nz + 1) * dx
    L, H = nx * dx, nz * dx
    xc, zc, r = 0.45 * L, 0.5 * H, 0.08 * H
    still = x_u < 0.2 * L
    u = 0.6 * np.ones((nz, nx + 1)) * np.where(still, 0.0, 1.0)[None, :]
    w = np.zeros((nz + 1, nx))
    for sgn in (1.0, -1.0):   # two counter-rotating Gaussian eddies behind the pillar
        ex, ez = xc + 3 * r, zc + sgn * 1.2 * r
        s2 = (1.5 * r) ** 2
        gu = np.exp(-((x_u[None, :] - ex) ** 2 + (z_c[:, None] - ez) ** 2) / s2)
        gw = np.exp(-((x_c[None, :] - ex) ** 2 + (z_w[:, None] - ez) ** 2) / s2)
        u += -sgn * 0.8 * (z_c[:, None] - ez) / r * gu
        w += sgn * 0.8 * (x_c[None, :] - ex) / r * gw
    h = np.full((nz, nx), 0.3)
    h[((x_c[None, :] - xc) ** 2 + (z_c[:, None] - zc) ** 2) < r * r] = 0.0
    h[:2, :] = 0.0
    h[-2:, :] = 0.0
    ax = np.zeros((nz, nx + 1), np.float32)
    az = np.zeros((nz + 1, nx), np.float32)
    return u.astype(np.float32), w.astype(np.float32), h.astype(np.float32), ax, az


@pytest.fixture(params=[1, 2], ids=["one_thread", "two_threads"])
def threads(request):
    """Run on 1 and on 2 of numba's threads (the threaded kernel's blocks split differently)."""
    was = numba.get_num_threads()
    n = min(request.param, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(n)
    yield n
    numba.set_num_threads(was)


def _check(u, w, h, dx, eps, ax, az, threaded):
    ref_ax, ref_az = ax.copy(), az.copy()
    want = _reference(u, w, h, dx, eps, WET, ref_ax, ref_az)
    grid = _Grid(u, w, h, dx, ax.copy(), az.copy())
    got = Confinement(h.shape, eps)(grid, threaded)
    assert got == want
    assert np.array_equal(grid.ax.view(np.uint32), ref_ax.view(np.uint32))
    assert np.array_equal(grid.az.view(np.uint32), ref_az.view(np.uint32))
    return want


@pytest.mark.parametrize("shape", [(40, 56), (37, 29), (5, 7), (64, 3), (9, 130)])
@pytest.mark.parametrize("threaded", [False, True])
def test_random_flows_same_bits(threads, shape, threaded):
    """Random flows with wet and dry cells, odd shapes (partial row blocks, grids too small for any
    force): ax, az and the forced count equal the reference's bit for bit."""
    rng = np.random.default_rng(hash(shape) % 2**32)
    for dx, eps, dry in ((0.02, 2.0, 0.1), (0.0137, 5.0, 0.0), (0.05, 0.3, 0.6)):
        _check(*_random_flow(rng, *shape, dry)[:3], dx, eps, *_random_flow(rng, *shape, dry)[3:], threaded)


@pytest.mark.parametrize("threaded", [False, True])
def test_river_flow_same_bits(threads, threaded):
    """A river-like wake (pillar, eddies, dry banks, a still stretch): same bits as the reference,
    and the wake has forces to add."""
    u, w, h, ax, az = _river_flow(96, 128, 0.04)
    assert _check(u, w, h, 0.04, 2.0, ax, az, threaded) > 1000


@pytest.mark.parametrize("threaded", [False, True])
def test_still_pool_adds_nothing(threads, threaded):
    """Still water (omega = 0 everywhere): no cell has a force, ax and az keep every bit."""
    nz, nx = 48, 40
    u = np.zeros((nz, nx + 1), np.float32)
    w = np.zeros((nz + 1, nx), np.float32)
    u[:, ::3] = -0.0
    h = np.full((nz, nx), 0.2, np.float32)
    rng = np.random.default_rng(7)
    ax = rng.standard_normal((nz, nx + 1)).astype(np.float32)
    az = rng.standard_normal((nz + 1, nx)).astype(np.float32)
    assert _check(u, w, h, 0.02, 2.0, ax, az, threaded) == 0


@pytest.mark.parametrize("threaded", [False, True])
def test_uniform_stream_adds_nothing(threads, threaded):
    """A uniform stream has omega = 0 exactly: no force, nothing added."""
    nz, nx = 24, 200
    u = np.full((nz, nx + 1), 0.7, np.float32)
    w = np.full((nz + 1, nx), -0.2, np.float32)
    h = np.full((nz, nx), 0.3, np.float32)
    assert _check(u, w, h, 0.05, 2.0, u * 0, w * 0, threaded) == 0



@pytest.mark.parametrize("threaded", [False, True])
def test_still_bands_between_eddies(threads, threaded):
    """Random flow with bands of rows where omega = 0 exactly (a uniform stream) between stirred
    rows, bands 1 to 9 rows wide: rows with no force between rows with forces give the same bits."""
    rng = np.random.default_rng(11)
    nz, nx = 90, 33
    u, w, h, ax, az = _random_flow(rng, nz, nx, 0.05)
    for a, b in ((10, 11), (20, 23), (30, 34), (45, 50), (60, 69)):
        u[a:b + 1] = np.float32(0.4)
        w[a:b + 2] = np.float32(-0.1)
    assert _check(u, w, h, 0.03, 2.0, ax, az, threaded) > 0


def test_stage_runs_the_threaded_twin_with_the_threaded_step(monkeypatch):
    """WaterStages takes the threaded kernel exactly on steps where the shallow-water step's
    scheduler is on threads, and the river (dispersion off: confinement and the step alone) gives
    the same h, u, w either way, on one thread and on two."""
    import dataclasses

    from engine.levels import load_level
    from engine.paths import LEVELS
    from engine.water import schedule
    from engine.world import Simulation

    level = load_level(LEVELS / "river.toml")
    level = dataclasses.replace(level, water=dataclasses.replace(level.water, dispersion=False))
    assert level.water.vorticity > 0.0
    seen = []
    call = Confinement.__call__

    def spy(self, grid, threaded=False):
        seen.append(threaded)
        return call(self, grid, threaded)

    def run(threaded, n):
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
        seen.clear()
        with monkeypatch.context() as m:
            m.setattr(Confinement, "__call__", spy)
            if threaded:
                m.setattr(schedule, "parallel", lambda cells: True)
                m.setattr(schedule.Scheduler, "_choose", lambda self: True)
            sim = Simulation(level)
            sim.step(40)
            out = [sim.water.read(name).tobytes() for name in ("h", "u", "w")]
            sim.close()
        assert seen == [threaded] * 40
        return out

    was = numba.get_num_threads()
    try:
        plain = run(False, 1)
        assert run(True, 1) == plain
        assert run(True, 2) == plain
    finally:
        numba.set_num_threads(was)
