"""What keys 1-9 throw: a level's [[throwable]] list in its order (the default four where it
declares none), each one thrown as declared; keys past the list say so and change nothing."""
from __future__ import annotations

import math

import pytest

from engine.levels import LevelError, parse_level
from engine.paths import LEVELS
from game.controls import KEY_SYMBOLS, MOUSE_BUTTONS
from game.hud import hud_lines

LEFT = MOUSE_BUTTONS["LEFT"]
POOL = '[pool]\nsize = [2.0, 1.5]\n[water]\nlevel = 0.3\n'


def _game(level, tmp_path):
    from game.controller import Game
    return Game(level, width=800, height=450, save_path=tmp_path / "q.npz", entry_points=False, levels=[])


def _throw(game) -> int:
    game.on_key_press(KEY_SYMBOLS["P"], 0) if not game.paused else None
    game.on_mouse_motion(400, 250, 0, 0)
    game.on_mouse_press(400, 250, LEFT, 0)
    game.update(0.3)
    game.on_mouse_release(400, 250, LEFT, 0)
    return game.last_throw


@pytest.mark.parametrize("name", sorted(p.name for p in LEVELS.glob("*.toml")))
def test_every_throwable_a_level_declares_is_on_a_key_and_thrown_as_declared(name, tmp_path):
    """Key k picks the level's k-th [[throwable]]; the thrown body is that one: a bottle with its
    fill (held water = fill x the bottle's inner volume) and seal, or an object of its model, with
    the mass its material or density and size give."""
    game = _game(LEVELS / name, tmp_path)
    declared = game.sim.level.throwables
    expected = [t.name for t in declared] or ["empty sealed bottle", "full bottle", "open bottle", "stone ball"]
    assert [t.name for t in game.throwables] == expected
    for k, want in enumerate(expected):
        game.on_key_press(KEY_SYMBOLS[f"_{k + 1}"], 0)
        assert game.throwables[game.selected].name == want
        hud = "\n".join(hud_lines(game))
        assert f"[{k + 1}" in hud and want in hud
        if not declared:
            continue
        spec = declared[k]
        e = _throw(game)
        b = game.sim.body(e)
        if spec.kind == "bottle":
            assert b.kind == "bottle"
            full = game.sim.body(game.sim.spawn_bottle((1.0, 5.0, 1.0), fill=1.0)).held_water
            assert b.held_water == pytest.approx((spec.fill or 0.0) * full, rel=1e-6, abs=1e-12)
        else:
            from engine.levels.setup import material_of
            density = material_of(game.sim.level, spec).density
            if spec.model == "sphere":
                assert b.mass == pytest.approx(density * 4.0 / 3.0 * math.pi * spec.radius ** 3, rel=1e-6)
            else:
                assert b.mass == pytest.approx(density * b.volume, rel=1e-6)
        game.sim.remove_body(e)


def test_the_galleries_steel_ball_can_be_thrown(tmp_path):
    """The shooting gallery offers stone, steel ball, bottle: key 2 throws a 4 cm steel ball
    (the built-in steel, 7850 kg/m^3: m = rho 4/3 pi r^3 = 2.10 kg)."""
    game = _game(LEVELS / "shooting_gallery.toml", tmp_path)
    game.on_key_press(KEY_SYMBOLS["_2"], 0)
    assert game.throwables[game.selected].name == "steel ball"
    b = game.sim.body(_throw(game))
    assert b.mass == pytest.approx(7850.0 * 4.0 / 3.0 * math.pi * 0.04 ** 3, rel=1e-3)


def test_a_key_past_the_list_says_so_and_keeps_the_pick(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text(POOL + '[[throwable]]\nname = "pebble"\nkind = "object"\nmodel = "sphere"\nradius = 0.02\n'
                    'density = 2600\n[[throwable]]\nname = "jar"\nfill = 0.5\n')
    game = _game(path, tmp_path)
    game.on_key_press(KEY_SYMBOLS["_2"], 0)
    game.on_key_press(KEY_SYMBOLS["_5"], 0)
    assert game.throwables[game.selected].name == "jar"
    assert any("nothing on key 5" in m and "keys 1-2" in m for m in game.current_messages())
    assert "[2 of 2] jar" in "\n".join(hud_lines(game))


def test_a_level_may_offer_nine_throwables_not_ten():
    def level(n: int) -> str:
        return POOL + "".join(f'[[throwable]]\nname = "bottle {k}"\nfill = {k / 10}\n' for k in range(n))
    assert len(parse_level(level(9)).throwables) == 9
    with pytest.raises(LevelError) as err:
        parse_level(level(10))
    assert "throwable[9]" in str(err.value) and "keys 1-9" in str(err.value)


def test_the_hud_counts_throws_not_bottles(tmp_path):
    """Target practice allows a number of throws (stones): the HUD says throws, and so does the end."""
    game = _game(LEVELS / "target_practice.toml", tmp_path)
    left = game.goal.throws_left
    assert f"throws left {left}" in game.goal.line()
    _throw(game)
    assert f"throws left {left - 1}" in game.goal.line() and "bottle" not in game.goal.line()
