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
