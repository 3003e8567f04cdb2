"""Rigid bodies as structure-of-arrays: one row per slot, models shared, kernels sweep them all.

State per slot (world frame, SI): `pos` centre of mass, `vel`, `quat` (w, x, y, z) body -> world,
`angvel`; mass properties `mass`, `inv_mass`, `inertia`/`inv_inertia` (3x3 in the body frame,
about the centre of mass); `volume` enclosed by the outer surface, `held_water`/`inner_volume`
for bottles, `submerged` (written by CoupleWater); per-body `restitution`, `friction` and `drag` (a
pressure-drag coefficient replacing the model's, engine/drag.py; 0: the model's);
`sleep` seconds spent at rest (asleep past `sleep_after`, the store's one setting, SLEEP_AFTER unless
changed; any write to vel wakes nothing by itself: set sleep[slot] = 0 to wake a body); `touching`
whether the body touched anything in the last step's contacts (written by IntegrateBodies);
`surface` the water surface around the body, the plane eta = a + b (x - x_c) + c (z - z_c) about
its centre of mass as (a, b, c) (written by CoupleWater); `kind` (index into KINDS) and `model_id` (index into `models`); `group` >= 0 marks bodies that
do not collide with each other (the fresh fragments of one bottle, for a moment).

Contacts: `contact_keys`, `contact_impulses` (N s) and `contact_dt` (s) are the solver's memory
of the last substep's contacts, which warm-starts the next (persistent contacts).

Forces: other systems add into `force` and `torque` (N, N m, world frame, about the centre of
mass) during a step; IntegrateBodies applies them at the start of the NEXT step (the coupling runs
after it) and then clears them. So a force added in step n acts over step n + 1.

Models are append-only: a model id never changes meaning (the renderer and the coupling cache
packed copies by count).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from engine import drag as drag_law, meshes
from engine.kernels.rigid import quat_to_matrix
from engine.meshes import BOX, CAPSULE, MassProperties, Model, Primitive

KINDS = ("bottle", "shard", "prop")
SHARD_POINTS = 16      # contact points per fragment: a farthest-point subset of its convex hull's vertices (18-48)
SHARD_PAIR_POINTS = 8  # ... of which these (its corners) meet other bodies
BOTTLE_POINTS = 1000   # contact points per bottle: all its hull vertices but its widest rims' (those meet the pool as circles)
BOTTLE_PAIR_POINTS = 64  # ... of which these (well spread) meet other bodies
PROP_POINTS = 64       # contact points per prop model
# the contact solver's memory in the store (per contact, not per slot): save-tree name -> attribute
CONTACT_ARRAYS = {"keys": "contact_keys", "impulses": "contact_impulses", "dt": "contact_dt"}
SLEEP_AFTER = 0.3       # s at rest (see IntegrateBodies) after which a body sleeps
BOTTLE_COUPLING_SEGMENTS = 15  # the water sees a bottle re-lathed at this many segments (of 30), same volume


class BodyStore:
    """Positions, velocities, orientations and mass properties of every body, one row per slot."""

    # the per-slot arrays (see above), `capacity` rows each, made and grown by _alloc
    pos: NDArray[np.float64]
    vel: NDArray[np.float64]
    angvel: NDArray[np.float64]
    force: NDArray[np.float64]
    torque: NDArray[np.float64]
    quat: NDArray[np.float64]
    mass: NDArray[np.float64]
    inv_mass: NDArray[np.float64]
    volume: NDArray[np.float64]
    held_water: NDArray[np.float64]
    inner_volume: NDArray[np.float64]
    submerged: NDArray[np.float64]
    restitution: NDArray[np.float64]
    friction: NDArray[np.float64]
    drag: NDArray[np.float64]
    radius: NDArray[np.float64]
    sleep: NDArray[np.float64]
    surface: NDArray[np.float64]
    inertia: NDArray[np.float64]
    inv_inertia: NDArray[np.float64]
    alive: NDArray[np.bool_]
    touching: NDArray[np.bool_]
    kind: NDArray[np.int8]
    model_id: NDArray[np.int32]
    group: NDArray[np.int64]

    def __init__(self, capacity: int = 64) -> None:
        self.n = 0
        self.capacity = 0
        self.free: list[int] = []
        self.models: list[Model] = []
        self._model_keys: dict[tuple, int] = {}
        self._packed_count = -1
        self._packed: tuple = ()
        # warm-start memory of the contact solver (IntegrateBodies), state a save must keep to
        # replay exactly: the last substep's contact keys (sorted; kernels.contacts.contact_key),
        # their accumulated impulses (normal, tangent 1, tangent 2; N s) and that substep's length
        self.contact_keys = np.zeros(0, np.int64)
        self.contact_impulses = np.zeros((0, 3))
        self.contact_dt = np.zeros(())
        self.sleep_after = SLEEP_AFTER   # s; a setting, not state: math.inf keeps every body awake
        self._alloc(capacity)

    def _alloc(self, cap: int) -> None:
        def grow(name: str, shape: tuple, dtype=np.float64, fill=0.0) -> None:
            old = getattr(self, name, None)
            new = np.full((cap,) + shape, fill, dtype=dtype)
            if old is not None:
                new[: len(old)] = old
            setattr(self, name, new)
        for name in ("pos", "vel", "angvel", "force", "torque", "surface"):
            grow(name, (3,))
        grow("quat", (4,))
        for name in ("mass", "inv_mass", "volume", "held_water", "inner_volume", "submerged",
                     "restitution", "friction", "radius", "sleep", "drag"):
            grow(name, ())
        grow("inertia", (3, 3)); grow("inv_inertia", (3, 3))
        grow("alive", (), np.bool_, False)
        grow("touching", (), np.bool_, False)
        grow("kind", (), np.int8, 0)
        grow("model_id", (), np.int32, 0)
        grow("group", (), np.int64, -1)
        self.capacity = cap

    # -- models --------------------------------------------------------------------------------
    def add_model(self, model: Model, key: tuple | None = None) -> int:
        """Register a model (once per key); return its id."""
        if key is not None and key in self._model_keys:
            return self._model_keys[key]
        self.models.append(model)
        mid = len(self.models) - 1
        if key is not None:
            self._model_keys[key] = mid
        return mid

    def model_for(self, key: tuple) -> int | None:
        return self._model_keys.get(key)

    def packed(self) -> tuple[NDArray, ...]:
        """Contact points and primitives of every model, packed for the kernels:
        (point_start (M+1,), points (P, 3), pair_point_start (M+1,), pair_points (P', 3),
        prim_start (M+1,), prims (Q, 16), point_radius (M,), pair_with_points (M,) bool,
        circle_start (M+1,), circles (C, 7))."""
        if self._packed_count != len(self.models):
            def pack(arrays: list[NDArray]) -> tuple[NDArray, NDArray]:
                start = np.zeros(len(arrays) + 1, np.int64)
                start[1:] = np.cumsum([len(a) for a in arrays])
                flat = np.concatenate(arrays) if arrays else np.zeros((0, 3))
                return start, np.ascontiguousarray(flat, np.float64)
            ps, pts = pack([m.points for m in self.models])
            pps, ppts = pack([m.pair_points for m in self.models])  # type: ignore[misc]
            qs = np.zeros(len(self.models) + 1, np.int64)
            qs[1:] = np.cumsum([len(m.prims) for m in self.models])
            prims = np.array([p.pack() for m in self.models for p in m.prims]).reshape(-1, 16)
            rad = np.array([m.point_radius for m in self.models], np.float64)
            with_pts = np.array([m.pair_with_points for m in self.models], np.bool_)
            cs = np.zeros(len(self.models) + 1, np.int64)
            cs[1:] = np.cumsum([len(m.circles) for m in self.models])
            circ = np.ascontiguousarray(np.concatenate([m.circles for m in self.models]) if self.models
                                        else np.zeros((0, 7)), np.float64)
            self._packed = (ps, pts, pps, ppts, qs, prims, rad, with_pts, cs, circ)
            self._packed_count = len(self.models)
        return self._packed

    # -- slots ---------------------------------------------------------------------------------
    def spawn(self, kind: str, model_id: int, props: MassProperties, position: Iterable[float],
              velocity: Iterable[float] = (0, 0, 0), angular_velocity: Iterable[float] = (0, 0, 0),
              orientation: Iterable[float] = (1, 0, 0, 0), *, volume: float | None = None,
              held_water: float = 0.0, inner_volume: float = 0.0, restitution: float = 0.35,
              friction: float = 0.5, group: int = -1, drag: float = 0.0) -> int:
        """Fill a free slot (holes first, last freed first) and return it."""
        if self.free:
            s = self.free.pop()
        else:
            if self.n == self.capacity:
                self._alloc(self.capacity * 2)
            s = self.n
            self.n += 1
        q = np.asarray(tuple(orientation), float)
        nq = float(np.linalg.norm(q))
        if not nq > 0.0:
            raise ValueError(f"orientation quaternion {tuple(q)} has zero length")
        self.pos[s] = tuple(position); self.vel[s] = tuple(velocity); self.angvel[s] = tuple(angular_velocity)
        self.quat[s] = q / nq
        self.force[s] = 0.0; self.torque[s] = 0.0; self.submerged[s] = 0.0; self.sleep[s] = 0.0
        self.set_mass(s, props)
        self.volume[s] = props.volume if volume is None else volume
        self.held_water[s] = held_water
        self.inner_volume[s] = inner_volume
        self.restitution[s] = restitution
        self.friction[s] = friction
        self.drag[s] = drag
        self.kind[s] = KINDS.index(kind)
        self.model_id[s] = model_id
        self.group[s] = group
        self.radius[s] = self.models[model_id].radius
        self.alive[s] = True
        return s

    def set_mass(self, slot: int, props: MassProperties) -> None:
        self.mass[slot] = props.mass
        self.inv_mass[slot] = 1.0 / props.mass
        self.inertia[slot] = props.inertia
        self.inv_inertia[slot] = np.linalg.inv(props.inertia)

    def remove(self, slot: int) -> None:
        self.alive[slot] = False
        self.vel[slot] = 0.0; self.angvel[slot] = 0.0; self.force[slot] = 0.0; self.torque[slot] = 0.0
        self.held_water[slot] = 0.0; self.submerged[slot] = 0.0
        self.free.append(slot)

    def held_water_total(self) -> float:
        n = self.n
        return float(self.held_water[:n][self.alive[:n]].sum())

    def view(self, slot: int) -> "Body":
        return Body(self, slot)

    # -- save games ------------------------------------------------------------------------------
    def state(self) -> dict:
        """Everything needed to restore this store exactly: the slot count, the free list, the key
        of every model in id order (models are rebuilt from their keys, never stored), every
        per-slot array (any ndarray attribute that is not private, so a new array is saved too) and
        the contact solver's warm-start memory under "contacts" (one row per contact, not per slot:
        keys (m,), impulses (m, 3), dt 0-d), without which a loaded game would not replay bit for bit."""
        keys: list = [None] * len(self.models)
        for key, mid in self._model_keys.items():
            keys[mid] = key
        missing = [self.models[i].name for i, k in enumerate(keys) if k is None]
        if missing:
            raise ValueError(f"models {', '.join(missing)} were added without a key; a save cannot rebuild them")
        arrays = {name: a.copy() for name, a in vars(self).items()
                  if isinstance(a, np.ndarray) and not name.startswith("_") and name not in CONTACT_ARRAYS.values()}
        contacts = {short: getattr(self, name).copy() for short, name in CONTACT_ARRAYS.items()}
        return {"n": self.n, "capacity": self.capacity, "free": np.array(self.free, np.int64),
                "models": keys, "arrays": arrays, "contacts": contacts}

    def set_state(self, n: int, capacity: int, free: Sequence[int], models: list[Model],
                  keys: list[tuple], arrays: dict[str, NDArray],
                  contacts: dict[str, NDArray] | None = None) -> None:
        """Take a checked state (see engine.sim_state): the arrays replace this store's own, and
        the contact memory too when given (keys (m,) int64, impulses (m, 3), dt 0-d)."""
        for name, a in arrays.items():
            setattr(self, name, np.array(a, copy=True))
        for short, a in (contacts or {}).items():
            setattr(self, CONTACT_ARRAYS[short], np.array(a, copy=True))
        self.n, self.capacity, self.free = int(n), int(capacity), [int(s) for s in free]
        self.models = list(models)
        self._model_keys = {k: i for i, k in enumerate(keys)}
        self._packed_count = -1


@dataclass(slots=True)
class Body:
    """A live view of one body's state in the store (array properties are writable views)."""
    store: BodyStore
    slot: int

    @property
    def position(self) -> NDArray[np.float64]:
        """Centre of mass, world, m."""
        return self.store.pos[self.slot]

    @property
    def velocity(self) -> NDArray[np.float64]:
        return self.store.vel[self.slot]

    @property
    def orientation(self) -> NDArray[np.float64]:
        """Quaternion (w, x, y, z), body -> world."""
        return self.store.quat[self.slot]

    @property
    def angular_velocity(self) -> NDArray[np.float64]:
        """rad/s, world frame."""
        return self.store.angvel[self.slot]

    @property
    def mass(self) -> float:
        return float(self.store.mass[self.slot])

    @property
    def volume(self) -> float:
        """m^3 enclosed by the outer surface."""
        return float(self.store.volume[self.slot])

    @property
    def kind(self) -> str:
        return KINDS[int(self.store.kind[self.slot])]

    @property
    def model(self) -> Model:
        return self.store.models[int(self.store.model_id[self.slot])]

    @property
    def inertia_world(self) -> NDArray[np.float64]:
        """Inertia tensor about the centre of mass in world axes, R I R^T, kg m^2."""
        r = quat_to_matrix(self.store.quat[self.slot])
        return r @ self.store.inertia[self.slot] @ r.T

    @property
    def angular_momentum(self) -> NDArray[np.float64]:
        return self.inertia_world @ self.store.angvel[self.slot]

    @property
    def kinetic_energy(self) -> float:
        """Translational plus rotational, J."""
        v, w = self.store.vel[self.slot], self.store.angvel[self.slot]
        return float(0.5 * self.mass * v @ v + 0.5 * w @ self.inertia_world @ w)

    @property
    def submerged_volume(self) -> float:
        return float(self.store.submerged[self.slot])

    @property
    def held_water(self) -> float:
        return float(self.store.held_water[self.slot])

    def to_world(self, p: Sequence[float] | NDArray) -> NDArray[np.float64]:
        """Body-frame point(s) to world."""
        r = quat_to_matrix(self.store.quat[self.slot])
        return np.asarray(p, float) @ r.T + self.store.pos[self.slot]

    def mesh_world(self) -> tuple[NDArray[np.float64], NDArray[np.integer]]:
        """World-space vertices and the triangles of the body's model."""
        m = self.model
        return self.to_world(m.vertices), m.triangles


