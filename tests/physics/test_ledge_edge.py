"""A body flying just above a ledge's top edge passes over it (heightfield contacts at a steep face).

The bed is bilinear between cell centres, so a ledge's vertical face is a ramp one cell wide. Its
tangent plane's distance to a point above the ledge's top is (y - h) cos(a), cos(a) = 1/20 for
the 0.8 m face of the shooting gallery's shelf: taken as the gap, it is under the speculative
margin (|v| dt ~ 8.5 cm at 10 m/s) for any point less than 1.7 m up, so the plane stood as a wall
above the ledge and stopped throws at the shelf. A point above the patch's highest corner is at
least y - top from it and can only come down onto it. Here the bottle clears the edge by 12 cm.
Reference: free flight, v_z constant (no contact until it lands), and y(t) = y0 - g t^2 / 2.
"""
from __future__ import annotations

import numpy as np

from engine.levels.loader import parse_level
from engine.world import Simulation

LEVEL = """
name = "ledge edge"
seed = 1
dt = 0.008333333333333333
[pool]
size = [1.0, 1.0]
cell = 0.04
wall_height = 1.2
[water]
level = 0.0
[[obstacle]]
kind = "ledge"
side = "z_max"
width = 0.3
height = 0.8
[physics]
glass_strength = 1000.0
"""
LYING_ALONG_X = (0.7071068, 0.0, 0.0, 0.7071068)   # the axis (+y) turned onto -x


def test_a_bottle_skimming_over_the_ledge_edge_is_not_stopped():
    sim = Simulation(parse_level(LEVEL))
    bed = np.asarray(sim.water.read("bed"))
    top = float(bed.max())
    edge = float(np.argmax(bed[:, 12] > 0.5 * top)) * sim.water.dx     # z where the ledge begins
    r = 0.037                                                           # the bottle's outer radius
    y0 = top + r + 0.13
    z0 = edge - 0.35
    e = sim.spawn_bottle((0.5, y0, z0), velocity=(0.0, 0.0, 10.0), orientation=LYING_ALONG_X)
    t_cross = (edge + 0.08 - z0) / 10.0          # its centre 8 cm past the edge, over the top
    steps = int(round(t_cross / sim.dt))
    sim.step(steps)
    b = sim.body(e)
    t = steps * sim.dt
    assert abs(b.velocity[2] - 10.0) < 1e-6, b.velocity
    assert abs(b.position[1] - (y0 - 0.5 * sim.gravity * t * t)) < 1e-6
    sim.close()
