"""The whole state of a Simulation as a plain tree, and back (`Simulation.state()` / `set_state()`).

The tree is built from explicit parts, each with its own state()/set_state(): the body store, the
water grid (every numpy array and scalar it holds, whatever its solver keeps), each system (engine
or mod), the entities with their known components (a fixed table here; no class is looked up by a
name from the tree), the pending events (another fixed table), the generator and the clock.

Restoring checks the whole tree against the running code (`saves.check_like`) and against itself
(slots, model ids, entity ids) before it changes anything but the fresh simulation it is given, so
a damaged or hostile tree ends in one SaveError. esper is driven through its public API only:
the entity counter is read by creating (and at once deleting) one entity, and set by creating
entities up to the saved next id; saving therefore uses up one entity id of the running game.
"""
from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING, Any, cast

import esper
import numpy as np

from engine import events as ev
from engine.components import BodyRef, Bottle, Pool, Prop, Shard, ShatterRequest, WaterGrid
from engine.mods import mods_of, throwables
from engine.saves import SaveError, check_like, need
from engine.text import printable

if TYPE_CHECKING:
    from engine.world import Simulation

MAX_ENTITY_ID = 1 << 20      # ids a save may reach (a ten-minute session uses tens of thousands)
MAX_SLOTS = 1 << 16          # body slots a save may hold
MAX_MODELS = 4096
MAX_CONTACTS = 1 << 22       # remembered contacts a save may hold
MAX_LEVEL_M = 1000.0         # |outside water level| a save may hold, m
_WATER_PARAMS = ("viscosity", "wave_period", "manning", "eddy_viscosity", "damping")
_NAME = re.compile(r"[A-Za-z0-9_\-]{1,64}")

# The components a save holds: name -> (class, fields). Anything else on an entity is named when saving.
COMPONENTS: dict[str, tuple[type, tuple[str, ...]]] = {
    "BodyRef": (BodyRef, ("slot",)), "Bottle": (Bottle, ("model", "sealed", "strength")),
    "Shard": (Shard, ("bottle", "piece", "born")), "Prop": (Prop, ("model",)),
    "ShatterRequest": (ShatterRequest, ("impulse",)),
}
# The events a save holds while they wait for the end of a step (spawns made between steps).
# engine systems added since save version 2 whose state() is empty: a save without them is whole
ADDED_SYSTEMS = frozenset({"FallOff"})
EVENTS: dict[str, type] = {c.__name__: c for c in (ev.Impact, ev.Shattered, ev.Splash, ev.Spawned, ev.FellOff,
                                                             ev.ModFailed)}
_EVENT_TUPLES = {"point", "normal", "position", "shards", "velocity"}


class StateWarning(list):
    """Parts of the simulation a save could not hold (named, for the player): a list of sentences."""


# -- the water: generic over whatever the grid keeps ---------------------------------------------
def _plain(v: Any) -> bool:
    if isinstance(v, np.ndarray):
        return v.dtype.kind in "biuf"
    if isinstance(v, (bool, int, float, np.number, np.bool_)):
        return True
    if isinstance(v, tuple):
        return all(isinstance(x, (int, float, np.number)) and not isinstance(x, bool) for x in v)
    return False


def water_state(grid: WaterGrid) -> dict[str, Any]:
    """Every numpy array and number the grid holds (its live arrays included), by attribute name."""
    out: dict[str, Any] = {}
    attrs = dict(vars(grid))
    if dataclasses.is_dataclass(grid):   # fields still at their class default are not in vars()
        for f in dataclasses.fields(grid):
            if f.name not in attrs and "_" + f.name not in attrs:
                attrs[f.name] = getattr(grid, f.name)
    for name, v in attrs.items():
        if _plain(v):
            out[name] = v.copy() if isinstance(v, np.ndarray) else (list(v) if isinstance(v, tuple) else v)
    sources = getattr(grid, "_sources", None)
    if isinstance(sources, dict):    # persistent sources: handle -> (x, z, radius, rate)
        out["_sources"] = [[int(k)] + [float(x) for x in v] for k, v in sources.items()]
    return out


