"""The mod API. A mod is a Python module or package with `register(api)`:

    from engine.systems import System

    class Breeze(System):
        def process(self, dt: float) -> None:
            self.sim.water.ax[:, 1:-1] += 0.05      # m/s^2 along +x on every inner face

    def register(api):
        api.add_system(Breeze(), before="StepFluid")

Mods come from the `bottles.mods` entry-point group (packages the player installed), from
`--mod PATH` (a .py file, a package folder, or a folder of mods) and, only when the player asks
(`--mods`, `level_mods=True`), from the `mods/` folder next to the level file. Mods are code: they
run with the player's rights. Levels are data and never run code: a level downloaded with a
`mods/` folder beside it runs nothing until the player asks for its mods (`level_mods_of` lists
them without importing anything).

Loading happens in two phases, because a mod may add a level section that the level then uses:
`ModSet.load(...)` imports every mod and calls its register(api) (recording its requests), the
level is parsed, and `ModSet.attach(sim)` places every mod's systems at once: all placement
requests become one graph with the engine's own order, so unknown names and before/after cycles
(also across mods) are found before anything runs, and reported naming the mod. A mod that raises
while loading, in a step, in an event handler or in a HUD line is reported with its name and the
error and disabled; the simulation goes on. `open_level(level, mods)` does all of it.
"""
from __future__ import annotations

import collections
import dataclasses
import heapq
import importlib
import importlib.metadata
import importlib.util
import sys
import traceback
import weakref
from graphlib import CycleError, TopologicalSorter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Iterable

from engine import events as ev
from engine import health
from engine.levels.features import ThrowableSpec
from engine.levels.fields import build
from engine.levels.loader import _SECTIONS, load_level, register_section, unregister_section
from engine.paths import find_level
from engine.systems.base import System
from engine.world import NonFiniteError

if TYPE_CHECKING:
    from engine.world import Simulation
    from engine.levels import Level

GROUP = "bottles.mods"
# what a level that declares no [[throwable]] offers
DEFAULT_THROWABLES = (ThrowableSpec(name="empty sealed bottle"), ThrowableSpec(name="full bottle", fill=1.0),
                      ThrowableSpec(name="open bottle", sealed=False),
                      ThrowableSpec(name="stone ball", kind="object", model="sphere", density=2600.0, radius=0.06))
_SECTION_OWNERS: dict[str, str] = {}  # level section -> mod that added it
# the ModSet attached to each live Simulation (mods_of); the Simulation itself knows no mods
_ATTACHED: "weakref.WeakKeyDictionary[Simulation, ModSet]" = weakref.WeakKeyDictionary()


class ModError(Exception):
    """A mod asked for something impossible (bad arguments, unknown system, ordering cycle)."""


@dataclass(slots=True)
class SystemRequest:
    """One add_system call: place `system` before and/or after named systems."""
    mod: str
    system: System
    before: str | None
    after: str | None


@dataclass(slots=True)
class Mod:
    """A loaded mod and everything its register(api) asked for."""
    name: str
    origin: str                                   # file path, or "entry point NAME"
    file: Path | None = None                      # where its code lives (for messages, relative models)
    systems: list[SystemRequest] = field(default_factory=list)
    handlers: list[tuple[type, Callable[[Any], Any]]] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    throwables: list[ThrowableSpec] = field(default_factory=list)
    hud: list[Callable[["Simulation"], str]] = field(default_factory=list)
    failed: str | None = None                     # why it was disabled


