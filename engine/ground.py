"""What a body lands on: hard ground (tiles, stone, an obstacle, a wall) or loose sand.

A level whose bed is sand (`[look] bed = "sand"`, the beach) is soft where no obstacle stands on
it: a body landing there digs a crater and stops in it instead of rebounding off a solid.

Bounce. A sphere dropped on loose sand barely rises again: its energy goes into moving grains
(Katsuragi & Durian 2007, Nature Physics 3, 420: the stopping force is inertial drag plus
depth-dependent friction, both dissipative). Contacts with sand cells take the restitution
e = min(e_body, SAND_RESTITUTION) (engine/kernels/contacts.py, feature kind SOFT_FLOOR).

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
(0.13 N s of the 1.4 that break it); sand breaks it only above about 33 m/s, faster than anyone
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
SAND_RESTITUTION = 0.1     # a body's bounce off loose sand, at most
SAND_MU = 0.6              # tan of dry sand's angle of repose (about 31 degrees)
SAND_DENSITY = 1600.0      # kg/m^3: bulk density of dry sand (grains 2650 kg/m^3 at 60% packing)
SOFT_BEDS = ("sand",)      # [look] bed materials that are soft ground


def sand_cells(level: "Level", shape: tuple[int, int]) -> NDArray[np.uint8]:
    """(nz, nx): 1 on the cells where a body lands on sand (the bed is a soft material and no
    obstacle stands on the cell), 0 elsewhere; all 0 for a grid of another shape than the
    level's cells (one a script made itself: its floor's material is not known)."""
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
    the floor (normal within 45 degrees of up) over a sand cell."""
    if normal[1] < math.sqrt(0.5) or soft.size == 0:
        return False
    nz, nx = soft.shape
    i = min(max(int(point[0] // dx), 0), nx - 1)
    k = min(max(int(point[2] // dx), 0), nz - 1)
    return bool(soft[k, i])


def sand_stop_time(speed: float, mass: float, volume: float, gravity: float = 9.81) -> float:
    """Seconds a body of `mass` (kg) and outer `volume` (m^3) takes to stop in loose sand it
    reaches at `speed` (m/s): t = 3 d / v with Uehara et al.'s penetration depth d (above)."""
    if speed <= 0.0:
        return math.inf
    diameter = (6.0 * volume / math.pi) ** (1.0 / 3.0)
    rho = mass / volume
    drop = speed * speed / (2.0 * gravity)
    depth = 0.14 / SAND_MU * math.sqrt(rho / SAND_DENSITY) * diameter ** (2.0 / 3.0) * drop ** (1.0 / 3.0)
    return 3.0 * depth / speed


def sand_pulse_factor(impulse: float, mass: float, volume: float, restitution: float,
                      gravity: float = 9.81) -> float:
    """min(1, HARD_PULSE / t): how much less an impact of `impulse` (N s, the pool's on the whole
    body) on sand peaks than the same impulse on hard ground. The body met the sand at
    v = J / (m (1 + e)), e = min(restitution, SAND_RESTITUTION)."""
    e = min(restitution, SAND_RESTITUTION)
    speed = impulse / (mass * (1.0 + e))
    return min(1.0, HARD_PULSE / sand_stop_time(speed, mass, volume, gravity))
