"""System contracts (engine/contracts.py): every system declares READS, WRITES and EMITS; running
every bundled level (and the game's and bundled mods' systems) with recording proxies around the
stores finds no touch outside them and no declared entry left unused; a system that lies is caught."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import Simulation, events
from engine import contracts
from engine.components import Bottle, Shard
from engine.contracts import Recorder
from engine.levels import load_level, parse_level
from engine.paths import ROOT
from engine.systems import System
from engine.systems.fall_off import FALL_DEPTH
from engine.terrain import DECK

LEVELS = sorted((ROOT / "content" / "levels").glob("*.toml"))
POOL = "[pool]\nsize = [2.0, 1.0]\ncell = 0.05\nwall_height = 1.0\n[water]\nlevel = 0.3\n"
UPSIDE_DOWN = (0.0, 1.0, 0.0, 0.0)   # 180 deg about x: the mouth points down


def _scene(sim: Simulation) -> None:
    """Everything the engine's systems do within a few steps: an open full bottle upside down above
    the water (pours: parcels, a new mass model), an open empty one under water (fills), a sealed
    one thrown at a wall (Impact, Shattered, Spawned), one broken between steps above the water
    (its water waits in a Shattered event), a crate dropped in (Splash), a heavy stone box standing
    on the bed (solid columns: engine/blocking.py); past the deck's edge, a full bottle, a crate and
    a shard of the broken bottle about to fall out of the world (FallOff)."""
    level = sim.level
    sx, sz = level.pool.size
    y = level.water.level + 0.35
    sim.spawn_bottle((0.5 * sx, y, 0.5 * sz), orientation=UPSIDE_DOWN, fill=1.0, sealed=False)
    sim.spawn_bottle((0.65 * sx, max(level.water.level - 0.12, 0.06), 0.4 * sz), orientation=UPSIDE_DOWN,
                     sealed=False)
    sim.spawn_bottle((0.25, y, 0.3 * sz), velocity=(-25.0, 0.0, 0.0), fill=0.5)
    sim.spawn_body("crate", 400.0, (0.4 * sx, level.water.level + 0.12, 0.6 * sz), velocity=(0.0, -3.0, 0.0))
    shards = sim.shatter(sim.spawn_bottle((0.7 * sx, y + 0.3, 0.6 * sz), fill=0.5))
    # 0.3 x 0.2 x 0.3 m at 2600 kg/m^3: 47 kg, over [physics] block_mass, denser than the water
    sim.spawn_body("box", 2600.0, (0.3 * sx, 0.15, 0.3 * sz), size=(0.3, 0.2, 0.3))
    low = -FALL_DEPTH + 0.05
    sim.spawn_bottle((-DECK - 1.0, low, 0.5 * sz), velocity=(0.0, -2.0, 0.0), fill=1.0)
    sim.spawn_body("crate", 400.0, (sx + DECK + 1.0, low, 0.5 * sz), velocity=(0.0, -2.0, 0.0))
    sim.body(shards[0]).position[:] = (0.5 * sx, low, sz + DECK + 1.0)
    sim.body(shards[0]).velocity[:] = (0.0, -2.0, 0.0)


def _record(sim: Simulation, usage: dict, steps: int = 6) -> list[str]:
    with Recorder(sim, usage) as rec:
        sim.step(steps)
    return rec.violations()


@pytest.fixture(scope="module")
def usage() -> dict:
    """What each system class touched over every bundled level's scene (filled by the first test)."""
    return {}


@pytest.mark.parametrize("path", LEVELS, ids=[p.stem for p in LEVELS])
def test_every_bundled_level_keeps_every_contract(path: Path, usage: dict) -> None:
    sim = Simulation(load_level(path))
    try:
        _scene(sim)
        assert _record(sim, usage) == []
    finally:
        sim.close()


def test_mods_game_and_wave_maker_systems_keep_their_contracts(usage: dict) -> None:
    """The bundled mods (wind, fountain), the game's dye tracers and a source wave maker."""
    from engine.mods import ModSet
    from game.tracers import Tracers
    ms = ModSet.load([ROOT / "mods" / "wind.py", ROOT / "mods" / "fountain.py"], None, entry_points=False)
    sim = Simulation(parse_level(POOL + '[[wave_maker]]\nkind = "source"\nposition = [1.0, 0.5]\nrate = 0.002\n'
                                 'period = 0.5\nramp = 0.0\n[fountain]\ndrain = [1.5, 0.5]\n'))
    try:
        ms.attach(sim)
        tracers = sim.add_system(Tracers())
        tracers.drop(1.0, 0.5, np.random.default_rng(1))
        sim.spawn_bottle((1.0, 0.6, 0.5))
        assert _record(sim, usage, steps=4) == []
        assert {"Wind", "Fountain", "Tracers", "WaveMakers"} <= {c.__name__ for c in usage}
    finally:
        sim.close()
        from engine import mods as modlib
        for name in list(modlib._SECTION_OWNERS):
            modlib.unregister_section(name)
            modlib._SECTION_OWNERS.pop(name, None)


def test_every_declared_entry_is_used(usage: dict) -> None:
    """Declared but never touched over all the scenes above: the contract says more than the code does."""
    if len(usage) < 8:
        pytest.skip("needs the scenes of the two tests above (run the whole module)")
    assert contracts.unused(usage) == []


