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
    monkeypatch.setattr(demo, "run", lambda level, mods, out, level_mods=False: calls.append((level, mods, out)) or 0)
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
    assert len(throws) == len(demo.THROW_TIMES) + 1          # and one at the far wall
    g = level.gravity
    for spec in throws[1:]:
        t, p, v = spec.split(":")[:3]
        p = np.array(p.split(","), float)
        v = np.array(v.split(","), float)
        land = p + v * demo.FLIGHT + np.array([0.0, -0.5 * g * demo.FLIGHT ** 2, 0.0])
        assert land[1] == pytest.approx(level.water.level, abs=1e-3)
        assert 0.0 < land[0] < level.pool.size[0] and 0.0 < land[2] < level.pool.size[1]
    args = demo.record_args(small_level, [], "x.gif")
    assert args.throw == throws and args.out == "x.gif"


def test_the_demo_clip_shows_a_shatter():
    """The default level's demo throws, stepped as `bottles record` steps them: a bottle breaks on
    the far wall before the clip ends (with a second to spare for the shards to be seen)."""
    from engine import events as ev
    from engine.paths import DEFAULT_LEVEL
    from engine.world import Simulation
    from game.record import apply_throw, parse_throw
    sim = Simulation.from_level(DEFAULT_LEVEL)
    broken: list = []
    sim.on(ev.Shattered, broken.append)
    pending = sorted((parse_throw(s) for s in demo.demo_throws(sim.level)), key=lambda th: th.t)
    while sim.time < demo.DEMO_SECONDS - 1.0:
        while pending and pending[0].t <= sim.time + 1e-9:
            apply_throw(sim, pending.pop(0))
        sim.step()
    sim.close()
    assert broken, "no bottle shattered in the demo"


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


def test_a_mod_that_raises_is_reported_and_the_game_goes_on(tmp_path, small_level, capsys):
    from game.controller import Game
    mod = tmp_path / "boom.py"
    mod.write_text("from engine.systems import System\n"
                   "class Boom(System):\n"
                   "    def process(self, dt):\n"
                   "        raise RuntimeError('kaboom')\n"
                   "def register(api):\n"
                   "    api.add_system(Boom(), after='StepFluid')\n")
    g = Game(small_level, mod_paths=[str(mod)], entry_points=False, width=320, height=200, levels=[],
             save_path=tmp_path / "q.npz")
    g.update(0.05)
    assert g.error is None and g.sim.steps > 0
    assert any("kaboom" in m and "\n" not in m and str(g.mod_log) in m for m in g.current_messages())
    err = capsys.readouterr().err
    assert "kaboom" in err and f'File "{mod}", line 4' in err          # the traceback, file:line
    log = g.mod_log.read_text()
    assert "RuntimeError: kaboom" in log and f'File "{mod}", line 4' in log
    from game.hud import hud_lines
    g.update(0.05)
    g.messages.clear()                                                  # the notice is gone ...
    assert any(line.startswith("mods off: boom") for line in hud_lines(g))   # ... the line stays
    g.sim.close()


def test_record_exits_non_zero_when_a_mod_failed(tmp_path, small_level, capsys, monkeypatch):
    from game.record import MOD_FAILED
    monkeypatch.setenv("PYGLET_HEADLESS", "true")
    mod = tmp_path / "bad_mod.py"
    mod.write_text("def register(api):\n    raise ValueError('no wind today')\n")
    out = tmp_path / "f.png"
    code = main(["record", str(small_level), "--seconds", "0.05", "--fps", "20", "--size", "64x64",
                 "--out", str(out), "--mod", str(mod)])
    err = capsys.readouterr().err
    assert code == MOD_FAILED != 0 and out.exists()
    assert "no wind today" in err and f'File "{mod}", line 2' in err and "mod failure" in err


@pytest.mark.parametrize("kind", ["f.png", "c.gif", "frames/"])
def test_record_ends_the_clip_where_a_mod_wrote_nan(tmp_path, small_level, capsys, monkeypatch, kind):
    """A mod that writes NaN into the water stops the simulation: the clip holds the frames made
    before it (3 of 10 at 20 frames a second: the NaN is written in the step that ends at 0.18 s),
    it is written, one line says where it stopped and why, and the exit code is MOD_FAILED."""
    from game.record import MOD_FAILED
    monkeypatch.setenv("PYGLET_HEADLESS", "true")
    mod = tmp_path / "nan_mod.py"
    mod.write_text("from engine.systems import System\n"
                   "class NaNer(System):\n"
                   "    def process(self, dt):\n"
                   "        if self.sim.time >= 0.16:\n"
                   "            self.sim.water.h[1, 1] = float('nan')\n"
                   "def register(api):\n"
                   "    api.add_system(NaNer(), after='StepFluid')\n")
    out = tmp_path / kind
    code = main(["record", str(small_level), "--seconds", "0.5", "--fps", "20", "--size", "64x64",
                 "--out", f"{tmp_path}/{kind}", "--mod", str(mod)])
    cap = capsys.readouterr()
    assert code == MOD_FAILED, cap.err
    assert "Traceback" not in cap.err and "R resets" not in cap.err
    stopped = [line for line in cap.err.splitlines() if "the simulation stopped at t=" in line]
    assert len(stopped) == 1 and 'mod "nan_mod"' in stopped[0] and "water h at cell (k=1, i=1)" in stopped[0]
    assert "(3 frames, 64x64; it ends at 0.15 s, where the simulation stopped)" in cap.out
    if kind == "frames/":
        assert len(list(out.glob("frame_*.png"))) == 3
    else:
        from PIL import Image
        with Image.open(out) as img:
            assert getattr(img, "n_frames", 1) == (3 if kind == "c.gif" else 1)


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
