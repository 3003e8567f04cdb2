"""`bottles play`: the no-display fallback, the demo script, and one-line errors."""
from __future__ import annotations

import numpy as np
import pytest

from engine.levels import load_level
from game import demo, play
from game.cli import main


def test_no_display_says_so_in_one_line_and_records_the_demo(monkeypatch, capsys, small_level, tmp_path):
    calls = []
    monkeypatch.setenv("PYGLET_HEADLESS", "true")
    monkeypatch.setattr(demo, "run", lambda level, mods, out: calls.append((level, mods, out)) or 0)
    out = tmp_path / "clip.gif"
    assert main(["play", str(small_level), "--demo-out", str(out)]) == 0
    text = capsys.readouterr().out.strip().splitlines()
    assert len(text) == 1 and "no display" in text[0] and "demo clip" in text[0]
    assert calls == [(small_level, [], str(out))]


def test_no_display_is_detected_without_display_variables(monkeypatch):
    monkeypatch.delenv("PYGLET_HEADLESS", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(play.sys, "platform", "linux")
    assert "DISPLAY" in play.no_display_reason()
    monkeypatch.setenv("DISPLAY", ":0")
    assert play.no_display_reason() is None


def test_demo_throws_land_in_the_pool(small_level):
    level = load_level(small_level)
    throws = demo.demo_throws(level)
    assert len(throws) == len(demo.THROW_TIMES)
    g = level.gravity
    for spec in throws:
        t, p, v = spec.split(":")[:3]
        p = np.array(p.split(","), float)
        v = np.array(v.split(","), float)
        land = p + v * demo.FLIGHT + np.array([0.0, -0.5 * g * demo.FLIGHT ** 2, 0.0])
        assert land[1] == pytest.approx(level.water.level, abs=1e-3)
        assert 0.0 < land[0] < level.pool.size[0] and 0.0 < land[2] < level.pool.size[1]
    args = demo.record_args(small_level, [], "x.gif")
    assert args.throw == throws and args.out == "x.gif"


def test_a_broken_level_is_reported_in_one_line_per_problem(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PYGLET_HEADLESS", "true")
    bad = tmp_path / "bad.toml"
    bad.write_text("[pool]\nsise = [1, 1]\n")
    assert main(["play", str(bad)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all("Traceback" not in line for line in err)
    assert any("bad.toml:2" in line and "sise" in line for line in err)


def test_a_bad_size_is_one_line(capsys):
    assert main(["play", "--size", "big"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "1280x720" in err[0]


def test_a_mod_that_raises_is_reported_and_the_game_goes_on(tmp_path, small_level):
    from game.controller import Game
    mod = tmp_path / "boom.py"
    mod.write_text("from engine.systems import System\n"
                   "class Boom(System):\n"
                   "    def process(self, dt):\n"
                   "        raise RuntimeError('kaboom')\n"
                   "def register(api):\n"
                   "    api.add_system(Boom(), after='StepFluid')\n")
    g = Game(small_level, mod_paths=[str(mod)], entry_points=False, width=320, height=200, levels=[])
    g.update(0.05)
    assert g.error is None and g.sim.steps > 0
    assert any("kaboom" in m and "\n" not in m for m in g.current_messages())
    g.sim.close()


def test_a_bundled_level_is_found_by_the_name_bottles_levels_lists(tmp_path, monkeypatch):
    """`bottles play beach` from any folder opens content/levels/beach.toml; a real path still wins,
    and a name that is neither keeps its spelling so the loader can say it does not exist."""
    from engine.paths import LEVELS, find_level
    monkeypatch.chdir(tmp_path)
    assert find_level("beach") == LEVELS / "beach.toml"
    assert find_level("beach.toml") == LEVELS / "beach.toml"
    (tmp_path / "beach.toml").write_text("")
    assert find_level("beach.toml").resolve() == tmp_path / "beach.toml"
    assert str(find_level("no_such_level")) == "no_such_level"
    assert main(["record", "no_such_level", "--out", str(tmp_path / "x.png")]) == 1
