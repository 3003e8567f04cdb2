"""Engine-owned saves: every level and bundled mod round-trips bit for bit; damaged or hostile files
are refused with one message, leave the running game untouched and touch no file."""
from __future__ import annotations

import io
import json
import os
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

from engine import saves
from engine.levels import load_level
from engine.paths import LEVELS
from engine.world import Simulation
from game import savegame
from game.controls import KEY_SYMBOLS

ROOT = Path(__file__).resolve().parents[2]


def _round_trip(sim: Simulation, tmp_path: Path, reopen) -> None:
    """save -> step -> load into a fresh simulation: the same fingerprint at the save and after
    stepping both on (bitwise-identical state)."""
    path, warnings = savegame.save(sim, tmp_path / "s.npz")
    assert warnings == []
    at_save = sim.fingerprint()
    sim.step(12)
    later = sim.fingerprint()
    fresh = reopen()
    assert fresh.fingerprint() != at_save
    savegame.load(fresh, path)
    assert fresh.fingerprint() == at_save
    fresh.step(12)
    assert fresh.fingerprint() == later
    assert fresh.total_water() == sim.total_water()
    fresh.close()


@pytest.mark.parametrize("name", sorted(p.stem for p in LEVELS.glob("*.toml")))
def test_every_level_saves_and_loads_bit_for_bit(name, tmp_path):
    """Every bundled level (the river's inflow side included) with a thrown, a shattered and a
    full open bottle and a prop in flight."""
    level = load_level(LEVELS / f"{name}.toml")
    sim = Simulation(level)
    sx, sz = level.pool.size
    y = level.water.level + 0.4
    sim.spawn_bottle((0.3 * sx, y, 0.5 * sz), velocity=(1.0, 0.0, 0.0), fill=0.6, sealed=False)
    sim.spawn_body("crate", 400.0, (0.6 * sx, y, 0.4 * sz), velocity=(0, -1, 0))
    sim.shatter(sim.spawn_bottle((0.5 * sx, y + 0.3, 0.6 * sz), fill=0.5))
    sim.step(6)
    _round_trip(sim, tmp_path, lambda: Simulation(level))
    sim.close()


@pytest.mark.parametrize("mod", ["fountain", "wind"])
def test_bundled_mods_save_and_load_bit_for_bit(mod, tmp_path):
    from engine.mods import mods_of, open_level
    level = LEVELS / "calm_pool.toml"

    def start():
        return open_level(level, [ROOT / "mods" / f"{mod}.py"], entry_points=False)
    sim = start()
    assert any(s == mod.capitalize() for s in sim.system_names())
    sim.spawn_bottle((1.0, 0.6, 1.0), velocity=(0.5, -1.0, 0.0))
    sim.step(40)
    _round_trip(sim, tmp_path, start)
    mods_of(sim).close()
    sim.close()


def test_a_mod_system_without_state_support_is_named_when_saving(tmp_path):
    from engine.mods import ModSet
    from engine.systems import System

    class Stir(System):
        def process(self, dt: float) -> None:
            pass

    def register(api):
        api.add_system(Stir(), after="StepFluid")
    sim = Simulation(load_level(LEVELS / "calm_pool.toml"))
    ms = ModSet()
    ms.add_module("stirrer", register)
    ms.attach(sim)
    _, warnings = savegame.save(sim, tmp_path / "s.npz")
    assert len(warnings) == 1 and 'mod "stirrer"' in warnings[0] and "Stir" in warnings[0]
    sim.close()


