"""Level goals are winnable with scripted mouse input, and the score and limits are kept."""
from __future__ import annotations

import numpy as np
import pytest

from engine.paths import LEVELS
from game.controls import KEY_SYMBOLS, MOUSE_BUTTONS

LEFT = MOUSE_BUTTONS["LEFT"]


def _game(name: str, tmp_path):
    from game.controller import Game
    return Game(LEVELS / name, width=800, height=450, save_path=tmp_path / "q.npz", entry_points=False, levels=[])


def _throw_at(game, world_point, hold: float) -> None:
    """Move the cursor onto a world point, hold the left button `hold` seconds, release."""
    x, y, _ = game.camera.project(np.asarray(world_point, float), game.width, game.height)
    px, py = float(x), float(game.height - y)
    game.on_mouse_motion(px, py, 0, 0)
    game.on_mouse_press(px, py, LEFT, 0)
    t = 0.0
    while t < hold - 1e-9:
        game.update(min(0.05, hold - t))
        t += 0.05
    game.on_mouse_release(px, py, LEFT, 0)


def _wait(game, seconds: float) -> None:
    for _ in range(int(round(seconds / 0.05))):
        game.update(0.05)


def test_the_shooting_gallery_is_won_by_aiming_at_the_bottles(tmp_path):
    """Aim at each standing bottle (the cursor on its centre) and throw a stone: all nine break
    within the 14 throws; the score counts 100 per bottle plus what is left over."""
    game = _game("shooting_gallery.toml", tmp_path)
    game.on_key_press(KEY_SYMBOLS["_1"], 0)                # the gallery's first throwable
    assert game.throwables[game.selected].name == "stone"
    goal = game.goal
    assert goal.kind == "break" and goal.count == 9 and goal.throws_left == 14
    while goal.state == "playing" and goal.throws_left:
        left = [e for e in game.sim.bodies("bottle") if e in goal.level_bottles]
        if not left:
            break
        target = np.array(game.sim.body(left[0]).position)
        _throw_at(game, target, 0.6)
        _wait(game, 0.6)
    _wait(game, 0.5)
    assert goal.state == "won", (goal.done, goal.throws)
    assert goal.score == 100 * 9 + 50 * goal.throws_left + int(10 * goal.time_left)
    assert "WON" in goal.line()
    won, line, left = goal.score, goal.line(), goal.time_left
    assert left == pytest.approx(90.0 - goal.finished_at)
    _wait(game, 2.0)                                       # the clock stops at the win: so does the score
    assert (goal.score, goal.line(), goal.time_left) == (won, line, left)
    game.sim.close()


def test_target_practice_is_won_by_landing_throws_in_the_ring(tmp_path):
    game = _game("target_practice.toml", tmp_path)
    goal = game.goal
    cx, cz, r = goal.ring()
    game.on_key_press(KEY_SYMBOLS["_4"], 0)
    for k in range(5):
        _throw_at(game, (cx + 0.1 * np.cos(k), game.surface_y, cz + 0.1 * np.sin(k)), 0.3)
        _wait(game, 0.6)
    assert goal.state == "won" and goal.done == 5


def test_bottle_smash_is_won_by_throwing_hard_at_the_dry_floor(tmp_path):
    game = _game("bottle_smash.toml", tmp_path)
    goal = game.goal
    game.on_key_press(KEY_SYMBOLS["_1"], 0)
    for k in range(6):
        _throw_at(game, (1.0 + 0.2 * k, 0.28, 0.25), 0.3)     # the dry high end of the sloping floor
        _wait(game, 0.5)
    _wait(game, 1.5)                                          # real seconds: breaks play in slow motion
    assert goal.state == "won" and goal.done >= 6, (goal.done, goal.throws)
    # the score is counted at the win: 100 a bottle and 50 a throw left then; throwing on after the
    # win is free play and changes neither the score nor the throws left
    assert goal.score == 100 * goal.done + 50 * (10 - goal.throws_at_end)
    won, left = goal.score, goal.throws_left
    for k in range(left + 2):
        n = len(game.sim.bodies())
        _throw_at(game, (1.2, 0.28, 0.3 + 0.1 * k), 0.3)
        assert len(game.sim.bodies()) > n, "a throw after the win was refused"
        _wait(game, 0.2)
    assert (goal.score, goal.throws_left, goal.state) == (won, left, "won")
    assert "no throws left" not in " ".join(game.current_messages())


def test_running_out_of_throws_loses_and_stops_throwing(tmp_path):
    game = _game("bottle_smash.toml", tmp_path)
    goal = game.goal
    game.on_key_press(KEY_SYMBOLS["_4"], 0)                    # the stone breaks nothing by itself
    for _ in range(10):
        _throw_at(game, (1.5, game.surface_y, 1.7), 0.0)       # into the puddle: nothing breaks
    assert goal.throws_left == 0
    n = len(game.sim.bodies())
    _throw_at(game, (1.5, game.surface_y, 1.7), 0.0)
    assert len(game.sim.bodies()) == n                         # no more throws
    _wait(game, 3.5)
    assert goal.state == "lost" and "R tries again" in goal.line()
    game.on_key_press(KEY_SYMBOLS["R"], 0)
    assert game.goal.state == "playing" and game.goal.throws_left == 10


@pytest.mark.parametrize("name", ["calm_pool.toml"])
def test_a_level_without_a_goal_is_free_play(name, tmp_path):
    game = _game(name, tmp_path)
    assert game.goal.kind == "none" and game.goal.line() is None and game.goal.can_throw()


def test_a_gallery_bottle_knocked_off_the_deck_counts_and_is_named(tmp_path):
    """A goal bottle that goes over the deck's outer edge can never be broken: it counts as cleared
    (else the goal could no longer be won), and the HUD says what fell."""
    from engine.terrain import DECK
    game = _game("shooting_gallery.toml", tmp_path)
    goal = game.goal
    sim = game.sim
    e = sorted(goal.level_bottles)[0]
    b = sim.body(e)
    b.position[:] = (-DECK - 1.0, -4.9, 1.0)          # past the edge, about to leave the world
    b.velocity[:] = (0.0, -3.0, 0.0)
    _wait(game, 0.2)
    assert e not in sim.bodies()
    assert goal.done == 1
    assert any("bottle fell off the edge of the deck" in m for m in game.current_messages())
    sim.close()


def test_a_stone_ball_thrown_at_the_decks_far_edge_rolls_off_and_is_named(tmp_path):
    """A stone ball lobbed at the deck 10 cm inside its far edge lands there rolling away from the
    player, goes over the edge and out of the world, and the HUD names what was thrown."""
    from engine.terrain import DECK
    game = _game("calm_pool.toml", tmp_path)
    game.on_key_press(KEY_SYMBOLS["_4"], 0)
    assert game.throwables[game.selected].name == "stone ball"
    sx, _ = game.sim.level.pool.size
    _throw_at(game, (sx / 2, game.sim.level.pool.wall_height, -DECK + 0.1), 0.6)
    e = game.last_throw
    assert e is not None
    _wait(game, 4.0)
    assert e not in game.sim.bodies()
    assert any("the stone ball fell off the edge of the deck" in m for m in game.current_messages())
    game.sim.close()
