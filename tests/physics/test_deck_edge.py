"""The deck's outer edge: the world ends there. A body rolled, knocked or thrown over it tips over
the edge, falls freely (no ground, no water, no wall past it) and leaves the world (FallOff), with
the water it held counted as gone. References are closed-form mechanics, not the engine's code."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation, events
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec
from engine.systems.fall_off import FALL_DEPTH
from engine.terrain import DECK

SIZE = (2.0, 1.5)
RIM = 0.5


def _sim(**physics) -> Simulation:
    return Simulation(Level(seed=1, pool=PoolSpec(size=SIZE, cell=0.05, wall_height=RIM), water=WaterSpec(level=0.3),
                            physics=PhysicsSpec(glass_strength=1e9, **physics)))


def _in_deck(v: np.ndarray) -> float:
    """How deep the deepest of the points v (n, 3) is inside the deck beyond x = 0 (the walls'
    solid round the pool, out to its edge at x = -DECK, up to y = RIM): the nearer of its top and
    its outer side; 0 for points out of it."""
    edge = v[:, 0] + DECK                      # in from the outer edge, along -x
    inside = (v[:, 0] < 0.0) & (edge > 0.0) & (v[:, 1] < RIM)
    return float(np.where(inside, np.minimum(edge, RIM - v[:, 1]), 0.0).max())


@pytest.mark.parametrize("v0, r", [(0.1, 0.06), (0.3, 0.06), (0.2, 0.15), (0.5, 0.15)])
def test_a_ball_rolled_slowly_off_the_edge_pivots_on_it_then_flies(v0, r):
    """A ball rolling without slipping at v0 over a sharp edge turns about it until the normal force
    vanishes, at cos theta* = (10 + 7 v0^2 / (g r)) / 17 (energy, v^2 = v0^2 + (10/7) g r (1 - cos),
    with the centripetal condition g cos = v^2 / r), and leaves with speed v* = sqrt(g r cos theta*)
    along the tangent: its horizontal speed from then on is v* cos theta*, within 5%. Friction high
    enough that it does not slip first (mu = 3); it never cuts into the edge (2 mm)."""
    sim = _sim()
    g = sim.gravity
    e = sim.spawn_body(model="sphere", density=2600.0, radius=r, position=(-DECK + 0.02, RIM + r, 0.75),
                       velocity=(-v0, 0.0, 0.0), angular_velocity=(0.0, 0.0, v0 / r), friction=3.0)
    b = sim.body(e)
    worst = 0.0
    while float(b.position[1]) > RIM - 0.3:              # well clear of the edge: in free flight
        sim.step(1)
        p = b.position
        # distance from the edge line (x = -DECK, y = RIM) to the centre, less r: < 0 is cutting in
        ox, oy = max(-DECK - float(p[0]), 0.0), max(float(p[1]) - RIM, 0.0)
        worst = max(worst, r - math.hypot(ox, oy) if p[0] < -DECK else 0.0)
        assert sim.time < 10.0, "the ball never went over the edge"
    c = (10.0 + 7.0 * v0 * v0 / (g * r)) / 17.0
    vx_star = math.sqrt(g * r * c) * c
    assert -float(b.velocity[0]) == pytest.approx(vx_star, rel=0.05)
    assert worst < 0.002


@pytest.mark.parametrize("vx", [2.0, 5.0])
def test_a_fast_ball_leaves_the_edge_on_a_free_parabola(vx):
    """Rolling at vx with vx^2 > g r a ball leaves the edge at once; past it there is no ground, no
    wall and no water (the pool's is 6 m away): it falls as a projectile, x(t) = x_e - vx t,
    y(t) = y_e - g t^2 / 2 from where it left, so at the pool's floor level and below vx is
    unchanged and v_y = -sqrt(2 g (y_e - y)), within 1%."""
    sim = _sim()
    g = sim.gravity
    r = 0.06
    e = sim.spawn_body(model="sphere", density=2600.0, radius=r, position=(-DECK + 0.3, RIM + r, 0.75),
                       velocity=(-vx, 0.0, 0.0), angular_velocity=(0.0, 0.0, vx / r))
    b = sim.body(e)
    while float(b.position[1]) > -2.0:
        sim.step(1)
    assert -float(b.velocity[0]) == pytest.approx(vx, rel=0.01)
    assert float(b.velocity[1]) == pytest.approx(-math.sqrt(2.0 * g * (RIM + r - float(b.position[1]))), rel=0.01)


def _push_off(sim: Simulation, kind: str) -> int:
    x = -DECK + 0.6
    if kind == "ball":
        r = 0.06
        return sim.spawn_body(model="sphere", density=2600.0, radius=r, position=(x, RIM + r, 0.75),
                              velocity=(-1.5, 0.0, 0.0), angular_velocity=(0.0, 0.0, 1.5 / r))
    if kind == "crate":
        return sim.spawn_body(model="box", density=600.0, size=(0.3, 0.3, 0.3), position=(x, RIM + 0.15, 0.75),
                              velocity=(-2.5, 0.0, 0.0))
    lying = (math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0)   # on its side, axis along z: it rolls along x
    return sim.spawn_bottle((x, RIM + 0.04, 0.75), velocity=(-1.5, 0.0, 0.0), angular_velocity=(0.0, 0.0, 40.0),
                            orientation=lying, fill=0.6)


@pytest.mark.parametrize("kind", ["ball", "crate", "bottle"])
def test_a_body_over_the_edge_falls_out_of_the_world(kind):
    """A ball, a crate and a bottle with water pushed over the deck's edge tip over it (never more
    than 1 cm into the deck: the mesh between contact points), fall, and are removed once FALL_DEPTH
    below the pool's floor, after the free fall's time from the rim, t = sqrt(2 (rim + FALL_DEPTH) /
    g) at the least; one FellOff names each with its kind, and the water a bottle held left the
    world with it: pool + held + in flight - source_volume is unchanged (1e-12 m^3)."""
    sim = _sim()
    gone: list[events.FellOff] = []
    sim.on(events.FellOff, gone.append)
    e = _push_off(sim, kind)
    b = sim.body(e)
    held = float(sim.body_store.held_water[b.slot])
    budget = sim.total_water() - sim.water.source_volume
    worst = 0.0
    left_deck = None
    while e in sim.bodies():
        worst = max(worst, _in_deck(b.mesh_world()[0]))
        if left_deck is None and float(b.position[0]) < -DECK:
            left_deck = sim.time
        sim.step(1)
        assert sim.time < 8.0, f"the {kind} is still in the world at {b.position}"
    assert worst < 0.01
    assert left_deck is not None
    assert sim.time - left_deck >= math.sqrt(2.0 * (RIM + FALL_DEPTH) / sim.gravity) - 0.1
    assert [(f.entity, f.kind) for f in gone] == [(e, "bottle" if kind == "bottle" else "prop")]
    assert gone[0].position[1] < -FALL_DEPTH and gone[0].position[0] < -DECK
    assert gone[0].lost_volume == pytest.approx(held, abs=1e-15)
    assert (held > 0.0) == (kind == "bottle")
    assert sim.total_water() - sim.water.source_volume == pytest.approx(budget, abs=1e-12)


def test_a_throw_past_the_deck_is_not_stopped_at_its_edge():
    """The deck's edge is no wall: a box thrown at 12 m/s from over the deck crosses x = -DECK with
    its velocity unchanged but for gravity (v_x exact, v_y = v_y0 - g t within 1e-9 m/s)."""
    sim = _sim()
    e = sim.spawn_body(model="box", density=600.0, size=(0.2, 0.2, 0.2), position=(-DECK + 1.0, RIM + 2.0, 0.75),
                       velocity=(-12.0, 3.0, 0.0))
    b = sim.body(e)
    steps = round(0.25 / sim.dt)                  # 3 m along -x: 2 m past the edge, still above the rim
    sim.step(steps)
    assert float(b.position[0]) < -DECK - 1.5 and float(b.position[1]) > RIM + 1.0
    assert float(b.velocity[0]) == -12.0
    assert float(b.velocity[1]) == pytest.approx(3.0 - sim.gravity * steps * sim.dt, abs=1e-9)


def test_bodies_left_on_the_deck_stay():
    """Only bodies past the edge go: a crate resting on the deck a body length from its edge, and
    one in the pool, stay for 3 s, and nothing is reported."""
    sim = _sim()
    gone: list[events.FellOff] = []
    sim.on(events.FellOff, gone.append)
    a = sim.spawn_body(model="box", density=600.0, size=(0.3, 0.3, 0.3), position=(-DECK + 0.3, RIM + 0.15, 0.75))
    b = sim.spawn_body(model="box", density=600.0, size=(0.3, 0.3, 0.3), position=(1.0, 0.6, 0.75))
    sim.step(round(3.0 / sim.dt))
    assert set(sim.bodies()) >= {a, b} and gone == []
    assert float(sim.body(a).position[0]) == pytest.approx(-DECK + 0.3, abs=1e-3)


def test_water_poured_past_the_edge_leaves_the_world_not_into_the_pool():
    """An open full bottle falling mouth down past the deck's edge pours as it falls (there is no
    water round it to stop the flow) and none of that water reaches the pool: the pool's volume is
    unchanged (1e-12 m^3) while the bottle empties, the poured volume is counted out through
    source_volume, and the budget pool + held + in flight - source_volume stays exact."""
    sim = _sim()
    upside_down = (0.0, 1.0, 0.0, 0.0)
    e = sim.spawn_bottle((-DECK - 0.5, RIM + 0.3, 0.75), orientation=upside_down, fill=1.0, sealed=False)
    slot = sim.body(e).slot
    held0 = float(sim.body_store.held_water[slot])
    pool0 = sim.water.volume() - sim.displaced_volume()
    budget = sim.total_water() - sim.water.source_volume
    sim.step(round(0.8 / sim.dt))                      # still falling, not yet 5 m down
    assert e in sim.bodies()
    held = float(sim.body_store.held_water[slot])
    assert held < 0.9 * held0, "it did not pour"
    assert sim.water.volume() - sim.displaced_volume() == pytest.approx(pool0, abs=1e-12)
    assert sim.water_in_flight == 0.0
    assert -sim.water.source_volume == pytest.approx(held0 - held, abs=1e-12)
    assert sim.total_water() - sim.water.source_volume == pytest.approx(budget, abs=1e-12)


def _pool_water(sim: Simulation) -> float:
    return sim.water.volume() - sim.displaced_volume()


def test_water_poured_on_the_deck_drains_off_it_not_into_the_pool():
    """An open full bottle falling mouth down over the deck 1 m from the wall pours onto the deck.
    A deck falls away from its pool, so none of it reaches the pool (1e-12 m^3): it is counted out
    through source_volume as it lands, and pool + held + in flight - source_volume stays exact."""
    sim = _sim()
    e = sim.spawn_bottle((-1.0, RIM + 0.3, 0.75), orientation=(0.0, 1.0, 0.0, 0.0), fill=1.0, sealed=False)
    slot = sim.body(e).slot
    held0 = float(sim.body_store.held_water[slot])
    pool0 = _pool_water(sim)
    budget = sim.total_water() - sim.water.source_volume
    sim.step(round(1.0 / sim.dt))
    held = float(sim.body_store.held_water[slot])
    assert held < 0.9 * held0, "it did not pour"
    assert _pool_water(sim) == pytest.approx(pool0, abs=1e-12)
    assert -sim.water.source_volume == pytest.approx(held0 - held - sim.water_in_flight, abs=1e-12)
    assert sim.total_water() - sim.water.source_volume == pytest.approx(budget, abs=1e-12)


def test_a_bottle_broken_on_the_deck_spills_its_water_on_the_deck():
    """A full bottle resting on the deck 1.5 m from the wall is shattered: its water lands on the
    deck around it and drains off; the pool's volume does not change (1e-12 m^3)."""
    sim = _sim()
    e = sim.spawn_bottle((-1.5, RIM + 0.1, 0.75), orientation=(math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)), fill=1.0)
    sim.step(round(0.5 / sim.dt))                       # lands and settles on the deck
    held0 = float(sim.body_store.held_water[sim.body(e).slot])
    assert held0 > 0.0
    pool0 = _pool_water(sim)
    budget = sim.total_water() - sim.water.source_volume
    spilled0 = sim.water.source_volume
    sim.shatter(e, impulse=5.0)
    sim.step(round(0.5 / sim.dt))
    assert sim.water_in_flight == 0.0
    assert _pool_water(sim) == pytest.approx(pool0, abs=1e-12)
    assert spilled0 - sim.water.source_volume == pytest.approx(held0, rel=1e-12)
    assert sim.total_water() - sim.water.source_volume == pytest.approx(budget, abs=1e-12)


