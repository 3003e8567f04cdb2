"""Simulation: one esper world, the ordered systems, the fixed step, the seeded generator.

The system order is written once, here:

    SIMULATION = (IntegrateBodies, FallOff, StepFluid, CoupleWater, Shatter, HeldWater)

Mods and the game place further systems by name (`add_system(Wind(), after="StepFluid")`). The
Simulation keeps that list and calls each system's `process(dt)` in order itself; esper holds the
entities and components (one world per Simulation, through its public API) and no processors, so
no priority is ever typed or derived. Drawing is not part of the
simulation: a renderer reads the state after each step and never writes it, so a headless run and a
windowed run of the same input produce the same state.
"""
from __future__ import annotations

import hashlib
import itertools
import math
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import esper
import numpy as np

from engine import events as ev
from engine import health
from engine.blocking import SolidColumns
from engine.bodies import Body, BodyStore
from engine.components import BodyRef, Bottle, Pool, Prop, ShatterRequest, WaterGrid
from engine.errors import SimulationError
from engine.ground import sand_cells
from engine.hull import HullField
from engine.levels import Level, load_level
from engine.levels.setup import apply_level
from engine.retire import retire_over_cap
from engine.systems import CoupleWater, FallOff, HeldWater, IntegrateBodies, Shatter, StepFluid, System

SIMULATION: tuple[type[System], ...] = (IntegrateBodies, FallOff, StepFluid, CoupleWater, Shatter, HeldWater)

_world_ids = itertools.count()


class NonFiniteError(SimulationError):
    """NaN or infinity appeared in a body or the water; the message names it, the time and any mod."""


class OrderError(ValueError):
    """A system could not be placed: unknown name, duplicate, or a before/after cycle."""


