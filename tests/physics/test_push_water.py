"""Bodies push the water (Chentanez & Mueller's Algorithm 2 velocity push, momentum-exact).

The water's force on a body beyond hydrostatic pressure (drag, skin friction, added mass), F, is
given back to the water as -F spread over the wet faces around the body, so over a step the water's
momentum P = sum rho (h - b) u dx^2 (b: the bodies' covered height, their own share of h) gains
exactly what the body lost: dP = -F dt.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine import Simulation
from engine.levels import parse_level
from engine.systems import System

RHO = 1000.0


class Tow(System):
    """Drag a body at constant velocity along a straight line (a kinematic tow rope)."""

    def __init__(self, entity: int, start, velocity) -> None:
        self.entity, self.start, self.velocity = entity, np.array(start, float), np.array(velocity, float)

    def process(self, dt: float) -> None:
        b = self.sim.body(self.entity)
        b.position[:] = self.start + self.velocity * (self.sim.time + dt)
        b.velocity[:] = self.velocity
        b.orientation[:] = (1.0, 0.0, 0.0, 0.0)
        b.angular_velocity[:] = 0.0


def water_momentum(sim: Simulation) -> float:
    """x momentum of the water, sum rho (h - b)_face u dx^2 over the inner x faces, kg m/s."""
    h = sim.water.read("h") - sim.get_system("CoupleWater").b_prev
    u = sim.water.read("u")
    hf = 0.5 * (h[:, 1:] + h[:, :-1])
    return RHO * float((hf * u[:, 1:-1]).sum()) * sim.water.dx ** 2


def tow(push: bool, seconds: float = 0.5):
    """A submerged board 4 x 16 x 40 cm towed broadside at 0.5 m/s through still water 0.2 m
    deep, far from the walls: (impulse the water's force gave the body, water momentum gained,
    the water's velocity just behind the board)."""
    sim = Simulation(parse_level("[pool]\nsize = [6.0, 2.0]\ncell = 0.04\nwall_height = 0.6\n"
                                 "[water]\nlevel = 0.2\ndamping = 0.0\n"))
    e = sim.spawn_body("box", density=500.0, position=(2.5, 0.1, 1.0), size=(0.04, 0.16, 0.4))
    sim.add_system(Tow(e, (2.5, 0.1, 1.0), (0.5, 0.0, 0.0)), after="IntegrateBodies")
    cw = sim.get_system("CoupleWater")
    cw.push_water = push
    slot = sim.body(e).slot
    p0 = water_momentum(sim)
    impulse = 0.0
    for _ in range(int(seconds / sim.dt)):
        sim.step()
        impulse += float(cw._f[slot, 0]) * sim.dt      # the water's horizontal force (no x pressure here)
    x = float(sim.body(e).position[0])
    wake = sim.water.velocity_at(x - 0.15, 1.0)[0]
    return impulse, water_momentum(sim) - p0, wake


def test_a_towed_board_gives_the_water_the_momentum_its_drag_takes_and_leaves_a_wake():
    """Over the first 0.5 s, the water gains what the board lost to the water, -int F dt, within
    20% (less what displacement alone moves: the same tow without the push); the water behind
    the board follows it (a wake: more than a tenth of the tow speed, and faster than the
    displacement alone makes it)."""
    impulse, gained, wake = tow(True)
    _, gained_alone, wake_alone = tow(False)
    assert impulse < 0.0
    assert gained - gained_alone == pytest.approx(-impulse, rel=0.2)
    assert wake > 0.1 * 0.5 and wake > wake_alone      # at least a tenth of the tow speed