# -- damaged and hostile files ------------------------------------------------------------------
def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def _zip(members: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for k, v in members.items():
            zf.writestr(k, v)
    return buf.getvalue()


def _npy(a: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array(out, a, allow_pickle=True)
    return out.getvalue()


def _resealed(members: dict[str, bytes], meta: dict | bytes) -> bytes:
    """A file with metadata `meta` and a checksum that matches it: damage a checksum cannot see."""
    m = dict(members)
    raw = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    m["__meta__.npy"] = _npy(np.frombuffer(raw, np.uint8))
    m.pop("__sha256__.npy", None)
    m["__sha256__.npy"] = _npy(np.frombuffer(saves._digest(raw, m), np.uint8))
    return _zip(m)


def _mutate(node, rng: random.Random):
    """Change one value somewhere in a JSON tree: a type, a sign, a size, an absurd number."""
    paths = []

    def walk(n, trail):
        if isinstance(n, dict):
            for k, v in n.items():
                paths.append(trail + [k]); walk(v, trail + [k])
        elif isinstance(n, list):
            for i, v in enumerate(n[:50]):
                paths.append(trail + [i]); walk(v, trail + [i])
    walk(node, [])
    trail = rng.choice(paths)
    parent = node
    for k in trail[:-1]:
        parent = parent[k]
    key = trail[-1]
    choices = [None, -1, 10**400, 1e308, float("nan"), "x\x1b[2J", [], {}, [[[[[]]]]], True, 2**63, -2**40,
               {"$array": "a0", "scalar": True}, {"$array": "nope"}, "../../../etc/passwd", 0.5]
    if rng.random() < 0.2 and isinstance(parent, (dict, list)):
        del parent[key]
    else:
        parent[key] = rng.choice(choices)
    return node


def _corruptions(good: bytes, members: dict[str, bytes], meta: dict, rng: random.Random):
    """(what, bytes) pairs: bit flips, cuts, junk, hostile zip layouts, resealed bad metadata."""
    for j in range(90):
        b = bytearray(good)
        for _ in range(1 + j % 4):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        yield "flip", bytes(b)
    for j in range(20):
        yield "cut", good[: rng.randrange(len(good))]
    for j in range(10):
        i = rng.randrange(len(good))
        yield "junk", good[:i] + os.urandom(rng.randrange(1, 64)) + good[i:]
    yield "empty", b""
    yield "text", b"not a save at all\n" * 10
    yield "pickle", _zip({**members, "a0.npy": _npy(np.array([{"evil": 1}], dtype=object))})
    yield "pickled meta", _zip({**members, "__meta__.npy": _npy(np.array([object()], dtype=object))})
    yield "odd member", _zip({**members, "../escape.npy": b"x"})
    yield "many members", _zip({f"m{i}.npy": b"" for i in range(saves.MAX_MEMBERS + 1)}, zipfile.ZIP_STORED)
    yield "stored", _zip(members, zipfile.ZIP_STORED)[:-30]
    yield "old format", _resealed(members, {**meta, "version": 1})
    yield "foreign", _resealed(members, {"format": "something else", "version": 2, "state": {}})
    yield "class by name", _resealed(members, {**meta, "state": {"__object__": "tempfile:_TemporaryFileCloser",
                                                                  "attrs": {"name": "/tmp/victim"}}})
    yield "deep", _zip({**members, "__meta__.npy": _npy(np.frombuffer(b"[" * 100000, np.uint8))})
    deep = b'{"format": "bottles-and-water save", "version": 2, "state": ' + b"[" * 3000 + b"]" * 3000 + b"}"
    yield "deep resealed", _resealed(members, deep)
    yield "huge int", _resealed(members, {**meta, "version": int("9" * 4000)})
    for j in range(120):
        yield "resealed", _resealed(members, _mutate(json.loads(json.dumps(meta)), rng))


def _tree_listing(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_two_hundred_damaged_saves_never_raise_out_of_f9_nor_change_the_game(game, tmp_path):
    """F9 on each corrupted file: one "load failed" message, the running game bitwise unchanged
    (or the saved state itself, where the damage hit no content, or, for a resealed file whose
    changed values are still a valid state, a game that steps),
    and no file written or deleted anywhere under the test's folder."""
    for key, x in (("_1", 300), ("_4", 380)):
        game.on_key_press(KEY_SYMBOLS[key], 0)
        game.on_mouse_press(x, 150, 1, 0)
        game.update(0.2)
        game.on_mouse_release(x, 150, 1, 0)
    game.on_key_press(KEY_SYMBOLS["F5"], 0)
    at_save = game.sim.fingerprint()
    good = game.save_path.read_bytes()
    members = _members(game.save_path)
    meta = json.loads(np.lib.format.read_array(io.BytesIO(members["__meta__.npy"])).tobytes())
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    game.update(0.1)
    rng = random.Random(23)
    failed = loaded = 0
    bad = tmp_path / "bad.npz"
    for what, data in _corruptions(good, members, meta, rng):
        bad.write_bytes(data)
        game.save_path = bad
        game.messages.clear()
        before = game.sim.fingerprint()
        sim_before = game.sim
        listing = _tree_listing(tmp_path)
        game.on_key_press(KEY_SYMBOLS["F9"], 0)          # must not raise
        assert _tree_listing(tmp_path) == listing, what
        msgs = game.current_messages()
        if any(m.startswith("load failed") for m in msgs):
            failed += 1
            assert game.sim is sim_before and game.sim.fingerprint() == before, what
            assert all("\x1b" not in m for m in msgs)
        else:
            loaded += 1     # a flip in the zip's bookkeeping (a date, a padding byte) loses nothing
            assert what == "resealed" or game.sim.fingerprint() == at_save, (what, msgs)
            game.update(0.05)
            assert game.error is None or "non-finite" not in game.error
    assert failed >= 200, (failed, loaded)
    assert victim.read_text() == "keep me"


def test_a_zip_bomb_is_refused_from_its_directory(tmp_path, monkeypatch):
    """A member that declares more than the cap is refused before it is inflated."""
    import tracemalloc
    monkeypatch.setattr(saves, "MAX_TOTAL_BYTES", 4 * 2**20)
    bomb = tmp_path / "bomb.npz"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("a0.npy", "w") as f:
            chunk = bytes(2**20)
            for _ in range(16):
                f.write(chunk)
    bomb.write_bytes(buf.getvalue())
    assert bomb.stat().st_size < 2**20 // 8
    tracemalloc.start()
    with pytest.raises(saves.SaveError, match="expand"):
        saves.read(bomb)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 * 2**20


def test_f9_never_opens_the_level_or_mods_a_save_names(game, tmp_path):
    """A save whose level path points at a folder with mods: F9 restores onto the running level
    with the running mods, and imports nothing."""
    import sys
    evil = tmp_path / "evil"
    (evil / "mods").mkdir(parents=True)
    (evil / "mods" / "boom.py").write_text("import sys\nsys.modules['boom_ran'] = True\n")
    (evil / "level.toml").write_text((LEVELS / "calm_pool.toml").read_text())
    game.on_key_press(KEY_SYMBOLS["F5"], 0)
    members = _members(game.save_path)
    meta = json.loads(np.lib.format.read_array(io.BytesIO(members["__meta__.npy"])).tobytes())
    meta["state"]["level"]["path"] = str(evil / "level.toml")
    game.save_path.write_bytes(_resealed(members, meta))
    game.on_key_press(KEY_SYMBOLS["F9"], 0)
    assert "boom_ran" not in sys.modules
    assert str(game.sim.level.path) != str(evil / "level.toml")


def test_a_save_from_before_fall_off_loads(tmp_path):
    """Saves written before the FallOff system existed (its name absent from the order and the
    systems) load into this game and play on bit for bit as a fresh save does."""
    level = load_level(LEVELS / "calm_pool.toml")
    sim = Simulation(level)
    sim.spawn_bottle((1.0, 0.8, 1.0), velocity=(0.5, -1.0, 0.0), fill=0.5)
    sim.step(10)
    tree, _ = sim.state()
    old = dict(tree, order=[n for n in tree["order"] if n != "FallOff"],
               systems={k: v for k, v in tree["systems"].items() if k != "FallOff"})
    a, b = Simulation(level), Simulation(level)
    a.set_state(tree)
    b.set_state(old)
    a.step(20)
    b.step(20)
    assert a.fingerprint() == b.fingerprint()
    for s in (sim, a, b):
        s.close()


def test_the_water_since_start_counts_on_through_a_quick_load(game):
    """F3's "water ... L since start" is what declared sources (rain here) added since the level
    started: a quick load restores that count with the state instead of starting it again at 0,
    and a count that rounds to zero reads +0.00, never -0.00."""
    from game.hud import dev_lines

    def since() -> str:
        line = next(x for x in dev_lines(game) if x.startswith("water "))
        return line.split("(")[1].split(" L since start")[0]

    assert since() == "+0.00"
    game.on_key_press(KEY_SYMBOLS["T"], 0)
    for _ in range(40):
        game.update(0.05)
    before = since()
    assert float(before) > 0.0
    game.on_key_press(KEY_SYMBOLS["F5"], 0)
    game.on_key_press(KEY_SYMBOLS["F9"], 0)
    assert since() == before