class Simulation:
    """A pool of water with bodies in it, stepped at a fixed dt. See the README for the API."""

    def __init__(self, level: Level | None = None) -> None:
        self.level = level if level is not None else Level()
        self.world_name = f"simulation-{next(_world_ids)}"
        self.dt = float(self.level.dt)
        self.gravity = float(self.level.gravity)
        self.time = 0.0
        self.steps = 0
        self.rng = np.random.default_rng(self.level.seed)
        self.events = ev.EventQueue()
        self.body_store = BodyStore()
        self.water_in_flight = 0.0      # m^3 of water falling through the air (released above the pool)
        self.failures: list[str] = []   # human-readable reports of disabled systems and handlers
        self._systems: list[System] = []   # the step's order; esper holds no processors
        self._owners: dict[str, str] = {}  # system name -> the mod that added it
        # seconds spent in each system since it was set to {} (None: not timed); `bottles bench` reads it
        self.timings: dict[str, float] | None = None
        self._stepping = False          # inside _run_systems (a shatter asked then waits for Shatter's pass)
        with self._context():
            esper.clear_database()
            self.pool_entity = esper.create_entity(Pool(self.level.pool, self.level.water.boundary))
            self.water_entity = esper.create_entity(WaterGrid.from_level(self.level))
        # stores the systems share (engine/contracts.py names their fields): what the bodies hold
        # aside in the water's depth (CoupleWater writes it, StepFluid reads it) and the solid
        # columns standing on the terrain (CoupleWater's blockers and the game's barriers write
        # them, IntegrateBodies stands bodies on their terrain)
        self.hull = HullField(self.water.shape)
        self.columns = SolidColumns(self.water)
        # (nz, nx) uint8, 1 on the cells of loose sand (engine/ground.py): fixed by the level, so
        # configuration (free to read, never written)
        self.sand = sand_cells(self.level, self.water.shape)
        for cls in SIMULATION:
            self.add_system(cls())
        apply_level(self)

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def from_level(cls, path: str | Path) -> "Simulation":
        """Load, validate and start a level file (raises LevelError listing every problem)."""
        return cls(load_level(path))

    def _context(self) -> "_WorldContext":
        return _WorldContext(self.world_name)

    def close(self) -> None:
        """Drop this simulation's esper world."""
        try:
            esper.delete_world(self.world_name)
        except Exception:
            pass

    # -- systems -----------------------------------------------------------------------------
    @property
    def systems(self) -> tuple[System, ...]:
        """The systems in the order they run."""
        return tuple(self._systems)

    def system_names(self) -> list[str]:
        """Names of the systems in the order they run."""
        return [s.name for s in self._systems]

    def get_system(self, name: str) -> System:
        for s in self._systems:
            if s.name == name:
                return s
        raise KeyError(f'no system named "{name}" (systems: {", ".join(self.system_names())})')

    def owner_of(self, name: str) -> str | None:
        """The mod that added the system `name` (its `owner=`), or None for the engine's and the game's."""
        return self._owners.get(name)

    def add_system(self, system: System, *, before: str | None = None, after: str | None = None,
                   owner: str | None = None) -> System:
        """Insert `system` into the step, before or after a named system (default: at the end).

        `owner` names the mod that adds it (for messages and saves; engine.mods guards the mod's
        systems so that an error disables them instead of stopping the simulation).
        """
        names = self.system_names()
        who = f'mod "{owner}": ' if owner else ""
        if not isinstance(system, System):
            raise OrderError(f"{who}{system!r} is not an engine.systems.System")
        if system.name in names:
            raise OrderError(f'{who}a system named "{system.name}" is already in the step')
        if before is not None and after is not None:
            raise OrderError(f"{who}give before= or after=, not both")
        anchor = before if before is not None else after
        if anchor is not None and anchor not in names:
            raise OrderError(f'{who}cannot place "{system.name}" relative to unknown system "{anchor}" '
                             f'(systems: {", ".join(names)})')
        if before is not None:
            index = names.index(before)
        elif after is not None:
            index = names.index(after) + 1
        else:
            index = len(names)
        system.bind(self)
        if owner:
            self._owners[system.name] = owner
        self._systems.insert(index, system)
        return system

    def remove_system(self, name: str) -> None:
        """Take a system out of the step. Safe during a step: a removed system does not run again."""
        self._systems.remove(self.get_system(name))
        self._owners.pop(name, None)

    def _run_systems(self) -> None:
        """One pass over the systems in order (the simulation owns the order; esper holds no
        processors). Entities deleted during the last step are dropped first, as esper.process does."""
        esper.clear_dead_entities()
        self._stepping = True
        try:
            for s in tuple(self._systems):
                if not any(s is x for x in self._systems):   # removed earlier in this step
                    continue
                self._run_pass(s)
        finally:
            self._stepping = False

    def _run_pass(self, s: System) -> None:
        """One system's pass (process(dt)), timed into self.timings when that is a dict."""
        timings = self.timings
        if timings is None:
            s.process(self.dt)
            return
        t0 = time.perf_counter()
        try:
            s.process(self.dt)
        finally:
            timings[s.name] = timings.get(s.name, 0.0) + time.perf_counter() - t0

    # -- stepping ----------------------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advance n fixed steps of `dt`. Events are delivered to subscribers after each step."""
        for _ in range(int(n)):
            with self._context():
                try:
                    # a value written between steps (the game, a tool, an event handler) is named
                    # here, before the water step spreads it over the grid or trips over it
                    bad = health.water_cell(self)
                    if bad is not None:
                        name, k, i, value = bad
                        x, z = (i + 0.5) * self.water.dx, (k + 0.5) * self.water.dx
                        cell = f"at cell (k={k}, i={i}), x={x:.3f} m, z={z:.3f} m"
                        raise NonFiniteError(
                            f"water {name} {cell} is {value} at t={self.time + self.dt:.4f} s (water state became "
                            f"NaN or infinite {cell}, t={self.time:.4f} s, before this step: something wrote a "
                            f"non-finite value into {name} since the last step. Check what changed the water there.)")
                    self._run_systems()
                except NonFiniteError:
                    self.events.pending.clear()
                    raise
                except SimulationError as exc:
                    self.events.pending.clear()
                    where = health.describe(self, full=True)   # the water kernel names h, u, w only
                    if where is not None and where not in str(exc):
                        raise NonFiniteError(f"{where} at t={self.time + self.dt:.4f} s ({exc})") from None
                    raise
                except Exception as exc:   # an engine system tripped over a NaN it was handed: name it
                    where = health.describe(self, full=True)
                    if where is None:
                        raise
                    self.events.pending.clear()
                    raise NonFiniteError(f"{where} at t={self.time + self.dt:.4f} s ({type(exc).__name__}: "
                                         f"{exc}); check forces and velocities given to it") from None
                where = health.body_problem(self)
                if where is not None:
                    self.events.pending.clear()
                    raise NonFiniteError(f"{where} at t={self.time + self.dt:.4f} s; check forces and "
                                         "velocities given to it")
            self.time = (self.steps + 1) * self.dt
            self.steps += 1
            self.events.flush(on_error=self._handler_failed)

    def on(self, kind: type, fn: Callable[[Any], Any]) -> None:
        """Call fn(event) for every event of type `kind` (or a subclass), after the step that made it."""
        self.events.subscribe(kind, fn)

    def off(self, kind: type, fn: Callable[[Any], Any]) -> None:
        self.events.unsubscribe(kind, fn)

    def emit(self, event: Any) -> None:
        """Queue an event (systems call this during a step)."""
        self.events.emit(event)

    def _handler_failed(self, fn: Callable, event: Any, exc: BaseException) -> None:
        name = getattr(fn, "__qualname__", repr(fn))
        self.events.unsubscribe(type(event), fn)
        for fns in self.events.handlers.values():
            if fn in fns:
                fns.remove(fn)
        msg = f"event handler {name} raised {type(exc).__name__}: {exc}; it has been unsubscribed"
        self.failures.append(msg)

    # -- the water -----------------------------------------------------------------------------
    @property
    def water(self) -> WaterGrid:
        """The pool's water grid (live arrays)."""
        with self._context():
            return esper.component_for_entity(self.water_entity, WaterGrid)

    def displaced_volume(self) -> float:
        """Body volume the coupling currently holds inside the water grid's depth, m^3.

        Bodies push water aside by raising h where they sit (the covered-height field), so
        `water.volume()` counts the water plus what the bodies displace; this is the second part.
        """
        return float(self.hull.displaced)

    def total_water(self) -> float:
        """All water in the simulation, m^3: the pool, water held in bottles, water in flight.

        Constant apart from explicit sources (sim.water.source_volume).
        """
        pool = self.water.volume() - self.displaced_volume()
        return pool + self.body_store.held_water_total() + self.water_in_flight

    # -- bodies --------------------------------------------------------------------------------
    def spawn_bottle(self, position: Iterable[float], velocity: Iterable[float] = (0, 0, 0),
                     angular_velocity: Iterable[float] = (0, 0, 0),
                     orientation: Iterable[float] = (1, 0, 0, 0), fill: float = 0.0,
                     sealed: bool = True, model: str = "bottle", drag: float | None = None) -> int:
        """Add a glass bottle with its centre of mass at `position`; return its entity id.

        `fill` is the fraction of its inner volume holding water (rigid, settled along the bottle's
        axis: it adds mass and lowers the centre of mass). `model` names a bottle set in
        content/models/ (<model>.obj, <model>_fragments.obj, <model>.json). `drag`: a C_D for flow
        from any side replacing the one from its shape (engine/drag.py).
        """
        from engine import bodies as bd
        from engine.meshes import load_bottle_set
        if not 0.0 <= fill <= 1.0:
            raise ValueError(f"fill must be between 0 and 1 (got {fill})")
        check_motion(position, velocity, angular_velocity, orientation)
        phys = self.level.physics
        bs = load_bottle_set(model)
        held = float(fill) * bs.inner_volume
        mid, props, _ = bd.bottle_model(self.body_store, bs, held, phys.glass_density, phys.water_density)
        outer = bd.meshes.signed_volume(*bs.outer)
        slot = self.body_store.spawn("bottle", mid, props, tuple(position), tuple(velocity),
                                     tuple(angular_velocity), tuple(orientation), volume=outer,
                                     held_water=held, inner_volume=bs.inner_volume,
                                     restitution=phys.restitution, friction=phys.friction, drag=_drag(drag))
        with self._context():
            e = esper.create_entity(BodyRef(slot), Bottle(model, bool(sealed), phys.glass_strength))
        self.emit(ev.Spawned(e, "bottle", self.time))
        retire_over_cap(self, "bottle", keep=e)
        return e

    def spawn_body(self, model: str = "box", density: float = 500.0, position: Iterable[float] = (0, 0, 0),
                   velocity: Iterable[float] = (0, 0, 0), angular_velocity: Iterable[float] = (0, 0, 0),
                   orientation: Iterable[float] = (1, 0, 0, 0), *, size: Iterable[float] | None = None,
                   radius: float | None = None, scale: float = 1.0, restitution: float | None = None,
                   friction: float | None = None, drag: float | None = None) -> int:
        """Add a rigid prop of uniform `density` (kg/m^3) with its centre of mass at `position`.

        `model`: "box" (edge lengths `size`, m), "sphere" (`radius`, m), "cylinder" (flat ends, axis y,
        `radius` and length `size[1]`, m), the name of a closed OBJ
        mesh in content/models/ ("crate", "ball") or a path to one, scaled by `scale`.
        Restitution and friction default to the level's physics; `drag`, a C_D for flow from any side,
        to the one from its shape (engine/drag.py).
        """
        from engine import bodies as bd
        if not (density > 0.0 and math.isfinite(density)):
            raise ValueError(f"density must be a finite number > 0 kg/m^3 (got {density})")
        check_motion(position, velocity, angular_velocity, orientation)
        phys = self.level.physics
        mid, props = bd.shape_model(self.body_store, str(model), float(density),
                                    size=None if size is None else tuple(size), radius=radius, scale=scale)
        slot = self.body_store.spawn("prop", mid, props, tuple(position), tuple(velocity), tuple(angular_velocity),
                                     tuple(orientation),
                                     restitution=phys.restitution if restitution is None else float(restitution),
                                     friction=phys.friction if friction is None else float(friction),
                                     drag=_drag(drag))
        with self._context():
            e = esper.create_entity(BodyRef(slot), Prop(self.body_store.models[mid].name))
        self.emit(ev.Spawned(e, "prop", self.time))
        retire_over_cap(self, "prop", keep=e)
        return e

    def shatter(self, entity: int, impulse: float | None = None) -> tuple[int, ...]:
        """Break a bottle (as a hard enough impact would, with `impulse` N s: default its strength);
        return its fragment entities.

        The request is a ShatterRequest component on the bottle, which the Shatter system reads
        like an Impact. Asked between steps, the Simulation (which runs every system's pass) runs
        Shatter's pass now, so the bottle breaks at once and its fragments are returned (its
        Shattered event is delivered after the next step, as for a break in a step). Asked during a
        step (a mod's system), it is served by this step's Shatter pass, or the next step's if that
        has run: () is returned, and the Shattered event names the fragments.
        """
        with self._context():
            if not esper.entity_exists(entity) or not esper.has_component(entity, Bottle):
                raise KeyError(f"entity {entity} is not a bottle")
            strength = esper.component_for_entity(entity, Bottle).strength
            value = strength if impulse is None else float(impulse)
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"impulse must be a finite number >= 0 N s (got {impulse})")
            esper.add_component(entity, ShatterRequest(value))
            if self._stepping:
                return ()
            before = len(self.events.pending)
            self._run_pass(self.get_system("Shatter"))
            return next((e.shards for e in self.events.pending[before:]
                         if isinstance(e, ev.Shattered) and e.entity == entity), ())

    def body(self, entity: int) -> Body:
        """Live view of a body's state: position, velocity, orientation, mass, mesh_world() ..."""
        with self._context():
            if not esper.entity_exists(entity) or not esper.has_component(entity, BodyRef):
                raise KeyError(f"entity {entity} is not a body (it may have shattered or been removed)")
            return self.body_store.view(esper.component_for_entity(entity, BodyRef).slot)

    def bodies(self, kind: str | None = None) -> list[int]:
        """Entity ids of the live bodies, optionally only one kind ("bottle", "shard", "prop")."""
        from engine.bodies import KINDS
        k = None if kind is None else KINDS.index(kind)
        kinds = self.body_store.kind
        with self._context():
            return sorted(e for e, ref in esper.get_component(BodyRef) if k is None or kinds[ref.slot] == k)

    def remove_body(self, entity: int) -> None:
        """Delete a body and free its slot (its held water is NOT released: Shatter does that)."""
        with self._context():
            ref = esper.component_for_entity(entity, BodyRef)
            self.body_store.remove(ref.slot)
            esper.delete_entity(entity, immediate=True)

    # -- state -----------------------------------------------------------------------------
    def state(self) -> tuple[dict[str, Any], list[str]]:
        """The whole state as a plain tree (numbers, strings, arrays; see engine/sim_state.py) and
        the parts a save cannot hold, named (a mod system without state()/set_state() ...).

        `engine.saves.write(path, tree)` puts it in a file. Reading the next entity id through
        esper's public API uses that id up, so a state() moves later entity ids on by one.
        """
        from engine import sim_state
        return sim_state.state(self)

    def set_state(self, tree: dict[str, Any]) -> None:
        """Restore a tree from `state()` into this simulation (same level, systems and mods).

        Every part is checked before any is applied; raises engine.saves.SaveError, one sentence.
        """
        from engine import sim_state
        sim_state.set_state(self, tree)

    @classmethod
    def from_state(cls, tree: dict[str, Any], level: Level) -> "Simulation":
        """A new simulation of `level` (no mods) in the state `tree`; SaveError if it does not fit."""
        sim = cls(level)
        try:
            sim.set_state(tree)
        except BaseException:
            sim.close()
            raise
        return sim

    def fingerprint(self) -> str:
        """A hash of the whole simulation state: equal hashes mean bitwise-identical state."""
        h = hashlib.sha256()
        w = self.water
        for a in (w.read(name) for name in ("h", "bed", "u", "w")):
            h.update(np.ascontiguousarray(a).tobytes())
        st = self.body_store
        for name in sorted(vars(st)):
            a = getattr(st, name)
            if isinstance(a, np.ndarray):
                h.update(name.encode())
                h.update(np.ascontiguousarray(a).tobytes())
        h.update(np.float64(self.time).tobytes())
        h.update(repr(self.bodies()).encode())
        return h.hexdigest()


