"""Quick save and load of a whole Simulation to one .npz file: arrays as arrays, the rest as JSON.

What is saved, generically, so that engine changes need no change here:

- every esper entity of the simulation's world with all its components (the WaterGrid component
  carries the water arrays h, bed, u, w, ax, az), and esper's next entity id;
- every attribute of `sim.body_store` (each ndarray, the slot counters, the free list, models);
- the plain attributes of the Simulation (time, steps, water in flight, failures ...), the seeded
  generator's bit-generator state and the events queued for the end of the step;
- `state()` of every system that has one (restored with `set_state`).

No pickle: values are encoded as JSON with tagged objects ({"__array__": key}, {"__dataclass__":
"module:Qualname", ...}), arrays go into the .npz, and loading only looks classes up in modules
that are already imported (or in this project's own engine/game packages). A value that cannot be
encoded (a function, a lock) is left out and listed under "skipped" in the file.

Loading restores in place where it can (arrays are copied into the live arrays, so systems that
keep references to them stay valid), which makes `sim.fingerprint()` after a load equal the one
at the save, and stepping both on gives identical states.
"""
from __future__ import annotations

import collections
import dataclasses
import importlib
import io
import itertools
import json
import os
import re
import sys
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import esper
import numpy as np

if TYPE_CHECKING:
    from engine.world import Simulation

FORMAT = "bottles-and-water save"
VERSION = 1
# Simulation attributes saved elsewhere in the file, or not state at all.
_SIM_SPECIAL = {"level", "world_name", "rng", "events", "body_store", "mods"}


class SaveError(Exception):
    """A save could not be written, or a file could not be loaded into this simulation."""


class _Skip(Exception):
    """A value this format cannot hold."""


