"""What a body lands on: hard ground (tiles, stone, an obstacle, a wall) or loose sand.

A level whose bed is sand (`[look] bed = "sand"`, the beach) is soft where no obstacle stands on
it: a body landing there digs a crater and stops in it instead of rebounding off a solid.

Stopping. A body dropped on loose sand stops in its crater without rebounding: its energy goes
into moving grains (Katsuragi & Durian 2007, Nature Physics 3, 420: the stopping force is inertial
drag along the motion plus depth-dependent friction, both dissipative). A contact over a sand
cell (feature kind SOFT_FLOOR, engine/kernels/contacts.py) that strikes it faster than
CRATER_ENTRY (1 m/s, a drop of 5 cm) is not bounced but slowed over time: its normal speed s
falls as ds/dt = -1.5 s^2 / d(s), d the crater depth below, so that it comes to rest d under the
surface and is 90% slower after 2.3 d / s, the stop the experiments below found. The drag acts
along the motion, so the tangential speed falls in the same proportion: a bottle thrown at a
slant digs in instead of skidding on or vaulting over its neck. On a ball it acts through the
centre (the grains press along the sphere's normals), so a ball thrown at a slant digs in along
its line of flight instead of rolling on. A slower landing
just stops on the surface (no rebound). Once a body has stopped, the split-impulse push lifts it
back to the surface, and it rests and slides on sand with Coulomb friction like on any floor.

Breaking. Glass breaks under the peak force of an impact (Mould 1952, engine/levels/schema.py),
which on hard ground comes as a pulse of about HARD_PULSE = 1 ms; `Bottle.strength` is the
impulse of such a pulse. Sand spreads the stop over the time the body takes to dig its crater.
Penetration depth of a body dropped into a loose granular bed (Uehara, Ambroso, Ojha & Durian
2003, PRL 90, 194301):
    d = (0.14 / mu) (rho_b / rho_g)^(1/2) D^(2/3) H^(1/3),   H = v^2 / (2 g)
with mu = tan(angle of repose), rho_g the bed's bulk density, rho_b and D the body's density and
(volume-equivalent sphere) diameter, v its speed at the surface; the stop takes
    t = 3 d / v
(Ambroso, Kamien & Durian 2005, PRE 72, 041305: three times d / v, the deceleration falling
monotonically). The same impulse over t instead of HARD_PULSE peaks HARD_PULSE / t as high, so
Shatter weighs a sand impact's glass impulse by min(1, HARD_PULSE / t). An empty bottle dropped
1.5 m onto sand stops in about 18 ms, so its glass feels 0.055 of the same impulse on tiles
(0.12 N s of the 1.4 that break it); sand breaks it only above about 35 m/s, faster than anyone
throws (tiles: 2.7 m/s).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from engine.levels import Level

HARD_PULSE = 1e-3          # s: an impact pulse on hard ground (Mould 1952, about 1 ms)
SAND_MU = 0.6              # tan of dry sand's angle of repose (about 31 degrees)
SAND_DENSITY = 1600.0      # kg/m^3: bulk density of dry sand (grains 2650 kg/m^3 at 60% packing)
SOFT_BEDS = ("sand",)      # [look] bed materials that are soft ground
# Rolling resistance of loose dry sand: a torque C_rr N R at each sand contact (contacts.solve). A
# rigid roller sinks z0 until the soil's pressure p = k z (Bekker's pressure-sinkage law with
# n = 1) carries its weight W on the front half of its contact (the sand does not spring back
# behind it); rolling on compacts a rut z0 deep, work k z^2 / 2 per unit area, which is the force
# C_rr W against rolling (Bekker's compaction resistance). For a cylinder of diameter D and length
# L lying across its path, and for a ball of diameter D:
#   cylinder: W = (2/3) k L sqrt(D) z0^(3/2),  C_rr W = k L z0^2 / 2,               C_rr = (3/4) sqrt(z0 / D)
#   ball:     W = (pi / 4) k D z0^2,           C_rr W = (8/15) k sqrt(D) z0^(5/2),  C_rr = (32 / (15 pi)) sqrt(z0 / D)
# so a heavier body sinks deeper and rolls harder: C_rr grows as W^(1/6) (cylinder) or W^(1/4) (ball).
# SAND_MODULUS k: Bekker's dry sand (Wong, Theory of Ground Vehicles, Table 2.3: n = 1.1, k_phi =
# 1528 kN/m^(n+2)) at millimetre sinkage, k_phi z^0.1 = 0.84-1.0 MN/m^3 for z = 2.5-17 mm. An empty
# bottle lying on sand sinks 2.6 mm (C_rr 0.14), a 2.35 kg stone ball 17 mm (C_rr 0.26): both
# rest on the beach's 7 degrees (tan 0.123). Bodies that are not round (boxes, shards: they tip
# over an edge rather than roll) keep SAND_ROLLING.
SAND_MODULUS = 0.85e6      # N/m^3
SAND_ROLLING = 0.1


def sand_rolling(weight: NDArray[np.float64], ball_radius: NDArray[np.float64], rim_radius: NDArray[np.float64],
                 rim_length: NDArray[np.float64]) -> NDArray[np.float64]:
    """C_rr of each body on loose sand (the equations above): a ball where ball_radius > 0, a
    cylinder (a body of revolution on its widest rims, `meshes.rim_circles`) where rim_radius > 0
    and rim_length > 0, SAND_ROLLING otherwise. weight in N, lengths in m."""
    w = np.maximum(np.asarray(weight, float), 0.0)
    rb = np.asarray(ball_radius, float)
    rc = np.asarray(rim_radius, float)
    lc = np.asarray(rim_length, float)
    out = np.full(w.shape, SAND_ROLLING)
    ball = rb > 0.0
    d = 2.0 * rb[ball]
    z = np.sqrt(4.0 * w[ball] / (math.pi * SAND_MODULUS * d))
    out[ball] = 32.0 / (15.0 * math.pi) * np.sqrt(z / d)
    cyl = ~ball & (rc > 0.0) & (lc > 0.0)
    d = 2.0 * rc[cyl]
    z = (1.5 * w[cyl] / (SAND_MODULUS * lc[cyl] * np.sqrt(d))) ** (2.0 / 3.0)
    out[cyl] = 0.75 * np.sqrt(z / d)
    return out


# Torsional friction of a ball spinning in its pit (about the contact normal): at rest it sinks z0
# with the pressure p = k (z0 - r^2 / D) over the whole cap of radius a = sqrt(D z0), so
#   W = (pi / 2) k D z0^2,   tau = SAND_MU int p r dA = (4 pi / 15) SAND_MU k a^3 z0 = (8 / 15) SAND_MU W a
# (the parabolic pressure's arm, 8/15 a, against 2/3 a for a uniform one). A 2.35 kg stone ball
# sinks 12 mm, a = 38 mm: a 50 rad/s spin stops in 0.6 s. Bodies with more than one contact point
# (a bottle on its two rims, boxes on their corners) get their torsional friction from the
# friction at those points; a ball's one point has none.


def sand_pivot(weight: NDArray[np.float64], ball_radius: NDArray[np.float64]) -> NDArray[np.float64]:
    """Arm of each body's torsional friction in sand, m (torque = arm x normal force, the equation
    above): (8 / 15) SAND_MU sqrt(D z0) for a ball (ball_radius > 0), 0 for any other body."""
    w = np.maximum(np.asarray(weight, float), 0.0)
    rb = np.asarray(ball_radius, float)
    out = np.zeros(w.shape)
    ball = rb > 0.0
    d = 2.0 * rb[ball]
    z = np.sqrt(2.0 * w[ball] / (math.pi * SAND_MODULUS * d))
    out[ball] = 8.0 / 15.0 * SAND_MU * np.sqrt(d * z)
    return out


def sand_cells(level: "Level", shape: tuple[int, int]) -> NDArray[np.uint8]:
    """(nz, nx): 1 on the cells where a body lands on sand (the bed is a soft material and no
    obstacle stands on the cell), 0 elsewhere; all 0 for a grid of another shape than the
    level's cells (its floor's material is not known). Simulation keeps it as `sim.sand`."""
    if level.look.bed not in SOFT_BEDS:
        return np.zeros(shape, np.uint8)
    from engine.terrain import cell_centres, obstacle_height
    X, Z = cell_centres(level)
    if X.shape != tuple(shape):
        return np.zeros(shape, np.uint8)
    soft = np.ones(X.shape, bool)
    for ob in level.obstacles:
        soft &= ~(obstacle_height(ob, X, Z, level.pool.size) > 0.0)
    return soft.astype(np.uint8)


def on_sand(soft: NDArray[np.uint8], dx: float, point: tuple[float, float, float],
            normal: tuple[float, float, float]) -> bool:
    """Whether an impact with the pool at `point` (normal from the pool to the body) was on sand:
    the floor (normal within 45 degrees of up) over a sand cell; the deck outside the walls is
    hard."""
    if normal[1] < math.sqrt(0.5):
        return False
    nz, nx = soft.shape
    if not (0.0 <= point[0] <= nx * dx and 0.0 <= point[2] <= nz * dx):
        return False
    i = min(max(int(point[0] // dx), 0), nx - 1)
    k = min(max(int(point[2] // dx), 0), nz - 1)
    return bool(soft[k, i])


def crater_coefficient(mass: NDArray[np.float64] | float, volume: NDArray[np.float64] | float,
                       gravity: float = 9.81) -> NDArray[np.float64]:
    """k such that a body of `mass` (kg) and outer `volume` (m^3) reaching loose sand at speed v
    digs a crater d = k v^(2/3) deep (Uehara et al.'s law above with H = v^2 / (2 g)); 0 where the
    volume is 0 (no such body)."""
    m = np.asarray(mass, float)
    vol = np.asarray(volume, float)
    ok = vol > 0.0
    safe = np.where(ok, vol, 1.0)
    diameter = (6.0 * safe / math.pi) ** (1.0 / 3.0)
    k = 0.14 / SAND_MU * np.sqrt(m / safe / SAND_DENSITY) * diameter ** (2.0 / 3.0) * (2.0 * gravity) ** (-1.0 / 3.0)
    return np.where(ok, k, 0.0)


def sand_stop_time(speed: float, mass: float, volume: float, gravity: float = 9.81) -> float:
    """Seconds a body of `mass` (kg) and outer `volume` (m^3) takes to stop in loose sand it
    reaches at `speed` (m/s): t = 3 d / v with Uehara et al.'s crater depth d (above)."""
    if speed <= 0.0:
        return math.inf
    depth = float(crater_coefficient(mass, volume, gravity)) * speed ** (2.0 / 3.0)
    return 3.0 * depth / speed


def sand_pulse_factor(impulse: float, mass: float, volume: float, gravity: float = 9.81) -> float:
    """min(1, HARD_PULSE / t): how much less an impact of `impulse` (N s, the sand's on the whole
    body) peaks than the same impulse on hard ground. Sand stops the body without a rebound, so it
    met the sand at v = J / m."""
    speed = impulse / mass
    return min(1.0, HARD_PULSE / sand_stop_time(speed, mass, volume, gravity))
