"""Glass strength from real glass (engine/levels/schema.py, Mould 1952): what breaks and what not.

A drop from height H meets the floor at v = sqrt(2 g H); the contact impulse is J = m (1 + e) v.
With the default strength 1.4 N s an empty 0.39 kg bottle (e = 0.35) breaks above v ~ 2.7 m/s:
a 1.5 m drop onto tiles (v = 5.4 m/s) and a 5 m/s throw at a wall break it, a 5 cm drop does not,
and a drop into water (no contact impulse: the water slows it) never does.
"""
from __future__ import annotations

import math

import pytest

from engine.levels.loader import parse_level
from engine.levels.schema import PhysicsSpec
from engine.world import Simulation

LEVEL = """
name = "glass test"
seed = {seed}
dt = 0.008333333333333333
[pool]
size = [2.0, 1.0]
cell = 0.04
wall_height = 2.0
[water]
level = {level}
"""
UPRIGHT = (1.0, 0.0, 0.0, 0.0)
LYING = (0.7071068, 0.0, 0.0, 0.7071068)
TILTED = (0.9238795, 0.3826834, 0.0, 0.0)
NECK_FIRST = (0.7071068, 0.0, 0.0, 0.7071068)   # +y (the neck) turned onto -x


def _broke(level: float, pos, vel, orient, fill: float = 0.0, steps: int = 150, w=(0.0, 0.0, 0.0)) -> bool:
    sim = Simulation(parse_level(LEVEL.format(seed=1, level=level)))
    sim.spawn_bottle(pos, vel, w, orient, fill=fill)
    sim.step(steps)
    broke = len(sim.bodies("shard")) > 0
    sim.close()
    return broke


def test_the_default_strength_is_the_documented_figure():
    """1.4 N s: half of Mould's sidewall impulse (2/pi) 4.4 kN 1 ms (schema.py comment)."""
    assert PhysicsSpec().glass_strength == pytest.approx(0.5 * 2.0 / math.pi * 4448.0 * 1e-3, rel=0.02)


@pytest.mark.parametrize("orient", [UPRIGHT, LYING, TILTED])
@pytest.mark.parametrize("fill", [0.0, 1.0])
def test_a_bottle_dropped_on_tiles_from_1_5_m_breaks(orient, fill):
    assert _broke(0.0, (1.0, 1.5, 0.5), (0.0, 0.0, 0.0), orient, fill)


@pytest.mark.parametrize("orient", [UPRIGHT, LYING, TILTED])
@pytest.mark.parametrize("fill", [0.0, pytest.param(1.0, marks=pytest.mark.xfail(strict=True, reason=(
    "open: under the physical drag law (C_D 0.47, added mass 0.5; issue 24) a full bottle (1.21 kg) "
    "reaches the floor of 0.5 m of water at 1.4-3.2 m/s, an impulse of 2.3-5.2 N s against the "
    "1.4 N s strength; the old lumped 300 N s/m^3 skin friction stopped it. Needs an impact rule "
    "for glass under water (or a per-kind drag), not a weaker bar")))])
def test_a_bottle_dropped_into_water_from_1_5_m_does_not_break(orient, fill):
    assert not _broke(0.5, (1.0, 1.5, 0.5), (0.0, 0.0, 0.0), orient, fill, steps=300)


@pytest.mark.parametrize("orient,spin", [(NECK_FIRST, (0.0, 0.0, -4.0)), (UPRIGHT, (0.0, 0.0, 0.0)),
                                         (LYING, (0.0, 0.0, 0.0))])
def test_a_bottle_thrown_at_a_wall_at_5_m_s_breaks(orient, spin):
    """Thrown at 5 m/s, 0.5 m from the wall (x = 0), 0.4 m up: it breaks at the wall (within 0.15 s)."""
    assert _broke(0.0, (0.5, 0.4, 0.5), (-5.0, 0.0, 0.0), orient, steps=int(0.15 / (1 / 120)), w=spin)


def test_a_bottle_set_down_gently_does_not_break():
    """A 5 cm drop: v = 1 m/s, J = m (1 + e) v ~ 0.52 N s < 1.4 N s."""
    assert not _broke(0.0, (1.0, 0.17, 0.5), (0.0, 0.0, 0.0), UPRIGHT)
    v = math.sqrt(2 * 9.81 * 0.05)
    assert 0.39 * 1.35 * v < PhysicsSpec().glass_strength
