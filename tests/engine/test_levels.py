"""Levels v1: every problem class is reported with its file and line, all at once."""
from __future__ import annotations

import subprocess
import sys

import pytest

from engine import LevelError, load_level
from engine.levels import parse_level

BROKEN = """\
# Demonstrates: nothing, on purpose.
seedd = 3
dt = "fast"
[pool]
size = [2.0, 1.0]
cell = -0.5
[water]
level = 0.2
boundary = { x_min = "absorbent", z_max = "reflective" }
[[water.bump]]
center = [1.0]
[[bottle]]
position = [0.5, 0.5, 0.5]
fill = 1.4
[[bottle]]
velocity = [0, 0, 0]
"""


def problems(text: str) -> list[tuple[int, str, str]]:
    with pytest.raises(LevelError) as info:
        parse_level(text, "broken.toml")
    return [(line, key, msg) for _, line, key, msg in info.value.problems]


def test_every_problem_is_listed_with_its_line():
    got = problems(BROKEN)
    assert (2, "level", 'unknown key "seedd" (did you mean "seed"?)') in got
    assert (3, "dt", 'must be a number (got "fast")') in got
    assert (6, "pool.cell", "must be between 0.002 and 1 (got -0.5)") in got
    assert any(l == 9 and k == "water.boundary.x_min" and "did you mean \"absorbing\"" in m for l, k, m in got)
    assert (11, "water.bump[0].center", "must be a list of 2 numbers (got [1.0])") in got
    assert (14, "bottle[0].fill", "must be between 0 and 1 (got 1.4)") in got
    assert (15, "bottle[1].position", "is required") in got
    assert len(got) == 7


def test_message_format_is_file_line_key_message():
    with pytest.raises(LevelError) as info:
        parse_level("[pool]\nsise = [2, 1]\n", "content/levels/x.toml")
    assert str(info.value) == 'content/levels/x.toml:2: pool: unknown key "sise" (did you mean "size"?)'


def test_toml_syntax_error_has_its_line():
    got = problems("seed = 1\n[pool]\nsize = [2.0, 1.0\ncell = 0.1\n")
    assert got[0][0] in (3, 4) and "not valid TOML" in got[0][2]


def test_cross_field_checks():
    got = problems("[pool]\nsize = [1.0, 1.0]\nwall_height = 0.3\n[water]\nlevel = 0.5\n"
                   "[[bottle]]\nposition = [3.0, 0.5, 0.5]\n")
    keys = {k for _, k, _ in got}
    assert keys == {"water.level", "bottle[0].position"}


def test_grid_too_coarse():
    got = problems("[pool]\nsize = [0.2, 0.2]\ncell = 0.1\n")
    assert got == [(3, "pool.cell", "gives a 2 x 2 grid; need at least 4 cells per side (make cell smaller)")]


def test_missing_file_is_a_level_error(tmp_path):
    with pytest.raises(LevelError, match="no such level file"):
        load_level(tmp_path / "nope.toml")


def test_a_bundled_level_loads_by_its_name(levels_dir, monkeypatch, tmp_path):
    """load_level("beach") is the bundled beach (as `bottles play beach`); it used to answer
    'no such level file (did you mean "beach"?)'. A near miss still names the bundled level."""
    monkeypatch.chdir(tmp_path)
    assert load_level("beach").path == levels_dir / "beach.toml"
    with pytest.raises(LevelError, match='no such level file \\(did you mean "beach"\\?\\)'):
        load_level("beech")


def test_values_are_validated_into_frozen_dataclasses(levels_dir):
    level = load_level(levels_dir / "calm_pool.toml")
    assert level.pool.shape == (128, 96)
    assert level.description.startswith("the default pool")
    with pytest.raises(Exception):
        level.seed = 3  # type: ignore[misc]


def test_boundary_shorthand_sets_every_side():
    level = parse_level('[water]\nboundary = "absorbing"\n')
    assert {level.water.boundary.side(s) for s in ("x_min", "x_max", "z_min", "z_max")} == {"absorbing"}


def test_bottles_validate_exits_1_without_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(BROKEN)
    out = subprocess.run([sys.executable, "-m", "game", "validate", str(bad)], capture_output=True, text=True)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr + out.stdout
    assert f"{bad}:14: bottle[0].fill: must be between 0 and 1 (got 1.4)" in out.stderr


def test_bottles_validate_ok(levels_dir):
    out = subprocess.run([sys.executable, "-m", "game", "validate", str(levels_dir / "calm_pool.toml")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_cross_section_checks_still_run_when_other_values_are_bad():
    got = problems("[pool]\nsize = [1.0, 1.0]\ncell = 0.5\n[[bottle]]\nposition = [3.0, 0.5, 0.5]\nfill = 2\n")
    assert {k for _, k, _ in got} == {"pool.cell", "bottle[0].position", "bottle[0].fill"}
