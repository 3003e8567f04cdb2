"""Dispersive surface waves (Jeschke & Wojtan 2023): the water step follows Airy's linear theory.

Laws checked, each reference computed here from the formula, never from the code under test:
- standing wave in a closed channel, mode 1 of length L: period T = 2 pi / omega,
  omega^2 = g k tanh(k H), k = pi / L (Airy), within 3% at k H = 0.3, 1.6, 3.1, 6.3, damping 0, and
  where the water is a cell deep or less, keeping its amplitude (no loss without damping);
- a ring from a still bump in a flat pool (Cauchy-Poisson problem): eta(x, t) is the Fourier sum
  sum_k eta0_hat(k) cos(omega(k) t) e^{i k.x} of the initial bump; the crests of the simulated ring
  lie within 5% of the reference's, and so does the energy-weighted radius int r eta^2 / int eta^2
  (it moves at the group velocity d omega / d k); the shallow-water step alone (dispersion off)
  misses both (its ring runs at sqrt(g H));
- a lake at rest over a beach with dry land stays exactly still (eta = const, v = 0 is steady), and
  the volume of a closed pool is constant to round-off (the surface part has zero sum);
- shoaling: a wave of frequency omega keeps it as the depth drops, so its wavenumber obeys
  omega^2 = g k tanh(k H) at the new depth: shorter and slower in shallow water;
- reflective walls give back a short wave's energy, open sides let it out;
- the same input gives the same state, bit for bit.
"""
from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pytest

from engine.levels.features import TerrainSpec
from engine.levels.schema import BumpSpec, Level, PoolSpec, WaterSpec
from engine.world import Simulation

G = 9.81


@pytest.fixture(autouse=True)
def one_thread():
    """One numba thread: these grids are small, their parallel sweeps only wait for workers on a busy
    machine, and the water step gives the same bits on any thread count."""
    was = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(was)


def _airy_omega(k: float | np.ndarray, depth: float) -> float | np.ndarray:
    return np.sqrt(G * k * np.tanh(k * depth))


def _level(size, cell, depth, *, dispersion=True, bumps=(), terrain=None, boundary="reflective", dt=1.0 / 240.0):
    # damping 0: no friction of any kind (Airy's and Cauchy-Poisson's waves are inviscid)
    water = WaterSpec(level=depth, damping=0.0, viscosity=0.0, manning=0.0, eddy_viscosity=0.0,
                      dispersion=dispersion, vorticity=0.0, bumps=bumps)
    water = dataclasses.replace(water, boundary=_boundary(boundary))
    return Level(pool=PoolSpec(size=size, cell=cell, wall_height=1.0), water=water,
                 terrain=terrain if terrain is not None else TerrainSpec(), dt=dt)


def _boundary(kind):
    from engine.levels.schema import Boundary, SideSpec
    if isinstance(kind, str):
        return Boundary(SideSpec(kind), SideSpec(kind), SideSpec(kind), SideSpec(kind))
    return Boundary(*(SideSpec(k) for k in kind))


