"""Coulomb friction on the dry floor and on a slope of the bed.

A box sliding on a level floor decelerates at mu g (friction mu N, N = m g) and stops after
v0^2 / (2 mu g). On a plane inclined at theta it accelerates down the slope at
g (sin theta - mu cos theta) when tan theta > mu, and stays at rest when tan theta < mu (static
friction can hold up to mu N >= m g sin theta). The pool is dry and CoupleWater removed, so no
water drag; bodies are kept awake, so what holds a box is friction, not sleep.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec

G = 9.81
HALF = 0.05    # m, half height of the 0.2 x 0.1 x 0.2 box


def _sim(theta: float = 0.0) -> Simulation:
    sim = Simulation(Level(seed=0, pool=PoolSpec(size=(2.0, 1.0), cell=0.05), water=WaterSpec(level=0.0),
                           physics=PhysicsSpec(restitution=0.0, friction=0.5, glass_strength=1e6)))
    sim.remove_system("CoupleWater")
    sim.get_system("IntegrateBodies").sleep_after = math.inf
    assert sim.gravity == pytest.approx(G)
    if theta:
        nx = sim.water.bed.shape[1]
        x = (np.arange(nx) + 0.5) * sim.water.dx
        sim.water.bed[:] = math.tan(theta) * x[None, :]    # a plane rising along +x
    return sim


@pytest.mark.parametrize("mu", [0.2, 0.4, 0.8])
def test_a_sliding_box_decelerates_at_mu_g(mu):
    """v(t) = v0 - mu g t while sliding; stopping distance v0^2 / (2 mu g); each within 3%."""
    sim = _sim()
    v0 = 2.0
    e = sim.spawn_body("box", 400.0, (0.3, HALF, 0.5), velocity=(v0, 0.0, 0.0), size=(0.2, 0.1, 0.2), friction=mu)
    body = sim.body(e)
    t_stop = v0 / (mu * G)
    n1, n2 = round(0.2 * t_stop / sim.dt), round(0.8 * t_stop / sim.dt)
    sim.step(n1)
    v1 = float(body.velocity[0])
    sim.step(n2 - n1)
    v2 = float(body.velocity[0])
    decel = (v1 - v2) / ((n2 - n1) * sim.dt)
    assert decel == pytest.approx(mu * G, rel=0.03)
    sim.step(round(t_stop / sim.dt))
    assert abs(body.velocity[0]) < 1e-3
    assert body.position[0] - 0.3 == pytest.approx(v0 ** 2 / (2 * mu * G), rel=0.03)
    assert abs(body.position[2] - 0.5) < 1e-3 and np.abs(body.angular_velocity).max() < 1e-2


def _on_slope(sim: Simulation, theta: float, mu: float, x: float = 1.4) -> int:
    """A 0.2 x 0.1 x 0.2 box at rest flush on the slope, centre above x."""
    up = np.array([-math.sin(theta), math.cos(theta), 0.0])            # the slope's normal
    centre = np.array([x, math.tan(theta) * x, 0.5]) + HALF * up
    q = (math.cos(theta / 2), 0.0, 0.0, math.sin(theta / 2))           # turned theta about z
    return sim.spawn_body("box", 400.0, centre, orientation=q, size=(0.2, 0.1, 0.2), friction=mu)


@pytest.mark.parametrize("theta_deg, mu", [(30.0, 0.3), (30.0, 0.5), (40.0, 0.2)])
def test_a_box_slides_down_a_slope_steeper_than_its_friction_at_g_sin_minus_mu_cos(theta_deg, mu):
    """tan theta > mu: it slides from rest with a = g (sin theta - mu cos theta), within 3%."""
    theta = math.radians(theta_deg)
    assert math.tan(theta) > mu
    sim = _sim(theta)
    e = _on_slope(sim, theta, mu)
    body = sim.body(e)
    down = np.array([-math.cos(theta), -math.sin(theta), 0.0])
    a = G * (math.sin(theta) - mu * math.cos(theta))
    sim.step(12)
    s1, v1 = float(body.position @ down), float(body.velocity @ down)
    n = 48
    sim.step(n)
    v2 = float(body.velocity @ down)
    s2 = float(body.position @ down)
    t = n * sim.dt
    assert (v2 - v1) / t == pytest.approx(a, rel=0.03)
    assert s2 - s1 == pytest.approx(v1 * t + 0.5 * a * t * t, rel=0.03)
    assert abs(body.velocity @ np.array([-math.sin(theta), math.cos(theta), 0.0])) < 1e-2   # stays on it


@pytest.mark.parametrize("theta_deg, mu", [(20.0, 0.5), (25.0, 0.5), (10.0, 0.2)])
def test_a_box_on_a_slope_its_friction_can_hold_stays_put(theta_deg, mu):
    """tan theta < mu: static friction holds it; over 2 s it moves less than 1 mm."""
    theta = math.radians(theta_deg)
    assert math.tan(theta) < mu
    sim = _sim(theta)
    e = _on_slope(sim, theta, mu)
    body = sim.body(e)
    p0 = body.position.copy()
    sim.step(240)
    assert np.linalg.norm(body.position - p0) < 1e-3
    assert np.linalg.norm(body.velocity) < 1e-3


def _resting_on_slope(theta: float, radius: float, x: float = 1.5) -> tuple[tuple[float, ...], np.ndarray]:
    """(centre of a round body of `radius` touching the plane bed of `_sim(theta)` above x, unit
    vector down the slope)."""
    up = np.array([-math.sin(theta), math.cos(theta), 0.0])
    down = np.array([-math.cos(theta), -math.sin(theta), 0.0])
    return tuple(np.array([x, math.tan(theta) * x, 0.5]) + radius * up), down


def _acceleration_down(sim: Simulation, b, down: np.ndarray) -> tuple[float, float]:
    """(mean acceleration down the slope over steps 12-60 after release, m/s^2; speed at step 60)."""
    sim.step(12)
    v1 = float(b.velocity @ down)
    sim.step(48)
    v2 = float(b.velocity @ down)
    return (v2 - v1) / (48 * sim.dt), v2


def _rolls_or_slides(sim, b, down: np.ndarray, theta: float, mu: float, k: float, radius: float) -> None:
    """A round body of I = k m r^2 on the slope rolls without slipping at g sin / (1 + k) where
    mu >= k / (1 + k) tan theta (then w r = v), else slides at g (sin - mu cos); within 3%."""
    rolls = mu >= k / (1 + k) * math.tan(theta)
    want = G * math.sin(theta) / (1 + k) if rolls else G * (math.sin(theta) - mu * math.cos(theta))
    a, v2 = _acceleration_down(sim, b, down)
    assert a == pytest.approx(want, rel=0.03)
    if rolls:
        assert np.linalg.norm(b.angular_velocity) * radius == pytest.approx(v2, rel=0.03)


@pytest.mark.parametrize("theta_deg, mu, radius", [(10.0, 0.5, 0.1), (20.0, 0.5, 0.1), (30.0, 0.5, 0.05),
                                                   (25.0, 0.5, 0.2), (40.0, 0.1, 0.1)])
def test_a_ball_rolls_down_a_slope_at_g_sin_over_one_plus_k(theta_deg, mu, radius):
    """A solid ball (I = k m r^2, k = 2/5) rolls without slipping down a slope at a = g sin / (1 + k)
    when friction can supply the force that takes, mu >= k / (1 + k) tan theta; else it slides at
    g (sin - mu cos), spinning up at the rate mu g cos r / (k r^2). The acceleration within 3% (the
    ball touches the slope uphill of its centre, over another cell of the bed than the one under it)."""
    theta = math.radians(theta_deg)
    sim = _sim(theta)
    k = 0.4
    centre, down = _resting_on_slope(theta, radius)
    b = sim.body(sim.spawn_body("sphere", 500.0, centre, radius=radius, friction=mu))
    _rolls_or_slides(sim, b, down, theta, mu, k, radius)


def _cylinder_k(sides: int = 32) -> float:
    """I / (m R^2) about the axis of a prism on a regular polygon of `sides` sides inscribed in the
    circle of radius R (the "cylinder" model): the polygon's polar moment per area R^2 (1 + 2 cos^2(pi/N)) / 6
    (1/2 for a circle)."""
    return (1.0 + 2.0 * math.cos(math.pi / sides) ** 2) / 6.0


# axis y turned onto z: the cylinder lies across the slope (which rises along x)
ACROSS = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)


@pytest.mark.parametrize("theta_deg, mu, radius", [(3.0, 0.5, 0.04), (10.0, 0.5, 0.1), (20.0, 0.5, 0.05),
                                                   (30.0, 0.5, 0.15), (40.0, 0.1, 0.05)])
def test_a_cylinder_rolls_down_a_slope_at_g_sin_over_one_plus_k(theta_deg, mu, radius):
    """A solid cylinder lying across a slope rolls at a = g sin / (1 + k), k = I / (m R^2) (1/2 for
    a true cylinder), when mu >= k / (1 + k) tan theta, and slides at g (sin - mu cos) otherwise;
    within 3%. Its rims meet the bed as circles: a 32-sided rim rolled as a polygon strikes the
    bed at each vertex and lost 14-24% of this acceleration (all of it on gentle slopes, below
    the polygon's tipping angle pi / 32 = 5.6 degrees)."""
    theta = math.radians(theta_deg)
    sim = _sim(theta)
    k = _cylinder_k()
    centre, down = _resting_on_slope(theta, radius)
    b = sim.body(sim.spawn_body("cylinder", 500.0, centre, orientation=ACROSS, radius=radius,
                                size=(0.0, 0.3, 0.0), friction=mu))
    _rolls_or_slides(sim, b, down, theta, mu, k, radius)


@pytest.mark.parametrize("model", ["cylinder", "bottle"])
def test_a_cylinder_rolling_on_a_level_floor_keeps_its_speed(model):
    """Rolling without slipping on a level floor, no force does work on a round body (rolling
    resistance on hard ground is not modelled; glass on tiles has C_rr ~ 1e-3, 0.01 m/s^2): set rolling at
    v = omega R = 1 m/s, it keeps 98% of its speed over 1 s and stays on its rims (its centre at R).
    A bottle too (its neck makes it roll in a circle; its body's centre keeps its speed)."""
    sim = _sim()
    if model == "cylinder":
        radius = 0.04
        e = sim.spawn_body("cylinder", 2500.0, (0.3, radius, 0.5), orientation=ACROSS, radius=radius,
                           size=(0.0, 0.25, 0.0), friction=0.5)
    else:
        radius = 0.037                                   # the bottle's body (content/models/bottle.json)
        e = sim.spawn_bottle((0.3, radius, 0.5), orientation=ACROSS)
    b = sim.body(e)
    axis = b.to_world([0.0, 1.0, 0.0]) - b.position
    b.velocity[:] = (1.0, 0.0, 0.0)
    b.angular_velocity[:] = np.cross((0.0, 1.0, 0.0), (1.0, 0.0, 0.0)) / radius   # omega x (-R y) = v
    sim.step(6)
    v0 = float(np.linalg.norm(b.velocity))
    sim.step(120)
    v1 = float(np.linalg.norm(b.velocity))
    assert abs(float(axis @ (0.0, 1.0, 0.0))) < 1e-9                 # it was lying down
    assert v0 > 0.95
    assert v1 > 0.98 * v0, f"{v0:.3f} -> {v1:.3f} m/s over 1 s"
    low = float(b.mesh_world()[0][:, 1].min())
    assert abs(low) < 1e-3
