"""Bodies in water, both ways: Archimedes, sinking, settling, drag, rings, held water, bookkeeping."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation, events
from engine.levels import parse_level
from engine.systems import System

RHO = 1000.0
SIDEWAYS = (math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4))   # bottle axis along x


class Hold(System):
    """A hand: keeps one body at a pose (zero velocity) until simulated time `until`."""

    def __init__(self, entity: int, position, orientation, until: float = math.inf) -> None:
        self.entity, self.position, self.orientation, self.until = entity, position, orientation, until

    def process(self, dt: float) -> None:
        if self.sim.time < self.until:
            b = self.sim.body(self.entity)
            b.position[:] = self.position
            b.orientation[:] = self.orientation
            b.velocity[:] = 0.0
            b.angular_velocity[:] = 0.0


def pool(size: float = 1.0, cell: float = 0.025, level: float = 0.4, extra: str = "") -> Simulation:
    return Simulation(parse_level(f"[pool]\nsize = [{size}, {size}]\ncell = {cell}\nwall_height = 0.9\n"
                                  f"[water]\nlevel = {level}\n{extra}"))


def test_sealed_empty_bottle_floats_at_the_archimedes_draft_and_settles():
    """Archimedes: V_sub = m / rho_water. Settled: |v_y| < 5 mm/s within 10 s, for the next 60 s."""
    sim = pool()
    e = sim.spawn_bottle((0.5, 0.5, 0.5), orientation=SIDEWAYS)
    b = sim.body(e)
    sim.step(int(10.0 / sim.dt))
    assert b.submerged_volume == pytest.approx(b.mass / RHO, rel=0.05)
    worst = 0.0
    for _ in range(int(60.0 / sim.dt)):
        sim.step()
        worst = max(worst, abs(float(b.velocity[1])))
    assert worst < 5e-3
    assert b.submerged_volume == pytest.approx(b.mass / RHO, rel=0.05)


def test_the_surface_rises_by_the_submerged_volume_over_the_pool_area():
    """Volume is moved, not destroyed: mean surface rise = V_sub / A; water itself is constant."""
    sim = pool()
    area = 1.0 * 1.0
    eta0 = float(sim.water.eta.mean())
    w0 = sim.total_water()
    grid0 = sim.water.volume()
    e = sim.spawn_bottle((0.5, 0.55, 0.5), orientation=SIDEWAYS)
    sim.step(int(10.0 / sim.dt))
    sub = sim.body(e).submerged_volume
    assert float(sim.water.eta.mean()) - eta0 == pytest.approx(sub / area, rel=0.05)
    # pool water + displaced volume: the grid's content changes by exactly what the body holds aside
    assert sim.water.volume() - grid0 == pytest.approx(sim.displaced_volume(), rel=1e-9)
    assert abs(sim.total_water() - w0) < 1e-3 * w0


def test_a_sealed_full_bottle_sinks_to_the_floor_and_rests():
    sim = pool()
    e = sim.spawn_bottle((0.5, 0.5, 0.5), orientation=SIDEWAYS, fill=1.0)
    b = sim.body(e)
    assert b.mass / RHO > b.volume                      # denser than water
    sim.step(int(6.0 / sim.dt))
    assert b.position[1] < 0.06                         # lying on the floor (outer radius ~ 3.5 cm)
    assert np.linalg.norm(b.velocity) < 0.01


def test_a_half_density_sphere_floats_half_submerged():
    """A sphere of density rho / 2 floats with half its volume under water."""
    sim = pool()
    e = sim.spawn_body("sphere", density=500.0, position=(0.5, 0.5, 0.5), radius=0.08)
    b = sim.body(e)
    sim.step(int(8.0 / sim.dt))
    assert b.submerged_volume == pytest.approx(0.5 * b.volume, rel=0.05)
    assert b.position[1] == pytest.approx(float(sim.water.eta.mean()), abs=0.01)


def test_drag_pulls_a_floating_body_up_to_the_current():
    """With a steady current U, the quadratic drag on a half-submerged sphere (frontal area
    pi r^2 / 2 under water, C_D = 0.47, added mass C_a rho V_sub with C_a = 1/2) closes the speed
    gap as (m + m_a) dv_rel/dt = -1/2 rho C_D A v_rel^2, so v_rel(t) = U / (1 + U k t / (m + m_a)),
    k = 1/2 rho C_D A: the body's speed after 4 s within 20% of U - v_rel(4 s)."""
    # a river: inflow at x = 0, outflow at x = 4 m; U = Q / (h W) once the flow is established
    depth, width, q = 0.3, 1.0, 0.06
    sim = Simulation(parse_level(f"""
[pool]
size = [4.0, {width}]
cell = 0.04
[water]
level = {depth}
damping = 0.0
boundary = {{ x_min = {{ kind = "inflow", rate = {q} }}, x_max = "outflow" }}
"""))
    sim.step(int(3.0 / sim.dt))                                   # let the current establish
    current = sim.water.velocity_at(1.5, 0.5)[0]
    assert current == pytest.approx(q / (depth * width), rel=0.25)
    r, density = 0.05, 500.0
    e = sim.spawn_body("sphere", density=density, position=(0.5, depth, 0.5), radius=r)
    sim.step(int(4.0 / sim.dt))
    b = sim.body(e)
    u = sim.water.velocity_at(b.position[0], b.position[2])[0]
    m = density * 4.0 / 3.0 * math.pi * r ** 3
    m_a = 0.5 * RHO * (m / RHO)
    k = 0.5 * RHO * 0.47 * math.pi * r ** 2 / 2
    v_rel = u / (1.0 + u * k * 4.0 / (m + m_a))
    assert b.velocity[0] == pytest.approx(u - v_rel, rel=0.2)