def default_path() -> Path:
    """Where F5 writes: $XDG_DATA_HOME/bottles-and-water/quicksave.npz (~/.local/share by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "bottles-and-water" / "quicksave.npz"


# -- encoding ----------------------------------------------------------------------------------
class _Encoder:
    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.skipped: list[str] = []

    def attr(self, value: Any, where: str) -> tuple[bool, Any]:
        """Encode one top-level attribute; on failure note it as skipped and return (False, None)."""
        try:
            return True, self.enc(value)
        except _Skip as exc:
            self.skipped.append(f"{where}: {exc}")
            return False, None

    def enc(self, v: Any) -> Any:
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int) and not isinstance(v, np.integer):
            return v
        if isinstance(v, float) and not isinstance(v, np.floating):
            return v
        if isinstance(v, (np.ndarray, np.generic)):
            a = np.asarray(v)
            if a.dtype.hasobject:
                raise _Skip("an object array")
            key = f"a{len(self.arrays)}"
            self.arrays[key] = a.copy()
            return {"__array__": key, "scalar": isinstance(v, np.generic)}
        if isinstance(v, PurePath):
            return {"__path__": str(v)}
        if isinstance(v, tuple) and not hasattr(v, "_fields"):
            return {"__tuple__": [self.enc(x) for x in v]}
        if isinstance(v, list):
            return [self.enc(x) for x in v]
        if isinstance(v, (set, frozenset)):
            return {"__set__": [self.enc(x) for x in v], "frozen": isinstance(v, frozenset)}
        if isinstance(v, (dict, MappingProxyType)):
            out = {"__dict__": [[self.enc(k), self.enc(x)] for k, x in v.items()],
                   "proxy": isinstance(v, MappingProxyType)}
            factory = getattr(v, "default_factory", None)
            if factory is not None:
                if factory not in (list, dict, set, int, float):
                    raise _Skip(f"a defaultdict of {factory!r}")
                out["factory"] = factory.__name__
            return out
        if isinstance(v, type) or callable(v):
            raise _Skip(f"{type(v).__name__} {getattr(v, '__qualname__', v)!r} is code, not data")
        if dataclasses.is_dataclass(v):
            return {"__dataclass__": _class_name(type(v)),
                    "fields": {f.name: self.enc(getattr(v, f.name)) for f in dataclasses.fields(v)}}
        attrs = _object_attrs(v)
        if attrs is None:
            raise _Skip(f"cannot save a {type(v).__qualname__}")
        return {"__object__": _class_name(type(v)), "attrs": {k: self.enc(x) for k, x in attrs.items()}}


def _object_attrs(v: Any) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    if hasattr(v, "__dict__"):
        out.update(vars(v))
    for cls in type(v).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in ("__dict__", "__weakref__") and hasattr(v, name):
                out[name] = getattr(v, name)
    if not out and not hasattr(v, "__dict__"):
        return None
    return out


def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


# -- decoding ----------------------------------------------------------------------------------
class _Decoder:
    def __init__(self, arrays: Any) -> None:
        self.arrays = arrays

    def dec(self, v: Any) -> Any:
        if isinstance(v, list):
            return [self.dec(x) for x in v]
        if not isinstance(v, dict):
            return v
        if "__array__" in v:
            a = np.array(self.arrays[v["__array__"]])
            return a[()] if v.get("scalar") else a
        if "__path__" in v:
            return Path(v["__path__"])
        if "__tuple__" in v:
            return tuple(self.dec(x) for x in v["__tuple__"])
        if "__set__" in v:
            items = [self.dec(x) for x in v["__set__"]]
            return frozenset(items) if v.get("frozen") else set(items)
        if "__dict__" in v:
            items = [(self.dec(k), self.dec(x)) for k, x in v["__dict__"]]
            factory = v.get("factory")
            if factory is not None:
                kinds = {"list": list, "dict": dict, "set": set, "int": int, "float": float}
                return collections.defaultdict(kinds[factory], items)
            return MappingProxyType(dict(items)) if v.get("proxy") else dict(items)
        if "__dataclass__" in v:
            return _build(_find_class(v["__dataclass__"]), {k: self.dec(x) for k, x in v["fields"].items()})
        if "__object__" in v:
            return _build(_find_class(v["__object__"]), {k: self.dec(x) for k, x in v["attrs"].items()})
        raise SaveError(f"unknown value in the save file: {str(v)[:80]}")


def _find_class(name: str) -> type:
    """Look a class up by "module:Qualname" in an imported module (or this project's own)."""
    module_name, _, qual = name.partition(":")
    module = sys.modules.get(module_name)
    if module is None and module_name.split(".")[0] in ("engine", "game"):
        module = importlib.import_module(module_name)
    if module is None:
        raise SaveError(f"the save holds a {qual} from module {module_name}, which is not loaded "
                        "(load the same mods as when it was saved)")
    obj: Any = module
    for part in qual.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise SaveError(f"the save holds a {name}, which this version does not have")
    if not isinstance(obj, type):
        raise SaveError(f"{name} in the save is not a class")
    return obj


def _build(cls: type, attrs: dict[str, Any]) -> Any:
    """Make an instance without running __init__ (no code from the file runs, only attribute sets)."""
    obj = object.__new__(cls)
    for k, x in attrs.items():
        object.__setattr__(obj, k, x)
    return obj


# -- restoring in place --------------------------------------------------------------------------
def _assign(obj: Any, name: str, value: Any) -> None:
    """Set obj.name = value, copying into the live array when the shapes match and the values fit
    its type (a float64 array from an older save goes into today's float32 one)."""
    cur = getattr(obj, name, None)
    if (isinstance(cur, np.ndarray) and isinstance(value, np.ndarray) and cur.shape == value.shape
            and np.can_cast(value.dtype, cur.dtype, "same_kind") and cur.flags.writeable):
        np.copyto(cur, value, casting="same_kind")
    else:
        object.__setattr__(obj, name, value)


def _restore_into(current: Any, saved: Any) -> Any:
    """Return the object to use for a component: `current` updated in place when it is the same
    kind of (non-frozen) object, else `saved`."""
    if current is None or type(current) is not type(saved):
        return saved
    params = getattr(type(current), "__dataclass_params__", None)
    if params is not None and params.frozen:
        return saved
    attrs = ({f.name: getattr(saved, f.name) for f in dataclasses.fields(saved)}
             if dataclasses.is_dataclass(saved) else _object_attrs(saved) or {})
    for k, x in attrs.items():
        _assign(current, k, x)
    return current


def _peek_count(counter: Any) -> int:
    m = re.fullmatch(r"count\((-?\d+)\)", repr(counter))
    if not m:
        raise SaveError(f"cannot read esper's entity counter ({counter!r})")
    return int(m.group(1))


# -- the public API -----------------------------------------------------------------------------
def snapshot(sim: "Simulation") -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Encode the whole state of `sim`: (JSON-able metadata, arrays)."""
    e = _Encoder()
    meta: dict[str, Any] = {
        "format": FORMAT, "version": VERSION,
        "level_path": str(sim.level.path) if sim.level.path is not None else None,
        "level_name": sim.level.name,
        "systems": sim.system_names(),
    }
    plain: dict[str, Any] = {}
    for name, value in vars(sim).items():
        if name in _SIM_SPECIAL or name.startswith("_"):
            continue
        ok, enc = e.attr(value, f"sim.{name}")
        if ok:
            plain[name] = enc
    meta["sim"] = plain
    meta["rng"] = sim.rng.bit_generator.state
    meta["events"] = e.attr(list(sim.events.pending), "sim.events.pending")[1] or []
    store: dict[str, Any] = {}
    for name, value in vars(sim.body_store).items():
        ok, enc = e.attr(value, f"body_store.{name}")
        if ok:
            store[name] = enc
    meta["body_store"] = store
    with sim._context():
        esper.clear_dead_entities()
        entities = []
        for eid in sorted(esper._entities):  # type: ignore[attr-defined]
            comps = []
            for comp in esper._entities[eid].values():  # type: ignore[attr-defined]
                ok, enc = e.attr(comp, f"entity {eid} {type(comp).__name__}")
                if ok:
                    comps.append(enc)
            entities.append([eid, comps])
        next_id = _peek_count(esper._entity_count)  # type: ignore[attr-defined]
    meta["entities"] = {"next_id": next_id, "list": entities}
    states: dict[str, Any] = {}
    for name in sim.system_names():
        system = sim.get_system(name)
        fn = getattr(system, "state", None)
        if callable(fn):
            ok, enc = e.attr(fn(), f"system {name}.state()")
            if ok:
                states[name] = enc
    meta["system_state"] = states
    meta["skipped"] = e.skipped
    return meta, e.arrays


def restore(sim: "Simulation", meta: dict[str, Any], arrays: Any) -> None:
    """Put a snapshot back into `sim`, which must run the same level and systems."""
    if meta.get("format") != FORMAT:
        raise SaveError("not a Bottles & Water save file")
    if meta.get("version") != VERSION:
        raise SaveError(f"save format version {meta.get('version')} (this game reads version {VERSION})")
    if meta["systems"] != sim.system_names():
        raise SaveError(f"the save was made with systems {', '.join(meta['systems'])} but this game runs "
                        f"{', '.join(sim.system_names())} (load the same level and mods)")
    d = _Decoder(arrays)
    for name, enc in meta["sim"].items():
        _assign(sim, name, d.dec(enc))
    sim.rng.bit_generator.state = meta["rng"]
    sim.events.pending = list(d.dec(meta["events"]))
    store = sim.body_store
    for name, enc in meta["body_store"].items():
        _assign(store, name, d.dec(enc))
    saved = {eid: [d.dec(c) for c in comps] for eid, comps in meta["entities"]["list"]}
    with sim._context():
        ents = esper._entities  # type: ignore[attr-defined]
        comps_by_type = esper._components  # type: ignore[attr-defined]
        for eid in list(ents):
            if eid not in saved:
                esper.delete_entity(eid, immediate=True)
        for eid, comps in saved.items():
            current = ents.get(eid, {})
            new: dict[type, Any] = {}
            for comp in comps:
                new[type(comp)] = _restore_into(current.get(type(comp)), comp)
            for ctype in current:
                if ctype not in new:
                    comps_by_type[ctype].discard(eid)
                    if not comps_by_type[ctype]:
                        del comps_by_type[ctype]
            for ctype in new:
                comps_by_type.setdefault(ctype, set()).add(eid)
            ents[eid] = new
        esper._dead_entities.clear()  # type: ignore[attr-defined]
        esper._entity_count = itertools.count(int(meta["entities"]["next_id"]))  # type: ignore[attr-defined]
        esper.clear_cache()
    for name, enc in meta["system_state"].items():
        system = sim.get_system(name)
        system.set_state(d.dec(enc))  # type: ignore[attr-defined]


def save(sim: "Simulation", path: str | Path, extra: dict[str, Any] | None = None) -> Path:
    """Write the whole state of `sim` to `path` (.npz); return the path written. `extra`: small
    JSON entries the game keeps beside the simulation (the camera: {"camera": {...}})."""
    path = Path(path)
    meta, arrays = snapshot(sim)
    meta.update(extra or {})
    if "__meta__" in arrays:
        raise SaveError("internal: array key clash")
    blob = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, __meta__=blob, **arrays)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(buf.getvalue())
        os.replace(tmp, path)
    except OSError as exc:
        raise SaveError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path


def read(path: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Read a save file: (metadata, arrays)."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise SaveError(f"no save at {path} (press F5 to save first)") from None
    except (OSError, ValueError) as exc:
        raise SaveError(f"{path} is not a readable save file ({exc})") from exc
    if "__meta__" not in arrays:
        raise SaveError(f"{path} is not a Bottles & Water save file")
    try:
        meta = json.loads(arrays.pop("__meta__").tobytes().decode("utf-8"))
    except ValueError as exc:
        raise SaveError(f"{path}: damaged save metadata ({exc})") from exc
    return meta, arrays


def load(sim: "Simulation", path: str | Path) -> dict[str, Any]:
    """Restore `sim` from a file written by `save`; return the file's metadata."""
    meta, arrays = read(path)
    restore(sim, meta, arrays)
    return meta
