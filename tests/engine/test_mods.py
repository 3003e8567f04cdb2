"""Mods: the example mods do what they claim; failing mods are disabled with a clear message;
systems are ordered by name across mods, unknown names and cycles rejected naming the mod; mods
load from the entry-point group, a mods/ folder next to the level, and a path."""
from __future__ import annotations

import sys

import textwrap
from pathlib import Path

import numpy as np
import pytest

from engine import LevelError, Simulation, events
from engine import mods as modlib
from engine.levels import parse_level
from engine.mods import ModSet, hud_lines, level_mods_of, load_mods, open_level, throwables
from engine.paths import ROOT

WIND = ROOT / "mods" / "wind.py"
FOUNTAIN = ROOT / "mods" / "fountain.py"
POOL = "[pool]\nsize = [2.0, 1.0]\ncell = 0.05\nwall_height = 1.0\n[water]\nlevel = 0.3\n"


@pytest.fixture(autouse=True)
def _forget_sections():
    """Level sections are process-wide: drop whatever a test's mods added."""
    yield
    for name in list(modlib._SECTION_OWNERS):
        modlib.unregister_section(name)
        modlib._SECTION_OWNERS.pop(name, None)


def start(text: str, paths=(), level_path: Path | None = None) -> Simulation:
    """Load mods, then the level (it may use their sections), then attach them: what the game does."""
    ms = ModSet.load(paths, level_path, entry_points=False)
    sim = Simulation(parse_level(text, level_path))
    ms.attach(sim)
    return sim