def set_water_state(grid: WaterGrid, saved: dict[str, Any]) -> None:
    """Put a checked water state back: arrays copied into the live ones (same shape and dtype)."""
    live = vars(grid)
    for name, v in saved.items():
        if name == "_sources":
            grid._sources = {int(r[0]): (float(r[1]), float(r[2]), float(r[3]), float(r[4])) for r in v}
            continue
        cur = live.get(name, getattr(grid, name))
        if isinstance(cur, np.ndarray):
            flag = cur.flags.writeable
            cur.flags.writeable = True
            np.copyto(cur, v)
            cur.flags.writeable = flag
        elif isinstance(cur, tuple):
            live[name] = tuple(float(x) for x in v)
        elif isinstance(cur, (bool, np.bool_)):
            live[name] = bool(v)
        elif isinstance(cur, (int, np.integer)):
            live[name] = int(v)
        else:
            live[name] = float(v)
    if "_fresh" in live:
        live["_fresh"] = 0    # the next step re-reads every statistic from the arrays themselves


def _water_ranges() -> dict[str, tuple[float, float]]:
    """Water parameter -> (min, max) the level schema accepts (engine/levels/schema.py)."""
    from engine.levels.schema import Level, WaterSpec
    out = {}
    for cls, names in ((Level, {"gravity": "gravity"}), (WaterSpec, {n: n for n in _WATER_PARAMS})):
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for attr, name in names.items():
            meta = fields[name].metadata if name in fields else {}
            if meta.get("min") is not None and meta.get("max") is not None:
                out[attr] = (float(meta["min"]), float(meta["max"]))
    return out


def _check_water(grid: WaterGrid, saved: Any) -> None:
    current = water_state(grid)
    check_like(saved, current, "water")
    for name, cur in current.items():
        v = saved[name]
        if isinstance(cur, np.ndarray) and v.shape != cur.shape:
            raise SaveError(f"the save's water grid {name} is {v.shape}, this level's is {cur.shape} "
                            "(a save of another level, or of an edited one)")
        if isinstance(cur, list) and name != "_sources" and len(v) != len(cur):
            raise SaveError(f"the save is damaged (water.{name} has {len(v)} values)")
    # the water's parameters: the level's cell size exactly (the grid's shape is the level's), the
    # others within the ranges the level schema accepts (a value out of them blows the step up)
    if "dx" in current and saved["dx"] != current["dx"]:
        raise SaveError(f"the save's water cells are {saved['dx']} m, this level's are {current['dx']} m "
                        "(a save of another level, or of an edited one)")
    for name, (lo, hi) in _water_ranges().items():
        if name in current and not lo <= float(saved[name]) <= hi:
            raise SaveError(f"the save is damaged (water {name} = {saved[name]!r} is outside {lo}..{hi})")
    for name in ("open_level", "_side_eta"):
        if name in current and not all(abs(float(x)) <= MAX_LEVEL_M for x in np.ravel(saved[name])):
            raise SaveError(f"the save is damaged (water {name})")
    if "_sides" in current and not np.array_equal(saved["_sides"], current["_sides"]):
        raise SaveError("the save's pool sides are not this level's (a save of another level, or of an edited one)")
    for name in ("substeps", "_next_source"):
        if name in current and not 0 <= int(saved[name]) < 1 << 53:
            raise SaveError(f"the save is damaged (water {name})")
    for name in ("h", "bed", "u", "w", "ax", "az"):
        a = saved.get("_" + name, saved.get(name))
        if a is not None and not np.isfinite(a).all():
            raise SaveError(f"the save is damaged (non-finite water {name})")
    h = saved.get("_h", saved.get("h"))
    if h is not None and (h < 0).any():
        raise SaveError("the save is damaged (negative water depth)")
    for r in saved.get("_sources", []):
        if not (isinstance(r, list) and len(r) == 5 and all(isinstance(x, (int, float)) and math.isfinite(x) for x in r)):
            raise SaveError("the save is damaged (a water source)")


