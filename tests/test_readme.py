"""The README's examples work as written: the scripting example, the small level, the ten-line mod."""
from __future__ import annotations

import re

import pytest

from engine.levels import parse_level
from engine.paths import ROOT

README = (ROOT / "README.md").read_text()


def block(after_heading: str, lang: str) -> str:
    section = README.split(after_heading, 1)[1]
    m = re.search(rf"```{lang}\n(.*?)```", section, re.S)
    assert m, f"no ```{lang} block after {after_heading!r}"
    return m.group(1)


def test_the_two_setup_commands_come_first():
    first = README.split("```sh\n", 1)[1].split("```", 1)[0]
    assert first.splitlines()[0].startswith("make play") and first.splitlines()[1].startswith("make test")


def test_the_scripting_example_runs_as_written(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    exec(compile(block("## Script a pool from Python", "python"), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "1.0" in out                              # sim.time after 120 steps of 1/120 s


def test_the_small_level_is_valid():
    level = parse_level(block("A small level:", "toml"), "README.md")
    assert level.description == "a river flowing around a pillar."


def test_the_small_mod_loads_and_runs(tmp_path):
    from engine import mods
    from engine.world import Simulation
    from engine.levels import Level
    path = tmp_path / "breeze.py"
    path.write_text(block("## Mods", "python"))
    sim = Simulation(Level())
    mods.load_mods(sim, [path])
    assert "Breeze" in sim.system_names()
    sim.step(10)
    assert sim.water.u[:, 1:-1].mean() > 0.0        # the breeze pushes the water along +x
    assert not sim.failures
