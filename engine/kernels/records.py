"""Named structures at the boundary of the rigid-body and contact kernels (rigid.py, contacts.py).

Each is a `collections.namedtuple` of arrays (or scalars): numba types it as a NamedTuple in
nopython mode, caches kernels that take it (`cache=True`) and reads its fields by name at no cost
inside a kernel. A kernel entry point takes a handful of these instead of thirty positional arrays.

Invariant: every field keeps one dtype and number of dimensions (given below), as the kernels were
compiled for: an int where a float is expected compiles a second version. The builders at the end
(`contact_buffer`, `settings`, ...) make them with the right dtypes.

Per body i (the BodyStore's slots; `n` bodies in use, arrays may be longer):

Bodies        the BodyStore's arrays (engine/bodies.py)
  alive       (N,) bool       slot in use
  pos         (N, 3) float    centre of mass, m (world)
  vel         (N, 3) float    velocity, m/s
  angvel      (N, 3) float    angular velocity, rad/s (world)
  quat        (N, 4) float    orientation (w, x, y, z), body -> world
  force       (N, 3) float    force accumulated by other systems over the step, N
  torque      (N, 3) float    torque accumulated likewise, N m
  inv_mass    (N,) float      1 / mass, 1/kg
  inertia     (N, 3, 3) float inertia tensor about the centre, body frame, kg m^2
  inv_inertia (N, 3, 3) float its inverse
  radius      (N,) float      bounding radius about the centre, m
  restitution (N,) float      coefficient of restitution e
  friction    (N,) float      Coulomb coefficient mu
  model_id    (N,) int32      index into the packed Shapes
  group       (N,) int64      bodies of one group >= 0 never collide (fresh fragments of a bottle)
  sleep       (N,) float      seconds at rest (asleep at or past Settings.sleep_after)

Motion        per-body quantities of the current substep (IntegrateBodies' scratch)
  awake       (N,) bool       alive and not asleep: moved this substep
  active      (N,) bool       awake, or asleep but paired with an awake body (broad phase)
  rot         (N, 3, 3) float rotation matrix of quat
  inv_iw      (N, 3, 3) float world inverse inertia R I^-1 R^T (zero for a sleeper: immovable)
  inv_mass_eff (N,) float     inverse mass as the solver sees it (zero for a sleeper)
  vel0        (N, 3) float    velocity before this substep's kick (gravity, forces)
  angvel0     (N, 3) float    angular velocity likewise
  vel_pre     (N, 3) float    velocity after the kick, before contact impulses
  margin      (N,) float      speculative margin: how far any point can move this substep + slop, m
  toi         (N,) float      -1 no impulse, tau >= 0 bounced tau into the substep, -2 held
  touching    (N,) bool       has a contact this substep
  push_v      (N, 3) float    split-impulse pseudo-velocity (moves the body, never enters vel)
  push_w      (N, 3) float    its angular part
  sand_k      (N,) float      crater depth d = sand_k v^(2/3) of the body landing on sand at v (engine/ground.py)
  sand_rr     (N,) float      the body's rolling resistance coefficient on sand (ground.sand_rolling)
  sand_pivot  (N,) float      the arm of its torsional friction in sand, m: a torque up to sand_pivot N
                              about the contact normal (ground.sand_pivot; 0: none)

Shapes        every model's collision geometry, packed (BodyStore.packed())
  point_start (M + 1,) int64  model m's contact points are points[point_start[m]:point_start[m + 1]]
  points      (P, 3) float    body-frame hull vertices (against the pool)
  pair_point_start, pair_points   the same for the points tested against other bodies
  prim_start  (M + 1,) int64  model m's convex primitives are prims[prim_start[m]:prim_start[m + 1]]
  prims       (Q, 16) float   packed primitive (engine/bodies.py Primitive.pack; slot 15: kind)
  point_radius (M,) float     radius of a model's points (0: vertices; a sphere: one ball)
  pair_with_points (M,) bool  test the pair points too (a bottle: its flat base)
  circle_start (M + 1,) int64 model m's rims are circles[circle_start[m]:circle_start[m + 1]]
  circles     (C, 7) float    body-frame rim circles against the pool: centre xyz, axis xyz, radius

Ground        the pool a body can touch, and the deck round it
  bed         (nz, nx) float  bed height at cell centres, m
  bed_max     float           its maximum, m
  dx          float           cell size, m
  size_x, size_z  float       the walls x = size_x, z = size_z (and x = 0, z = 0), m
  soft        (nz, nx) uint8  1 where the bed is loose sand (engine/ground.py), 0 hard ground
  rim         float           the walls' top, m: the walls stand from the bed to it, and the deck
                              round the pool is the plane y = rim outside 0 <= x <= size_x, 0 <= z <= size_z
  deck        float           the deck's width beyond the walls, m: no centre of mass goes farther out

Pairs         candidate pairs from the broad phase: a (P,) int64 < b (P,) int64

Contacts      one row per contact point (capacity C; the first `nc` in use)
  body_a      (C,) int64      the body the normal points towards
  body_b      (C,) int64      the other body, -1 for the pool
  point       (C, 3) float    contact point, m (world)
  normal      (C, 3) float    unit normal from b to a
  separation  (C,) float      signed gap along the normal, m (< 0: penetration)
  key         (C,) int64      identity across steps (contacts.contact_key): the warm-start key
  jn          (C,) float      accumulated normal impulse, N s
  jt          (C, 2) float    accumulated friction impulses along the two tangents, N s
  approach    (C,) float      normal relative velocity before the solve, m/s (< 0: closing)
  rows        (C, ROW) float  the solver's Jacobian rows (layout: contacts.py, DIR .. PUSH_TARGET)
  pivot       (C, 3) float    contacts with the pool (body_b -1): where a crater's drag acts, m (world):
                              a ball's centre (its surface's centre of curvature), else the point itself

WarmStart     last substep's impulses, by sorted contact key
  keys        (K,) int64      sorted keys
  impulses    (K, 3) float    (jn, jt1, jt2) of each key
  scale       float           fraction of them to start from (WARM_START x dt ratio; 0: none)

Impacts       one row per touching pair that collided this substep
  body_a, body_b (C,) int64; impulse (C,) float N s; point (C, 3) float impulse-weighted sum;
  normal (C, 3) float impulse-weighted sum

Settings      the step's constants (scalars); see engine/systems/integrate_bodies.py
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

Bodies = namedtuple("Bodies", ["alive", "pos", "vel", "angvel", "quat", "force", "torque", "inv_mass", "inertia",
                               "inv_inertia", "radius", "restitution", "friction", "model_id", "group", "sleep"])
Motion = namedtuple("Motion", ["awake", "active", "rot", "inv_iw", "inv_mass_eff", "vel0", "angvel0", "vel_pre",
                               "margin", "toi", "touching", "push_v", "push_w", "sand_k",
                               "sand_rr", "sand_pivot"])
Shapes = namedtuple("Shapes", ["point_start", "points", "pair_point_start", "pair_points", "prim_start", "prims",
                               "point_radius", "pair_with_points", "circle_start", "circles"])
Ground = namedtuple("Ground", ["bed", "bed_max", "dx", "size_x", "size_z", "soft", "rim", "deck"])
Pairs = namedtuple("Pairs", ["a", "b"])
Contacts = namedtuple("Contacts", ["body_a", "body_b", "point", "normal", "separation", "key", "jn", "jt",
                                   "approach", "rows", "pivot"])
WarmStart = namedtuple("WarmStart", ["keys", "impulses", "scale"])
Impacts = namedtuple("Impacts", ["body_a", "body_b", "impulse", "point", "normal"])
Settings = namedtuple("Settings", [
    "gravity",            # m/s^2, along -y
    "slop",               # m: contact search distance beyond a body's motion in a substep
    "penetration_slop",   # m: penetration left alone by the split-impulse push-out
    "beta",               # fraction of deeper penetration removed per substep
    "max_push",           # m/s: cap on the push-out velocity
    "bounce_speed",       # m/s: slower approaches do not bounce
    "iterations",         # sequential-impulse sweeps, at least ...
    "max_iterations",     # ... and at most, until no normal impulse changes by more than
    "settled",            # ... this fraction of the largest in a sweep
    "push_iterations",    # split-impulse sweeps
    "bounce_iterations",  # at most, over the contacts that bounce
    "keep_static",        # contacts kept per body against one feature of the pool
    "keep_pair",          # contacts kept per run of a touching pair
    "keep_band",          # m: ... chosen among those this close to the deepest
    "fast_margin",        # m: a body with a larger margin keeps all its pool contacts
    "sleep_speed",        # m/s: slower bodies (rim speed included) ...
    "sleep_after",        # s: ... for this long sleep
])

_FLOAT = ("gravity", "slop", "penetration_slop", "beta", "max_push", "bounce_speed", "settled", "keep_band",
          "fast_margin", "sleep_speed", "sleep_after")


def bodies_of(store) -> Bodies:
    """The Bodies view of a BodyStore (its arrays themselves, not copies)."""
    return Bodies(*(getattr(store, name) for name in Bodies._fields))


def body_arrays(n: int, **given: np.ndarray) -> Bodies:
    """Bodies of n slots, all alive and at rest at the origin, unit mass and inertia, radius 0.1 m,
    e = 0.5, mu = 0.5, model 0, no group, awake; the fields given replace these (for tests and
    tools that drive the kernels without a BodyStore)."""
    eye = np.repeat(np.eye(3)[None], n, axis=0)
    quat = np.zeros((n, 4))
    quat[:, 0] = 1.0
    made = Bodies(np.ones(n, np.bool_), np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3)), quat,
                  np.zeros((n, 3)), np.zeros((n, 3)), np.ones(n), eye.copy(), eye.copy(), np.full(n, 0.1),
                  np.full(n, 0.5), np.full(n, 0.5), np.zeros(n, np.int32), np.full(n, -1, np.int64), np.zeros(n))
    return made._replace(**given)


def settings(**values: float) -> Settings:
    """Settings with every field given, floats as float and counts as int (one compiled type)."""
    return Settings(**{k: (float(v) if k in _FLOAT else int(v)) for k, v in values.items()})


def contact_buffer(cap: int, row: int) -> Contacts:
    """Empty Contacts of capacity `cap` with `row` solver slots per contact."""
    return Contacts(np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros((cap, 3)), np.zeros((cap, 3)),
                    np.zeros(cap), np.zeros(cap, np.int64), np.zeros(cap), np.zeros((cap, 2)), np.zeros(cap),
                    np.zeros((cap, row)), np.zeros((cap, 3)))


def impact_buffer(cap: int) -> Impacts:
    """Empty Impacts of capacity `cap`."""
    return Impacts(np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap), np.zeros((cap, 3)),
                   np.zeros((cap, 3)))


def motion_buffer(cap: int) -> Motion:
    """Per-body substep scratch for `cap` bodies."""
    return Motion(np.zeros(cap, np.bool_), np.zeros(cap, np.bool_), np.zeros((cap, 3, 3)), np.zeros((cap, 3, 3)),
                  np.zeros(cap), np.zeros((cap, 3)), np.zeros((cap, 3)), np.zeros((cap, 3)), np.zeros(cap),
                  np.zeros(cap), np.zeros(cap, np.bool_), np.zeros((cap, 3)), np.zeros((cap, 3)), np.zeros(cap),
                  np.zeros(cap), np.zeros(cap))


def no_warm_start() -> WarmStart:
    """A WarmStart with nothing remembered."""
    return WarmStart(np.zeros(0, np.int64), np.zeros((0, 3)), 0.0)
