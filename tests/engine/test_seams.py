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


def test_reading_the_water_grid_changes_nothing():
    """WaterGrid is plain data: its accessors read, and a step leaves its arrays writable and in place."""
    import numpy as np

    from engine import Simulation
    from engine.levels import parse_level
    sim = Simulation(parse_level("[pool]\nsize = [0.5, 0.4]\ncell = 0.05\n[water]\nlevel = 0.2\n"))
    g = sim.water
    names = ("h", "bed", "u", "w", "ax", "az")
    arrays = {n: getattr(g, n) for n in names}
    copies = {n: a.copy() for n, a in arrays.items()}
    scalars = {k: v for k, v in vars(g).items() if not isinstance(v, np.ndarray) and not k.startswith("_")}
    _ = (g.h.sum(), g.eta, g.shape, g.volume(), g.velocity_at(0.2, 0.2), g.parameters(),
         [g.read(n) for n in names])
    assert {k: v for k, v in vars(g).items() if k in scalars} == scalars
    for n in names:
        assert getattr(g, n) is arrays[n] and arrays[n].flags.writeable
        assert np.array_equal(arrays[n], copies[n])
    sim.step(2)
    assert all(getattr(g, n) is arrays[n] and arrays[n].flags.writeable for n in names)


def test_the_simulation_times_its_systems_without_changing_them():
    """sim.timings (the one per-system profiler: the HUD and `bottles bench` read it) gathers each
    system's seconds, and a timed run gives the same bits as an untimed one."""
    from engine import Simulation
    from engine.levels import parse_level
    text = "[pool]\nsize = [0.6, 0.4]\ncell = 0.05\n[water]\nlevel = 0.2\n"
    runs = []
    for timed in (False, True):
        sim = Simulation(parse_level(text))
        sim.spawn_bottle((0.3, 0.35, 0.2), velocity=(0.2, -1.0, 0.0))
        if timed:
            sim.timings = {}
        sim.step(6)
        runs.append(sim.fingerprint())
        if timed:
            assert sorted(sim.timings) == sorted(sim.system_names())
            assert all(t > 0.0 for t in sim.timings.values())
        sim.close()
    assert runs[0] == runs[1]


def test_a_system_removed_during_a_step_does_not_run_again():
    from engine import Simulation
    from engine.levels import parse_level
    from engine.systems import System
    ran: list[str] = []

    class Remover(System):
        def process(self, dt: float) -> None:
            ran.append(self.name)
            if "Later" in self.sim.system_names():
                self.sim.remove_system("Later")

    class Later(System):
        def process(self, dt: float) -> None:
            ran.append(self.name)

    sim = Simulation(parse_level("[pool]\nsize = [0.4, 0.4]\ncell = 0.05\n"))
    sim.add_system(Remover())
    sim.add_system(Later())
    sim.step(2)
    assert ran == ["Remover", "Remover"]
    assert sim.system_names()[-1] == "Remover"