class ModAPI:
    """What register(api) may do. `api.sim` is None while registering, the Simulation afterwards."""

    def __init__(self, mod: Mod, mods: "ModSet") -> None:
        self._mod = mod
        self._mods = mods

    @property
    def name(self) -> str:
        return self._mod.name

    @property
    def sim(self) -> "Simulation | None":
        return self._mods.sim

    def add_system(self, system: System, *, before: str | None = None, after: str | None = None) -> None:
        """Run `system` every step, before and/or after systems named like "StepFluid" (default: last).

        Engine systems: IntegrateBodies, FallOff, StepFluid, CoupleWater, Shatter, HeldWater (and WaveMakers in levels
        that have wave makers); other mods' systems are named by their `name`.
        """
        if not isinstance(system, System):
            raise ModError(f"add_system needs an engine.systems.System instance (got {system!r})")
        for word, anchor in (("before", before), ("after", after)):
            if anchor is not None and not isinstance(anchor, str):
                raise ModError(f"add_system({word}=...) takes a system name (got {anchor!r})")
        self._mod.systems.append(SystemRequest(self._mod.name, system, before, after))

    def on(self, kind: type, fn: Callable[[Any], Any]) -> None:
        """Call fn(event) after each step for every event of type `kind` (engine.events.Impact ...)."""
        if not isinstance(kind, type) or not callable(fn):
            raise ModError(f"on(kind, fn) needs an event class and a function (got {kind!r}, {fn!r})")
        self._mod.handlers.append((kind, fn))

    def add_level_section(self, name: str, cls: type) -> None:
        """Let levels hold `[name]`, validated against the frozen dataclass `cls` (see engine.levels.fields).

        The validated value is `sim.level.extra[name]` (absent when the level has no such section).
        """
        owner = _SECTION_OWNERS.get(name)
        if owner is not None and owner != self._mod.name and name in _SECTIONS:
            raise ModError(f'level section [{name}] is already added by mod "{owner}"')
        try:
            register_section(name, cls)
        except ValueError as exc:
            raise ModError(str(exc)) from None
        _SECTION_OWNERS[name] = self._mod.name
        self._mod.sections.append(name)

    def add_throwable(self, name: str, kind: str = "bottle", **fields: Any) -> None:
        """Offer something to throw: kind "bottle" (fill, sealed, model) or "object" (model, density ...)."""
        problems: list[tuple[str, str]] = []
        spec = build(ThrowableSpec, dict(name=name, kind=kind, **fields), "throwable", problems)
        if spec.kind == "object" and spec.model and not problems:
            from engine.levels.resources import ResourceError, find_model
            try:
                path = find_model(spec.model, self._mod.file, confine=False)   # a mod is code: trusted
            except ResourceError as exc:
                problems.append(("throwable.model", str(exc)))
            else:
                if path is not None:      # found beside the mod: thrown from there, not from the level's folder
                    spec = dataclasses.replace(spec, model=str(path.resolve()))
        if problems:
            raise ModError("add_throwable: " + "; ".join(f"{k}: {m}" for k, m in problems))
        self._mod.throwables.append(spec)

    def add_hud_line(self, fn: Callable[["Simulation"], str]) -> None:
        """Show fn(sim) as a line of the game's HUD, refreshed every frame."""
        if not callable(fn):
            raise ModError(f"add_hud_line needs a function of the simulation (got {fn!r})")
        self._mod.hud.append(fn)

    def section(self, name: str, default: Any = None) -> Any:
        """The level's validated `[name]` section, or `default` when the level has none."""
        sim = self._mods.sim
        return default if sim is None else sim.level.extra.get(name, default)


# -- finding and importing mods ---------------------------------------------------------------------
def _entry_points() -> list[Any]:
    return sorted(importlib.metadata.entry_points(group=GROUP), key=lambda e: e.name)


