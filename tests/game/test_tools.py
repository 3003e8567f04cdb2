"""In-game tools driven by scripted input: barriers, grab and drag, dye; and the camera keys."""
from __future__ import annotations

import numpy as np
import pytest

from game.controls import KEY_SYMBOLS, MOUSE_BUTTONS

LEFT = MOUSE_BUTTONS["LEFT"]


def _px(game, p):
    x, y, _ = game.camera.project(np.asarray(p, float), game.width, game.height)
    return float(x), float(game.height - y)


def _drag(game, a, b, n: int = 12) -> None:
    """Left drag from world point a to world point b in n mouse moves."""
    x0, y0 = _px(game, a)
    game.on_mouse_press(x0, y0, LEFT, 0)
    for s in np.linspace(0.0, 1.0, n)[1:]:
        x, y = _px(game, np.asarray(a) + s * (np.asarray(b) - np.asarray(a)))
        game.on_mouse_drag(x, y, 0, 0, LEFT, 0)
    game.on_mouse_release(x, y, LEFT, 0)


def test_a_drawn_barrier_keeps_the_volume_and_stops_the_water_at_once(game):
    """Barrier cells stand out of the water (bed > surface), hold no water and have closed faces;
    sum(h) dx^2 is unchanged to round-off; a wave pushed against the barrier does not cross it."""
    sim = game.sim
    game.sim.remove_body(sim.bodies("bottle")[0])
    before = sim.total_water()
    game.on_key_press(KEY_SYMBOLS["B"], 0)
    assert game.tool == "barrier"
    y = game.surface_y
    game.camera.pitch = 70.0                                   # look down on the whole floor
    _drag(game, (0.5, y, 0.02), (0.5, y, 0.78))               # a wall across the pool at x = 0.5
    mask = game.barriers.mask
    assert mask[:, 9:11].any(axis=1).all()                     # every row crossed near x = 0.5 (dx = 0.05)
    assert not mask[:, :8].any() and not mask[:, 13:].any()
    water = sim.water
    assert (water.read("h")[mask] == 0.0).all()
    assert (water.read("bed")[mask] > (water.read("bed") + water.read("h"))[~mask].max()).all()
    assert sim.total_water() == pytest.approx(before, rel=1e-12, abs=1e-15)
    # the cells reachable from the left edge through faces without crossing the barrier
    left = np.zeros_like(mask)
    left[:, 0] = True
    for _ in range(mask.size):
        grown = left.copy()
        grown[1:, :] |= left[:-1, :]; grown[:-1, :] |= left[1:, :]
        grown[:, 1:] |= left[:, :-1]; grown[:, :-1] |= left[:, 1:]
        grown &= ~mask
        if (grown == left).all():
            break
        left = grown
    right = ~mask & ~left
    assert right[:, -1].all() and not left[:, -1].any()        # the barrier cuts the pool in two
    # raise the left side by 3 cm: water must not reach the right side through the wall (a step
    # reflected from a wall runs up to about twice its height, 6 cm, under the 12 cm CLEARANCE; a
    # 5 cm step runs up over it at places, which is overtopping, not leaking)
    water.h[left] += 0.03
    right_before = float(water.read("h")[right].sum())
    game.on_key_press(KEY_SYMBOLS["P"], 0)
    for _ in range(40):
        game.on_key_press(KEY_SYMBOLS["PERIOD"], 0)
        game.update(0.0)
    assert float(water.read("h")[right].sum()) == pytest.approx(right_before, rel=1e-9)
    # X clears them: the bed returns to what it was
    game.on_key_press(KEY_SYMBOLS["X"], 0)
    assert not game.barriers.mask.any() and water.read("bed").max() < 0.01


def test_one_drag_draws_a_barrier_of_one_height(game):
    """A barrier's top is CLEARANCE over the highest water when the drag begins, for the whole
    drag: the water its first cells push aside (and the waves that makes) does not raise the
    cells drawn after it, so the wall is level, not stepped."""
    from game.barriers import CLEARANCE
    sim = game.sim
    sim.remove_body(sim.bodies("bottle")[0])
    game.on_key_press(KEY_SYMBOLS["B"], 0)
    y = game.surface_y
    game.camera.pitch = 70.0
    eta = sim.water.read("bed") + sim.water.read("h")
    want = min(float(eta.max()) + CLEARANCE, sim.level.pool.wall_height)
    a, b = np.array([0.1, y, 0.4]), np.array([0.9, y, 0.4])
    x0, y0 = _px(game, a)
    game.on_mouse_press(x0, y0, LEFT, 0)
    for s in np.linspace(0.0, 1.0, 12)[1:]:
        x, yy = _px(game, a + s * (b - a))
        game.on_mouse_drag(x, yy, 0, 0, LEFT, 0)
        game.update(0.05)                                      # the water moves while the drag goes on
    game.on_mouse_release(x, yy, LEFT, 0)
    tops = sim.water.read("bed")[game.barriers.mask]
    assert tops.size > 10 and np.ptp(tops) == 0.0 and float(tops[0]) == pytest.approx(want), (tops.min(), tops.max())