# -- building models -------------------------------------------------------------------------
def centred_model(name: str, vertices: NDArray, triangles: NDArray, props: MassProperties, *,
                  prims: Sequence[Primitive] | None = None, n_points: int = PROP_POINTS,
                  n_pair_points: int | None = None, meta: dict | None = None,
                  coupling: tuple[NDArray, NDArray] | None = None, ball: float = 0.0,
                  pair_with_points: bool = False, drag: tuple[float, float, float] | None = None,
                  rims: bool = False) -> Model:
    """Move a mesh into its body frame (origin at `props.com`) and give it contact geometry
    (and, if given, the coupling surface, moved the same way). ball > 0: the model is a ball of
    that radius about its centre of mass, and collides as one (one contact point, its centre).
    drag: its pressure-drag coefficients along its axes (engine/drag.py); None: a sphere's.
    rims: a body of revolution about y whose widest rims meet the pool as circles
    (`meshes.rim_circles`)."""
    circles, keep = meshes.rim_circles(vertices) if rims else (np.zeros((0, 7)), None)
    circles[:, :3] -= props.com
    v = np.asarray(vertices, float) - props.com
    if ball > 0.0:
        pts = np.zeros((1, 3))
    else:
        # only vertices of the convex hull can be supports against a plane (the floor, a wall)
        hull = meshes.hull_mask(v)
        pts = meshes.farthest_points(v[hull if keep is None else keep & hull], n_points)
    pair = None if n_pair_points is None else meshes.farthest_points(v, n_pair_points)
    if prims is None:
        prims = (meshes.fit_box(v),)
    else:
        prims = tuple(p.shifted(props.com) for p in prims)
    return Model(name, v, np.asarray(triangles, np.int32), pts, tuple(prims), props.com.copy(),
                 normals=meshes.vertex_normals(v, np.asarray(triangles, np.int32)), meta=meta or {},
                 pair_points=pair, point_radius=float(ball), pair_with_points=pair_with_points, drag=drag,
                 circles=circles,
                 coupling=None if coupling is None else (np.asarray(coupling[0], float) - props.com,
                                                         np.asarray(coupling[1], np.int32)))


