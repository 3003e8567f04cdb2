"""Drag and added mass against the drag law and the heave of a floating sphere.

A sphere of radius r and density rho_s sinking through still water, drag -1/2 rho C_D pi r^2 |v| v
(C_D = 0.47, [physics] drag_coefficient) and added mass m_a = C_a rho V (C_a = 1/2):

    (m + m_a) dv/dt = (m - rho V) g - 1/2 rho C_D pi r^2 v^2
    =>  v(t) = v_t tanh(t / tau),   v_t = sqrt(8 r g (rho_s / rho - 1) / (3 C_D)),
        tau = v_t (m + m_a) / ((m - rho V) g)
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation
from engine.levels import parse_level

RHO, G, CD, CA = 1000.0, 9.81, 0.47, 0.5


def deep_pool(depth: float, dt: float | None = None) -> Simulation:
    head = "" if dt is None else f"dt = {dt}\n"
    return Simulation(parse_level(f"{head}[pool]\nsize = [0.6, 0.6]\ncell = 0.05\nwall_height = {depth + 0.3}\n"
                                  f"[water]\nlevel = {depth}\n"))


@pytest.mark.parametrize("density, radius", [(2000.0, 0.03), (7800.0, 0.02), (1300.0, 0.03), (1100.0, 0.03)])
def test_a_sinking_sphere_follows_the_drag_law_to_its_terminal_speed(density, radius):
    """v(t) = v_t tanh(t / tau) (module docstring): the speed at t = tau and the speed reached
    (terminal) each within 10%. Near the water's density (1100, 1300) the net weight (m - rho V) g
    is a small difference, so the buoyancy must be the ball's whole rho V g."""
    depth = 3.0
    sim = deep_pool(depth)
    e = sim.spawn_body("sphere", density=density, position=(0.3, depth - 0.1, 0.3), radius=radius)
    b = sim.body(e)
    vol = 4.0 / 3.0 * math.pi * radius ** 3
    m, m_a = density * vol, CA * RHO * vol
    v_t = math.sqrt(8 * radius * G * (density / RHO - 1) / (3 * CD))
    tau = v_t * (m + m_a) / ((m - RHO * vol) * G)
    t, v = [], []
    while b.position[1] > 0.15 and sim.time < 5.0:
        sim.step()
        t.append(sim.time)
        v.append(-float(b.velocity[1]))
    t, v = np.array(t), np.array(v)
    assert t[-1] > 3.0 * tau                              # deep enough to reach terminal speed
    assert np.interp(tau, t, v) == pytest.approx(v_t * math.tanh(1.0), rel=0.10)
    assert v[t > 3.0 * tau].mean() == pytest.approx(v_t, rel=0.10)


def heave(extra: str = "") -> tuple[np.ndarray, np.ndarray, float]:
    """A sphere of r = 0.1 m, density 500, released 2 cm above its floating height: (t, y - y_eq)."""
    sim = Simulation(parse_level("[pool]\nsize = [2.0, 2.0]\ncell = 0.04\nwall_height = 0.9\n"
                                 f"[water]\nlevel = 0.5\ndamping = 0.0\n{extra}"))
    e = sim.spawn_body("sphere", density=500.0, position=(1.0, 0.52, 1.0), radius=0.1)
    b = sim.body(e)
    ys = []
    for _ in range(int(4.0 / sim.dt)):
        sim.step()
        ys.append(float(b.position[1]))
    ys = np.array(ys)
    return np.arange(1, len(ys) + 1) * sim.dt, ys - ys[-int(1.0 / sim.dt):].mean(), sim.dt


def test_a_floating_sphere_heaves_at_the_period_with_added_mass_and_lightly_damped():
    """Half-submerged sphere (density rho / 2): restoring k = rho g pi r^2 (waterplane), mass
    m = rho pi r^3 2/3 and added mass m_a = C_a rho V_sub = rho pi r^3 / 3:
    T = 2 pi sqrt((m + m_a) / k) = 2 pi sqrt(r / g) within 10%. Damping ratio from the
    logarithmic decrement of the first peaks, zeta = delta / sqrt(4 pi^2 + delta^2): under 0.2
    (and positive: it does settle)."""
    t, y, dt = heave()
    peaks = [i for i in range(1, len(y) - 1) if y[i] > y[i - 1] and y[i] >= y[i + 1] and y[i] > 0]
    assert len(peaks) >= 3
    period = float(np.diff(t[peaks[:3]]).mean())
    assert period == pytest.approx(2 * math.pi * math.sqrt(0.1 / G), rel=0.10)
    delta = math.log(y[peaks[0]] / y[peaks[2]]) / 2
    zeta = delta / math.sqrt(4 * math.pi ** 2 + delta ** 2)
    assert 0.0 < zeta < 0.2


@pytest.mark.parametrize("dt", [1 / 120, 1 / 30])
def test_a_very_light_body_rises_stably_at_any_dt(dt):
    """A sphere of density 20 released under water: the implicit drag and added mass keep it
    stable; it never rises faster than its terminal speed
    v_t = sqrt(8 r g (1 - rho_s / rho) / (3 C_D)) (+10%) and does not oscillate."""
    depth, r = 1.5, 0.05
    sim = deep_pool(depth, dt)
    e = sim.spawn_body("sphere", density=20.0, position=(0.3, 0.3, 0.3), radius=r)
    b = sim.body(e)
    v_t = math.sqrt(8 * r * G * (1 - 20.0 / RHO) / (3 * CD))
    vs = []
    while b.position[1] < depth - 2 * r and sim.time < 3.0:
        sim.step()
        vs.append(float(b.velocity[1]))
    vs = np.array(vs)
    assert np.isfinite(vs).all() and vs.max() < 1.1 * v_t
    assert vs.max() > 0.8 * v_t                          # and it did get there
    assert (np.diff(vs[len(vs) // 2:]) > -0.05 * v_t).all()   # no sawtooth