def write_mod(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text("from engine.systems import System\nfrom engine import events\n" + textwrap.dedent(body))
    return path


# -- the example mods ---------------------------------------------------------------------------------
def test_wind_piles_water_downwind_and_pushes_bodies_above_it():
    text = POOL + "[wind]\nspeed = 10.0\ndirection = [1.0, 0.0]\ngust = 0.0\n"
    calm, windy = Simulation(parse_level(POOL)), start(text, [WIND])
    assert windy.system_names()[0] == "Wind" and windy.failures == []
    for sim in (calm, windy):
        sim.spawn_bottle((1.0, 0.9, 0.5))           # in the air above the water
        sim.step(24)
    bottle_calm, bottle_windy = (s.body(s.bodies()[0]) for s in (calm, windy))
    # drag 1/2 rho_air C_d A U^2 ~ 0.6 * 0.01 * 100 = 0.6 N on ~0.4 kg over 0.2 s: ~0.3 m/s along +x
    assert bottle_windy.velocity[0] > bottle_calm.velocity[0] + 0.05
    assert abs(bottle_windy.velocity[2] - bottle_calm.velocity[2]) < 1e-6
    windy.step(96)
    w = windy.water
    # wind set-up: the surface tilts up downwind (tau / (rho g h) per metre), the water moves along +x
    assert w.eta[:, -3:].mean() - w.eta[:, :3].mean() > 1e-4
    assert w.u[:, 1:-1].mean() > 0.0
    assert hud_lines(windy) == ["wind 10 m/s towards 0 deg (gusts +-0%)"]


def test_fountain_pours_its_rate_as_a_declared_source():
    sim = start(POOL + "[fountain]\nposition = [0.5, 0.5]\nrate = 0.002\n", [FOUNTAIN])
    v0, s0 = sim.total_water(), sim.water.source_volume
    sim.step(120)
    poured = 0.002 * 120 * sim.dt
    assert sim.total_water() - v0 == pytest.approx(poured, rel=1e-9)
    assert sim.water.source_volume - s0 == pytest.approx(poured, rel=1e-9)
    assert hud_lines(sim) == ["fountain: 2.0 L poured, 0.0 L drained"]


def test_fountain_with_a_drain_keeps_the_level_and_makes_a_current():
    sim = start(POOL + "[fountain]\nposition = [0.3, 0.5]\nrate = 0.004\ndrain = [1.7, 0.5]\n", [FOUNTAIN])
    v0 = sim.total_water()
    sim.step(240)
    assert sim.total_water() == pytest.approx(v0, abs=1e-9)
    assert sim.water.u[8:12, 10:30].mean() > 0.0      # water flows from the fountain to the drain


def test_fountain_section_is_validated_with_its_line():
    text = POOL + "[fountain]\nrate = -1\nsprout = 3\n"
    with pytest.raises(LevelError) as info:
        start(text, [FOUNTAIN], Path("lvl.toml"))
    assert info.value.lines() == ["lvl.toml:8: fountain.rate: must be between 0 and 10 (got -1)",
                                  'lvl.toml:9: fountain: unknown key "sprout"']


# -- failing mods are disabled, the simulation goes on -------------------------------------------------
def test_a_mod_raising_in_register_is_disabled_and_reported(tmp_path):
    bad = write_mod(tmp_path, "bad", """
        def register(api):
            api.add_hud_line(lambda sim: "never shown")
            raise RuntimeError("boom")
    """)
    sim = start(POOL, [bad, FOUNTAIN])
    (msg,) = sim.failures
    assert msg.startswith('mod "bad"') and "register() raised RuntimeError: boom" in msg
    assert f"{bad}:6" in msg and msg.endswith("the mod is disabled")
    assert "Fountain" in sim.system_names()               # the other mod still loaded
    assert hud_lines(sim) == ["fountain: 0.0 L poured, 0.0 L drained"]


def test_import_errors_and_missing_register(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def register(api)\n    pass\n")
    empty = write_mod(tmp_path, "empty", "X = 1\n")
    ms = ModSet.load([broken, empty, tmp_path / "nothere.py"], entry_points=False)
    assert [m.failed is not None for m in ms.mods] == [True, True, True]
    assert 'mod "broken"' in ms.failures[0] and "SyntaxError" in ms.failures[0] and f"{broken}:1" in ms.failures[0]
    assert ms.failures[1].startswith('mod "empty"') and "has no register(api) function" in ms.failures[1]
    assert "no such file or folder" in ms.failures[2]


def test_a_mod_raising_in_a_step_is_disabled_and_the_simulation_goes_on(tmp_path):
    flaky = write_mod(tmp_path, "flaky", """
        class Flaky(System):
            def process(self, dt):
                self.sim.water.ax[:, 1:-1] += 0.0
                if self.sim.time > 0.05:
                    raise ValueError("the wind died")

        class Helper(System):
            def process(self, dt):
                pass

        def register(api):
            api.add_system(Flaky(), after="StepFluid")
            api.add_system(Helper(), after="Flaky")
            api.on(events.Spawned, lambda e: None)
    """)
    sim = start(POOL, [flaky])
    got: list[events.ModFailed] = []
    sim.on(events.ModFailed, got.append)
    v0 = sim.total_water()
    sim.step(30)
    assert "Flaky" not in sim.system_names() and "Helper" not in sim.system_names()
    assert len(sim.failures) == 1 and 'mod "flaky"' in sim.failures[0]
    assert 'system "Flaky" raised ValueError: the wind died' in sim.failures[0]
    assert [e.mod for e in got] == ["flaky"]
    assert modlib.mods_of(sim).get("flaky").failed is not None
    assert sim.steps == 30 and sim.total_water() == pytest.approx(v0)   # no state lost


def test_a_mod_writing_a_water_array_kept_from_an_earlier_step_still_pushes_the_water(tmp_path):
    """The water's arrays are live and keep their identity across steps (issue 26: no read-only
    arrays between steps any more), so an array a mod keeps is still the one the step reads."""
    keeper = write_mod(tmp_path, "keeper", """
        class Keeper(System):
            def process(self, dt):
                if not hasattr(self, "ax"):
                    self.ax = self.sim.water.ax          # kept across steps: still the live array
                self.ax[:, 1:-1] += 0.5

        def register(api):
            api.add_system(Keeper(), before="StepFluid")
    """)
    sim = start(POOL, [keeper])
    sim.step(10)
    assert sim.steps == 10 and not sim.failures
    assert sim.water.read("u")[:, 1:-1].mean() > 0.0


def test_a_mod_raising_in_a_handler_or_hud_line_is_disabled(tmp_path):
    touchy = write_mod(tmp_path, "touchy", """
        class Quiet(System):
            def process(self, dt):
                pass

        def register(api):
            api.add_system(Quiet())
            api.on(events.Spawned, lambda e: 1 / 0)
    """)
    hud = write_mod(tmp_path, "hud", """
        def register(api):
            api.add_hud_line(lambda sim: sim.no_such_thing)
    """)
    sim = start(POOL, [touchy, hud])
    sim.spawn_bottle((1.0, 0.5, 0.5))
    sim.step(2)
    assert "Quiet" not in sim.system_names()
    assert any('mod "touchy": handler' in f and "ZeroDivisionError" in f for f in sim.failures)
    assert hud_lines(sim) == []
    assert any(f.startswith('mod "hud": HUD line raised AttributeError') for f in sim.failures)
    sim.step(2)                                            # still runs


# -- ordering ---------------------------------------------------------------------------------------------
ORDER_MOD = """
    class Named(System):
        def __init__(self, name):
            self.name = name
        def process(self, dt):
            pass

    def register(api):
{calls}
"""


def order_mod(folder: Path, name: str, *calls: str) -> Path:
    body = "\n".join(f"        api.add_system({c})" for c in calls)
    return write_mod(folder, name, ORDER_MOD.format(calls=body))


def test_systems_are_ordered_by_name_across_mods(tmp_path):
    a = order_mod(tmp_path, "a", 'Named("Gust"), after="StepFluid"', 'Named("Last")')
    b = order_mod(tmp_path, "b", 'Named("Spray"), before="Gust"', 'Named("Foam"), after="Gust", before="CoupleWater"',
                  'Named("First"), before="IntegrateBodies"')
    sim = start(POOL, [a, b])
    assert sim.failures == []
    assert sim.system_names() == ["First", "IntegrateBodies", "FallOff", "StepFluid", "Spray", "Gust", "Foam",
                                  "CoupleWater", "Shatter", "HeldWater", "Last"]


def test_unknown_system_names_are_rejected_naming_the_mod(tmp_path):
    a = order_mod(tmp_path, "a", 'Named("Gust"), after="StepFluids"')
    b = order_mod(tmp_path, "b", 'Named("Spray"), after="Gust"')   # depends on the rejected mod
    sim = start(POOL, [a, b])
    assert sim.system_names() == ["IntegrateBodies", "FallOff", "StepFluid", "CoupleWater", "Shatter", "HeldWater"]
    assert sim.failures[0].startswith('mod "a": cannot place "Gust" relative to unknown system "StepFluids"')
    assert sim.failures[1].startswith('mod "b": cannot place "Spray" relative to unknown system "Gust"')


def test_ordering_cycles_are_rejected_naming_the_mods(tmp_path):
    a = order_mod(tmp_path, "a", 'Named("Gust"), after="Spray"')
    b = order_mod(tmp_path, "b", 'Named("Spray"), after="Gust"')
    c = order_mod(tmp_path, "c", 'Named("Loop"), after="StepFluid", before="IntegrateBodies"')
    d = order_mod(tmp_path, "d", 'Named("Fine"), after="Shatter"')
    sim = start(POOL, [a, b, c, d])
    # b closes the cycle (it loaded last), so b goes; a, placed after b's system, then has no anchor
    assert sim.system_names() == ["IntegrateBodies", "FallOff", "StepFluid", "CoupleWater", "Shatter", "Fine",
                                  "HeldWater"]
    by_mod = {f.split('"')[1]: f for f in sim.failures}
    assert len(sim.failures) == 3 and set(by_mod) == {"a", "b", "c"}
    assert by_mod["b"].startswith('mod "b": ordering cycle "Gust" -> "Spray" -> "Gust"')
    assert 'from mods "a", "b"' in by_mod["b"]
    assert by_mod["a"].startswith('mod "a": cannot place "Gust" relative to unknown system "Spray"')
    assert by_mod["c"] == ('mod "c": ordering cycle "IntegrateBodies" -> "FallOff" -> "StepFluid" -> "Loop" -> '
                           '"IntegrateBodies" (each runs before the next; from mod "c"); the mod is disabled')


def test_duplicate_system_names_are_rejected(tmp_path):
    a = order_mod(tmp_path, "a", 'Named("StepFluid")')
    sim = start(POOL, [a])
    assert 'a system named "StepFluid" already exists (added by the engine)' in sim.failures[0]


# -- where mods come from --------------------------------------------------------------------------------
def test_mods_folder_next_to_the_level_and_its_section(tmp_path, tide_mod):
    (tmp_path / "mods").mkdir()
    write_mod(tmp_path / "mods", "tide", tide_mod + '    api.add_throwable("rubber duck", kind="object", '
              'model="sphere", radius=0.05, density=200)\n')
    (tmp_path / "mods" / "_private.py").write_text("raise SystemExit('never imported')\n")
    (tmp_path / "mods" / "zz_spy.py").write_text("import sys\nsys.modules['zz_spy_ran'] = True\n"
                                                 "def register(api):\n    pass\n")
    level = tmp_path / "level.toml"
    level.write_text(POOL)
    sim = open_level(level, entry_points=False)          # a downloaded level runs nothing by itself
    assert "Tide" not in sim.system_names() and "zz_spy_ran" not in sys.modules
    assert [p.name for p in level_mods_of(level)] == ["tide.py", "zz_spy.py"]
    level.write_text(POOL + "[tide]\nheight = 0.4\n")
    with pytest.raises(LevelError, match='unknown key "tide"'):
        open_level(level, entry_points=False)
    assert "zz_spy_ran" not in sys.modules
    sim = open_level(level, entry_points=False, level_mods=True)   # the player asked (--mods)
    assert "Tide" in sim.system_names() and sim.failures == []
    assert "zz_spy_ran" in sys.modules
    del sys.modules["zz_spy_ran"]
    assert sim.level.extra["tide"].height == 0.4
    assert [t.name for t in throwables(sim)] == ["empty sealed bottle", "full bottle", "open bottle", "stone ball",
                                                "rubber duck"]
    level.write_text(POOL + "[tide]\nheight = 4\n")
    with pytest.raises(LevelError, match=r"level.toml:8: tide.height: must be between 0 and 1 \(got 4\)"):
        open_level(level, entry_points=False, level_mods=True)


def test_mod_from_a_path_a_package_and_a_folder(tmp_path):
    pkg = tmp_path / "swirl"
    pkg.mkdir()
    (pkg / "helper.py").write_text("SPIN = 2.0\n")
    (pkg / "__init__.py").write_text(textwrap.dedent("""
        from engine.systems import System
        from .helper import SPIN

        class Swirl(System):
            def process(self, dt):
                self.sim.water.az[1:-1, :] += SPIN * 0.0

        def register(api):
            api.add_system(Swirl(), before="StepFluid")
    """))
    folder = tmp_path / "more"
    folder.mkdir()
    order_mod(folder, "one", 'Named("One")')
    order_mod(folder, "two", 'Named("Two")')
    sim = Simulation(parse_level(POOL))
    ms = load_mods(sim, [pkg, folder, FOUNTAIN, FOUNTAIN], entry_points=False)
    assert [m.name for m in ms.mods] == ["swirl", "one", "two", "fountain"]
    assert sim.system_names() == ["IntegrateBodies", "FallOff", "Swirl", "StepFluid", "Fountain", "CoupleWater",
                                  "Shatter", "HeldWater", "One", "Two"]


def test_entry_point_mods(monkeypatch):
    class EntryPoint:
        name, value = "breeze", "breeze:register"

        @staticmethod
        def load():
            def register(api):
                api.add_hud_line(lambda sim: "breezy")
            return register

    monkeypatch.setattr(modlib, "_entry_points", lambda: [EntryPoint()])
    sim = Simulation(parse_level(POOL))
    load_mods(sim)
    assert hud_lines(sim) == ["breezy"]


def test_bad_api_calls_fail_the_mod_with_the_reason(tmp_path):
    m = write_mod(tmp_path, "clumsy", """
        def register(api):
            api.add_throwable("anvil", kind="object", model="anvil", density=7800)
    """)
    sim = start(POOL, [m])
    assert 'mod "clumsy"' in sim.failures[0] and 'no model "anvil"' in sim.failures[0]


def test_levels_never_run_code(tmp_path):
    # a level is TOML data: a string that looks like code stays a string (and an unknown key)
    with pytest.raises(LevelError, match='unknown key "register"'):
        parse_level(POOL + '\nregister = "__import__(\'os\').system(\'false\')"\n', tmp_path / "l.toml")
    assert np.isfinite(Simulation(parse_level(POOL)).water.h).all()


def test_bottles_validate_names_the_mods_beside_a_level_and_imports_them_only_with_mods(tmp_path):
    import subprocess
    import sys
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "wind.py").write_text(WIND.read_text() + "\nopen(__file__ + '.ran', 'w').close()\n")
    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text(POOL + "[wind]\nspeed = 5.0\n")
    bad.write_text(POOL + "[wind]\nspeed = 500.0\n")
    out = subprocess.run([sys.executable, "-m", "game", "validate", str(good)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "would load with --mods" in out.stderr and "wind.py" in out.stderr
    assert 'unknown key "wind"' in out.stderr
    assert not (tmp_path / "mods" / "wind.py.ran").exists()          # nothing was imported
    out = subprocess.run([sys.executable, "-m", "game", "validate", "--mods", str(good), str(bad)],
                         capture_output=True, text=True, cwd=ROOT)
    assert (tmp_path / "mods" / "wind.py.ran").exists()
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert f"{good}: ok (with sections of mods: wind)" in out.stdout
    assert f"{bad}:8: wind.speed: must be between 0 and 60 (got 500)" in out.stderr


def test_validate_takes_a_mod_by_path_and_no_abbreviation_runs_a_levels_mods(tmp_path):
    """`validate --mod PATH` checks a level with that mod's sections and leaves the mods/ folder
    beside the level unimported; no command takes an abbreviation of an option (argparse read
    `--mod` as `--mods` where a command had only --mods, and ran the folder's code)."""
    import subprocess
    import sys
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "spy.py").write_text("open(__file__ + '.ran', 'w').close()\ndef register(api):\n    pass\n")
    (tmp_path / "elsewhere").mkdir()
    wind = tmp_path / "elsewhere" / "wind.py"
    wind.write_text(WIND.read_text())
    level = tmp_path / "windy.toml"
    level.write_text(POOL + "[wind]\nspeed = 5.0\n")
    out = subprocess.run([sys.executable, "-m", "game", "validate", "--mod", str(wind), str(level)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert f"{level}: ok (with sections of mods: wind)" in out.stdout
    assert not (tmp_path / "mods" / "spy.py.ran").exists()
    for argv in (["validate", "--mo", str(level)], ["record", str(level), "--mo"], ["play", str(level), "--mo"]):
        out = subprocess.run([sys.executable, "-m", "game", *argv], capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 2 and "unrecognized arguments: --mo" in out.stderr, out.stderr
        assert not (tmp_path / "mods" / "spy.py.ran").exists()