def shape_model(store: BodyStore, model: str, density: float, *, size: Sequence[float] | None = None,
                radius: float | None = None, scale: float = 1.0) -> tuple[int, MassProperties]:
    """Model id and mass properties for "box" (`size`), "sphere" (`radius`), "cylinder" (flat ends,
    axis y, `radius` and length `size[1]`) or an OBJ (a name in content/models/ or a path)."""
    if model == "box":
        s = meshes.vec3(size if size is not None else (0.3, 0.3, 0.3))
        key: tuple = ("box", s)
        v, t = meshes.box(s)
        prims: tuple[Primitive, ...] | None = (Primitive(BOX, half=meshes.vec3(0.5 * x for x in s)),)
        name = f"box {s[0]:g}x{s[1]:g}x{s[2]:g}"
    elif model == "cylinder":
        r = float(radius if radius is not None else 0.05)
        length = float(size[1]) if size is not None else 0.3
        key = ("cylinder", r, length)
        # flat-ended, axis along y, 32 sides
        v, t = meshes.lathe(np.array([(0.0, -0.5 * length), (r, -0.5 * length), (r, 0.5 * length),
                                      (0.0, 0.5 * length)]), 32)
        prims = None
        name = f"cylinder {r:g}x{length:g}"
    elif model == "sphere":
        r = float(radius if radius is not None else 0.1)
        key = ("sphere", r)
        v, t = meshes.sphere(r, 2)
        prims = (Primitive(CAPSULE, radius=r),)
        name = f"sphere {r:g}"
    else:
        path = Path(model)
        if path.suffix == ".obj" or path.is_absolute():
            v, t = meshes.load_obj_model(path.stem, path.parent)
        else:
            v, t = meshes.load_obj_model(model)
        v = v * float(scale)
        key = ("obj", str(model), float(scale))
        prims = None
        name = path.stem
    unit = meshes.mass_properties(v, t, 1.0)
    coupling = None
    if model == "sphere":   # the ball it stands for (it collides as one), not the inscribed polyhedron
        vol = 4.0 / 3.0 * np.pi * r**3
        # the water sees the polyhedron scaled to the ball's volume (the inscribed one holds 96.6% of
        # it at subdivision 2): Archimedes' force is rho g V of the ball
        coupling = (v * (vol / unit.volume) ** (1.0 / 3.0), t)
        unit = MassProperties(vol, vol, unit.com, 0.4 * vol * r * r * np.eye(3))
    mid = store.model_for(key)
    if mid is None:
        cd = (None if model == "sphere" else drag_law.box(s) if model == "box"
              else drag_law.revolution(length, 2.0 * r) if model == "cylinder" else drag_law.of_vertices(v))
        mid = store.add_model(centred_model(name, v, t, unit, prims=prims, coupling=coupling,
                                            ball=r if model == "sphere" else 0.0, drag=cd,
                                            rims=model == "cylinder"), key)
    return mid, scaled(unit, density)


