"""The water traversals against the float64 numpy reference and against each other.

`engine.kernels.reference` is the scheme as whole-array numpy, float64, with its own substep
schedule, importing nothing from `engine.water`. The kernel keeps velocities in float32, so after
100 steps it agrees to 1e-5 (m and m/s), not bit for bit. The fast traversal's one contract is
to equal the plain one bit for bit, for any thread count; and the plain one runs with the JIT
disabled (as plain Python, the readable specification) to the same result, to round-off.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

from engine.kernels import reference as ref
from engine.water import fast, formulas, plain, records
from engine.water.params import CFL, OK, OPEN, REFLECTIVE, parameters

G = 9.81
DT = 1.0 / 120.0
ROOT = Path(__file__).resolve().parents[3]


def scene(name: str):
    """(h, bed, u, w, ax, az, sides, side_eta, dx, friction) of a test scene."""
    rng = np.random.default_rng(3)
    if name == "bumpy-walls":                       # closed pool, mound over a bumpy bed with a dry island
        nz, nx, dx = 20, 26, 0.05
        x, z = (np.arange(nx) + 0.5) * dx, (np.arange(nz) + 0.5) * dx
        X, Z = np.meshgrid(x, z)
        bed = 0.03 * np.sin(9 * X) * np.cos(7 * Z) + 0.3 * np.exp(-((X - 0.9) ** 2 + (Z - 0.6) ** 2) / 0.01)
        eta = 0.2 + 0.04 * np.exp(-((X - 0.4) ** 2 + (Z - 0.5) ** 2) / 0.02)
        sides, eta_out, fr = (REFLECTIVE,) * 4, (0.2,) * 4, (0.0, 1.0, 0.0, 0.0)
    elif name == "shore-open":                      # a beach, open sides, friction and eddy viscosity
        nz, nx, dx = 16, 30, 0.04
        x, z = (np.arange(nx) + 0.5) * dx, (np.arange(nz) + 0.5) * dx
        X, Z = np.meshgrid(x, z)
        bed = np.clip((X - 0.5) * 0.4, 0.0, None)
        eta = 0.15 + 0.03 * np.exp(-((X - 0.3) ** 2 + (Z - 0.3) ** 2) / 0.01)
        sides, eta_out, fr = (OPEN, REFLECTIVE, OPEN, REFLECTIVE), (0.15,) * 4, (1e-6, 8e-4, 0.012, 5e-4)
    else:                                           # "dam-break": a violent flow onto a dry bed
        nz, nx, dx = 12, 40, 0.05
        x = (np.arange(nx) + 0.5) * dx
        bed = np.zeros((nz, nx))
        eta = np.repeat(np.where(x < 0.8, 0.3, 0.0)[None, :], nz, axis=0)
        eta[:4] *= 0.7
        sides, eta_out, fr = (REFLECTIVE,) * 4, (0.0,) * 4, (0.0, 1.0, 0.0, 0.0)
    h = np.maximum(eta - bed, 0.0)
    u = np.zeros((nz, nx + 1), np.float32)
    w = np.zeros((nz + 1, nx), np.float32)
    u[:, 1:-1] = 0.05 * rng.standard_normal((nz, nx - 1)) * (h[:, 1:] > 0.01) * (h[:, :-1] > 0.01)
    return h, bed, u, w, np.array(sides, np.int64), np.array(eta_out), dx, fr


def kernel_run(traversal, name: str, steps: int, push: bool = True):
    h, bed, u, w, sides, eta_out, dx, fr = scene(name)
    nz, nx = h.shape
    p = parameters(G, dx, nu=fr[0], delta=fr[1], manning=fr[2], eddy=fr[3])
    ax, az = np.zeros_like(u), np.zeros_like(w)
    state, scratch, side = records.state(h, bed, u, w, ax, az), records.scratch(nz, nx), records.sides(sides, eta_out)
    subs, inflow = [], 0.0
    for step in range(steps):
        if push and step < 20:
            ax[3:6, 4:9] = 1.5                  # a push for the first steps: ax is cleared by each step
        status, t, n, b = traversal.advance(state, scratch, side, p, DT)
        assert status == OK and t == DT
        subs.append(n)
        inflow += b
    return h, u, w, subs, inflow


def reference_run(name: str, steps: int):
    h, bed, u, w, sides, eta_out, dx, fr = scene(name)
    u, w = u.astype(np.float64), w.astype(np.float64)
    ax, az = np.zeros_like(u), np.zeros_like(w)
    subs, inflow = [], 0.0
    for step in range(steps):
        if step < 20:
            ax[3:6, 4:9] = 1.5
        n, b = ref.advance(h, bed, u, w, ax, az, sides, eta_out, dx, G, DT, fr)
        subs.append(n)
        inflow += b
    return h, u, w, subs, inflow


SCENES = ["bumpy-walls", "shore-open", "dam-break"]


def test_reference_states_the_same_constants():
    assert ref.CFL == CFL and ref.DRY == formulas.DRY and ref.EPS_ETA == formulas.EPS_ETA and ref.OPEN == OPEN


@pytest.mark.parametrize("name", SCENES)
def test_kernel_equals_numpy_reference_after_100_steps(name):
    h, u, w, subs, inflow = kernel_run(plain, name, 100)
    h_r, u_r, w_r, subs_r, inflow_r = reference_run(name, 100)
    assert subs == subs_r
    assert np.abs(h - h_r).max() < 1e-5
    assert max(np.abs(u - u_r).max(), np.abs(w - w_r).max()) < 1e-5
    assert abs(inflow - inflow_r) < 1e-8
    assert max(np.abs(u).max(), np.abs(w).max()) > 0.05        # the scene did move


@pytest.mark.parametrize("name", SCENES)
def test_fast_traversal_equals_plain_bit_for_bit_on_any_thread_count(name):
    plain_bits = [a.tobytes() for a in kernel_run(plain, name, 40)[:3]]
    threads = numba.get_num_threads()
    for n in sorted({1, 2, threads}):
        if n > numba.config.NUMBA_NUM_THREADS:
            continue
        numba.set_num_threads(n)
        try:
            fast_bits = [a.tobytes() for a in kernel_run(fast, name, 40)[:3]]
        finally:
            numba.set_num_threads(threads)
        assert fast_bits == plain_bits


PLAIN_PYTHON = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {tests!r})
    import numba
    assert numba.config.DISABLE_JIT
    from test_shallow_water import kernel_run
    from engine.water import plain
    h, u, w, subs, inflow = kernel_run(plain, "shore-open", 12)
    np.savez({out!r}, h=h, u=u, w=w, subs=np.array(subs))
""")