# -- building the tree ---------------------------------------------------------------------------
def state(sim: "Simulation") -> tuple[dict[str, Any], StateWarning]:
    """The simulation's state tree and what it could not hold."""
    warn = StateWarning()
    with sim._context():
        probe = esper.create_entity()      # the next id, read the public way (the id is used up)
        esper.delete_entity(probe, immediate=True)
        entities = []
        for e in sorted(esper.get_entities()):
            if e in (sim.pool_entity, sim.water_entity):
                continue
            comps = []
            c: Any
            for c in esper.components_for_entity(e):
                name = type(c).__name__
                if COMPONENTS.get(name, (None,))[0] is type(c):
                    comps.append([name] + [getattr(c, f) for f in COMPONENTS[name][1]])
                else:
                    warn.append(f"entity {e}: a {name} component cannot be saved; it is left out")
            entities.append([e, comps])
    try:
        store = sim.body_store.state()
    except ValueError as exc:
        raise SaveError(str(exc)) from None
    store["models"] = [list(k) if isinstance(k, tuple) else k for k in store["models"]]
    store["models"] = [[list(x) if isinstance(x, tuple) else x for x in k] for k in store["models"]]
    systems: dict[str, Any] = {}
    for s in sim.systems:
        fn, back = getattr(s, "state", None), getattr(s, "set_state", None)
        if callable(fn) and callable(back):
            systems[s.name] = fn()
        else:
            owner = sim.owner_of(s.name)
            who = f'mod "{owner}"' if owner else "the game"
            warn.append(f"{who}: system {s.name} has no state()/set_state(), so a load restarts it from scratch")
    pending = []
    for event in sim.events.pending:
        name = type(event).__name__
        if EVENTS.get(name) is type(event):
            pending.append([name, {f.name: getattr(event, f.name) for f in dataclasses.fields(cast(Any, event))}])
        else:
            warn.append(f"a pending {name} event cannot be saved; it is left out")
    ms = mods_of(sim)
    tree = {
        "level": {"name": sim.level.name, "path": str(sim.level.path) if sim.level.path is not None else ""},
        "clock": {"time": sim.time, "steps": sim.steps},
        "rng": sim.rng.bit_generator.state,
        "next_entity": int(probe) + 1,
        "entities": entities,
        "bodies": store,
        "water": water_state(sim.water),
        "systems": systems,
        "order": sim.system_names(),
        "stateless": [s.name for s in sim.systems if s.name not in systems],
        "mods": [[m.name, m.failed or ""] for m in ms.mods] if ms is not None else [],
        "events": pending,
    }
    return tree, warn


# -- checking and restoring ----------------------------------------------------------------------
def _model_key(raw: Any) -> tuple:
    """A model key from the tree, in exactly the types the builders make, or SaveError."""
    bad = SaveError("the save is damaged (a body model it names is not one this game builds)")
    if not isinstance(raw, list) or not raw or not isinstance(raw[0], str):
        raise bad
    kind, args = raw[0], raw[1:]

    def num(x: Any) -> float:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise bad
        return float(x)
    if kind == "box" and len(args) == 1 and isinstance(args[0], list) and len(args[0]) == 3:
        return ("box", tuple(num(x) for x in args[0]))
    if kind == "sphere" and len(args) == 1:
        return ("sphere", num(args[0]))
    if kind == "cylinder" and len(args) == 2:
        return ("cylinder", num(args[0]), num(args[1]))
    if kind == "obj" and len(args) == 2 and isinstance(args[0], str):
        return ("obj", args[0], num(args[1]))
    if kind == "bottle" and len(args) == 4 and isinstance(args[0], str):
        return ("bottle", args[0], num(args[1]), num(args[2]), num(args[3]))
    if kind == "fragment" and len(args) == 3 and isinstance(args[0], str) and isinstance(args[1], int):
        return ("fragment", args[0], int(args[1]), num(args[2]))
    raise bad


