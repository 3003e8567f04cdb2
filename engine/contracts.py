"""System contracts: the vocabulary a system's READS / WRITES / EMITS are written in, and a recorder
that runs steps with recording proxies around the stores and names every touch outside them.

Vocabulary (one entry each; engine.systems.base.System checks them when a class is defined):

    a class                 in READS / WRITES: a component type (Bottle, Shard, BodyRef, Prop, Pool, a
                            mod's own); in READS also an event type read with `sim.events.of_type`;
                            in EMITS an event type
    "WaterGrid.<field>"     h, bed, u, w, ax, az (the arrays), source_volume, substeps, sources (the
                            persistent sources of add_source)
    "BodyStore.<field>"     any per-slot or contact array of engine.bodies.BodyStore (pos, vel, quat,
                            held_water, surface, touching, contact_keys ...), "slots" (n, capacity,
                            the free list), "models" (the model registry), "sleep_after"
    "Simulation.<field>"    water_in_flight, rng (the seeded generator: drawing from it writes it)
    "HullField.<field>"     covered, displaced: what the bodies hold aside in the water's depth
                            (sim.hull, engine/hull.py)
    "SolidColumns.<field>"  terrain, barriers, bodies, tops: the solid columns standing on the
                            terrain (sim.columns, engine/blocking.py; `moved` is free to read)

Systems talk through these stores, components and events only: there is no entry for another
system's attributes. A system that looks another up (`sim.get_system`) and reads it is recorded
as touching "system:<Name>.<attr>", which no contract can declare, so it is always a violation.

Writing implies reading. Configuration is free to read and is not part of a contract: the level
(sim.level) and its sand cells (sim.sand), the clock (sim.time, steps, dt), sim.gravity, the grid's dx,
shape and friction settings.
Private attributes of a store (a leading underscore) belong to its own methods: calling a method
(`water.add_volume`, `store.spawn`, `sim.remove_body`) records what the method touches.

How the recorder sees a touch: each system's `sim` is replaced by a proxy for the steps recorded;
the proxy hands out proxies of the body store, the water grid (also where esper hands it out) and
the event queue, which record each field a system gets hold of (a read) and each event it emits or
asks for. Writes are found by comparing every store field, the components of every entity, the
water in flight and the generator's state before and after each system's process(), and from the
entities it creates or deletes and the components it adds or removes (esper's functions are
wrapped while recording). `sim.get_system(name)` from inside a system hands out a proxy that
records "system:<Name>.<attr>" for whatever it reads there (never declarable: see above).

    with Recorder(sim) as rec:
        sim.step(5)
    assert not rec.violations(), rec.violations()
"""
from __future__ import annotations

import dataclasses
import inspect
import math
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Union

import esper
import numpy as np

from engine.bodies import BodyStore
from engine.water.grid import ARRAYS, WaterGrid

Entry = Union[str, type]

_STORE_ARRAYS = tuple(sorted(name for name, value in vars(BodyStore(1)).items()
                             if isinstance(value, np.ndarray) and not name.startswith("_")))
FIELDS: dict[str, frozenset[str]] = {
    "WaterGrid": frozenset(ARRAYS + ("source_volume", "substeps", "sources")),
    "BodyStore": frozenset(_STORE_ARRAYS + ("slots", "models", "sleep_after")),
    "Simulation": frozenset(("water_in_flight", "rng")),
    "HullField": frozenset(("covered", "displaced")),
    "SolidColumns": frozenset(("terrain", "barriers", "bodies", "tops")),
}
# attribute -> vocabulary field, where they differ
_ALIAS = {
    "WaterGrid": {"_sources": "sources", "_next_source": "sources"},
    "BodyStore": {"n": "slots", "capacity": "slots", "free": "slots", "_model_keys": "models",
                  "_packed": "models", "_packed_count": "models"},
    "Simulation": {},
    "HullField": {},
    # summaries SolidColumns keeps of its arrays (engine/blocking.py): reading one reads the array
    "SolidColumns": {"version": "tops", "any_tops": "tops", "any_bodies": "bodies"},
}
# configuration and handles: free to read
_FREE = {
    "WaterGrid": frozenset(("dx", "gravity", "boundary", "open_level", "viscosity", "wave_period", "manning",
                            "eddy_viscosity", "damping", "shape")),
    "BodyStore": frozenset(),
    "Simulation": frozenset(("time", "steps", "dt", "gravity", "level", "sand", "world_name", "pool_entity",
                             "water_entity", "failures", "mods")),
    "HullField": frozenset(),
    "SolidColumns": frozenset(("moved",)),     # the volume the last update moved: a diagnostic
}