def scaled(unit: MassProperties, density: float) -> MassProperties:
    """Mass properties of the same solid at another density."""
    return MassProperties(unit.mass * density, unit.volume, unit.com, unit.inertia * density)


def bottle_model(store: BodyStore, bs: meshes.BottleSet, held_water: float, glass_density: float,
                 water_density: float) -> tuple[int, MassProperties, MassProperties]:
    """Model id, whole-body mass properties (glass + held water) and the glass alone, model frame.

    The held water is treated as rigid, settled at the bottom of the cavity along the bottle's axis:
    it adds mass and lowers the centre of mass. One model per distinct fill.
    """
    glass = glass_properties(bs, glass_density)
    total = glass
    water = _held_water_properties(bs, float(held_water), float(water_density))
    if water is not None:
        total = glass + water
    key = ("bottle", bs.name, float(held_water), float(glass_density), float(water_density))
    mid = store.model_for(key)
    if mid is None:
        v, t = bs.outer
        meta = {"neck": bs.neck - total.com, "neck_axis": bs.neck_axis, "inner_volume": bs.inner_volume}
        mid = store.add_model(centred_model(bs.name, v, t, total, prims=bs.capsules, n_points=BOTTLE_POINTS,
                                            n_pair_points=BOTTLE_PAIR_POINTS, pair_with_points=True,
                                            meta=meta, coupling=_coupling_surface(bs), drag=drag_law.bottle(v),
                                            rims=True), key)
    return mid, total, glass


