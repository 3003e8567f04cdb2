"""The seams between parts hold: only esper's public API in engine/ and game/, world.py knows no
mods, the mod layer reaches the Simulation only through its public API."""
from __future__ import annotations

import ast
import re

from engine.paths import ROOT

SOURCES = sorted((ROOT / "engine").rglob("*.py")) + sorted((ROOT / "game").rglob("*.py"))


def test_only_esper_public_api():
    """No `esper._name` anywhere: esper's private module globals change in any release."""
    found = [f"{p.relative_to(ROOT)}:{n}" for p in SOURCES
             for n, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"\besper\._", line)]
    assert found == []


def test_world_imports_nothing_from_mods():
    tree = ast.parse((ROOT / "engine" / "world.py").read_text())
    names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in names if m and (m == "engine.mods" or m.startswith("engine.mods."))]
    assert "mods" not in [a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "engine"
                          for a in n.names]


def test_mods_use_only_public_simulation_api():
    """engine/mods.py reads and writes no `_name` of a Simulation (the names it calls `sim`)."""
    tree = ast.parse((ROOT / "engine" / "mods.py").read_text())
    private = [f"line {n.lineno}: sim.{n.attr}" for n in ast.walk(tree)
               if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
               and n.value.id in ("sim", "simulation") and n.attr.startswith("_")]
    assert private == []
