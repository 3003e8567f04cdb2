"""Damping by a physical model: bottom friction and eddy viscosity, not a uniform rate.

Linear bottom friction tau_b / rho = r u (laminar boundary layer, r = nu / (h delta), delta =
sqrt(nu T / pi) the Stokes layer of waves of period T) makes a standing wave's energy decay as
exp(-r t) (friction acts on the kinetic half of it: amplitude as exp(-r t / 2)). A horizontal
eddy viscosity nu_t u_xx damps a mode of wavenumber k at the amplitude rate nu_t k^2 / 2.
Each test measures the decay with the term on, less the scheme's own (with it off), against the
formula, within 10%. And the default level keys calm a pool's waves in tens of seconds.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from engine.levels.loader import load_level
from engine.water import WaterGrid

G = 9.81
DT = 1.0 / 120.0
ROOT = Path(__file__).resolve().parents[2]


def wave_energy(grid: WaterGrid, level: float) -> float:
    """Potential plus kinetic energy of the waves per unit density, m^5/s^2."""
    h, u, w = grid.read("h"), grid.read("u"), grid.read("w")
    eta = grid.read("bed") + h - level
    kinetic = 0.5 * h * (0.25 * (u[:, 1:] + u[:, :-1]) ** 2 + 0.25 * (w[1:] + w[:-1]) ** 2)
    return float((0.5 * G * eta ** 2 + kinetic).sum() * grid.dx ** 2)


def amplitude_rate(length: float, depth: float, mode: int, seconds: float, **friction) -> float:
    """Amplitude decay rate 1/s of a standing wave cos(mode pi x / L), from a log-linear fit of its energy."""
    nx, nz = 48, 3
    dx = length / nx
    x = (np.arange(nx) + 0.5) * dx
    h = np.repeat((depth + 0.002 * np.cos(mode * math.pi * x / length))[None, :], nz, axis=0)
    grid = WaterGrid(h=h, bed=np.zeros((nz, nx)), u=np.zeros((nz, nx + 1)), w=np.zeros((nz + 1, nx)), dx=dx,
                     gravity=G, **friction)
    t, e = [], []
    for step in range(int(seconds / DT)):
        grid.step(DT)
        t.append((step + 1) * DT)
        e.append(wave_energy(grid, depth))
    slope = np.polyfit(t, np.log(e), 1)[0]
    return -0.5 * slope


def test_laminar_bottom_friction_decays_a_seiche_at_r_over_2():
    length, depth, nu = 2.0, 0.2, 1e-4
    period = 2 * length / math.sqrt(G * depth)
    delta = math.sqrt(nu * period / math.pi)
    r = nu / (depth * min(delta, depth / 3))
    seconds = 4 * period
    own = amplitude_rate(length, depth, 1, seconds)
    rate = amplitude_rate(length, depth, 1, seconds, viscosity=nu, wave_period=period)
    assert abs((rate - own) - r / 2) < 0.1 * r / 2, f"{rate - own:.4f} 1/s vs r/2 = {r / 2:.4f} 1/s"


def test_eddy_viscosity_decays_a_mode_at_nu_k2_over_2():
    length, depth, nu_t, mode = 1.0, 0.2, 5e-3, 2
    k = mode * math.pi / length
    seconds = 4 * 2 * length / (mode * math.sqrt(G * depth))
    own = amplitude_rate(length, depth, mode, seconds)
    rate = amplitude_rate(length, depth, mode, seconds, eddy_viscosity=nu_t)
    assert abs((rate - own) - nu_t * k * k / 2) < 0.1 * nu_t * k * k / 2


def calm_pool_half_life(extra: str = "") -> float:
    """Amplitude half-life, s, of the calm pool's waves under its level keys (+ extra [water] lines)."""
    text = (ROOT / "content" / "levels" / "calm_pool.toml").read_text()
    text = text.replace('boundary = "reflective"', 'boundary = "reflective"\n' + extra)
    path = ROOT / "content" / "levels" / "calm_pool.toml"
    level = load_level(path) if not extra else _load_text(text, path)
    grid = WaterGrid.from_level(level)
    t, e = [], []
    for step in range(int(8.0 / DT)):
        grid.step(DT)
        if step * DT >= 2.0:                        # after the first ring has spread over the pool
            t.append(step * DT)
            e.append(wave_energy(grid, level.water.level))
    rate = -0.5 * np.polyfit(t, np.log(e), 1)[0]
    return math.log(2.0) / rate


def _load_text(text: str, like: Path):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / like.name
        p.write_text(text)
        return load_level(p)


def test_the_calm_pool_calms_in_tens_of_seconds_and_a_level_can_ask_for_more():
    half_life = calm_pool_half_life()
    assert 10.0 < half_life < 100.0, f"half-life {half_life:.1f} s"
    assert calm_pool_half_life("damping = 0.25") < 0.5 * half_life