def _break_and_land(sim: Simulation, position, velocity) -> tuple[float, np.ndarray]:
    """Break a full bottle at `position` moving at `velocity` (its shards taken away) and step
    until its water has landed, and one step more; return the water it held, m^3, and the volume
    the pool gained in each column of cells along x, m^3."""
    e = sim.spawn_bottle(position, velocity=velocity, fill=1.0)
    held = float(sim.body_store.held_water[sim.body(e).slot])
    for shard in sim.shatter(e):
        sim.remove_body(shard)
    h0 = sim.water.read("h").copy()
    sim.step(1)
    while sim.water_in_flight > 0.0:
        sim.step(1)
        assert sim.time < 2.0, "the water never landed"
    sim.step(1)
    return held, (sim.water.read("h") - h0).sum(axis=0) * sim.water.dx ** 2


def test_water_released_over_the_deck_flies_on_and_lands_in_the_pool_where_it_falls():
    """Water leaving a bottle over the deck keeps its line of flight across the wall: a full bottle
    moving at u = 3 m/s towards the pool, broken 1.2 m over the deck 0.2 m from the wall (shards
    taken away), lets its water fall from y0 = 1.7 m onto the pool's surface at 0.3 m after
    t = sqrt(2 (y0 - 0.3) / g), at x = -0.2 + u t (1.40 m). All of it lands in the pool, none on
    the deck, centred there within one cell (5 cm)."""
    sim = _sim()
    y0, u = RIM + 1.2, 3.0
    held0, landed = _break_and_land(sim, (-0.2, y0, 0.75), (u, 0.0, 0.0))
    assert sim.water.source_volume == 0.0, "water landed on the deck"
    x = (np.arange(landed.size) + 0.5) * sim.water.dx
    assert landed.sum() == pytest.approx(held0, rel=1e-9)
    x_land = -0.2 + u * math.sqrt(2.0 * (y0 - 0.3) / sim.gravity)
    assert float((landed * x).sum() / landed.sum()) == pytest.approx(x_land, abs=0.05)


def test_water_thrown_at_a_walls_inner_face_runs_down_it_into_the_pool():
    """Water released over the pool below the deck's top and flying at a wall meets the wall's
    inner face, not the deck: a full bottle broken at y = 0.45 m (the rim at 0.5 m), 5 cm from the
    wall x = 0 and moving at 3 m/s towards it, puts all its water into the pool (1e-9), within 10 cm
    of that wall, and none is counted out."""
    sim = _sim()
    held0, landed = _break_and_land(sim, (0.05, RIM - 0.05, 0.75), (-3.0, 0.0, 0.0))
    assert sim.water.source_volume == 0.0
    assert landed.sum() == pytest.approx(held0, rel=1e-9)
    x = (np.arange(landed.size) + 0.5) * sim.water.dx
    assert float((landed * x).sum() / landed.sum()) < 0.1