def _build_model(sim: "Simulation", key: tuple, allowed: set[str]):
    """Build the model `key` names in a scratch store (files named by the save: only bundled names
    or models this game already uses)."""
    from engine import bodies as bd
    from engine.meshes import load_bottle_set
    scratch = bd.BodyStore(1)
    kind = key[0]
    if kind in ("obj", "bottle", "fragment") and not (_NAME.fullmatch(key[1]) or key[1] in allowed):
        raise SaveError(f"the save names a model {key[1][:60]!r} that this game does not use")
    try:
        if kind == "box":
            if not all(1e-4 <= x <= 100.0 for x in key[1]):
                raise SaveError("the save is damaged (a box size)")
            bd.shape_model(scratch, "box", 1.0, size=key[1])
        elif kind == "sphere":
            if not 1e-4 <= key[1] <= 100.0:
                raise SaveError("the save is damaged (a sphere radius)")
            bd.shape_model(scratch, "sphere", 1.0, radius=key[1])
        elif kind == "cylinder":
            if not (1e-4 <= key[1] <= 100.0 and 1e-4 <= key[2] <= 100.0):
                raise SaveError("the save is damaged (a cylinder's size)")
            bd.shape_model(scratch, "cylinder", 1.0, radius=key[1], size=(0.0, key[2], 0.0))
        elif kind == "obj":
            if not 1e-3 <= key[2] <= 100.0:
                raise SaveError("the save is damaged (a model's scale)")
            bd.shape_model(scratch, key[1], 1.0, scale=key[2])
        elif kind == "bottle":
            bs = load_bottle_set(key[1])
            if not (0.0 <= key[2] <= bs.inner_volume and key[3] > 0 and key[4] > 0):
                raise SaveError("the save is damaged (a bottle's fill)")
            bd.bottle_model(scratch, bs, key[2], key[3], key[4])
        else:
            bs = load_bottle_set(key[1])
            if not (0 <= key[2] < len(bs.fragments) and key[3] > 0):
                raise SaveError("the save is damaged (a fragment)")
            bd.fragment_model(scratch, bs, key[2], key[3])
    except SaveError:
        raise
    except Exception as exc:   # a missing or broken model file: say which
        raise SaveError(f"the save's model {key[1] if len(key) > 1 else kind!r} cannot be built: "
                        f"{type(exc).__name__}: {str(exc)[:120]}") from None
    mid = scratch.model_for(key)
    if mid is None:
        raise SaveError("the save is damaged (a body model key)")
    return scratch.models[mid]


