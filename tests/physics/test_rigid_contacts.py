"""Contacts: restitution, resting without drift, no tunnelling, the bed height field, body pairs."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation, events
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec
from engine.terrain import DECK

UNBREAKABLE = PhysicsSpec(glass_strength=1e6)


def _sim(physics: PhysicsSpec = UNBREAKABLE, size=(2.0, 1.0), seed: int = 0) -> Simulation:
    sim = Simulation(Level(seed=seed, pool=PoolSpec(size=size, cell=0.05), water=WaterSpec(level=0.0),
                           physics=physics))
    sim.remove_system("CoupleWater")    # a dry pool: these tests are about contacts alone
    return sim


def _lowest(sim: Simulation, e: int) -> float:
    return float(sim.body(e).mesh_world()[0][:, 1].min())


def test_restitution_sets_the_bounce_height_ratio():
    e_rest = 0.5
    sim = _sim(PhysicsSpec(restitution=e_rest, friction=0.5))
    h = 0.6
    e = sim.spawn_body("box", 500.0, (1.0, h + 0.05, 0.5), size=(0.2, 0.1, 0.2))   # bottom face at h
    apex, landed = 0.0, False
    for _ in range(240):
        sim.step(1)
        v = sim.body(e).velocity[1]
        if v > 0.0:
            landed = True
        if landed:
            apex = max(apex, _lowest(sim, e))
    # rebound speed e v, so the bounce height is e^2 h
    assert landed
    assert apex / h == pytest.approx(e_rest**2, rel=0.05)


def test_impact_events_report_the_collision_impulse():
    sim = _sim(PhysicsSpec(restitution=0.35))
    seen: list[events.Impact] = []
    sim.on(events.Impact, seen.append)
    e = sim.spawn_body("box", 500.0, (1.0, 0.35, 0.5), size=(0.2, 0.1, 0.2))
    m = sim.body(e).mass
    sim.step(60)
    first = seen[0]
    v = math.sqrt(2 * 9.81 * 0.3)
    assert first.entity == e and first.other == -1
    assert first.impulse == pytest.approx(1.35 * m * v, rel=0.05)      # (1 + e) m v
    assert first.normal == pytest.approx((0.0, 1.0, 0.0), abs=1e-9)
    assert first.point[1] == pytest.approx(0.0, abs=0.01)


@pytest.mark.parametrize("orientation", [(1.0, 0.0, 0.0, 0.0), (math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4))],
                         ids=["upright", "on its side"])
@pytest.mark.parametrize("sleep", [True, False], ids=["sleeping allowed", "always awake"])
def test_a_bottle_set_down_comes_to_rest(orientation, sleep):
    sim = _sim()
    if not sleep:
        sim.get_system("IntegrateBodies").sleep_after = math.inf
    e = sim.spawn_bottle((1.0, 0.5, 0.5), orientation=orientation, fill=0.3)
    b = sim.body(e)
    sim.step(1)
    b.position[1] += 0.002 - _lowest(sim, e)          # 2 mm above the floor
    sim.step(180)
    p0 = b.position.copy()
    q0 = b.orientation.copy()
    sim.step(120)
    # settled: moves less than 1 mm/s (and does not creep)
    assert np.linalg.norm(b.velocity) < 1e-3
    assert np.linalg.norm(b.position - p0) < 1e-3
    assert np.abs(b.orientation - q0).max() < 1e-3
    assert -1e-3 < _lowest(sim, e) < 2e-3
    up = b.to_world([0.0, 1.0, 0.0]) - b.position
    assert abs(up[1]) > 0.99 if orientation[0] == 1.0 else abs(up[1]) < 0.05


def test_a_pile_of_shards_does_not_creep():
    from engine import bodies as bd
    from engine.meshes import load_bottle_set
    sim = _sim()
    bs = load_bottle_set()
    st = sim.body_store
    rng = np.random.default_rng(3)
    ents = []
    import esper
    from engine.components import BodyRef, Shard
    parts = bd.fragment_properties(bs, 2500.0)
    with sim._context():
        for i in range(30):
            piece = i % len(parts)
            q = rng.normal(size=4)
            s = st.spawn("shard", bd.fragment_model(st, bs, piece, 2500.0), parts[piece],
                         (1.0 + rng.uniform(-0.06, 0.06), 0.05 + 0.03 * i, 0.5 + rng.uniform(-0.06, 0.06)),
                         orientation=q / np.linalg.norm(q))
            ents.append(esper.create_entity(BodyRef(s), Shard(-1, piece, 0.0)))
    sim.step(480)                                        # 4 s to fall and settle
    p0 = np.array([sim.body(e).position.copy() for e in ents])
    sim.step(120)
    p1 = np.array([sim.body(e).position for e in ents])
    assert np.abs(p1 - p0).max() < 1e-3                 # < 1 mm/s
    # contact points are a 16-vertex subset of each shard: the mesh between them may dip a few mm
    assert min(_lowest(sim, e) for e in ents) > -5e-3


@pytest.mark.parametrize("target", ["wall", "floor"])
def test_no_tunnelling_at_25_m_per_s(target):
    sim = _sim()
    if target == "wall":
        e = sim.spawn_bottle((1.6, 0.3, 0.5), velocity=(25.0, 0.0, 0.0), orientation=(0.7071, 0.0, 0.0, 0.7071))
    else:
        e = sim.spawn_bottle((1.0, 0.5, 0.5), velocity=(0.0, -25.0, 0.0), orientation=(0.9239, 0.3827, 0.0, 0.0))
    for _ in range(120):
        sim.step(1)
        v = sim.body(e).mesh_world()[0]
        assert v[:, 0].max() < 2.0 + 0.02 and v[:, 0].min() > -0.02
        assert v[:, 1].min() > -0.02
        assert v[:, 2].max() < 1.0 + 0.02 and v[:, 2].min() > -0.02
    assert np.linalg.norm(sim.body(e).velocity) < 25.0 * 0.5     # it bounced and lost energy


def test_bodies_rest_on_a_raised_bed():
    sim = _sim()
    sim.water.bed[:, : sim.water.bed.shape[1] // 2] = 0.2     # a ledge over the left half
    e = sim.spawn_body("box", 400.0, (0.5, 0.6, 0.5), size=(0.2, 0.1, 0.2))
    f = sim.spawn_body("box", 400.0, (1.5, 0.6, 0.5), size=(0.2, 0.1, 0.2))
    sim.step(240)
    assert _lowest(sim, e) == pytest.approx(0.2, abs=2e-3)
    assert _lowest(sim, f) == pytest.approx(0.0, abs=2e-3)


def test_head_on_collision_conserves_momentum_and_off_centre_hits_spin():
    sim = _sim(PhysicsSpec(restitution=0.5, friction=0.0), size=(4.0, 2.0))
    sim.gravity = 0.0
    a = sim.spawn_body("sphere", 1000.0, (1.0, 1.0, 1.0), velocity=(3.0, 0.0, 0.0), radius=0.1)
    b = sim.spawn_body("box", 300.0, (2.0, 1.06, 1.0), size=(0.2, 0.2, 0.2))
    ma, mb = sim.body(a).mass, sim.body(b).mass
    p0 = ma * sim.body(a).velocity + mb * sim.body(b).velocity
    sim.step(60)
    p1 = ma * sim.body(a).velocity + mb * sim.body(b).velocity
    assert np.allclose(p1, p0, atol=1e-9 * np.linalg.norm(p0) + 1e-12)
    assert sim.body(b).velocity[0] > 0.5                      # it was hit
    assert np.linalg.norm(sim.body(b).angular_velocity) > 0.1  # below its centre: it spins


def _spawn_kind(sim: Simulation, kind: str, pos, vel, q) -> int:
    if kind == "bottle":
        return sim.spawn_bottle(pos, velocity=vel, orientation=q)
    if kind == "box":
        return sim.spawn_body("box", 500.0, pos, velocity=vel, orientation=q, size=(0.2, 0.05, 0.1))
    if kind == "sphere":
        return sim.spawn_body("sphere", 500.0, pos, velocity=vel, orientation=q, radius=0.05)
    import esper
    from engine import bodies as bd
    from engine.components import BodyRef, Shard
    from engine.meshes import load_bottle_set
    bs = load_bottle_set()
    st = sim.body_store
    parts = bd.fragment_properties(bs, 2500.0)
    with sim._context():
        s = st.spawn("shard", bd.fragment_model(st, bs, 3, 2500.0), parts[3], pos, vel, (0.0, 40.0, 0.0), q)
        return esper.create_entity(BodyRef(s), Shard(-1, 3, 0.0))


def _depth_in_solid(v: np.ndarray, size: tuple[float, float], rim: float) -> np.ndarray:
    """How deep each point is inside the solid round the pool's space: the floor y = 0 inside the
    walls, and outside them (0 <= x <= size_x, 0 <= z <= size_z) the walls and deck, a block up to
    y = rim out to DECK beyond the walls, whose nearest face is a wall's, the deck's top or the
    deck's outer side; nothing past that (the world's edge, where bodies fall)."""
    out = np.maximum(np.maximum(-v[:, 0], v[:, 0] - size[0]), np.maximum(-v[:, 2], v[:, 2] - size[1]))
    inside = out <= 0.0
    in_deck = (v[:, 1] < rim) & (out <= DECK)
    return np.where(inside, -v[:, 1], np.where(in_deck, np.minimum(np.minimum(out, rim - v[:, 1]), DECK - out), 0.0))


@pytest.mark.parametrize("speed", [50.0, 200.0])
@pytest.mark.parametrize("kind", ["bottle", "box", "sphere", "shard"])
@pytest.mark.parametrize("direction", [(1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (-0.6, -0.3, -0.74)],
                         ids=["wall", "floor", "corner"])
def test_nothing_goes_through_the_pool_at_any_speed_a_level_allows(speed, kind, direction):
    """Levels and throws allow speeds up to 200 m/s. The floor, the walls (up to their top) and the
    deck round the pool are planes, and every contact with them is speculative (a point's gap d and
    speed v: v dt >= -d at the end of the step), so no point crosses one in one step however fast
    it goes: every mesh vertex stays out of them (2 cm: the mesh between contact points) at every
    step, for 1 s of bouncing, whether the body stays in the pool or flies out over a wall."""
    sim = _sim(PhysicsSpec(glass_strength=1e9))
    rim = float(sim.level.pool.wall_height)
    d = np.asarray(direction) / np.linalg.norm(direction)
    q = np.array([0.9, 0.3, 0.2, 0.25]); q /= np.linalg.norm(q)
    e = _spawn_kind(sim, kind, (1.0, 0.4, 0.5), tuple(speed * d), tuple(q))
    for _ in range(120):
        sim.step(1)
        v = sim.body(e).mesh_world()[0]
        assert _depth_in_solid(v, (2.0, 1.0), rim).max() < 0.02


@pytest.mark.parametrize("kind", ["sphere", "box"])
@pytest.mark.parametrize("over", [0.5, 2.0])
def test_a_throw_over_the_wall_lands_on_the_deck(kind, over):
    """The walls stand only up to their top: a body thrown from the pool over a wall lands on the
    deck round the pool (the plane y = rim) where its parabola meets it, x(t) = x0 + v_x t,
    y(t) = y0 + v_y t - g t^2 / 2 (first contact at the lowest point's height = rim), within 3 cm,
    and stays on the deck beyond the wall (a box comes to rest, a ball rolls on)."""
    sim = _sim(PhysicsSpec(glass_strength=1e9, restitution=0.0))
    rim = float(sim.level.pool.wall_height)
    g = sim.gravity
    e = _spawn_kind(sim, kind, (1.0, 0.3, 0.5), (0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))
    b = sim.body(e)
    below = float(b.position[1] - b.mesh_world()[0][:, 1].min())       # centre above the lowest point
    # a lob to x = 2 + over: apex 0.5 m above the rim, landing with the lowest point at the rim
    x0, y0 = 1.0, 0.3
    vy = math.sqrt(2.0 * g * (rim + 0.5 - y0))
    y_land = rim + below
    t = (vy + math.sqrt(vy * vy - 2.0 * g * (y_land - y0))) / g
    vx = (2.0 + over - x0) / t
    b.velocity[:] = (vx, vy, 0.0)
    sim.step(round(t / sim.dt) - 3)
    assert b.position[0] > 2.0 and b.position[1] > rim, "it did not clear the wall"
    while float(b.mesh_world()[0][:, 1].min()) > rim + 0.002:
        sim.step(1)
    assert float(b.position[0]) == pytest.approx(2.0 + over, abs=0.03)
    # a box comes to rest within 2 s; a ball rolls on at v_x (about 2-3 m/s), which within 2 s
    # would take it over the deck's outer edge (test_deck_edge): it is looked at after 0.5 s
    sim.step(round((0.5 if kind == "sphere" else 2.0) / sim.dt))
    low = float(b.mesh_world()[0][:, 1].min())
    assert low == pytest.approx(rim, abs=0.005) and float(b.position[0]) > 2.0 + over
    if kind == "box":       # a ball rolls on: hard ground has no rolling resistance
        assert float(np.linalg.norm(b.velocity)) < 0.01


def test_a_ball_rolled_off_the_deck_drops_into_the_pool():
    """Off the deck's edge (the wall's top) a rolling ball falls into the pool and rests on its floor."""
    sim = _sim(PhysicsSpec(glass_strength=1e9, restitution=0.2))
    rim = float(sim.level.pool.wall_height)
    r = 0.05
    e = sim.spawn_body(model="sphere", density=1000.0, radius=r, position=(2.5, rim + r, 0.5),
                       velocity=(-1.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 1.0 / r))
    sim.step(round(0.8 / sim.dt))
    b = sim.body(e)
    assert float(b.position[0]) < 2.0, "still on the deck"
    sim.step(round(3.0 / sim.dt))
    assert float(b.position[1]) == pytest.approx(r, abs=0.005)
    assert 0.0 < float(b.position[0]) < 2.0


@pytest.mark.parametrize("cross", [-0.06, -0.02, 0.0, 0.02, 0.06, 0.12])
@pytest.mark.parametrize("kind", ["box", "shard", "sphere", "bottle"])
def test_a_throw_grazing_the_walls_top_ends_in_the_pool_or_on_the_deck(cross, kind):
    """A lob whose centre crosses the wall's plane `cross` above its top (the body strikes the
    rim's edge, or just clears it) never enters the wall or the deck by more than 2 cm (the mesh
    between contact points) and comes to rest either in the pool or on the deck, nowhere inside
    them (5 mm): the rim's edge holds a ball, and a bottle's side (its capsules)."""
    sim = _sim(PhysicsSpec(glass_strength=1e9))
    rim = float(sim.level.pool.wall_height)
    g = sim.gravity
    # from (1.0, 0.3) over x = 2 at height rim + cross, apex 0.3 m above that
    x0, y0, yc = 1.0, 0.3, rim + cross
    vy = math.sqrt(2.0 * g * (yc + 0.3 - y0))
    t = (vy + math.sqrt(vy * vy - 2.0 * g * (yc - y0))) / g
    e = _spawn_kind(sim, kind, (x0, y0, 0.5), ((2.0 - x0) / t, vy, 0.0), (1.0, 0.0, 0.0, 0.0))
    b = sim.body(e)
    for _ in range(round(3.0 / sim.dt)):
        sim.step(1)
        assert _depth_in_solid(b.mesh_world()[0], (2.0, 1.0), rim).max() < 0.02
    assert _depth_in_solid(b.mesh_world()[0], (2.0, 1.0), rim).max() < 0.005


def test_a_body_caught_inside_the_deck_is_put_on_top_of_it():
    """A body whose centre is outside the walls and below their top (inside the deck's solid, as a
    save edited by hand or a mod's spawn might put it) is lifted onto the deck."""
    sim = _sim(PhysicsSpec(glass_strength=1e9))
    rim = float(sim.level.pool.wall_height)
    e = sim.spawn_body(model="box", density=700.0, size=(0.2, 0.1, 0.2), position=(-0.15, rim - 0.1, 0.5))
    sim.step(round(2.0 / sim.dt))
    v = sim.body(e).mesh_world()[0]
    assert _depth_in_solid(v, (2.0, 1.0), rim).max() < 0.005
    assert float(v[:, 1].min()) == pytest.approx(rim, abs=0.005)


@pytest.mark.parametrize("offset", [-0.04, 0.04])
def test_a_bottle_laid_across_the_rim_tips_to_the_side_of_its_centre_of_mass(offset):
    """A bottle laid level across the wall's top edge, at right angles to it, its centre of mass
    `offset` from the edge (negative: over the pool), rests on the edge alone: the weight's moment
    about the edge, m g offset, tips it to that side. It ends on the deck (lowest point at the rim,
    centre beyond the wall) or in the pool (on the floor), never cutting into the edge (5 mm)."""
    sim = _sim(PhysicsSpec(glass_strength=1e9, restitution=0.1))
    rim = float(sim.level.pool.wall_height)
    q = (math.sqrt(0.5), 0.0, 0.0, -math.sqrt(0.5))      # the bottle's axis (body y) along world x
    e = _spawn_kind(sim, "bottle", (2.0, 1.0, 0.5), (0.0, 0.0, 0.0), q)
    b = sim.body(e)
    v = b.mesh_world()[0]
    b.position[0] = 2.0 + offset                          # the body's position is its centre of mass
    b.position[1] += rim + 0.002 - float(v[:, 1].min())
    worst = 0.0
    for _ in range(round(3.0 / sim.dt)):
        sim.step(1)
        worst = max(worst, float(_depth_in_solid(b.mesh_world()[0], (2.0, 1.0), rim).max()))
    assert worst < 0.005
    low = float(b.mesh_world()[0][:, 1].min())
    if offset > 0:
        assert float(b.position[0]) > 2.0 and low == pytest.approx(rim, abs=0.005)
    else:
        assert float(b.position[0]) < 2.0 and low == pytest.approx(0.0, abs=0.005)