def test_grab_drags_a_body_to_the_cursor(game):
    sim = game.sim
    e = sim.bodies("bottle")[0]
    game.on_key_press(KEY_SYMBOLS["G"], 0)
    p0 = np.array(sim.body(e).position)
    x, y = _px(game, p0)
    game.on_mouse_press(x, y, LEFT, 0)
    assert game._grab is not None and game._grab[0] == e
    plane_y = game._grab[1]
    goal = np.array([0.25, plane_y, 0.3])
    gx, gy = _px(game, goal)
    game.on_mouse_drag(gx, gy, gx - x, gy - y, LEFT, 0)
    for _ in range(40):
        game.update(0.02)
    assert np.linalg.norm(np.array(sim.body(e).position)[[0, 2]] - goal[[0, 2]]) < 0.05
    game.on_mouse_release(gx, gy, LEFT, 0)
    assert game._grab is None


def test_dye_drifts_with_the_flow(game):
    """Tracers move with the depth-averaged velocity: in a uniform current u they move u t."""
    sim = game.sim
    sim.remove_body(sim.bodies("bottle")[0])
    x, y = _px(game, (0.5, game.surface_y, 0.4))
    game.on_mouse_motion(x, y, 0, 0)
    game.on_key_press(KEY_SYMBOLS["Y"], 0)
    tr = sim.get_system("Tracers")
    assert len(tr.xz) > 0
    start = tr.xz.mean(axis=0)
    from engine.kernels.coupling import water_velocities
    water = sim.water
    water.u[:, 1:-1] = 0.1                                      # a uniform current in x
    vx, vz = water_velocities(water.read("u"), water.read("w"), tr.xz[:, 0].copy(), tr.xz[:, 1].copy(),
                              float(water.dx))
    np.testing.assert_allclose(vx, 0.1, rtol=1e-6)
    np.testing.assert_allclose(vz, 0.0, atol=1e-12)
    # one tracer step in a frozen uniform field moves each point by u dt exactly
    xz = tr.xz.copy()
    tr.process(0.01)
    np.testing.assert_allclose(tr.xz - xz, np.c_[np.full(len(xz), 0.001), np.zeros(len(xz))], atol=1e-9)
    for _ in range(20):
        game.update(0.02)
    assert tr.xz.mean(axis=0)[0] > start[0] + 0.01            # the current carried the dye along x


def test_home_r_and_bounded_flying_keep_the_pool_in_reach(game):
    from engine.render.camera import OrbitCamera
    home = OrbitCamera.from_level(game.sim.level, game.width / game.height)
    game.on_key_press(KEY_SYMBOLS["W"], 0)
    for _ in range(100):                                        # ten seconds of flying forward
        game.update(0.1)
    game.on_key_release(KEY_SYMBOLS["W"], 0)
    sx, sz = game.sim.level.pool.size
    diag = np.hypot(sx, sz)
    t = np.array(game.camera.target)
    assert np.hypot(t[0] - sx / 2, t[2] - sz / 2) <= 0.75 * diag + 1e-9
    for _ in range(60):
        game.on_mouse_scroll(0, 0, 0, -3)                        # zoom far out
    assert game.camera.distance <= 3.0 * diag + 1e-9
    game.on_key_press(KEY_SYMBOLS["H"], 0)
    assert game.camera.target == home.target and game.camera.distance == home.distance
    game.camera.orbit(40.0, 10.0)
    game.on_key_press(KEY_SYMBOLS["R"], 0)
    assert (game.camera.yaw, game.camera.pitch) == (home.yaw, home.pitch)


def test_f9_restores_the_saved_camera(game, small_level, tmp_path):
    game.camera.orbit(30.0, -5.0)
    game.camera.zoom(0.7)
    saved = (game.camera.target, game.camera.distance, game.camera.yaw, game.camera.pitch)
    game.on_key_press(KEY_SYMBOLS["F5"], 0)
    game.on_key_press(KEY_SYMBOLS["H"], 0)
    assert game.camera.yaw != saved[2]
    game.on_key_press(KEY_SYMBOLS["F9"], 0)
    assert (game.camera.target, game.camera.distance, game.camera.yaw, game.camera.pitch) == saved
    # F9 from another level: the saved level and its saved camera come back, not this level's view
    other = tmp_path / "other.toml"
    other.write_text(small_level.read_text().replace('name = "Tiny pool"', 'name = "Other"'))
    game.levels = [small_level, other]
    game.on_key_press(KEY_SYMBOLS["TAB"], 0)
    assert game.sim.level.name == "Other"
    game.on_key_press(KEY_SYMBOLS["F9"], 0)
    assert game.sim.level.name == "Tiny pool"
    assert (game.camera.target, game.camera.distance, game.camera.yaw, game.camera.pitch) == saved