def _int(x: Any, lo: int, hi: int, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not lo <= int(x) < hi:
        raise SaveError(f"the save is damaged ({what})")
    return int(x)


def _check_bodies(sim: "Simulation", saved: Any) -> tuple:
    """Check the body store's tree; return the arguments of BodyStore.set_state."""
    cur = sim.body_store.state()
    n = _int(need(saved, "n", int, "bodies"), 0, MAX_SLOTS + 1, "body count")
    cap = _int(need(saved, "capacity", int, "bodies"), max(n, 1), MAX_SLOTS + 1, "body capacity")
    arrays = need(saved, "arrays", dict, "bodies")
    check_like(arrays, cur["arrays"], "bodies")
    for name, a in arrays.items():
        if a.shape[0] != cap:
            raise SaveError(f"the save is damaged (bodies.{name} has {a.shape[0]} rows for {cap} slots)")
    contacts = need(saved, "contacts", dict, "bodies")
    check_like(contacts, cur["contacts"], "bodies.contacts")
    ck, cj, cdt = contacts["keys"], contacts["impulses"], contacts["dt"]
    if ck.shape[0] > MAX_CONTACTS or cj.shape[0] != ck.shape[0]:
        raise SaveError(f"the save is damaged ({ck.shape[0]} contact keys, {cj.shape[0]} contact impulses)")
    if (ck < 0).any() or (np.diff(ck) < 0).any():   # the solver bisects them: sorted, non-negative
        raise SaveError("the save is damaged (the contact keys)")
    if not (np.isfinite(cj).all() and np.isfinite(cdt).all() and float(cdt) >= 0.0):
        raise SaveError("the save is damaged (the contact impulses)")
    free = need(saved, "free", np.ndarray, "bodies")
    if free.dtype.kind != "i" or free.ndim != 1 or len(set(free.tolist())) != len(free) \
            or ((free < 0) | (free >= n)).any():
        raise SaveError("the save is damaged (the free body slots)")
    raw_models = need(saved, "models", list, "bodies")
    if len(raw_models) > MAX_MODELS:
        raise SaveError("the save is damaged (too many body models)")
    keys = [_model_key(k) for k in raw_models]
    if len(set(keys)) != len(keys):
        raise SaveError("the save is damaged (a body model twice)")
    alive = arrays.get("alive")
    if alive is None or alive.dtype != np.bool_:
        raise SaveError("the save is damaged (no alive flags)")
    if alive[n:].any() or alive[free].any():
        raise SaveError("the save is damaged (a live body in a free slot)")
    live = alive[:n]
    for name, a in arrays.items():
        if a.dtype.kind == "f" and not np.isfinite(a[:n][live]).all():
            raise SaveError(f"the save is damaged (a body's {name} is not finite)")
    from engine.bodies import KINDS
    if "kind" in arrays and ((arrays["kind"][:n][live] < 0) | (arrays["kind"][:n][live] >= len(KINDS))).any():
        raise SaveError("the save is damaged (a body kind)")
    if "model_id" in arrays and ((arrays["model_id"][:n][live] < 0) | (arrays["model_id"][:n][live] >= len(keys))).any():
        raise SaveError("the save is damaged (a body's model id)")
    if "mass" in arrays and not (arrays["mass"][:n][live] > 0).all():
        raise SaveError("the save is damaged (a body without mass)")
    if "quat" in arrays and len(arrays["quat"][:n][live]) and \
            not (np.abs(np.linalg.norm(arrays["quat"][:n][live], axis=1) - 1.0) < 1e-6).all():
        raise SaveError("the save is damaged (a body orientation)")
    allowed = {k[1] for k in sim.body_store._model_keys if k[0] in ("obj", "bottle", "fragment")}
    allowed |= {t.model for t in throwables(sim) if getattr(t, "model", None)}
    fresh = {k: sim.body_store.models[i] for k, i in sim.body_store._model_keys.items()}
    models = [fresh[k] if k in fresh else _build_model(sim, k, allowed) for k in keys]
    return n, cap, free, models, keys, arrays, contacts


def _check_entities(sim: "Simulation", tree: dict[str, Any], n_slots: int, alive: np.ndarray,
                    models: list, kinds: np.ndarray | None = None) -> tuple[int, dict[int, list[Any]]]:
    from engine.bodies import KINDS
    next_id = _int(need(tree, "next_entity", int), 1, MAX_ENTITY_ID + 1, "entity counter")
    out: dict[int, list[Any]] = {}
    slots: set[int] = set()
    for row in need(tree, "entities", list):
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[1], list)):
            raise SaveError("the save is damaged (an entity)")
        e = _int(row[0], 1, next_id, "an entity id")
        if e in out or e in (sim.pool_entity, sim.water_entity):
            raise SaveError("the save is damaged (an entity twice)")
        comps = []
        seen = set()
        for c in row[1]:
            if not (isinstance(c, list) and c and isinstance(c[0], str) and c[0] in COMPONENTS) or c[0] in seen:
                raise SaveError("the save is damaged (a component)")
            cls, fields = COMPONENTS[c[0]]
            if len(c) != len(fields) + 1:
                raise SaveError(f"the save is damaged (a {c[0]} component)")
            seen.add(c[0])
            vals = dict(zip(fields, c[1:]))
            if cls is BodyRef:
                s = _int(vals["slot"], 0, n_slots, "a body slot")
                if s in slots or not alive[s]:
                    raise SaveError("the save is damaged (two entities on one body, or one on a free slot)")
                slots.add(s)
            elif cls is Bottle:
                if not (isinstance(vals["model"], str) and _NAME.fullmatch(vals["model"])
                        and isinstance(vals["sealed"], bool) and isinstance(vals["strength"], (int, float))
                        and not isinstance(vals["strength"], bool) and math.isfinite(vals["strength"])):
                    raise SaveError("the save is damaged (a bottle)")
                vals["strength"] = float(vals["strength"])
            elif cls is Shard:
                _int(vals["bottle"], 0, next_id, "a shard's bottle")
                _int(vals["piece"], 0, 1 << 16, "a shard's piece")
                if isinstance(vals["born"], bool) or not isinstance(vals["born"], (int, float)) or not math.isfinite(vals["born"]):
                    raise SaveError("the save is damaged (a shard's age)")
                vals["born"] = float(vals["born"])
            elif cls is ShatterRequest:
                v = vals["impulse"]
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not (math.isfinite(v) and v >= 0.0):
                    raise SaveError("the save is damaged (a shatter request)")
                vals["impulse"] = float(v)
            elif not isinstance(vals["model"], str) or len(vals["model"]) > 4096:
                raise SaveError("the save is damaged (a prop)")
            comps.append(cls(**vals))
        names = {type(c).__name__ for c in comps}
        body = names & {"Bottle", "Shard", "Prop"}
        if ("ShatterRequest" in names and "Bottle" not in names) \
                or ("BodyRef" in names) != (len(body) == 1) or len(body) > 1:
            raise SaveError("the save is damaged (a body entity without its one kind, or a kind without a body)")
        if body:
            slot = next(c.slot for c in comps if isinstance(c, BodyRef))
            want = {"Bottle": "bottle", "Shard": "shard", "Prop": "prop"}[body.pop()]
            if kinds is not None and KINDS[int(kinds[slot])] != want:
                raise SaveError(f"the save is damaged (a {want} entity on a body of another kind)")
        out[e] = comps
    if len(slots) != int(alive[:n_slots].sum()):
        raise SaveError("the save is damaged (a body without an entity)")
    return next_id, out