def test_a_drop_makes_rings_that_run_at_sqrt_gh():
    """Ring front of a body dropped from 0.5 m: shallow-water wave speed c = sqrt(g h), within 10%.

    This checks the shallow-water solver and the coupling, so the dispersive surface-wave stage is
    off: with it on, the visible (1 mm) ring is the train of ripples at Airy's group velocity
    (measured 0.28 m/s here), which tests/physics/test_dispersion.py checks against the
    Cauchy-Poisson solution."""
    h = 0.2
    sim = pool(size=3.0, cell=0.03, level=h, extra="damping = 0.0\ndispersion = false\n")
    eta0 = sim.water.eta.copy()
    sim.spawn_body("sphere", density=600.0, position=(1.5, h + 0.5, 1.5), radius=0.06)
    dx = sim.water.dx
    x = (np.arange(sim.water.shape[1]) + 0.5) * dx
    row = sim.water.shape[0] // 2
    fronts = []
    entered = None
    for _ in range(int(1.2 / sim.dt)):
        sim.step()
        if entered is None and sim.body(1 + 2).position[1] < h + 0.06:
            entered = sim.time
        if entered is not None:
            d = np.abs(sim.water.eta[row] - eta0[row])
            moved = x[(d > 1e-3) & (x > 1.5)]
            fronts.append((sim.time, moved.max() - 1.5 if len(moved) else 0.0))
    t = np.array([f[0] for f in fronts])
    r = np.array([f[1] for f in fronts])
    window = (r > 0.4) & (r < 1.3)             # clear of the splash zone and of the wall
    speed = np.polyfit(t[window], r[window], 1)[0]
    assert speed == pytest.approx(math.sqrt(9.81 * h), rel=0.10)


def test_an_open_bottle_pushed_under_fills_and_sinks():
    sim = pool(level=0.5)
    e = sim.spawn_bottle((0.5, 0.5, 0.5), orientation=SIDEWAYS, sealed=False)
    b = sim.body(e)
    w0 = sim.total_water()
    hand = Hold(e, (0.5, 0.25, 0.5), SIDEWAYS, until=3.0)    # a player pushes it under for 3 s
    sim.add_system(hand, after="IntegrateBodies")
    sim.step(int(8.0 / sim.dt))
    assert b.held_water > 0.9 * b.store.inner_volume[b.slot]
    assert b.position[1] < 0.06
    assert sim.total_water() == pytest.approx(w0, rel=1e-9)


def tilted(deg: float) -> tuple[float, float, float, float]:
    """Bottle axis tipped `deg` degrees from upright, about z."""
    a = math.radians(deg) / 2
    return (math.cos(a), 0.0, 0.0, math.sin(a))


@pytest.mark.parametrize("deg, fill, pours", [(0, 1.0, False), (30, 0.5, False), (120, 0.5, True),
                                             (90, 0.4, False), (90, 1.0, True), (180, 0.3, True)])
def test_held_water_pours_past_the_pour_angle(deg, fill, pours):
    """An open bottle held in the air pours only when its mouth drops below the water inside."""
    sim = pool(level=0.2)
    e = sim.spawn_bottle((0.5, 0.6, 0.5), orientation=tilted(deg), fill=fill, sealed=False)
    sim.add_system(Hold(e, (0.5, 0.6, 0.5), tilted(deg)), after="IntegrateBodies")
    b = sim.body(e)
    held0 = b.held_water
    w0 = sim.total_water()
    sim.step(int(0.5 / sim.dt))
    assert (b.held_water < held0 - 1e-6) == pours
    assert sim.total_water() == pytest.approx(w0, rel=1e-9)
    if deg == 90 and pours:                    # lying flat the mouth is on the axis: about half stays
        sim.step(int(10.0 / sim.dt))
        assert 0.35 < b.held_water / b.store.inner_volume[b.slot] < 0.6
    if deg == 180:                             # upside down it empties; a rate that is plausible
        sim.step(int(15.0 / sim.dt))           # (orifice flow with glugging: seconds, not instantly)
        assert b.held_water < 0.02 * held0 + 1e-9