_water_cache: dict[tuple, meshes.MassProperties | None] = {}
WATER_CACHE = 512      # entries; a session remodels open bottles at REMODEL_STEPS fills per model


def _held_water_properties(bs: meshes.BottleSet, held: float, rho: float) -> meshes.MassProperties | None:
    """Mass properties of `held` m^3 of water settled in the cavity (None if empty), cached per
    bottle and fill: the clipped-lathe mesh behind them costs milliseconds, and open bottles ask
    for the same few quantised fills again and again."""
    key = (bs.name, id(bs), held, rho)
    if key not in _water_cache:
        if len(_water_cache) >= WATER_CACHE:
            _water_cache.clear()
        water = meshes.cavity_water(bs, held)
        _water_cache[key] = None if water is None else meshes.mass_properties(*water, rho)
    return _water_cache[key]


_coupling_cache: dict[tuple, tuple[NDArray, NDArray]] = {}


def _coupling_surface(bs: meshes.BottleSet) -> tuple[NDArray, NDArray] | None:
    """The bottle's outer surface re-lathed at BOTTLE_COUPLING_SEGMENTS with its volume kept (model
    frame): half the triangles for the water coupling, which costs per triangle. None if the
    outer surface is not a surface of revolution or is already that coarse."""
    key = (bs.name, id(bs))
    if key not in _coupling_cache:
        v, t = bs.outer
        try:
            if meshes._ring_count(v, meshes.lathe_profile(v, t)) <= BOTTLE_COUPLING_SEGMENTS:
                return None
            _coupling_cache[key] = meshes.coarse_lathe(v, t, BOTTLE_COUPLING_SEGMENTS)
        except ValueError:
            return None
    return _coupling_cache[key]