def _mods_in_folder(folder: Path) -> list[Path]:
    """Mods in a folder: every *.py not starting with "_" and every package (a folder with __init__.py)."""
    out = [p for p in folder.glob("*.py") if not p.name.startswith("_")]
    out += [p for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").is_file()]
    return sorted(out, key=lambda p: p.name)


def level_mods_of(level_path: str | Path) -> list[Path]:
    """The mods in the `mods/` folder beside a level file, found without importing any of them.

    `level_path` is resolved as the loader resolves it (a bundled level's bare name is its file in
    content/levels/, `engine.paths.find_level`); a level that is not a file has no mods, so a
    mistyped name never reaches the `mods/` folder of the working directory."""
    level = find_level(str(level_path))
    try:
        if not level.is_file():
            return []
        folder = level.parent / "mods"
        return _mods_in_folder(folder) if folder.is_dir() else []
    except OSError:
        return []


def _import_path(name: str, path: Path) -> ModuleType:
    """Import a mod file or package under a private module name (a fresh module every load)."""
    modname = f"bottles_mod_{name}"
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(modname, path / "__init__.py",
                                                      submodule_search_locations=[str(path)])
    else:
        spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    return module


# the full tracebacks of the latest mod failures, newest last (the game prints them and logs them)
RECENT_TRACEBACKS: "collections.deque[str]" = collections.deque(maxlen=32)


def _where(exc: BaseException, file: Path | None) -> str:
    """' (mods/wind.py:12)': the deepest traceback frame inside the mod's own code, if any, and
    what to do where the error has a known cause (`_hint`)."""
    RECENT_TRACEBACKS.append("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    if file is None:
        return _hint(exc)
    root = file if file.is_dir() else file.parent if file.name == "__init__.py" else file
    best = None
    for frame in traceback.extract_tb(exc.__traceback__):
        f = Path(frame.filename)
        if f == root or root in f.parents:
            best = frame
    if best is None and isinstance(exc, SyntaxError) and exc.filename:
        return f" ({exc.filename}:{exc.lineno})"
    return (f" ({best.filename}:{best.lineno})" if best else "") + _hint(exc)


def _hint(exc: BaseException) -> str:
    """What to do about an error with a known cause in mods, else ''."""
    if isinstance(exc, ValueError) and "read-only" in str(exc):
        return (" (sim.water.read(name) gives a read-only view, for reading only: write through the live "
                "array, e.g. sim.water.ax[...] += ...)")
    return ""


class ModSet:
    """The mods of one game session: loaded, then attached to a Simulation."""

    def __init__(self) -> None:
        self.mods: list[Mod] = []
        self.failures: list[str] = []
        self.sim: Simulation | None = None
        self._wrapped: dict[str, list[tuple[type, Callable[[Any], Any]]]] = {}
        self._requests: dict[str, SystemRequest] = {}

    # -- loading ---------------------------------------------------------------------------------
    @classmethod
    def load(cls, paths: Iterable[str | Path] = (), level_path: str | Path | None = None,
             entry_points: bool = True, level_mods: bool = False) -> "ModSet":
        """Import and register mods: the entry-point group, `mods/` next to the level (only with
        `level_mods=True`: the player asked for them), then `paths`."""
        ms = cls()
        if entry_points:
            for ep in _entry_points():
                ms._load_one(ep.name, f"entry point {ep.value}", None, ep.load)
        if level_path is not None and level_mods:
            for p in level_mods_of(level_path):
                ms.add_path(p)
        for q in paths:
            ms.add_path(Path(q))
        return ms

    def add_path(self, path: Path) -> None:
        """Load a mod file, a package folder, or every mod in a plain folder."""
        if path.is_dir() and not (path / "__init__.py").is_file():
            for p in _mods_in_folder(path):
                self.add_path(p)
            return
        name = path.stem if path.suffix == ".py" else path.name
        if not path.exists():
            self._fail_load(name, str(path), f'mod "{name}": no such file or folder {path} '
                            "(give a .py file, a package folder, or a folder of mods)")
            return
        self._load_one(name, str(path), path.resolve(), lambda: _import_path(name, path))

    def add_module(self, name: str, module: Any, origin: str = "") -> None:
        """Register an already imported module (or a bare register function) as a mod."""
        file = getattr(module, "__file__", None)
        self._load_one(name, origin or f"module {getattr(module, '__name__', name)}",
                       Path(file).resolve() if file else None, lambda: module)

    def _load_one(self, name: str, origin: str, file: Path | None, importer: Callable[[], Any]) -> None:
        for other in self.mods:
            if other.name == name:
                if other.file is not None and other.file == file:
                    return  # the same mod found twice (folder and --mod): load it once
                self._fail_load(name, origin, f'mod "{name}" ({origin}): another mod of that name is '
                                f"already loaded from {other.origin}; rename one of them")
                return
        mod = Mod(name, origin, file)
        try:
            module = importer()
        except BaseException as exc:  # SyntaxError, ImportError, anything the module body raises
            self.mods.append(mod)
            self.disable(name, f'mod "{name}" ({origin}): failed to import: {type(exc).__name__}: '
                         f"{exc}{_where(exc, file)}; the mod is disabled")
            return
        register = module if callable(module) and not isinstance(module, ModuleType) else getattr(module, "register", None)
        self.mods.append(mod)
        if not callable(register):
            self.disable(name, f'mod "{name}" ({origin}): has no register(api) function; the mod is disabled')
            return
        try:
            register(ModAPI(mod, self))
        except BaseException as exc:
            self.disable(name, f'mod "{name}" ({origin}): register() raised {type(exc).__name__}: {exc}'
                         f"{_where(exc, file)}; the mod is disabled")

    def _fail_load(self, name: str, origin: str, msg: str) -> None:
        self.mods.append(Mod(name, origin, failed=msg))
        self.failures.append(msg)

    # -- state -----------------------------------------------------------------------------------
    def get(self, name: str) -> Mod:
        for m in self.mods:
            if m.name == name:
                return m
        raise KeyError(f'no mod named "{name}"')

    @property
    def active(self) -> list[Mod]:
        return [m for m in self.mods if m.failed is None]

    def disable(self, name: str, msg: str, report: bool = True) -> None:
        """Switch a mod off: drop its systems, handlers, sections, throwables and HUD lines; report why.

        `report=False` when the failure was already reported (the guard of a mod's system).
        """
        mod = self.get(name)
        if mod.failed is not None:
            return
        mod.failed = msg
        self.failures.append(msg)
        for section in mod.sections:
            if _SECTION_OWNERS.get(section) == name:
                unregister_section(section)
                _SECTION_OWNERS.pop(section, None)
        sim = self.sim
        if sim is None:
            return
        if report:
            sim.failures.append(msg)
            sim.emit(ev.ModFailed(name, msg, sim.time))
        running = set(sim.system_names())
        for req in mod.systems:
            n = req.system.name
            if n in running and sim.owner_of(n) == name:
                sim.remove_system(n)
        for kind, fn in self._wrapped.pop(name, []):
            sim.off(kind, fn)

    def close(self) -> None:
        """Forget the level sections these mods added (tests and tools that load mods repeatedly)."""
        for mod in self.mods:
            for section in mod.sections:
                if _SECTION_OWNERS.get(section) == mod.name:
                    unregister_section(section)
                    _SECTION_OWNERS.pop(section, None)

    # -- attaching ---------------------------------------------------------------------------------
    def attach(self, sim: "Simulation") -> "ModSet":
        """Place every mod's systems in `sim` (one graph, all at once) and subscribe its handlers."""
        if self.sim is not None:
            raise ModError("these mods are already attached to a simulation")
        if mods_of(sim) is not None:
            raise ModError("that simulation already has mods attached")
        self.sim = sim
        _ATTACHED[sim] = self
        for mod in self.mods:
            if mod.failed is not None:
                sim.failures.append(mod.failed)
                sim.emit(ev.ModFailed(mod.name, mod.failed, sim.time))
        sim.on(ev.ModFailed, self._on_mod_failed)
        order = self._resolve(sim.system_names())
        base = set(sim.system_names())
        previous: str | None = None
        for name in order:
            if name in base:
                previous = name
                continue
            req = self._requests[name]
            if self.get(req.mod).failed is not None:
                continue
            try:
                self._guard_system(req.system, req.mod)
                if previous is None:
                    sim.add_system(req.system, before=sim.system_names()[0], owner=req.mod)
                else:
                    sim.add_system(req.system, after=previous, owner=req.mod)
            except BaseException as exc:  # bind() of the mod's system raised
                self.disable(req.mod, f'mod "{req.mod}": system "{name}" failed to start: '
                             f"{type(exc).__name__}: {exc}{_where(exc, self.get(req.mod).file)}; the mod is disabled")
                continue
            previous = name
        for mod in self.active:
            for kind, fn in mod.handlers:
                wrapped = self._guard_handler(mod.name, kind, fn)
                self._wrapped.setdefault(mod.name, []).append((kind, wrapped))
                sim.on(kind, wrapped)
        return self

    def _guard_system(self, system: System, owner: str) -> None:
        """Wrap a mod's system so that an exception disables it instead of stopping the step.

        The failing system leaves the step at once; the ModFailed event it emits switches off the
        rest of its mod after the step (`_on_mod_failed`). A system that leaves a non-finite value
        where there was none is disabled too, and the step raises NonFiniteError naming it.
        """
        sim = self.sim
        assert sim is not None
        inner = system.process

        def stop(msg: str) -> None:
            sim.failures.append(msg)
            sim.emit(ev.ModFailed(owner, msg, sim.time))
            system.process = lambda dt: None  # type: ignore[method-assign]
            if system.name in sim.system_names():
                sim.remove_system(system.name)

        def process(dt: float) -> None:
            clean = health.describe(sim) is None   # a NaN already there is not this mod's doing
            try:
                inner(dt)
            except BaseException as exc:   # sys.exit(), a KeyboardInterrupt raised by the mod: contained too
                stop(f'mod "{owner}": system "{system.name}" raised {type(exc).__name__}: {exc}'
                     f"{_where(exc, self.get(owner).file)} at t={sim.time:.3f} s; the system is disabled, "
                     "the simulation goes on")
                return
            bad = health.describe(sim) if clean else None
            if bad is not None:
                msg = (f'mod "{owner}": system "{system.name}" wrote a non-finite value: {bad} at t={sim.time:.3f} s; '
                       "the mod's system is disabled")
                stop(msg)
                raise NonFiniteError(msg)

        system.process = process  # type: ignore[method-assign]

    def _on_mod_failed(self, event: ev.ModFailed) -> None:
        """One of a mod's systems raised and was taken out of the step: switch off the rest of the mod."""
        if any(m.name == event.mod for m in self.mods):
            self.disable(event.mod, event.error, report=False)

    def _guard_handler(self, mod: str, kind: type, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def handler(event: Any) -> None:
            try:
                fn(event)
            except BaseException as exc:
                name = getattr(fn, "__qualname__", repr(fn))
                self.disable(mod, f'mod "{mod}": handler {name} for {kind.__name__} raised {type(exc).__name__}: '
                             f"{exc}{_where(exc, self.get(mod).file)}; the mod is disabled, the simulation goes on")
        return handler

    def _resolve(self, base: list[str]) -> list[str]:
        """Order the engine's systems and every active mod's systems; disable mods that cannot be placed."""
        while True:
            requests: dict[str, SystemRequest] = {}
            rejected = False
            for mod in self.active:
                names = [r.system.name for r in mod.systems]
                clash = next((n for n in names if n in base or n in requests or names.count(n) > 1), None)
                if clash is not None:
                    owner = "the engine" if clash in base else (f'mod "{requests[clash].mod}"' if clash in requests
                                                               else "the same mod")
                    self.disable(mod.name, f'mod "{mod.name}": a system named "{clash}" already exists '
                                 f"(added by {owner}); give yours another name; the mod is disabled")
                    rejected = True
                    break
                for r in mod.systems:
                    requests[r.system.name] = r
            if rejected:
                continue
            known = set(base) | set(requests)
            for r in requests.values():
                for anchor in (r.before, r.after):
                    if anchor is not None and anchor not in known:
                        self.disable(r.mod, f'mod "{r.mod}": cannot place "{r.system.name}" relative to unknown system '
                                     f'"{anchor}" (systems: {", ".join(sorted(known))}); the mod is disabled')
                        rejected = True
                        break
                if rejected:
                    break
            if rejected:
                continue
            edges: dict[str, set[str]] = {n: set() for n in known}  # a -> b: a runs before b
            for a, b in zip(base, base[1:]):
                edges[a].add(b)
            for r in requests.values():
                if r.before is not None:
                    edges[r.system.name].add(r.before)
                if r.after is not None:
                    edges[r.after].add(r.system.name)
            order = list(base) + list(requests)
            sorter = _sorter(edges, order)
            try:
                sorter.prepare()
            except CycleError as exc:
                cycle = list(exc.args[1][:-1])   # graphlib: each node runs before the next, first == last
                first = min(range(len(cycle)), key=lambda j: order.index(cycle[j]))
                cycle = cycle[first:] + cycle[:first]
                mods = []
                for n in cycle:
                    if n in requests and requests[n].mod not in mods:
                        mods.append(requests[n].mod)
                culprit = max(mods, key=lambda m: [x.name for x in self.mods].index(m))
                path = " -> ".join(f'"{n}"' for n in cycle + [cycle[0]])
                who = ", ".join(f'"{m}"' for m in mods)
                self.disable(culprit, f'mod "{culprit}": ordering cycle {path} (each runs before the next; '
                             f"from mod{'s' if len(mods) > 1 else ''} {who}); the mod is disabled")
                continue
            self._requests = requests
            return _topological(sorter, base, requests)


def _sorter(edges: dict[str, set[str]], order: list[str]) -> "TopologicalSorter[str]":
    """The graph for graphlib, nodes and edges added in `order` (so a cycle is found the same way
    every time); an edge a -> b means a runs before b."""
    sorter: TopologicalSorter[str] = TopologicalSorter()
    for a in order:
        sorter.add(a)
        for b in sorted(edges[a], key=order.index):
            sorter.add(b, a)
    return sorter


def _topological(sorter: "TopologicalSorter[str]", base: list[str], requests: dict[str, SystemRequest]) -> list[str]:
    """The prepared sorter's order; among ready systems the one nearest where it asked to be goes first.

    A system asked to run after X wants to sit just after X, one asked before X just before it;
    ties keep the order the mods were loaded and the requests made.
    """
    depth = len(requests) + 2
    # key: (index of the engine system it hangs from, then +1 / -1 per "after" / "before" hop)
    key: dict[str, tuple[int, ...]] = {n: (i,) + (0,) * depth for i, n in enumerate(base)}

    def hop(k: tuple[int, ...], step: int) -> tuple[int, ...]:
        j = next((j for j in range(1, len(k)) if k[j] == 0), None)
        return k if j is None else k[:j] + (step,) + k[j + 1:]

    def want(n: str, seen: int = 0) -> tuple[int, ...]:
        if n not in key:
            r = requests[n]
            if seen > len(requests) or (r.after is None and r.before is None):
                key[n] = (len(base),) + (0,) * depth
            elif r.after is not None:
                key[n] = hop(want(r.after, seen + 1), 1)
            else:
                key[n] = hop(want(r.before, seen + 1), -1)  # type: ignore[arg-type]
        return key[n]

    seq = {n: i for i, n in enumerate(list(base) + list(requests))}
    ready: list[tuple[tuple[int, ...], int, str]] = []
    out: list[str] = []
    while sorter.is_active():
        for n in sorter.get_ready():
            heapq.heappush(ready, (want(n), seq[n], n))
        _, _, n = heapq.heappop(ready)
        out.append(n)
        sorter.done(n)
    return out


# -- the game's entry points ------------------------------------------------------------------------
def load_mods(sim: "Simulation", paths: Iterable[str | Path] = (), level_path: str | Path | None = None,
              entry_points: bool = True, level_mods: bool = False) -> ModSet:
    """Load mods and attach them to an existing simulation (their level sections are not in its level;
    use `open_level` to validate those too). The level's own mods/ folder only with `level_mods`."""
    if level_path is None and sim.level.path is not None:
        level_path = sim.level.path
    return ModSet.load(paths, level_path, entry_points, level_mods).attach(sim)


def open_level(level_path: str | Path, mod_paths: Iterable[str | Path] = (), entry_points: bool = True,
               level_mods: bool = False) -> "Simulation":
    """Load mods, then the level (mods may add sections to it), then start it with the mods attached.

    The mods/ folder beside the level is loaded only with `level_mods=True` (the player asked).
    Raises LevelError listing every level problem; mod problems are in `sim.failures`.
    """
    from engine.world import Simulation
    mods = ModSet.load(mod_paths, level_path, entry_points, level_mods)
    try:
        level = load_level(level_path)
    except BaseException:
        mods.close()
        raise
    sim = Simulation(level)
    mods.attach(sim)
    return sim


def load_level_with_mods(level_path: str | Path, mod_paths: Iterable[str | Path] = (), entry_points: bool = True,
                         level_mods: bool = False) -> "Level":
    """The level as `open_level` reads it: with the same mods' level sections registered while it
    is read (they are closed again after). Raises LevelError."""
    mods = ModSet.load(mod_paths, level_path, entry_points, level_mods)
    try:
        return load_level(level_path)
    finally:
        mods.close()


def mods_of(sim: "Simulation") -> ModSet | None:
    """The mods attached to `sim` (ModSet.attach), or None."""
    return _ATTACHED.get(sim)


def throwables(sim: "Simulation") -> list[ThrowableSpec]:
    """What the player may throw: the level's throwables (DEFAULT_THROWABLES where it declares none), then
    the mods'."""
    return (list(sim.level.throwables) or list(DEFAULT_THROWABLES)) + mod_throwables(sim)


def mod_throwables(sim: "Simulation") -> list[ThrowableSpec]:
    """The throwables the sim's active mods added (api.add_throwable), in load order."""
    ms = mods_of(sim)
    return [t for mod in (ms.active if ms else ()) for t in mod.throwables]


def hud_lines(sim: "Simulation") -> list[str]:
    """The mods' HUD lines for this frame; a line that raises disables its mod."""
    ms = mods_of(sim)
    out: list[str] = []
    if ms is None:
        return out
    for mod in list(ms.active):
        for fn in mod.hud:
            try:
                out.append(str(fn(sim)))
            except BaseException as exc:
                ms.disable(mod.name, f'mod "{mod.name}": HUD line raised {type(exc).__name__}: {exc}'
                           f"{_where(exc, mod.file)}; the mod is disabled")
                break
    return out