def test_every_system_class_declares_its_contract() -> None:
    """Every System subclass the engine, the game and the bundled mods define declares all three."""
    import inspect

    import engine.systems  # noqa: F401  (the engine's systems)
    import game.tracers  # noqa: F401
    from engine import mods as modlib
    from engine.mods import ModSet
    from engine.systems.wave_maker import WaveMakers  # noqa: F401
    ModSet.load([ROOT / "mods" / "wind.py", ROOT / "mods" / "fountain.py"], None, entry_points=False)
    for name in list(modlib._SECTION_OWNERS):
        modlib.unregister_section(name)
        modlib._SECTION_OWNERS.pop(name, None)

    def walk(cls: type) -> list[type]:
        return [cls] + [s for c in cls.__subclasses__() for s in walk(c)]

    def ours(cls: type) -> bool:
        try:
            path = Path(inspect.getfile(cls)).resolve()
        except (TypeError, OSError):
            return False
        return any(path.is_relative_to(ROOT / d) for d in ("engine", "game", "mods"))
    ours = [c for c in walk(System)[1:] if ours(c)]
    assert len(ours) >= 9
    missing = [c.__qualname__ for c in ours if c.READS is None or c.WRITES is None or c.EMITS is None]
    assert missing == []


# -- the check can fail ------------------------------------------------------------------------
class Liar(System):
    """Declares it only reads the depth; it writes the velocities, reads positions, breaks a
    bottle's seal, draws from the generator and emits a Splash."""
    READS = ("WaterGrid.h",)
    WRITES = ()
    EMITS = ()

    def process(self, dt: float) -> None:
        sim = self.sim
        sim.water.u[0, 1] += 0.01
        _ = sim.body_store.pos[0]
        import esper
        for _, bottle in esper.get_component(Bottle):
            bottle.sealed = False
        sim.rng.random()
        sim.emit(events.Splash(0, (0.0, 0.0, 0.0), 1.0))


class Peeker(System):
    """Declares nothing it does not do, except that it reads another system's attribute."""
    READS = ()
    WRITES = ()
    EMITS = ()

    def process(self, dt: float) -> None:
        _ = self.sim.get_system("CoupleWater").displaced


def test_a_lying_system_is_caught() -> None:
    sim = Simulation(parse_level(POOL))
    try:
        sim.spawn_bottle((1.0, 0.6, 0.5))
        sim.add_system(Liar(), after="StepFluid")
        sim.add_system(Peeker())
        got = _record(sim, {}, steps=2)
        assert got == ["Liar reads BodyStore.pos but does not declare it in READS",
                       "Liar reads Bottle but does not declare it in READS",
                       "Liar reads Simulation.rng but does not declare it in READS",
                       "Liar reads WaterGrid.u but does not declare it in READS",
                       "Liar writes Bottle but does not declare it in WRITES",
                       "Liar writes Simulation.rng but does not declare it in WRITES",
                       "Liar writes WaterGrid.u but does not declare it in WRITES",
                       "Liar emits Splash but does not declare it in EMITS",
                       "Peeker reads system:CoupleWater.displaced but does not declare it in READS"]
    finally:
        sim.close()


def test_a_system_declaring_what_it_never_touches_is_flagged() -> None:
    class Idle(System):
        READS = ("BodyStore.pos", Shard)
        WRITES = ("WaterGrid.ax",)
        EMITS = (events.Splash,)

        def process(self, dt: float) -> None:
            pass

    sim = Simulation(parse_level(POOL))
    try:
        sim.add_system(Idle())
        usage: dict = {}
        assert _record(sim, usage, steps=1) == []
        assert [u for u in contracts.unused(usage) if u.startswith("Idle")] == [
            "Idle declares READS BodyStore.pos but never read it", "Idle declares READS Shard but never read it",
            "Idle declares WRITES WaterGrid.ax but never wrote it", "Idle declares EMITS Splash but never emitted it"]
    finally:
        sim.close()


def test_an_unknown_entry_is_refused_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match='BodyStore has no field "position"'):
        class Typo(System):
            READS = ("BodyStore.position",)
    with pytest.raises(TypeError, match="names no store"):
        class Store(System):
            WRITES = ("Water.h",)
    with pytest.raises(TypeError, match="not an event type"):
        class Emits(System):
            EMITS = ("Splash",)
    with pytest.raises(TypeError, match="names another system's attribute"):
        class Seam(System):     # systems share data through stores: another system's attribute is no entry
            READS = ("system:CoupleWater.b_prev",)


def test_recording_changes_nothing() -> None:
    """The proxies only watch: a recorded run and a plain one end bit for bit equal."""
    def run(record: bool) -> str:
        sim = Simulation(load_level(ROOT / "content" / "levels" / "bottle_smash.toml"))
        try:
            _scene(sim)
            if record:
                _record(sim, {}, steps=6)
            else:
                sim.step(6)
            return sim.fingerprint() + repr(sim.water_in_flight) + repr(sim.total_water())
        finally:
            sim.close()
    assert run(True) == run(False)


def test_the_readme_example_runs_and_finds_nothing(monkeypatch, capsys) -> None:
    import re
    monkeypatch.chdir(ROOT)
    section = (ROOT / "README.md").read_text().split("## System order", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == "[]\n"