def test_plain_traversal_runs_as_python_with_the_jit_disabled(tmp_path):
    """NUMBA_DISABLE_JIT=1: every line of the plain traversal runs as Python (a debugger can step
    through it) and gives the jitted result to round-off (LLVM and CPython may round a libm call
    such as x ** (4/3) differently in the last bit)."""
    out = tmp_path / "plain.npz"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT))
    code = PLAIN_PYTHON.format(tests=str(Path(__file__).parent), out=str(out))
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    py = np.load(out)
    h, u, w, subs, _ = kernel_run(plain, "shore-open", 12)
    assert list(py["subs"]) == subs
    for name, a in (("h", h), ("u", u), ("w", w)):
        np.testing.assert_allclose(py[name], a, rtol=0.0, atol=1e-8)


def test_non_finite_state_is_reported():
    h, bed, u, w, sides, eta_out, dx, fr = scene("bumpy-walls")
    h[4, 5] = np.nan
    state = records.state(h, bed, u, w, np.zeros_like(u), np.zeros_like(w))
    status, t, n, _ = plain.advance(state, records.scratch(*h.shape), records.sides(sides, eta_out),
                                    parameters(G, dx), DT)
    assert status != OK and n == 0


def test_substeps_split_the_step_evenly_within_both_limits():
    """dt = remaining / n with n the fewest parts such that dt <= CFL dx / a and dt <= dx / out."""
    for remaining, a, out, dx in [(DT, 2.0, 3.0, 0.01), (DT, 0.0, 0.0, 0.05), (0.004, 30.0, 1.0, 0.02)]:
        s, n = formulas.substep_length(remaining, a, out, dx, CFL)
        assert s * n == pytest.approx(remaining, rel=1e-12)
        assert a * s <= CFL * dx * (1 + 1e-12) and out * s <= dx * (1 + 1e-12)
        if n > 1:
            wider = remaining / (n - 1)
            assert a * wider > CFL * dx or out * wider > dx


@numba.njit
def _friction_of(v, h_f, lam_a, lam_b, man_c):
    out = np.empty(v.size, np.float32)
    for i in range(v.size):
        out[i] = formulas.friction(v[i], h_f[i], lam_a, lam_b, man_c)
    return out


@numba.njit
def _inv_cbrt_of(x):
    out = np.empty(x.size, np.float32)
    for i in range(x.size):
        out[i] = formulas.inv_cbrt(x[i])
    return out


def test_inverse_cube_root_to_float32_round_off():
    """y = x^(-1/3) (numpy float64 power) to 3e-7 relative over every depth a face can have."""
    x = np.float32(10.0) ** np.linspace(-6.0, 4.0, 20001).astype(np.float32)
    exact = x.astype(np.float64) ** (-1.0 / 3.0)
    assert np.abs(_inv_cbrt_of(x) / exact - 1.0).max() < 3e-7


@pytest.mark.parametrize("nu,delta,manning", [(1e-6, 1.13e-3, 0.01), (1e-6, 1.13e-3, 0.0), (0.0, 1.0, 0.03),
                                              (1e-3, 0.05, 0.2), (0.0, 1.0, 0.0)])
def test_friction_is_the_implicit_formula_to_an_ulp_of_v(nu, delta, manning):
    """v / (1 + dt r), r = nu / (h_f min(delta, h_f / 3)) + g n^2 |v| / h_f^(4/3), in float64 numpy,
    rounded to float32: the kernel's float32 result is within 4 units in the last place of v, keeps
    v's sign and never grows |v| (implicit: never reverses the flow), for depths 1e-6 .. 10 m,
    speeds 1e-4 .. 30 m/s, over friction from none (x = dt r ~ 0) to dominant (x ~ 1e8)."""
    rng = np.random.default_rng(7)
    n = 40000
    v = (rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-4, 1.5, n)).astype(np.float32)
    h_f = (10.0 ** rng.uniform(-6, 1, n)).astype(np.float32)
    dt = 1.0 / 240.0
    got = _friction_of(v, h_f, *(np.float32(c) for c in formulas.friction_constants(nu, delta, G, manning, dt)))
    h, vd = h_f.astype(np.float64), v.astype(np.float64)
    r = nu / (h * np.minimum(delta, h / 3.0)) + G * manning ** 2 * np.abs(vd) / h ** (4.0 / 3.0)
    exact = vd / (1.0 + dt * r)
    ulp = np.spacing(np.abs(v)).astype(np.float64)
    assert (np.abs(got - exact) / ulp).max() <= 4.0
    assert np.all(got * v >= 0.0) and np.all(np.abs(got) <= np.abs(v))
    if nu == 0.0 and manning == 0.0:
        assert np.array_equal(got, v)
