"""No water, no water force: bodies on dry ground move as Coulomb friction says.

A box sliding on a level dry floor decelerates at mu g; sliding down a dry slope of angle theta it
accelerates at g (sin theta - mu cos theta) (negative: it decelerates). Any phantom water drag
would show as extra deceleration.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from engine import Simulation
from engine.levels import load_level, parse_level

G = 9.81
LEVELS = Path(__file__).resolve().parents[2] / "content" / "levels"


def slide(sim: Simulation, e: int, seconds: float, along: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Times and the box's speed along `along` while it slides."""
    b = sim.body(e)
    t, v = [], []
    for _ in range(int(seconds / sim.dt)):
        sim.step()
        t.append(sim.time)
        v.append(float(np.dot(b.velocity, along)))
    return np.array(t), np.array(v)


def acceleration(t: np.ndarray, v: np.ndarray, lo: float, hi: float) -> float:
    """Slope of a straight line fitted to v(t) where lo < |v| < hi (clear of landing and stopping)."""
    keep = (np.abs(v) > lo) & (np.abs(v) < hi)
    assert keep.sum() > 20
    return float(np.polyfit(t[keep], v[keep], 1)[0])


def test_a_box_slides_at_mu_g_on_a_dry_floor():
    """Deceleration mu g (mu = 0.5) within 3%, with water elsewhere in the pool."""
    sim = Simulation(parse_level("[pool]\nsize = [3.0, 1.0]\ncell = 0.05\nwall_height = 0.5\n"
                                 "[water]\nlevel = 0.1\n"
                                 "[[obstacle]]\nkind = \"box\"\ncenter = [1.75, 0.5]\nsize = [2.5, 1.0]\nheight = 0.2\n"
                                 "[physics]\nfriction = 0.5\n"))
    e = sim.spawn_body("box", density=600.0, position=(0.8, 0.26, 0.5), size=(0.2, 0.1, 0.2),
                       velocity=(3.0, 0.0, 0.0))
    t, v = slide(sim, e, 0.7, np.array([1.0, 0.0, 0.0]))
    assert sim.body(e).position[0] < 2.9                     # stayed on the dry shelf
    assert acceleration(t, v, 0.3, 2.7) == pytest.approx(-0.5 * G, rel=0.03)


def test_a_box_slides_at_the_coulomb_rate_on_the_beach_sand():
    """The beach level's dry sand (bed rising 0.45 m over 3.5 m along x, tan theta = 0.45 / 3.5):
    a box pushed down the slope decelerates at g (mu cos theta - sin theta) within 3%."""
    level = load_level(LEVELS / "beach.toml")
    sim = Simulation(level)
    theta = math.atan(0.45 / 3.5)
    mu = level.physics.friction
    x0 = 4.75
    y0 = 0.45 * (x0 - 1.5) / 3.5 + 0.06
    q = (math.cos(theta / 2), 0.0, 0.0, math.sin(theta / 2))      # box tilted onto the slope
    down = np.array([-math.cos(theta), -math.sin(theta), 0.0])
    e = sim.spawn_body("box", density=600.0, position=(x0, y0, 1.2), size=(0.2, 0.1, 0.2), orientation=q,
                       velocity=tuple(1.6 * down))
    t, v = slide(sim, e, 0.6, down)
    assert sim.body(e).position[0] > 3.9                     # it never reached the water line
    expected = G * (mu * math.cos(theta) - math.sin(theta))
    assert acceleration(t, v, 0.3, 1.45) == pytest.approx(-expected, rel=0.03)


def test_a_box_accelerates_down_a_dry_slope_at_g_sin_minus_mu_cos():
    """A dry slope with tan theta = 0.5, mu = 0.2: a = g (sin theta - mu cos theta) = 2.63 m/s^2
    within 3%."""
    theta = math.atan(0.5)
    sim = Simulation(parse_level("[pool]\nsize = [3.0, 1.0]\ncell = 0.05\nwall_height = 2.0\n"
                                 "[water]\nlevel = 0.0\n"
                                 "[terrain]\nkind = \"slope\"\naxis = \"x\"\nspan = [0.0, 3.0]\nheights = [0.0, 1.5]\n"
                                 "[physics]\nfriction = 0.2\n"))
    x0 = 2.5
    q = (math.cos(theta / 2), 0.0, 0.0, math.sin(theta / 2))
    e = sim.spawn_body("box", density=600.0, position=(x0, 0.5 * x0 + 0.06, 0.5), size=(0.2, 0.1, 0.2),
                       orientation=q)
    down = np.array([-math.cos(theta), -math.sin(theta), 0.0])
    t, v = slide(sim, e, 1.0, down)
    expected = G * (math.sin(theta) - 0.2 * math.cos(theta))
    assert acceleration(t, v, 0.2, 2.5) == pytest.approx(expected, rel=0.03)
