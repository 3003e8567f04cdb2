"""Aiming: throws from the hand land where the cursor points (scripted mouse input, no window)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from game import aim
from game.controls import KEY_SYMBOLS, MOUSE_BUTTONS

LEFT = MOUSE_BUTTONS["LEFT"]


def _landing(game, e, target_y: float, max_steps: int = 400) -> np.ndarray:
    """Centre of body e where its path first comes down through height target_y (linear in a step)."""
    prev = np.array(game.sim.body(e).position)
    for _ in range(max_steps):
        game.sim.step(1)
        p = np.array(game.sim.body(e).position)
        v = np.array(game.sim.body(e).velocity)
        if p[1] <= target_y and v[1] < 0.0:
            s = (prev[1] - target_y) / max(prev[1] - p[1], 1e-12)
            return prev + s * (p - prev)
        prev = p
    raise AssertionError("the throw never came down")


@pytest.fixture
def calm(tmp_path):
    from engine.paths import DEFAULT_LEVEL
    from game.controller import Game
    g = Game(DEFAULT_LEVEL, width=800, height=450, save_path=tmp_path / "q.npz", entry_points=False, levels=[])
    yield g
    g.sim.close()


@pytest.mark.parametrize("power_time", [0.0, 0.6, 1.2])
def test_throws_at_five_screen_points_land_on_the_marked_points(calm, power_time):
    """From the level's default camera, five cursor points at three powers: the body's centre
    comes down within 10 cm of the landing marker (drag-free flight, p = p0 + v t - g t^2 / 2)."""
    game = calm
    w, h = game.width, game.height
    points = [(0.5 * w, 0.5 * h), (0.3 * w, 0.4 * h), (0.7 * w, 0.4 * h), (0.4 * w, 0.6 * h), (0.62 * w, 0.55 * h)]
    game.on_key_press(KEY_SYMBOLS["_4"], 0)            # the heavy ball: it sinks, the surface hardly slows it
    for x, y in points:
        game.on_mouse_motion(x, y, 0, 0)
        game.on_key_press(KEY_SYMBOLS["P"], 0) if not game.paused else None
        game.on_mouse_press(x, y, LEFT, 0)
        game.update(power_time)
        marker = game.landing_marker()
        target = game.aim_target()
        assert marker is not None and target is not None
        np.testing.assert_allclose(marker, target.point, atol=0.02)   # the arc reaches the cursor's point
        game.on_mouse_release(x, y, LEFT, 0)
        e = game.last_throw
        np.testing.assert_allclose(game.sim.body(e).position, aim.hand(game.camera, aim.Scene(game.sim)), atol=1e-9)
        landed = _landing(game, e, marker[1])
        assert np.linalg.norm(landed - marker) < 0.10, (x, y, landed, marker)
        game.sim.remove_body(e)


def test_more_power_is_faster_and_flatter_and_always_reaches_the_target():
    """The solution passes through the target for every power; v grows with power from v_min,
    v_min^2 = g (h + sqrt(h^2 + d^2))."""
    g = 9.81
    p0 = np.array([0.0, 1.5, 0.0])
    p1 = np.array([3.0, 0.4, 1.0])
    speeds, angles = [], []
    for c in np.linspace(0.0, 1.0, 6):
        v = aim.solve(p0, p1, g, c)
        d = math.hypot(*(p1 - p0)[[0, 2]])
        vh = math.hypot(v[0], v[2])
        t = d / vh
        reached = p0 + v * t - np.array([0.0, 0.5 * g * t * t, 0.0])
        np.testing.assert_allclose(reached, p1, atol=1e-9)
        speeds.append(np.linalg.norm(v))
        angles.append(math.atan2(v[1], vh))
    d, hgt = math.hypot(3.0, 1.0), -1.1
    assert speeds[0] == pytest.approx(math.sqrt(g * (hgt + math.hypot(hgt, d))))
    assert speeds[-1] == pytest.approx(aim.MAX_SPEED)
    assert all(np.diff(speeds) > 0) and all(np.diff(angles) < 0)


def test_the_arc_is_drawn_from_the_hand_not_the_eye(game):
    game.on_mouse_press(320, 180, LEFT, 0)
    game.update(0.3)
    arc = game.predicted_arc()
    np.testing.assert_allclose(arc[0], aim.hand(game.camera, aim.Scene(game.sim)))
    assert np.linalg.norm(arc[0] - game.camera.eye) > 0.3
    # seen from the eye the arc spans pixels both ways, not a vertical line through the cursor
    px = game.camera.project(arc, game.width, game.height)
    assert np.ptp(px[:, 0]) > 20 and np.ptp(px[:, 1]) > 20


def test_aiming_at_a_body_aims_at_its_centre(game):
    e = game.sim.bodies("bottle")[0]
    c = np.array(game.sim.body(e).position)
    x, y, _ = game.camera.project(c, game.width, game.height)
    game.on_mouse_motion(x, game.height - y, 0, 0)
    t = game.aim_target()
    assert t is not None and t.what == "body" and t.entity == e
    np.testing.assert_allclose(game.landing_marker(), c)



@pytest.fixture(scope="module")
def gallery_level():
    from pathlib import Path
    return Path(__file__).resolve().parents[2] / "content" / "levels" / "shooting_gallery.toml"


@pytest.mark.parametrize("throwable,power_time", [("stone", 0.0), ("stone", 0.6), ("stone", 1.2),
                                                  ("bottle", 0.0), ("bottle", 0.6)])
def test_gallery_throws_at_the_targets_hit_them(gallery_level, tmp_path, throwable, power_time):
    """The shooting gallery from its own camera: a throw aimed at each of the nine target bottles
    in turn (seven on the shelf 40 cm above the water, two on pillars) first touches that bottle,
    not the shelf or the water: the arc from the hand passes through the target's centre (flight
    in air is drag-free, p = p0 + v t - g t^2 / 2). The shelf's front edge is 18 cm before the
    targets and 10 cm below their centres; a bottle thrown end over end reaches 15 cm off its path
    (the old heightfield contact took the edge's steep face as a wall standing above the shelf and
    stopped every such throw short: 0 of 9). At full power a bottle's tumble can truly clip that
    edge (1 throw in 9), so full power is checked with the stone."""
    from engine import events
    from game.controller import Game
    game = Game(gallery_level, width=800, height=450, save_path=tmp_path / "q.npz", entry_points=False, levels=[])
    names = [t.name for t in game.throwables]
    game.selected = next(i for i, n in enumerate(names) if throwable in n)
    game.sim.step(60)                                   # the targets settle on the shelf and pillars
    settled, _ = game.sim.state()
    first: list[tuple[int, int]] = []
    game.sim.on(events.Impact, lambda h: first.append((h.entity, h.other)))
    missed = []
    for target in list(game.sim.bodies("bottle")):
        game.sim.set_state(settled)                     # each throw on the settled gallery
        c = np.array(game.sim.body(target).position)
        x, y, _ = game.camera.project(c, game.width, game.height)
        game.on_mouse_motion(x, game.height - y, 0, 0)
        assert game.aim_target().entity == target
        game.on_mouse_press(x, game.height - y, LEFT, 0)
        game.update(power_time)
        game.on_mouse_release(x, game.height - y, LEFT, 0)
        e = game.last_throw
        first.clear()
        touched = None
        for _ in range(240):
            game.sim.step(1)
            mine = [b if a == e else a for a, b in first if e in (a, b)]
            first.clear()
            if mine:
                touched = target if target in mine else mine[0]
                break
        if touched != target:
            missed.append((target, touched))
    game.sim.close()
    assert not missed, missed


def test_the_deck_is_a_target_out_to_its_edge_and_beyond_it_there_is_none(calm):
    """The deck round the pool (at the walls' top, out to engine.terrain.DECK) is ground a throw
    lands on: a ray down onto it 2 m beyond a wall finds it there. A ray down past its edge finds
    nothing (the sky is drawn there), so no marker promises a landing the physics has no ground for."""
    from engine.terrain import DECK
    scene = aim.Scene(calm.sim)
    sx, sz = calm.sim.level.pool.size
    rim = calm.sim.level.pool.wall_height
    down = np.array([0.0, -1.0, 0.0])
    hit = aim.target_under(scene, np.array([sx + 2.0, rim + 3.0, 0.5 * sz]), down)
    assert hit is not None and hit.what == "wall"
    np.testing.assert_allclose(hit.point, (sx + 2.0, rim, 0.5 * sz), atol=0.01)
    assert aim.target_under(scene, np.array([sx + DECK + 1.0, rim + 3.0, 0.5 * sz]), down) is None


def test_a_throw_at_the_deck_lands_on_it_where_the_marker_is(calm):
    """A lob (a tap: the lowest-energy arc) at the deck 1.5 m beyond the far wall clears the wall
    and comes down on the deck within 10 cm of the marker (the walls end at their top)."""
    game = calm
    sx, sz = game.sim.level.pool.size
    rim = game.sim.level.pool.wall_height
    goal = np.array([sx + 1.5, rim, 0.5 * sz])
    # the screen point whose ray meets the deck there: search the screen for the nearest target
    best = None
    for x in np.linspace(0, game.width, 81):
        for y in np.linspace(0, game.height, 46):
            game.on_mouse_motion(x, y, 0, 0)
            t = game.aim_target()
            if t is not None and t.what == "wall":
                dist = float(np.linalg.norm(t.point - goal))
                if best is None or dist < best[0]:
                    best = (dist, x, y)
    assert best is not None and best[0] < 0.3, "no screen point aims at the deck there"
    _, x, y = best
    game.on_key_press(KEY_SYMBOLS["_4"], 0)
    game.on_mouse_motion(x, y, 0, 0)
    game.on_mouse_press(x, y, LEFT, 0)
    marker = game.landing_marker()
    game.on_mouse_release(x, y, LEFT, 0)
    e = game.last_throw
    b = game.sim.body(e)
    for _ in range(400):                              # until it bounces on the deck
        vy = float(b.velocity[1])
        game.sim.step(1)
        if vy < 0.0 < float(b.velocity[1]):
            break
    landed = np.array(b.position)
    assert landed[1] == pytest.approx(rim + 0.06, abs=0.05)       # the ball (6 cm) on the deck
    assert np.linalg.norm(landed[[0, 2]] - marker[[0, 2]]) < 0.10
    assert landed[0] > sx


class _Pool:
    """A stand-in for a Simulation as aim.Scene reads it: a 2 x 1.5 m pool, walls 0.5 m high,
    water 0.3 m deep and still, no bodies."""

    def __init__(self):
        from types import SimpleNamespace
        h = np.full((30, 40), 0.3)

        class Water:
            dx = 0.05

            def read(self, name):
                return h if name == "h" else np.zeros_like(h)
        self.water = Water()
        self.level = SimpleNamespace(pool=SimpleNamespace(size=(2.0, 1.5), wall_height=0.5))
        self.body_store = None

    def bodies(self):
        return []


def _first_contact(p0, v0, r: float, g: float = 9.81) -> np.ndarray:
    """Reference, brute force: the first point (time step 1e-5 s) of the arc where a ball of radius r
    centred on it touches the x = 0 wall's solid (x <= 0, y <= 0.5: the deck's top and the rim's
    edge) or where the centre reaches the water (x > 0, y <= 0.3)."""
    t = np.arange(0.0, 2.0, 1e-5)
    x = p0[0] + v0[0] * t
    y = p0[1] + v0[1] * t - 0.5 * g * t * t
    up = np.maximum(y - 0.5, 0.0)
    dist = np.where(x <= 0.0, up, np.hypot(x, up))
    k = int(np.argmax((dist <= r) | ((x > 0.0) & (y <= 0.3))))
    return np.array([x[k], y[k], p0[2]])


@pytest.mark.parametrize("v0, where", [((2.3, -0.8, 0.0), "rim"), ((2.1, -0.6, 0.0), "rim"),
                                       ((2.0, -2.0, 0.0), "deck"), ((3.0, -1.0, 0.0), "water")])
def test_the_landing_marker_is_where_the_tumbling_body_first_meets_the_scene(v0, where):
    """A thrown body tumbles end over end, so what its arc must clear is a ball of its bounding
    radius (0.15 m here) about its centre: thrown from over the deck towards the pool it meets the
    deck's top, the rim's edge (a corner it clears by less than its radius although its centre
    passes over it) or, clear of both, the water with its centre. The marker is that point within
    5 mm of the brute-force reference."""
    scene = aim.Scene(_Pool())
    p0 = np.array([-0.3, 0.9, 0.75])
    _, hit = aim.landing(scene, p0, np.array(v0), 9.81, radius=0.15)
    want = _first_contact(p0, v0, 0.15)
    assert hit is not None and np.linalg.norm(hit - want) < 0.005, (hit, want)
    kind = "deck" if want[0] <= 0.0 else ("rim" if want[1] > 0.5 else "water")
    assert kind == where
    _, centre_only = aim.landing(scene, p0, np.array(v0), 9.81)
    if where == "rim":      # the centre alone flies over the rim into the pool
        assert centre_only[0] > 0.3 and centre_only[1] == pytest.approx(0.3, abs=1e-3)
