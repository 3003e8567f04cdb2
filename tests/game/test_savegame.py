"""Quick save then load restores a bitwise-identical state, and stepping both on stays identical."""
from __future__ import annotations

import numpy as np
import pytest

from engine.world import Simulation
from game import savegame
from game.controls import KEY_SYMBOLS, MOUSE_BUTTONS


def _busy(game) -> None:
    """Throw two bottles and a heavy object, push the water, start rain: every kind of state moves."""
    for key, x in (("_1", 300), ("_2", 340), ("_4", 380)):
        game.on_key_press(KEY_SYMBOLS[key], 0)
        game.on_mouse_press(x, 150, MOUSE_BUTTONS["LEFT"], 0)
        game.update(0.2)
        game.on_mouse_release(x, 150, MOUSE_BUTTONS["LEFT"], 0)
    game.on_key_press(KEY_SYMBOLS["T"], 0)
    for _ in range(6):
        game.update(1 / 30)


def test_save_then_load_restores_a_bitwise_identical_state(game, tmp_path):
    _busy(game)
    sim = game.sim
    path, warnings = savegame.save(sim, tmp_path / "s.npz")
    assert warnings == []
    at_save = sim.fingerprint()
    sim.step(40)
    later = sim.fingerprint()
    assert later != at_save

    savegame.load(sim, path)                                   # back into the same simulation
    assert sim.fingerprint() == at_save
    sim.step(40)
    assert sim.fingerprint() == later

    other = game._open(game.level_source)                     # and into a fresh one of the level
    assert other.fingerprint() != at_save
    savegame.load(other, path)
    assert other.fingerprint() == at_save
    assert other.bodies() == sorted(other.bodies()) and len(other.bodies()) == 4
    np.testing.assert_array_equal(other.water.read("h"), savegame.read(path)["water"]["h"])
    other.step(40)
    assert other.fingerprint() == later
    # new entities get the same ids in both after a load
    a = sim.spawn_bottle((0.5, 0.6, 0.4)); b = other.spawn_bottle((0.5, 0.6, 0.4))
    assert a == b
    other.close()


def test_f5_f9_in_the_game(game):
    _busy(game)
    game.on_key_press(KEY_SYMBOLS["F5"], 0)
    saved = game.sim.fingerprint()
    steps = game.sim.steps
    for _ in range(5):
        game.update(1 / 30)
    game.on_key_press(KEY_SYMBOLS["R"], 0)
    assert game.sim.steps == 0
    game.on_key_press(KEY_SYMBOLS["F9"], 0)
    assert game.sim.fingerprint() == saved
    assert game.sim.steps == steps


def test_load_after_a_simulation_error_recovers(game):
    game.on_key_press(KEY_SYMBOLS["F5"], 0)
    saved = game.sim.fingerprint()
    game.sim.water.h[0, 0] = np.nan
    game.update(0.05)
    assert game.error is not None
    game.on_key_press(KEY_SYMBOLS["F9"], 0)
    assert game.error is None and game.sim.fingerprint() == saved


def test_loading_a_missing_or_foreign_file_says_why(game, tmp_path):
    game.save_path = tmp_path / "nothing.npz"
    game.on_key_press(KEY_SYMBOLS["F9"], 0)
    assert any("no save" in m for m in game.current_messages())
    bad = tmp_path / "bad.npz"
    np.savez(bad, x=np.zeros(3))
    with pytest.raises(savegame.SaveError, match="not a Bottles"):
        savegame.load(game.sim, bad)
    game.save_path = bad
    before = game.sim.fingerprint()
    game.on_key_press(KEY_SYMBOLS["F9"], 0)
    assert any("load failed" in m and "not a Bottles" in m for m in game.current_messages())
    assert game.sim.fingerprint() == before


def test_a_save_from_other_systems_is_refused(game, tmp_path):
    path, _ = savegame.save(game.sim, tmp_path / "s.npz")
    plain = Simulation(game.sim.level)                         # no Tracers (the game adds it)
    with pytest.raises(savegame.SaveError, match="systems"):
        savegame.load(plain, path)
    plain.close()


def test_save_load_mid_scene_with_sleepers_pouring_and_falling_water(tmp_path):
    """Resting shards (asleep, cached in the coupling), an open bottle pouring, water in flight."""
    import math

    from engine.levels import parse_level
    level = parse_level("seed = 5\n[pool]\nsize = [1.5, 1.5]\ncell = 0.03\nwall_height = 0.9\n"
                        "[water]\nlevel = 0.25\n")
    sim = Simulation(level)
    sim.shatter(sim.spawn_bottle((0.5, 0.3, 0.5)))
    sim.spawn_bottle((1.0, 0.5, 1.0), orientation=(math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4)),
                     fill=1.0, sealed=False)
    sim.step(300)
    sim.shatter(sim.spawn_bottle((0.8, 0.8, 0.4), fill=0.7))     # its water is now falling
    sim.step(3)
    assert sim.water_in_flight > 0.0
    assert sim.get_system("IntegrateBodies").sleeping > 0
    path, _ = savegame.save(sim, tmp_path / "scene.npz")
    at_save = sim.fingerprint()
    sim.step(90)
    later = sim.fingerprint()
    fresh = Simulation(level)
    savegame.load(fresh, path)
    assert fresh.fingerprint() == at_save
    fresh.step(90)
    assert fresh.fingerprint() == later


def test_the_file_is_plain_npz_read_without_pickle(game, tmp_path):
    """Every member is a .npy of numbers (allow_pickle=False loads it), the metadata is JSON."""
    import json
    import zipfile
    _busy(game)
    path, _ = savegame.save(game.sim, tmp_path / "s.npz")
    with np.load(path, allow_pickle=False) as z:
        for name in z.files:
            assert z[name].dtype.kind in "biuf"
        meta = json.loads(z["__meta__"].tobytes())
    assert meta["format"] == savegame.FORMAT and meta["version"] == savegame.VERSION
    assert meta["state"]["order"] == game.sim.system_names()
    assert "CoupleWater" in meta["state"]["systems"]
    assert all(i.filename.endswith(".npy") for i in zipfile.ZipFile(path).infolist())
    assert "__dataclass__" not in json.dumps(meta) and "__object__" not in json.dumps(meta)
