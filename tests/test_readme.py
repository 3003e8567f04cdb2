"""The README's examples work as written: the scripting example, the small level, the ten-line mod."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import numpy as np
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


NUMBER = re.compile(r"-?\d+(?:\.(\d+))?")


def _figures(line: str) -> tuple[str, list[tuple[float, int]]]:
    """A printed line split into its words (numbers blanked) and its numbers with their decimals."""
    return NUMBER.sub("#", line), [(float(m.group(0)), len(m.group(1) or "")) for m in NUMBER.finditer(line)]


def _cavity_volume(profile: np.ndarray, segments: int) -> float:
    """Volume inside a lathed (r, y) polyline: polygonal frustums, A(r) = n/2 sin(2 pi / n) r^2,
    V = sum dy (A(r1) + sqrt(A(r1) A(r2)) + A(r2)) / 3."""
    k = 0.5 * segments * np.sin(2.0 * np.pi / segments)
    r1, r2, dy = profile[:-1, 0], profile[1:, 0], np.diff(profile[:, 1])
    return float((k * dy * (r1 * r1 + r1 * r2 + r2 * r2) / 3.0).sum())


def _closed_volume(path: Path) -> float:
    """Volume of a closed OBJ surface by the divergence theorem: V = sum v0 . (v1 x v2) / 6."""
    verts, tris = [], []
    for line in path.read_text().splitlines():
        p = line.split()
        if p and p[0] == "v":
            verts.append([float(x) for x in p[1:4]])
        elif p and p[0] == "f":
            idx = [int(x.split("/")[0]) - 1 for x in p[1:]]
            tris += [(idx[0], idx[j], idx[j + 1]) for j in range(1, len(idx) - 1)]
    v, t = np.asarray(verts), np.asarray(tris)
    return float(np.einsum("ij,ij->i", v[t[:, 0]], np.cross(v[t[:, 1]], v[t[:, 2]])).sum() / 6.0)


def test_the_scripting_example_prints_what_the_readme_shows(monkeypatch, capsys):
    """The example's output equals the README's, figure by figure to the digits shown, and the
    figures are the physics: t = 120 dt = 1 s; the grid is size / cell; the glass's mass is
    rho_glass (V_outer - V_cavity) with both volumes integrated here from the model files; the
    water is conserved (no sources in calm_pool); an empty sealed bottle floats."""
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(block("## Script a pool from Python", "python"), "README.md", "exec"), scope)
    out = capsys.readouterr().out.strip().splitlines()
    shown = block("It prints", "").strip().splitlines()
    assert len(out) == len(shown), f"the example printed {out}, the README shows {shown}"
    for got, want in zip(out, shown):
        (gw, gn), (ww, wn) = _figures(got), _figures(want)
        assert gw == ww and len(gn) == len(wn), f"printed {got!r}, the README shows {want!r}"
        for (g, _), (w, places) in zip(gn, wn):
            assert abs(g - w) <= 1.01 * 10.0 ** -places, f"printed {got!r}, the README shows {want!r}"
    level = tomllib.loads((ROOT / "content/levels/calm_pool.toml").read_text())
    size, cell = level["pool"]["size"], level["pool"]["cell"]
    (t, _), (n, _), (mass, _) = _figures(shown[0])[1]
    assert t == 1.0 and n == len(level.get("bottle", [])) + len(level.get("object", [])) + 1
    (nz, _), (nx, _), (dx, _), _, _, _ = _figures(shown[1])[1]
    assert (nz, nx, dx) == (size[1] / cell, size[0] / cell, cell)
    meta = json.loads((ROOT / "content/models/bottle.json").read_text())
    glass = _closed_volume(ROOT / "content/models/bottle.obj") - _cavity_volume(
        np.asarray(meta["cavity_profile"]), meta["segments"])
    assert abs(mass - 2500.0 * glass) <= 0.5e-4               # rho_glass: the level's default, kg/m^3
    sim = scope["sim"]
    assert sim.total_water() == pytest.approx(scope["before"], rel=1e-12)
    (before, _), (after, _) = _figures(shown[2])[1][:2]
    assert before == after


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
    assert sim.system_names()[2:4] == ["Breeze", "StepFluid"]   # before="StepFluid"
    sim.step(1)
    # still water pushed by a_x = 0.05 m/s^2 for one step: u = a_x dt on every face away from the
    # walls (the surface there is still flat; the pool's small friction takes off well under 1%);
    # nothing flows through the walls, and beside them the set-up already pushes back (u < a_x dt)
    u = sim.water.u
    assert u[:, 2:-2] == pytest.approx(0.05 * sim.dt, rel=0.01)
    assert not u[:, 0].any() and not u[:, -1].any()
    assert (0.0 < u[:, 1]).all() and (u[:, 1] < 0.99 * 0.05 * sim.dt).all()
    sim.step(9)
    assert sim.water.u[:, 1:-1].mean() > 0.0
    assert not sim.failures
    from engine.contracts import Recorder                         # the README's own check of a mod's system
    with Recorder(sim) as rec:
        sim.step(3)
    assert [v for v in rec.violations() if v.startswith("Breeze")] == []