def _check_events(tree: dict[str, Any]) -> list[Any]:
    out = []
    for row in need(tree, "events", list):
        if not (isinstance(row, list) and len(row) == 2 and row[0] in EVENTS and isinstance(row[1], dict)):
            raise SaveError("the save is damaged (a pending event)")
        cls = EVENTS[row[0]]
        names = {f.name for f in dataclasses.fields(cls)}
        if set(row[1]) != names:
            raise SaveError(f"the save is damaged (a {row[0]} event)")
        vals = {k: tuple(v) if k in _EVENT_TUPLES and isinstance(v, list) else v for k, v in row[1].items()}
        for v in vals.values():
            items = v if isinstance(v, tuple) else (v,)
            if not all(isinstance(x, (int, float, str)) and (not isinstance(x, float) or math.isfinite(x)) for x in items):
                raise SaveError(f"the save is damaged (a {row[0]} event)")
        out.append(cls(**vals))
    return out


def set_state(sim: "Simulation", tree: Any) -> None:
    """Restore a tree from `state()` (see `_set_state`); anything a hostile tree provokes is a SaveError."""
    try:
        _set_state(sim, tree)
    except SaveError:
        raise
    except (Exception, RecursionError) as exc:
        raise SaveError(f"the save is damaged or does not fit this game ({type(exc).__name__}: "
                        f"{printable(exc, 160)})") from None