def test_a_sealed_bottle_never_exchanges_water():
    sim = pool(level=0.5)
    e = sim.spawn_bottle((0.5, 0.2, 0.5), orientation=tilted(180), fill=0.5, sealed=True)
    sim.step(int(2.0 / sim.dt))
    assert sim.body(e).held_water == pytest.approx(0.5 * sim.body(e).store.inner_volume[0])


def test_water_bookkeeping_through_drop_float_pour_and_shatter():
    """sim.total_water() (pool + held + in flight, less what bodies displace) never changes."""
    sim = pool(size=1.5, cell=0.03, level=0.3)
    shattered = []
    sim.on(events.Shattered, shattered.append)
    sim.spawn_bottle((0.4, 0.6, 0.5), orientation=SIDEWAYS)                          # drop, float
    sim.spawn_bottle((1.0, 0.7, 1.0), orientation=SIDEWAYS, fill=0.9, sealed=False)  # pour
    breaks = sim.spawn_bottle((0.75, 0.8, 0.75), fill=0.5)                          # shatters in the air
    sim.spawn_bottle((0.3, 0.6, 1.2), velocity=(-25.0, 0.0, 0.0), fill=0.6)          # at the wall, above water
    w0 = sim.total_water()
    worst = 0.0
    for k in range(int(3.0 / sim.dt)):
        if k == 10:
            sim.shatter(breaks)
        sim.step()
        worst = max(worst, abs(sim.total_water() - w0))
    assert len(shattered) == 2 and all(s.released_volume > 0.0 for s in shattered)
    assert sim.water_in_flight == 0.0          # everything that fell has landed
    assert worst < 1e-9 * w0


class Tow(System):
    """Drag a body at constant velocity along a straight line (a kinematic tow rope)."""

    def __init__(self, entity: int, start, velocity, orientation) -> None:
        self.entity, self.start, self.velocity, self.orientation = entity, np.array(start, float), \
            np.array(velocity, float), orientation

    def process(self, dt: float) -> None:
        b = self.sim.body(self.entity)
        b.position[:] = self.start + self.velocity * (self.sim.time + dt)
        b.velocity[:] = self.velocity
        b.orientation[:] = self.orientation
        b.angular_velocity[:] = 0.0


def test_a_body_pushed_through_the_surface_makes_a_bow_wave_and_a_wake():
    """A half-submerged box towed at 0.8 m/s (below sqrt(g h) = 1.4 m/s) piles the water up ahead
    of it and leaves a trough behind it."""
    h = 0.2
    sim = pool(size=3.0, cell=0.03, level=h, extra="damping = 0.0\n")
    e = sim.spawn_body("box", density=500.0, position=(0.6, h, 1.5), size=(0.15, 0.2, 0.4))
    sim.add_system(Tow(e, (0.6, h, 1.5), (0.8, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)), after="IntegrateBodies")
    sim.step(int(1.5 / sim.dt))
    x = sim.body(e).position[0]
    water = sim.water
    row = water.eta[int(1.5 / water.dx)]
    xs = (np.arange(len(row)) + 0.5) * water.dx
    mean = float(water.eta.mean())
    ahead = row[(xs > x + 0.08) & (xs < x + 0.3)].max()
    behind = row[(xs < x - 0.15) & (xs > x - 0.35)].min()
    assert ahead - mean > 5e-3          # bow wave
    assert mean - behind > 2e-3         # trough of the wake


@pytest.mark.parametrize("dt", [1 / 240, 1 / 60, 0.03])
def test_floating_is_stable_at_any_level_dt(dt):
    sim = Simulation(parse_level(f"dt = {dt}\n[pool]\nsize = [1.0, 1.0]\ncell = 0.025\n[water]\nlevel = 0.4\n"))
    e = sim.spawn_bottle((0.5, 0.55, 0.5), orientation=SIDEWAYS)
    b = sim.body(e)
    sim.step(int(8.0 / dt))
    assert np.isfinite(b.position).all()
    assert b.submerged_volume == pytest.approx(b.mass / RHO, rel=0.08)
    assert abs(b.velocity[1]) < 0.02


def test_leaving_the_water_is_smooth():
    """A body lifted out at 0.5 m/s: the water's force on it falls to zero without a jolt
    (no step changes it by more than a few percent of its weight)."""
    sim = pool(level=0.4)
    e = sim.spawn_body("sphere", density=500.0, position=(0.5, 0.4, 0.5), radius=0.06)
    sim.step(int(3.0 / sim.dt))
    sim.add_system(Tow(e, tuple(sim.body(e).position), (0.0, 0.5, 0.0), (1.0, 0.0, 0.0, 0.0)),
                   after="IntegrateBodies")
    cw = sim.get_system("CoupleWater")
    b = sim.body(e)
    weight = b.mass * 9.81
    forces = []
    for _ in range(int(0.6 / sim.dt)):
        sim.step()
        forces.append(cw._f[b.slot, 1])
    forces = np.array(forces)
    assert forces[-1] == pytest.approx(0.0, abs=1e-9)      # out of the water: nothing
    assert np.abs(np.diff(forces)).max() < 0.1 * weight