def check_entries(owner: str, attr: str, entries: Iterable[Entry]) -> frozenset[Entry]:
    """The entries of one contract attribute as a frozenset; TypeError naming any that is not in
    the vocabulary (see the module docstring)."""
    if isinstance(entries, (str, type)):
        raise TypeError(f"{owner}.{attr} must be a tuple of entries (got the single {entries!r}); "
                        f"write ({entries!r},)")
    out: set[Entry] = set()
    for e in entries:
        if isinstance(e, type):
            out.add(e)
            continue
        if attr == "EMITS" or not isinstance(e, str):
            raise TypeError(f"{owner}.{attr}: {e!r} is not {'an event type' if attr == 'EMITS' else 'an entry'} "
                            "(see engine/contracts.py for the vocabulary)")
        if e.startswith("system:"):
            raise TypeError(f'{owner}.{attr}: "{e}" names another system\'s attribute; systems talk through '
                            f'stores, components and events (share the data in a store: {", ".join(FIELDS)})')
        store, _, part = e.partition(".")
        if store not in FIELDS:
            raise TypeError(f'{owner}.{attr}: "{e}" names no store (stores: {", ".join(FIELDS)})')
        if part not in FIELDS[store]:
            raise TypeError(f'{owner}.{attr}: {store} has no field "{part}" (fields: {", ".join(sorted(FIELDS[store]))})')
        out.add(e)
    return frozenset(out)


def label(entry: Entry) -> str:
    return entry if isinstance(entry, str) else entry.__name__


@dataclass
class Usage:
    """What one system class touched while recorded."""
    reads: set = field(default_factory=set)
    writes: set = field(default_factory=set)
    emits: set = field(default_factory=set)

    def merge(self, other: "Usage") -> None:
        self.reads |= other.reads
        self.writes |= other.writes
        self.emits |= other.emits


def violations(usage: dict[type, Usage]) -> list[str]:
    """Each touch outside a contract, as a sentence naming the system and the entry."""
    out = []
    for cls, use in usage.items():
        name = cls.__name__
        reads, writes, emits = (getattr(cls, a, None) for a in ("READS", "WRITES", "EMITS"))
        missing = [a for a, v in (("READS", reads), ("WRITES", writes), ("EMITS", emits)) if v is None]
        if missing:
            names = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
            out.append(f"{name} does not declare {names} (a tuple each; () when it has none)")
            continue
        assert reads is not None and writes is not None and emits is not None
        for e in sorted(map(label, use.reads - reads - writes)):
            out.append(f"{name} reads {e} but does not declare it in READS")
        for e in sorted(map(label, use.writes - writes)):
            out.append(f"{name} writes {e} but does not declare it in WRITES")
        for kind in sorted(use.emits, key=lambda k: k.__name__):
            if not any(issubclass(kind, d) for d in emits):
                out.append(f"{name} emits {kind.__name__} but does not declare it in EMITS")
    return out


def unused(usage: dict[type, Usage]) -> list[str]:
    """Each declared entry that the recorded steps never touched. A WRITES entry counts as touched
    when it was read too: writing a value equal to the old one (a slot's force set to zero) leaves
    no change to see."""
    out = []
    for cls, use in usage.items():
        name = cls.__name__
        reads, writes, emits = (frozenset(getattr(cls, a, None) or ()) for a in ("READS", "WRITES", "EMITS"))
        for e in sorted(map(label, reads - use.reads - use.writes)):
            out.append(f"{name} declares READS {e} but never read it")
        for e in sorted(map(label, writes - use.writes - use.reads)):
            out.append(f"{name} declares WRITES {e} but never wrote it")
        for kind in sorted(emits - use.emits, key=lambda k: k.__name__):
            out.append(f"{name} declares EMITS {kind.__name__} but never emitted it")
    return out


