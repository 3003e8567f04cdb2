"""A downloaded level's mods/ folder runs only when the player asks; the game says it is there."""
from __future__ import annotations

import subprocess
import sys

from engine.paths import LEVELS, ROOT

SPY = "import sys\nsys.modules['level_mod_spy_ran'] = True\ndef register(api):\n    pass\n"


def _level_with_mods(tmp_path):
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "spy.py").write_text(SPY)
    level = tmp_path / "downloaded.toml"
    level.write_text((LEVELS / "calm_pool.toml").read_text())
    return level


def test_the_game_names_a_levels_mods_and_runs_them_only_when_asked(tmp_path):
    from game.controller import Game
    level = _level_with_mods(tmp_path)
    game = Game(level, width=320, height=200, save_path=tmp_path / "q.npz", entry_points=False)
    assert "level_mod_spy_ran" not in sys.modules
    assert any("spy" in m and "NOT run" in m and "--mods" in m for m in game.current_messages())
    game.save()
    game.load()                                             # F9 imports nothing either
    assert "level_mod_spy_ran" not in sys.modules
    game.sim.close()
    asked = Game(level, width=320, height=200, save_path=tmp_path / "q.npz", entry_points=False,
                 level_mods=True)
    assert sys.modules.pop("level_mod_spy_ran", False)
    from engine.mods import mods_of
    assert [m.name for m in mods_of(asked.sim).mods] == ["spy"]
    asked.sim.close()


def test_validate_prints_no_escape_sequence(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text((LEVELS / "calm_pool.toml").read_text() + '\n["\\u001b]0;pwned\\u0007"]\nx = "\\u001b[2J"\n')
    out = subprocess.run([sys.executable, "-m", "game", "validate", str(bad)], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 1 and "\x1b" not in out.stderr + out.stdout and "\\x1b" in out.stderr


def test_a_missing_level_is_only_missing_whatever_mods_lie_in_the_working_folder(tmp_path, monkeypatch, capsys):
    """A name that is no level file gets the loader's one message: the `mods/` folder of the
    working directory (the repository's examples, say) is neither named nor imported; a bundled
    level's bare name looks for mods beside its file in content/levels/, not there either."""
    from game import demo
    from game.cli import main
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "spy.py").write_text(SPY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYGLET_HEADLESS", "true")
    monkeypatch.setattr(demo, "run", lambda level, mods, out, level_mods=False: 0)
    for argv in (["play", "nosuchlevel"], ["validate", "nosuch.toml"], ["validate", "nosuch.toml", "--mods"]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "no such level file" in err and "spy" not in err and "mods" not in err, (argv, err)
    for argv in (["play", "calm_pool"], ["validate", "calm_pool"], ["validate", "calm_pool", "--mods"]):
        assert main(argv) == 0
        assert "spy" not in capsys.readouterr().err, argv
    assert "level_mod_spy_ran" not in sys.modules


def test_a_level_with_mods_beside_it_still_names_them(tmp_path, monkeypatch, capsys):
    from game import demo
    from game.cli import main
    level = _level_with_mods(tmp_path)
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PYGLET_HEADLESS", "true")
    monkeypatch.setattr(demo, "run", lambda level, mods, out, level_mods=False: 0)
    assert main(["play", str(level)]) == 0
    err = capsys.readouterr().err
    assert "comes with mods (spy.py) that are NOT run" in err and "fountain" not in err
    assert main(["validate", str(level)]) == 0
    err = capsys.readouterr().err
    assert "comes with mods it would load with --mods" in err and "spy.py" in err and "fountain" not in err
    assert "level_mod_spy_ran" not in sys.modules


def test_a_level_using_its_mods_section_plays_and_records_with_mods(tmp_path, monkeypatch, capsys, tide_mod):
    """A level whose own mod adds the [tide] section it uses: `play --mods` and `record --mods` read
    it with that mod loaded (they checked the level before loading any mod, and stopped at
    'unknown key "tide"'); without --mods both refuse it with the loader's message and run nothing."""
    from game import demo
    from game.cli import main
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "tide.py").write_text(tide_mod)
    level = tmp_path / "tidal.toml"
    level.write_text('[pool]\nsize = [1.0, 0.8]\ncell = 0.05\n[water]\nlevel = 0.2\n[tide]\nheight = 0.4\n')
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PYGLET_HEADLESS", "true")
    seen = []
    monkeypatch.setattr(demo, "run", lambda level, mods, out, level_mods=False: seen.append(level_mods) or 0)
    assert main(["play", str(level), "--mods"]) == 0 and seen == [True]
    assert main(["play", str(level)]) == 1 and seen == [True]
    assert 'unknown key "tide"' in capsys.readouterr().err
    out = tmp_path / "clip.png"
    assert main(["record", str(level), "--mods", "--seconds", "0.05", "--out", str(out)]) == 0
    assert out.is_file()
    assert main(["record", str(level), "--seconds", "0.05", "--out", str(tmp_path / "no.png")]) == 1
    err = capsys.readouterr().err
    assert 'unknown key "tide"' in err and not (tmp_path / "no.png").exists()
    assert "bottles record: this level comes with mods (tide.py) that are NOT run" in err and "--mods" in err