_glass_cache: dict[tuple, tuple[MassProperties, tuple[MassProperties, ...]]] = {}


def fragment_properties(bs: meshes.BottleSet, glass_density: float) -> tuple[MassProperties, ...]:
    """Mass properties of each fragment (model frame)."""
    return _glass(bs, glass_density)[1]


def glass_properties(bs: meshes.BottleSet, glass_density: float) -> MassProperties:
    """The whole glass shell: the sum of its fragments (they tile it exactly)."""
    return _glass(bs, glass_density)[0]


def _glass(bs: meshes.BottleSet, rho: float) -> tuple[MassProperties, tuple[MassProperties, ...]]:
    key = (bs.name, id(bs), rho)
    if key not in _glass_cache:
        parts = tuple(meshes.mass_properties(v, t, rho) for v, t in bs.fragments)
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        _glass_cache[key] = (total, parts)
    return _glass_cache[key]


def fragment_model(store: BodyStore, bs: meshes.BottleSet, piece: int, glass_density: float) -> int:
    """Model id of one fragment (its body frame centred at its own centre of mass)."""
    key = ("fragment", bs.name, piece, float(glass_density))
    mid = store.model_for(key)
    if mid is None:
        v, t = bs.fragments[piece]
        props = fragment_properties(bs, glass_density)[piece]
        mid = store.add_model(centred_model(f"{bs.name}_fragment_{piece}", v, t, props,
                                            n_points=SHARD_POINTS, n_pair_points=SHARD_PAIR_POINTS,
                                            drag=drag_law.of_vertices(v)), key)
    return mid