MAX_SPEED = 1000.0        # m/s: any faster and a body is a numerical accident, not a throw
MAX_SPIN = 10000.0        # rad/s


def _drag(drag: float | None) -> float:
    """A body's drag override for BodyStore.spawn: 0 (none, its shape's) or a C_D > 0."""
    if drag is None:
        return 0.0
    if not (0.0 < drag <= 10.0):
        raise ValueError(f"drag must be a drag coefficient in (0, 10] (got {drag})")
    return float(drag)


def check_motion(position: Iterable[float], velocity: Iterable[float], angular_velocity: Iterable[float],
                  orientation: Iterable[float]) -> None:
    """ValueError unless every number is finite, the vectors have 3 (quaternion 4) parts and the
    speeds are below MAX_SPEED and MAX_SPIN."""
    for name, v, n in (("position", position, 3), ("velocity", velocity, 3),
                       ("angular_velocity", angular_velocity, 3), ("orientation", orientation, 4)):
        try:
            a = np.asarray(tuple(v), dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{name} must be {n} numbers (got {v!r})") from None
        if a.shape != (n,) or not np.isfinite(a).all():
            raise ValueError(f"{name} must be {n} finite numbers (got {tuple(v)!r})")
        if name == "velocity" and np.linalg.norm(a) > MAX_SPEED:
            raise ValueError(f"velocity {np.linalg.norm(a):g} m/s is beyond {MAX_SPEED:g} m/s")
        if name == "angular_velocity" and np.linalg.norm(a) > MAX_SPIN:
            raise ValueError(f"angular_velocity {np.linalg.norm(a):g} rad/s is beyond {MAX_SPIN:g} rad/s")


class _WorldContext:
    """Switch esper to one simulation's world for the duration of a block."""

    __slots__ = ("name", "prev")

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> None:
        self.prev = esper.current_world
        esper.switch_world(self.name)

    def __exit__(self, *exc: object) -> None:
        if self.prev != self.name:
            esper.switch_world(self.prev)