def _set_state(sim: "Simulation", tree: Any) -> None:
    """Restore a tree from `state()` into `sim`, a simulation of the same level, systems and mods.

    Everything is checked before `sim` changes; a SaveError leaves it as it was except for what
    earlier checks do not touch. The game restores into a fresh simulation, so the running one is
    never touched by a load that fails.
    """
    if not isinstance(tree, dict):
        raise SaveError("the save is damaged (no state)")
    ms = mods_of(sim)
    saved_mods = need(tree, "mods", list)
    here = [m.name for m in ms.mods] if ms is not None else []
    if [m[0] if isinstance(m, list) and len(m) == 2 else None for m in saved_mods] != here:
        names = ", ".join(str(m[0]) for m in saved_mods if isinstance(m, list) and m) or "none"
        raise SaveError(f"the save was made with mods {names[:200]}; this game runs "
                        f"{', '.join(here) or 'none'} (start the game with the same mods to load it)")
    if ms is not None:   # a mod that had failed when the game was saved is off in the loaded one too
        for name, failed in saved_mods:
            if isinstance(failed, str) and failed and ms.get(name).failed is None:
                ms.disable(name, failed[:500], report=False)
    order = need(tree, "order", list)
    # a save from before an engine system that keeps nothing was added loads without it
    if [n for n in sim.system_names() if n in order or n not in ADDED_SYSTEMS] != order:
        raise SaveError(f"the save was made with systems {', '.join(map(str, order))[:300]} but this game runs "
                        f"{', '.join(sim.system_names())} (load it on the same level with the same mods)")
    clock = need(tree, "clock", dict)
    t = need(clock, "time", float, "clock")
    steps = _int(need(clock, "steps", int, "clock"), 0, 1 << 53, "step count")
    if not (math.isfinite(t) and t >= 0.0):
        raise SaveError("the save is damaged (its clock)")
    water = need(tree, "water", dict)
    _check_water(sim.water, water)
    n, cap, free, models, keys, arrays, contacts = _check_bodies(sim, need(tree, "bodies", dict))
    next_id, entities = _check_entities(sim, tree, n, arrays["alive"], models, arrays.get("kind"))
    pending = _check_events(tree)
    systems = need(tree, "systems", dict)
    stateless = need(tree, "stateless", list)
    for s in sim.systems:
        has = callable(getattr(s, "state", None)) and callable(getattr(s, "set_state", None))
        if s.name in ADDED_SYSTEMS and s.name not in order:
            continue
        if has and s.name not in systems:
            raise SaveError(f"the save holds no state for system {s.name}")
        if has:
            check_like(systems[s.name], cast(Any, s).state(), f"system {s.name}")
        elif s.name not in stateless:
            raise SaveError(f"the save is damaged (system {s.name})")
    rng = np.random.Generator(type(sim.rng.bit_generator)())
    try:
        rng.bit_generator.state = need(tree, "rng", dict)
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise SaveError(f"the save is damaged (its random generator: {type(exc).__name__})") from None
    # -- checked: apply ---------------------------------------------------------------------------
    sim.time, sim.steps = float(t), int(steps)
    sim.rng = rng
    set_water_state(sim.water, water)
    sim.body_store.set_state(n, cap, free, models, keys, arrays, contacts)
    with sim._context():
        pool = esper.component_for_entity(sim.pool_entity, Pool)
        grid = esper.component_for_entity(sim.water_entity, WaterGrid)
        keep = {sim.pool_entity: (pool,), sim.water_entity: (grid,)}
        esper.clear_database()
        for e in range(1, next_id):
            comps = keep.get(e) or entities.get(e)
            made = esper.create_entity(*(comps or ()))
            if comps is None:
                esper.delete_entity(made, immediate=True)
    sim.events.pending = pending
    for s in sim.systems:
        if s.name in systems:
            cast(Any, s).set_state(systems[s.name])