# -- proxies ----------------------------------------------------------------------------------
class _Proxy:
    """Forwards to a real store and records, for one system, the fields it gets hold of."""

    __slots__ = ("_real", "_rec", "_system", "_store")

    def __init__(self, real: Any, rec: "Recorder", system: Any, store: str) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_rec", rec)
        object.__setattr__(self, "_system", system)
        object.__setattr__(self, "_store", store)

    @property  # type: ignore[misc]
    def __class__(self):   # isinstance(proxy, WaterGrid) holds
        return type(object.__getattribute__(self, "_real"))

    def _note(self, name: str) -> None:
        store = object.__getattribute__(self, "_store")
        if name in _FREE[store] or name.startswith("__"):
            return
        name = _ALIAS[store].get(name, name)
        if name.startswith("_"):
            return
        object.__getattribute__(self, "_rec")._read(object.__getattribute__(self, "_system"), f"{store}.{name}")

    def __getattr__(self, name: str) -> Any:
        real = object.__getattribute__(self, "_real")
        static = inspect.getattr_static(type(real), name, None)
        if isinstance(static, types.FunctionType):          # a method: runs on the proxy, so it records
            return types.MethodType(static, self)
        if isinstance(static, (classmethod, staticmethod)):
            return getattr(real, name)
        if isinstance(static, property) and static.fget is not None:
            if name in _FREE[object.__getattribute__(self, "_store")]:
                return getattr(real, name)
            return static.fget(self)
        self._note(name)
        return getattr(real, name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._note(name)
        setattr(object.__getattribute__(self, "_real"), name, value)


class _SimProxy(_Proxy):
    """The Simulation as one system sees it while recorded."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        real = object.__getattribute__(self, "_real")
        rec = object.__getattribute__(self, "_rec")
        system = object.__getattribute__(self, "_system")
        if name == "body_store":
            return rec._proxy(system, real.body_store, "BodyStore")
        if name == "events":
            return rec._events(system, real.events)
        if name == "hull":
            return rec._proxy(system, real.hull, "HullField")
        if name == "columns":
            return rec._proxy(system, real.columns, "SolidColumns")
        if name == "get_system":
            return lambda other: rec._system_proxy(system, real.get_system(other))
        return _Proxy.__getattr__(self, name)


class _EventsProxy:
    """The event queue as one system sees it: records what it emits and which types it reads."""

    __slots__ = ("_real", "_rec", "_system")

    def __init__(self, real: Any, rec: "Recorder", system: Any) -> None:
        self._real, self._rec, self._system = real, rec, system

    def emit(self, event: Any) -> None:
        if self._rec.current is not None:
            self._rec._usage(self._system).emits.add(type(event))
        self._real.emit(event)

    def of_type(self, kind: type) -> Any:
        self._rec._read(self._system, kind)
        return self._real.of_type(kind)

    def __getattr__(self, name: str) -> Any:
        self._rec._read(self._system, "Simulation.events")   # the whole queue: not a contract entry
        return getattr(self._real, name)


class _SystemProxy:
    """Another system, as a system that looked it up sees it: records "system:<Name>.<attr>"."""

    __slots__ = ("_real", "_rec", "_system")

    def __init__(self, real: Any, rec: "Recorder", system: Any) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_rec", rec)
        object.__setattr__(self, "_system", system)

    def __getattr__(self, name: str) -> Any:
        real = object.__getattribute__(self, "_real")
        object.__getattribute__(self, "_rec")._read(object.__getattribute__(self, "_system"),
                                                    f"system:{real.name}.{name}")
        return getattr(real, name)

    def __setattr__(self, name: str, value: Any) -> None:
        real = object.__getattribute__(self, "_real")
        rec = object.__getattribute__(self, "_rec")
        if rec.current is not None:
            rec._usage(object.__getattribute__(self, "_system")).writes.add(f"system:{real.name}.{name}")
        setattr(real, name, value)


# -- the recorder ---------------------------------------------------------------------------------
_READ_FNS = ("get_component", "get_components", "component_for_entity", "components_for_entity", "has_component",
             "has_components", "try_component", "try_components")
_WRITE_FNS = ("create_entity", "delete_entity", "add_component", "remove_component", "try_remove_component")


class Recorder:
    """Record what every system of `sim` touches while the block runs (see the module docstring).

    `usage` maps each system class to its Usage; `violations()` and `unused()` judge it.
    """

    def __init__(self, sim: Any, usage: dict[type, Usage] | None = None) -> None:
        self.sim = sim
        self.usage: dict[type, Usage] = usage if usage is not None else {}
        self.current: Any = None
        self._proxies: dict[tuple[int, int], Any] = {}
        self._saved: list[tuple[Any, str, Any, bool]] = []
        self._esper: dict[str, Any] = {}

    # -- entering and leaving ----------------------------------------------------------------------
    def __enter__(self) -> "Recorder":
        for system in list(self.sim._systems):
            self._usage(system)
            proxy = _SimProxy(self.sim, self, system, "Simulation")
            self._set(system, "sim", proxy)
            for name, value in list(vars(system).items()):     # helpers that hold the simulation
                if name != "sim" and getattr(value, "sim", None) is self.sim:
                    self._set(value, "sim", proxy)
            self._set(system, "process", self._wrap(system))
        for name in _READ_FNS + _WRITE_FNS:
            self._esper[name] = getattr(esper, name)
            setattr(esper, name, self._esper_fn(name, self._esper[name]))
        return self

    def __exit__(self, *exc: object) -> None:
        for name, fn in self._esper.items():
            setattr(esper, name, fn)
        self._esper.clear()
        for obj, name, old, had in reversed(self._saved):
            if had:
                setattr(obj, name, old)
            else:
                delattr(obj, name)
        self._saved.clear()
        self.current = None

    def _set(self, obj: Any, name: str, value: Any) -> None:
        had = name in vars(obj)
        self._saved.append((obj, name, vars(obj).get(name), had))
        setattr(obj, name, value)

    def violations(self) -> list[str]:
        return violations(self.usage)

    def unused(self) -> list[str]:
        return unused(self.usage)

    # -- recording ---------------------------------------------------------------------------------
    def _usage(self, system: Any) -> Usage:
        return self.usage.setdefault(type(system), Usage())

    def _read(self, system: Any, entry: Entry) -> None:
        if self.current is not None:
            self._usage(system).reads.add(entry)

    def _wrote(self, entry: Entry) -> None:
        if self.current is not None:
            self._usage(self.current).writes.add(entry)

    def _proxy(self, system: Any, real: Any, store: str) -> Any:
        key = (id(system), id(real))
        if key not in self._proxies:
            self._proxies[key] = _Proxy(real, self, system, store)
        return self._proxies[key]

    def _events(self, system: Any, real: Any) -> _EventsProxy:
        key = (id(system), id(real))
        if key not in self._proxies:
            self._proxies[key] = _EventsProxy(real, self, system)
        return self._proxies[key]

    def _system_proxy(self, system: Any, other: Any) -> Any:
        return _SystemProxy(other, self, system) if self.current is not None else other

    def _grid(self, value: Any) -> Any:
        """A WaterGrid handed out by esper becomes the current system's proxy of it."""
        if self.current is not None and type(value) is WaterGrid:
            return self._proxy(self.current, value, "WaterGrid")
        return value

    def _esper_fn(self, name: str, fn: Any) -> Any:
        rec = self

        def reads(*types_: Any) -> None:
            for t in types_:
                if isinstance(t, type) and t is not WaterGrid:
                    rec._read(rec.current, t)

        def get_component(kind):
            reads(kind)
            return [(e, rec._grid(c)) for e, c in fn(kind)]

        def get_components(*kinds):
            reads(*kinds)
            return [(e, tuple(rec._grid(c) for c in cs)) for e, cs in fn(*kinds)]

        def component_for_entity(entity, kind):     # and try_component
            reads(kind)
            return rec._grid(fn(entity, kind))

        def components_for_entity(entity):
            got = fn(entity)
            reads(*(type(c) for c in got))
            return tuple(rec._grid(c) for c in got)

        def has_components(entity, *kinds):         # and has_component, try_components
            reads(*kinds)
            return fn(entity, *kinds)

        def create_entity(*components):
            for c in components:
                rec._wrote(type(c))
            return fn(*components)

        def delete_entity(entity, immediate=False):
            if rec.current is not None and esper.entity_exists(entity):
                for c in rec._esper["components_for_entity"](entity):
                    rec._wrote(type(c))
            return fn(entity, immediate)

        def add_component(entity, component, type_alias=None):
            rec._wrote(type_alias or type(component))
            return fn(entity, component, type_alias)

        def remove_component(entity, kind):         # and try_remove_component
            rec._wrote(kind)
            return fn(entity, kind)

        by_name: dict[str, Callable[..., Any]] = {
            "get_component": get_component, "get_components": get_components,
            "component_for_entity": component_for_entity, "try_component": component_for_entity,
            "components_for_entity": components_for_entity, "has_component": has_components,
            "has_components": has_components, "try_components": has_components,
            "create_entity": create_entity, "delete_entity": delete_entity, "add_component": add_component}
        wrapped = by_name.get(name, remove_component)     # remove_component, try_remove_component
        wrapped.__name__ = name
        return wrapped

    def _wrap(self, system: Any) -> Any:
        # the class's process: a mod's guard (engine.world._guard) is left out while recording, so
        # the world's own checks are not counted as the system's touches (and a raise propagates)
        call = types.MethodType(type(system).process, system)

        def process(dt: float) -> None:
            before = self._snapshot()
            self.current = system
            try:
                call(dt)
            finally:
                self.current = None
                self._compare(system, before, self._snapshot())
        return process

    # -- finding writes ------------------------------------------------------------------------------
    def _snapshot(self) -> dict[Entry, Any]:
        sim = self.sim
        st = sim.body_store
        snap: dict[Entry, Any] = {}
        for name in _STORE_ARRAYS:
            a = getattr(st, name)
            snap[f"BodyStore.{name}"] = (a.shape, a.dtype.str, a.tobytes())
        snap["BodyStore.slots"] = (st.n, st.capacity, tuple(st.free))
        snap["BodyStore.models"] = len(st.models)
        snap["BodyStore.sleep_after"] = st.sleep_after
        with sim._context():
            grid = esper.component_for_entity(sim.water_entity, WaterGrid)   # current is None: no proxy
            comps: dict[type, dict[int, Any]] = {}
            for e in esper.get_entities():
                c: Any
                for c in esper.components_for_entity(e):
                    if type(c) is not WaterGrid:
                        comps.setdefault(type(c), {})[e] = _fields(c)
        for name in ARRAYS:
            a = getattr(grid, name)
            snap[f"WaterGrid.{name}"] = (a.shape, a.dtype.str, a.tobytes())
        snap["WaterGrid.source_volume"] = grid.source_volume
        snap["WaterGrid.substeps"] = grid.substeps
        snap["WaterGrid.sources"] = (dict(vars(grid)["_sources"]), grid._next_source)
        snap["Simulation.water_in_flight"] = sim.water_in_flight
        snap["Simulation.rng"] = repr(sim.rng.bit_generator.state)
        snap["HullField.covered"] = (sim.hull.covered.shape, sim.hull.covered.tobytes())
        snap["HullField.displaced"] = sim.hull.displaced
        for name in FIELDS["SolidColumns"]:
            a = getattr(sim.columns, name)
            snap[f"SolidColumns.{name}"] = (a.shape, a.tobytes())
        for kind, table in comps.items():
            snap[kind] = table
        return snap

    def _compare(self, system: Any, before: dict[Entry, Any], after: dict[Entry, Any]) -> None:
        for key in set(before) | set(after):
            if not _same(before.get(key), after.get(key)):
                self._usage(system).writes.add(key)


def _fields(c: Any) -> Any:
    if dataclasses.is_dataclass(c):
        return tuple(getattr(c, f.name) for f in dataclasses.fields(c))
    return repr(c)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    try:
        return bool(a == b)
    except (ValueError, TypeError):    # fields holding arrays
        return repr(a) == repr(b)
