"""Drive the game loop headless with synthetic pyglet events (no window, no GL)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.world import Simulation
from game import controller as C
from game.controls import KEY_SYMBOLS, MOD_SHIFT, MOUSE_BUTTONS

LEFT, MIDDLE, RIGHT = MOUSE_BUTTONS["LEFT"], MOUSE_BUTTONS["MIDDLE"], MOUSE_BUTTONS["RIGHT"]


def press(game, name: str) -> None:
    game.on_key_press(KEY_SYMBOLS[name], 0)
    game.on_key_release(KEY_SYMBOLS[name], 0)


def test_charged_throw_spawns_a_bottle_from_the_hand_towards_the_cursor(game):
    """The release point is the hand, the velocity the ballistic solution at half power (game/aim.py)."""
    from game import aim
    before = set(game.sim.bodies())
    x, y = 330.0, 170.0
    game.on_key_press(KEY_SYMBOLS["P"], 0)                 # paused: the throw is checked as released
    game.on_mouse_press(x, y, LEFT, 0)
    game.update(0.3)
    game.update(0.3)                                        # held 0.6 s of the 1.2 s charge: half power
    assert game.charge == pytest.approx(0.5)
    scene = aim.Scene(game.sim)
    p0 = aim.hand(game.camera, scene)
    target = game.aim_target()
    game.on_mouse_release(x, y, LEFT, 0)
    new = set(game.sim.bodies()) - before
    assert len(new) == 1
    e = new.pop()
    assert game.sim.body(e).kind == "bottle"
    v = aim.solve(p0, target.point, game.sim.gravity, 0.5)
    np.testing.assert_allclose(game.sim.body(e).velocity, v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(game.sim.body(e).position, p0, atol=1e-12)
    w = game.sim.body(e).angular_velocity
    assert np.linalg.norm(w) > 0.0 and abs(np.dot(w, v)) < 1e-9   # a little end-over-end spin


def test_full_charge_caps_the_speed_and_keys_pick_the_throwable(game):
    from game import aim
    game.on_key_press(KEY_SYMBOLS["P"], 0)
    game.on_key_press(KEY_SYMBOLS["_3"], 0)
    assert game.throwables[game.selected].name == "open bottle"
    game.on_mouse_press(320, 180, LEFT, 0)
    game.update(5.0)
    game.on_mouse_release(320, 180, LEFT, 0)
    assert np.linalg.norm(game.sim.body(game.last_throw).velocity) == pytest.approx(aim.MAX_SPEED)
    game.on_key_press(KEY_SYMBOLS["_2"], 0)
    assert game.throwables[game.selected].fill == 1.0


def test_the_predicted_arc_starts_at_the_hand_and_ends_at_the_landing_marker(game):
    game.on_mouse_press(320, 200, LEFT, 0)
    game.update(0.2)
    arc = game.predicted_arc()
    p, v, _ = game.throw_preview()
    np.testing.assert_allclose(arc[0], p)
    np.testing.assert_allclose(arc[-1], game.landing_marker())
    # uniform gravity: second differences of y are -g dt^2 (the arc is sampled evenly in time)
    from game.aim import ARC_SECONDS
    dt = ARC_SECONDS / 399
    np.testing.assert_allclose(np.diff(arc[:-1, 1], 2), -game.sim.gravity * dt * dt, rtol=1e-6)


def test_shift_left_drag_orbits_instead_of_throwing(game):
    yaw = game.camera.yaw
    n = len(game.sim.bodies())
    game.on_mouse_press(300, 200, LEFT, MOD_SHIFT)
    game.on_mouse_drag(330, 200, 30, 0, LEFT, MOD_SHIFT)
    game.on_mouse_release(330, 200, LEFT, 0)
    assert game.camera.yaw != yaw
    assert len(game.sim.bodies()) == n


def test_wheel_zooms_and_wasd_flies(game):
    d = game.camera.distance
    game.on_mouse_scroll(0, 0, 0, 2)
    assert game.camera.distance == pytest.approx(d * 0.81)
    target = np.array(game.camera.target)
    game.on_key_press(KEY_SYMBOLS["W"], 0)
    game.update(0.5)
    game.on_key_release(KEY_SYMBOLS["W"], 0)
    moved = np.array(game.camera.target) - target
    assert moved[1] == 0.0 and np.hypot(moved[0], moved[2]) > 0.0
    game.on_key_press(KEY_SYMBOLS["E"], 0)
    game.update(0.5)
    game.on_key_release(KEY_SYMBOLS["E"], 0)
    assert game.camera.target[1] > target[1]


def test_fixed_step_accumulator_never_changes_dt(game):
    dt = game.sim.dt
    assert game.update(dt * 2.5) == 2                 # the remainder waits for the next frame
    assert game.update(dt * 0.5) == 1
    assert game.sim.time == pytest.approx(3 * dt)
    # a very slow frame takes at most MAX_STEPS_PER_FRAME steps and lets time lag
    assert game.update(10.0) == C.MAX_STEPS_PER_FRAME
    assert game.lagging
    assert game.sim.steps == 3 + C.MAX_STEPS_PER_FRAME


def test_pause_stops_simulated_time(game):
    game.update(0.05)
    press(game, "P")
    t, steps = game.sim.time, game.sim.steps
    for _ in range(10):
        game.update(1 / 60)
    assert (game.sim.time, game.sim.steps) == (t, steps)
    press(game, "P")
    game.update(0.05)
    assert game.sim.time > t


def test_period_steps_exactly_one_step_while_paused(game):
    press(game, "P")
    steps, fp = game.sim.steps, game.sim.fingerprint()
    press(game, "PERIOD")
    game.update(1 / 60)
    assert game.sim.steps == steps + 1
    assert game.sim.time == pytest.approx((steps + 1) * game.sim.dt)
    assert game.sim.fingerprint() != fp
    game.update(1 / 60)
    game.update(1.0)
    assert game.sim.steps == steps + 1


def test_period_while_running_pauses_then_steps(game):
    press(game, "PERIOD")
    assert game.paused
    assert game.update(1 / 60) == 1


def test_brackets_change_the_speed_of_time_not_dt(game):
    press(game, "BRACKETLEFT")
    assert game.speed == 0.5
    assert game.update(game.sim.dt * 4) == 2
    press(game, "BRACKETRIGHT"); press(game, "BRACKETRIGHT")
    assert game.speed == 2.0
    assert game.update(game.sim.dt * 2) == 4
    for _ in range(10):
        press(game, "BRACKETLEFT")
    assert game.speed == C.SPEEDS[0]


def test_reset_restores_the_level(game, small_level):
    fresh = Simulation.from_level(small_level)
    start = fresh.fingerprint()
    fresh.close()
    game.on_mouse_press(320, 180, LEFT, 0)
    game.update(0.3)
    game.on_mouse_release(320, 180, LEFT, 0)
    for _ in range(5):
        game.update(1 / 30)
    assert game.sim.fingerprint() != start
    press(game, "R")
    assert game.sim.steps == 0 and game.sim.time == 0.0
    assert game.sim.fingerprint() == start


def test_reset_with_a_broken_file_keeps_playing_and_says_why(game, small_level):
    game.update(0.05)
    small_level.write_text(small_level.read_text().replace("cell = 0.05", "cell = -1"))
    press(game, "R")
    assert game.sim.steps > 0
    assert any("cell" in m for m in game.current_messages())


def test_right_drag_pushes_the_water_near_the_cursor(game, small_level):
    # the cursor over the middle of the pool
    target = np.array([0.5, game.surface_y, 0.4])
    x, y_down = game.camera.project(target, game.width, game.height)[:2]
    y = game.height - y_down
    twin = Simulation.from_level(small_level)          # the same level, undisturbed
    game.on_mouse_press(x, y, RIGHT, 0)
    for k in range(1, 6):
        game.on_mouse_drag(x + 8 * k, y, 8, 0, RIGHT, 0)
        steps = game.update(1 / 50)
        twin.step(steps)
    game.on_mouse_release(x + 40, y, RIGHT, 0)
    assert game.sim.steps == twin.steps
    w0, w1 = twin.water, game.sim.water
    dx = w1.dx
    near = (slice(int(0.25 / dx), int(0.55 / dx)), slice(int(0.35 / dx), int(0.85 / dx)))
    change = np.abs(w1.u[near] - w0.u[near]).max()
    assert change > 1e-3                                  # the water took up the cursor's motion
    assert np.abs(w1.h - w0.h)[near].max() > 1e-6         # and the surface moved: waves
    far = np.abs(w1.u - w0.u)[:, : int(0.1 / dx)].max()
    assert far < 0.1 * change                             # the push is local to the cursor
    twin.close()


def test_rain_disturbs_the_surface(game):
    before = game.sim.water.h.copy()
    press(game, "T")
    for _ in range(5):
        game.update(1 / 30)
    assert np.abs(game.sim.water.h - before).max() > 1e-4
    assert game.rain_left < C.RAIN_DROPS


def test_simulation_error_pauses_and_shows_the_message(game):
    from engine.errors import SimulationError
    from engine.systems.base import System

    class Explode(System):
        def process(self, dt: float) -> None:
            raise SimulationError("water depth became NaN at cell (k=1, i=2)")

    game.sim.add_system(Explode())
    game.update(0.05)                                     # must not raise
    assert game.paused and "NaN" in game.error
    from game.hud import hud_lines
    assert any("NaN" in line for line in hud_lines(game))
    press(game, "R")
    assert game.error is None


def test_tab_cycles_levels(game, small_level, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text(small_level.read_text().replace('name = "Tiny pool"', 'name = "Other pool"'))
    broken = tmp_path / "broken.toml"
    broken.write_text("[pool]\nsise = 3\n")
    game.levels = [small_level, broken, other]
    press(game, "TAB")
    assert game.sim.level.name == "Other pool"
    assert any("sise" in m for m in game.current_messages())
    press(game, "TAB")
    assert game.sim.level.name == "Tiny pool"


def test_help_and_debug_view_keys(game):
    press(game, "F1")
    assert game.show_help
    views = []
    for _ in range(6):
        press(game, "K")
        views.append(game.debug_view)
    assert views == ["depth", "velocity", "divergence", "vorticity", "bounds", None]
    press(game, "ESCAPE")
    assert game.quit_requested


def _make_shard(sim: Simulation, position: tuple[float, float, float], piece: int) -> int:
    """A small glass box turned into a shard (the Shatter system makes real ones)."""
    import esper
    from engine.bodies import KINDS
    from engine.components import BodyRef, Prop, Shard
    e = sim.spawn_body(model="box", density=2500.0, position=position, size=(0.03, 0.03, 0.03))
    with sim._context():
        slot = esper.component_for_entity(e, BodyRef).slot
        esper.remove_component(e, Prop)
        esper.add_component(e, Shard(0, piece, sim.time))
    sim.body_store.kind[slot] = KINDS.index("shard")
    return e


def test_oldest_shards_fade_out_past_the_limit(small_level):
    """One cap: past physics.max_shards the oldest shards fade (alpha 1 -> 0) then go."""
    import dataclasses
    from engine.levels import load_level
    from engine.systems.shatter import FADE_SECONDS
    level = load_level(small_level)
    level = dataclasses.replace(level, physics=dataclasses.replace(level.physics, max_shards=30))
    g = C.Game(level, entry_points=False, width=320, height=200, levels=[])
    sim = g.sim
    a = sim.spawn_bottle((0.3, 0.5, 0.4))
    b = sim.spawn_bottle((0.7, 0.5, 0.4))
    first = sim.shatter(a)
    sim.step(1)
    assert len(first) < 30 and not sim.get_system("Shatter").fading   # under the cap: nothing fades
    second = sim.shatter(b)
    sim.step(1)
    n_over = len(first) + len(second) - 30
    fading = sorted(sim.get_system("Shatter").fading)
    assert fading == sorted(first + second)[:n_over]         # the oldest start fading
    sim.step(3)
    assert 0.0 < g.body_alpha(fading[0]) < 1.0 and g.body_alpha(second[-1]) == 1.0
    sim.step(int(np.ceil(FADE_SECONDS / sim.dt)) + 1)
    assert g.counts()["shard"] == 30
    assert set(sim.bodies("shard")) == set(sorted(first + second)[n_over:])
    g.sim.close()