# -- standing waves --------------------------------------------------------------------------
def _standing(depth, n, dx, dt=1.0 / 240.0):
    """Mode 1 (k = pi / L) of a closed channel n cells of dx long, H deep, 0.1 mm high, damping 0, run
    2.2 periods: (measured period, Airy's period, the largest |amplitude| over the last half of the
    run over the largest over the whole run)."""
    length = n * dx
    sim = Simulation(_level((length, 4 * dx), dx, depth, dt=dt))
    x = (np.arange(n) + 0.5) * dx
    mode = np.cos(np.pi * x / length)
    sim.water.h[...] += 1e-4 * mode[None, :]
    k = np.pi / length
    period = 2.0 * np.pi / _airy_omega(k, depth)
    amp, times = [], []
    while sim.time < 2.2 * period:
        sim.step()
        amp.append(float((sim.water.eta[0] - depth) @ mode))
        times.append(sim.time)
    amp, times = np.array(amp), np.array(times)
    s = np.flatnonzero(np.sign(amp[1:]) != np.sign(amp[:-1]))
    crossings = times[s] + (times[s + 1] - times[s]) * amp[s] / (amp[s] - amp[s + 1])
    assert len(crossings) >= 4
    kept = np.abs(amp[len(amp) // 2:]).max() / np.abs(amp).max()
    return 2.0 * np.mean(np.diff(crossings)), period, kept


@pytest.mark.parametrize("kh", [0.3, 1.6, 3.1, 6.3])
def test_standing_wave_period_is_airy(kh):
    """T = 2 pi / sqrt(g k tanh(k H)) for mode 1 (k = pi / L) of a closed channel, within 3%."""
    depth, n = 0.1, 32
    measured, period, _ = _standing(depth, n, np.pi * depth / kh / n)
    assert abs(measured - period) / period < 0.03, (measured, period)


@pytest.mark.parametrize("depth,dx,n", [(0.045, 0.05, 3), (0.045, 0.05, 2), (0.025, 0.02, 2), (0.3, 0.05, 3),
                                         (0.015, 0.005, 3), (0.015, 0.005, 9)])
def test_standing_wave_in_shallow_water_with_coarse_cells(depth, dx, n):
    """The same law where the water is about a cell deep or less (k H = pi H / (n dx) from 0.9 to 6.3),
    at the game's dt of 1/120 s: T within 3% of Airy's, and with damping 0 the wave keeps its
    amplitude (the linear inviscid system conserves energy): over 2 periods within 5%."""
    measured, period, kept = _standing(depth, n, dx, dt=1.0 / 120.0)
    assert abs(measured - period) / period < 0.03, (measured, period)
    assert kept > 0.95, f"kept {kept:.3f} of its amplitude"


# -- the ring from a point disturbance -------------------------------------------------------
def _cosine_bump(X, Z, centre, radius, height):
    r = np.hypot(X - centre[0], Z - centre[1]) / radius
    return np.where(r < 1.0, height * 0.5 * (1.0 + np.cos(np.pi * np.minimum(r, 1.0))), 0.0)


def _radial(eta, X, Z, centre, dr):
    r = np.hypot(X - centre[0], Z - centre[1])
    b = (r / dr).astype(int).ravel()
    count = np.bincount(b)
    total = np.bincount(b, eta.ravel())
    return (np.arange(len(count)) + 0.5) * dr, total / np.maximum(count, 1)


def _cauchy_poisson(t, depth, radius, height, dx, side):
    """The ring's radial profile by a direct Fourier sum on a periodic square twice the pool's side."""
    n = int(round(2 * side / dx))
    x = (np.arange(n) + 0.5) * dx
    X, Z = np.meshgrid(x, x)
    c = (side, side)
    k = 2.0 * np.pi * np.fft.fftfreq(n, dx)
    K = np.hypot(*np.meshgrid(k, k))
    eta = np.fft.ifft2(np.fft.fft2(_cosine_bump(X, Z, c, radius, height)) * np.cos(_airy_omega(K, depth) * t)).real
    return _radial(eta, X, Z, c, dx)


def _crests(r, p, rmin, rmax):
    inside = [i for i in range(1, len(p) - 1) if rmin < r[i] < rmax]
    peaks = [i for i in inside if p[i] > p[i - 1] and p[i] >= p[i + 1]]
    top = max(p[i] for i in peaks)
    return np.array([r[i] for i in peaks if p[i] > 0.2 * top])


def _energy_radius(r, p, rmin, rmax):
    m = (r > rmin) & (r < rmax)
    return float(np.sum(r[m] ** 2 * p[m] ** 2) / np.sum(r[m] * p[m] ** 2))


def _ring(depth, radius, dispersion, times, side=2.0, dx=0.01, height=0.002):
    c = (side / 2, side / 2)
    sim = Simulation(_level((side, side), dx, depth, dispersion=dispersion,
                            bumps=(BumpSpec(center=c, radius=radius, height=height),), dt=1.0 / 120.0))
    n = sim.water.shape[0]
    x = (np.arange(n) + 0.5) * dx
    X, Z = np.meshgrid(x, x)
    out = []
    for t in times:
        while sim.time < t - 1e-9:
            sim.step()
        r, p = _radial(sim.water.eta - depth, X, Z, c, dx)
        rr, pr = _cauchy_poisson(sim.time, depth, radius, height, dx, side)
        out.append((r, p, rr, pr))
    return out


def _ring_errors(rings, rmin, rmax):
    worst = 0.0
    for r, p, rr, pr in rings:
        ref = _crests(rr, pr, rmin, rmax)
        got = _crests(r, p, rmin, rmax)
        for c in ref:    # every reference crest has a simulated crest within 5% of its radius
            worst = max(worst, float(np.min(np.abs(got - c)) / c) if len(got) else 1.0)
        e_ref, e_got = _energy_radius(rr, pr, rmin, rmax), _energy_radius(r, p, rmin, rmax)
        worst = max(worst, abs(e_got - e_ref) / e_ref)
    return worst


RING_CASES = [(0.5, 0.05, (0.3, 0.5, 0.7)), (0.15, 0.08, (0.3, 0.6, 0.9))]


@pytest.mark.parametrize("depth,radius,times", RING_CASES)
def test_ring_follows_cauchy_poisson(depth, radius, times):
    """Crest radii and the energy radius of the ring within 5% of the Cauchy-Poisson Fourier sum."""
    rings = _ring(depth, radius, True, times)
    assert _ring_errors(rings, rmin=1.5 * radius, rmax=0.95) < 0.05


@pytest.mark.parametrize("depth,radius,times,side,dx,height", [(0.04, 0.1, (0.4, 0.7, 1.0), 4.0, 0.05, 0.002),
                                                               (0.015, 0.05, (0.3, 0.6, 0.9), 2.0, 0.01, 0.001)])
def test_ring_in_water_about_a_cell_deep(depth, radius, times, side, dx, height):
    """The same law where the water is less than a cell deep (4 cm under 5 cm cells) or a puddle
    (1.5 cm): there too the ring's crests follow the Cauchy-Poisson sum within 5%."""
    rings = _ring(depth, radius, True, times, side=side, dx=dx, height=height)
    assert _ring_errors(rings, rmin=1.5 * radius, rmax=0.95 * side / 2.0) < 0.05


def test_shallow_water_alone_fails_the_ring():
    """With dispersion off every wave runs at sqrt(g H): the same bar is missed by far."""
    depth, radius, times = RING_CASES[0]
    rings = _ring(depth, radius, False, times)
    assert _ring_errors(rings, rmin=1.5 * radius, rmax=0.95) > 0.2


# -- shoaling, walls and open sides ----------------------------------------------------------
def _airy_k(omega: float, depth: float) -> float:
    """Solve omega^2 = g k tanh(k H) for k by bisection (the left side grows with k)."""
    lo, hi = 1e-6, 1e4
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if G * mid * np.tanh(mid * depth) < omega ** 2 else (lo, mid)
    return 0.5 * (lo + hi)


def _channel(length, depth, k0, *, terrain=None, x_max="absorbing", x0=1.5, sigma=0.8, amp=0.003, dx=0.02):
    """A 4-cell-wide channel holding a right-going Gaussian packet eta = A exp(-((x-x0)/s)^2) cos(k0 (x-x0))
    with the depth-averaged velocity of a linear progressive wave, u = (g / c_p) eta, c_p = omega / k0."""
    sim = Simulation(_level((length, 4 * dx), dx, depth, terrain=terrain, dt=1.0 / 120.0,
                            boundary=("reflective", x_max, "reflective", "reflective")))
    n = sim.water.shape[1]
    x = (np.arange(n) + 0.5) * dx
    xf = np.arange(n + 1) * dx
    packet = lambda s: amp * np.exp(-((s - x0) / sigma) ** 2) * np.cos(k0 * (s - x0))  # noqa: E731
    cp = _airy_omega(k0, depth) / k0
    sim.water.h[...] += packet(x)[None, :]
    sim.water.u[...] += (G / cp * packet(xf))[None, :]
    return sim, x


def _packet_wavelength(eta, x):
    """Twice the mean spacing of the zero crossings within 1 m of the packet's energy centre; the centre."""
    centre = float(np.sum(x * eta ** 2) / np.sum(eta ** 2))
    m = np.abs(x - centre) < 1.0
    e, xs = eta[m], x[m]
    s = np.flatnonzero(np.sign(e[1:]) != np.sign(e[:-1]))
    crossings = xs[s] + (xs[1] - xs[0]) * e[s] / (e[s] - e[s + 1])
    return 2.0 * float(np.mean(np.diff(crossings))), centre


@pytest.mark.parametrize("shelf", [0.06, 0.03])
def test_short_waves_shoal_on_a_beach(shelf):
    """A packet (k0 H = 3 in 0.3 m) runs up a slope onto a shelf `shelf` m deep: its frequency stays,
    so its wavelength becomes 2 pi / k with omega^2 = g k tanh(k H_shelf) (within 5%), shorter and
    slower (c_p = omega / k) than offshore; it stays bounded (no blow-up at the shallow end)."""
    depth, k0 = 0.3, 10.0
    terrain = TerrainSpec(kind="slope", axis="x", span=(3.0, 4.5), heights=(0.0, depth - shelf))
    sim, x = _channel(9.0, depth, k0, terrain=terrain)
    sim.step(120)
    offshore, _ = _packet_wavelength(sim.water.eta[0] - depth, x)
    assert abs(offshore - 2 * np.pi / k0) / (2 * np.pi / k0) < 0.05
    expected = 2 * np.pi / _airy_k(_airy_omega(k0, depth), shelf)
    peak = 0.0
    while True:
        sim.step(12)
        eta = sim.water.eta[0] - depth
        peak = max(peak, float(np.abs(eta).max()))
        assert np.isfinite(eta).all() and sim.water.read("h").min() >= 0.0
        wavelength, centre = _packet_wavelength(eta, x)
        if centre > 5.8:
            break
    assert abs(wavelength - expected) / expected < 0.05, (wavelength, expected)
    assert wavelength < 0.85 * offshore
    assert peak < 2.0 * 0.003


@pytest.mark.parametrize("k0", [15.0, 30.0])
def test_walls_reflect_and_open_sides_absorb_short_waves(k0):
    """Energy E = sum(g eta^2 + H |v|^2) / 2 of a short packet after it met the x_max side: a reflective
    wall gives back over 90% of it (damping 0, E is conserved by the linear theory); an absorbing side
    keeps under 5% of it in the pool."""
    depth = 0.2

    def energy(sim):
        eta = sim.water.eta - depth
        u, w = sim.water.read("u"), sim.water.read("w")
        return 0.5 * (G * np.sum(eta ** 2) + depth * (np.sum(u.astype(float) ** 2) + np.sum(w.astype(float) ** 2)))

    left = {}
    for side in ("reflective", "absorbing"):
        sim, x = _channel(3.0, depth, k0, x_max=side, x0=1.8, sigma=0.3)
        e0 = energy(sim)
        cg = 0.5 * _airy_omega(k0, depth) / k0 * (1 + 2 * k0 * depth / np.sinh(2 * k0 * depth))
        sim.step(int(2.5 * 1.2 / cg * 120))       # there and well back
        left[side] = energy(sim) / e0
    assert left["reflective"] > 0.9, left
    assert left["absorbing"] < 0.05, left


# -- invariants ------------------------------------------------------------------------------
def _beach(bumps=(), boundary="reflective"):
    return _level((2.0, 0.5), 0.02, 0.2, bumps=bumps, boundary=boundary, dt=1.0 / 120.0,
                  terrain=TerrainSpec(kind="slope", axis="x", span=(0.5, 2.0), heights=(0.0, 0.4)))


def test_lake_at_rest_over_a_beach_stays_exactly_still():
    """eta = const, v = 0 over a sloping bed with dry land is steady: nothing moves, to the last bit."""
    sim = Simulation(_beach(boundary=("reflective", "absorbing", "reflective", "reflective")))
    h0 = sim.water.read("h").copy()
    assert (h0 == 0.0).any()
    sim.step(600)
    assert np.array_equal(sim.water.read("h"), h0)
    assert not np.any(sim.water.read("u")) and not np.any(sim.water.read("w"))


@pytest.mark.parametrize("height", [0.02, 0.08])
def test_volume_is_exact_and_depth_stays_positive(height):
    """A closed pool's volume sum(h) dx^2 is constant to round-off (the surface part has zero sum);
    no depth goes negative where waves run up the beach."""
    sim = Simulation(_beach(bumps=(BumpSpec(center=(0.6, 0.25), radius=0.1, height=height),
                                   BumpSpec(center=(1.2, 0.3), radius=0.05, height=-height / 2))))
    v0 = sim.water.volume()
    for _ in range(10):
        sim.step(60)
        assert sim.water.read("h").min() >= 0.0
    assert abs(sim.water.volume() - v0) <= 1e-12 * v0


def test_bit_for_bit_deterministic():
    """The same level gives the same h, u, w, bit for bit."""
    def run():
        sim = Simulation(_beach(bumps=(BumpSpec(center=(0.6, 0.25), radius=0.1, height=0.03),)))
        sim.step(200)
        return [sim.water.read(n).tobytes() for n in ("h", "u", "w")]
    assert run() == run()


@pytest.mark.parametrize("scene", ["beach", "harbour", "river"])
def test_threaded_passes_give_the_same_bits(monkeypatch, scene):
    """The stage's passes on numba's threads (engine/water/dispersion_threads.py: blocks of rows,
    every partial sum combined in block order) give the same h, u, w as the plain passes, on one
    thread and on two: over a beach with a shoreline (basins, limiter, three depth levels), in the
    harbour (floating bodies: the hull ramp, walled-off basins) and the river (inflow sides)."""
    from engine.levels import load_level
    from engine.paths import LEVELS
    from engine.water import schedule

    level = (_beach(bumps=(BumpSpec(center=(0.6, 0.25), radius=0.1, height=0.03),)) if scene == "beach"
             else load_level(LEVELS / f"{scene}.toml"))

    def run(threaded, threads):
        numba.set_num_threads(threads)
        with monkeypatch.context() as m:
            if threaded:
                m.setattr(schedule, "parallel", lambda cells: True)
                m.setattr(schedule.Scheduler, "_choose", lambda self: True)
            sim = Simulation(level)
            sim.step(60)
            stage = next(iter(sim.get_system("StepFluid").stages.values())).surface
            assert stage.threaded == threaded
            out = [sim.water.read(n).tobytes() for n in ("h", "u", "w")]
            sim.close()
            return out
    plain = run(False, 1)
    assert run(True, 1) == plain
    assert run(True, 2) == plain


def test_dispersion_false_turns_the_stage_off():
    """`[water] dispersion = false` leaves exactly the shallow-water step."""
    def run(level):
        sim = Simulation(level)
        sim.step(50)
        return sim.water.read("h").copy()
    bumps = (BumpSpec(center=(0.6, 0.25), radius=0.1, height=0.03),)
    off = _beach(bumps=bumps)
    off = dataclasses.replace(off, water=dataclasses.replace(off.water, dispersion=False))
    on = _beach(bumps=bumps)
    assert not np.array_equal(run(off), run(on))
    assert not Simulation(off).get_system("StepFluid").dispersion


def test_every_bundled_level_has_dispersion_on():
    """The stage is on in every level that ships (the schema's default), with confinement on too."""
    from engine.levels import load_level
    from engine.paths import LEVELS
    levels = sorted(LEVELS.glob("*.toml"))
    assert levels
    for path in levels:
        water = load_level(path).water
        assert water.dispersion and water.vorticity > 0.0, path.name
