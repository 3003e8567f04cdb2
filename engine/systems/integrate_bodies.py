"""IntegrateBodies: move every rigid body one fixed step and resolve its contacts."""
from __future__ import annotations

import math

import esper
import numpy as np

from engine import events as ev
from engine.blocking import terrain_bed
from engine.components import BodyRef
from engine.ground import crater_coefficient, sand_pivot, sand_rolling
from engine.terrain import DECK
from engine.kernels import contacts, records, rigid
from engine.systems.base import System

SLOP = 0.002            # m: contact search distance beyond a body's motion this step
PENETRATION_SLOP = 0.0005  # m: penetration left alone by the split-impulse push-out
BETA = 0.2              # fraction of deeper penetration removed per step (split impulses: no energy added)
MAX_PUSH = 1.0          # m/s: cap on the push-out velocity
BOUNCE_SPEED = 0.25     # m/s: slower approaches do not bounce (restitution 0): no micro-bounces at rest
IMPACT_SPEED = 0.2      # m/s: contacts approaching slower than this are resting, not impacts
KEEP_STATIC = 8         # contacts kept per body against the pool (deepest + farthest-spread)
KEEP_PAIR = 6           # contacts kept per touching pair of bodies
KEEP_BAND = 0.003       # m: ... chosen among those within this distance of the deepest
FAST_MARGIN = 0.01      # m: a body whose speculative margin exceeds this keeps all its pool contacts
ITERATIONS = 6          # sequential-impulse sweeps per (sub)step, at least ...
MAX_ITERATIONS = 16     # ... and at most, sweeping on until no normal impulse changes by more than
SETTLED = 1e-3          # ... this fraction of the largest in a sweep (a fresh stack converges)
PUSH_ITERATIONS = 8     # split-impulse sweeps (normal rows of penetrating contacts only)
BOUNCE_ITERATIONS = 16  # at most, over the contacts that bounce (a face landing flat: no false spin)
WARM_START = 1.0        # fraction of last step's impulse a persisting contact starts from
SLEEP_SPEED = 0.03      # m/s: bodies slower than this (rim speed included) ...
# SLEEP_AFTER (engine.bodies, the store's default `sleep_after`): ... for this long, with no applied
# force, sleep until a contact wakes them
MAX_SUBSTEP_TRAVEL = 0.08  # m: substep so that no point moves farther than this per substep
MAX_SUBSTEPS = 16       # at 200 m/s (the fastest a level or a throw gives) 0.1 m a substep


class IntegrateBodies(System):
    """Advance all bodies: gravity and accumulated forces, contacts with the pool (bed height field
    and walls) and each other, velocity Verlet and quaternion orientation (engine/kernels/rigid.py).

    A step is cut into up to MAX_SUBSTEPS substeps when bodies move fast. Forces and torques that
    other systems added into the store since the last step act over this whole step, then are
    cleared. Per (sub)step: kick (gravity, forces), detect contacts (engine/kernels/contacts.py),
    thin each pair's contacts to a few well-spread ones, solve them by sequential impulses warm
    started from the last step's impulses (matched by contact key; the memory is the BodyStore's
    contact_keys / contact_impulses / contact_dt), remove overlap by split impulses, then drift
    (Verlet position, exact through a bounce's time of impact; midpoint rotation); no centre of
    mass over the pool goes below its floor (rigid.keep_above_floor); past the deck's outer edge
    there is no ground and a body falls (FallOff takes it out of the world). Bodies slow for BodyStore.sleep_after seconds sleep: they are not moved, take part
    in contacts with awake bodies as immovable, and wake when struck or pushed by a force.
    Impacts: the collision impulse (contacts approaching faster than IMPACT_SPEED) of each
    touching pair summed over the step, one Impact per pair (other = -1 for the pool).

    The ground it stands bodies on is the terrain under the solid columns (engine.blocking.terrain_bed:
    the Simulation's store sim.columns, which CoupleWater's blockers update).
    """

    READS = (BodyRef, "BodyStore.slots", "BodyStore.models", "BodyStore.alive", "BodyStore.radius",
             "BodyStore.model_id", "BodyStore.inertia", "BodyStore.inv_inertia", "BodyStore.inv_mass", "BodyStore.mass",
             "BodyStore.volume",
             "BodyStore.restitution", "BodyStore.friction", "BodyStore.group", "BodyStore.sleep_after",
             "SolidColumns.terrain", "SolidColumns.tops", "WaterGrid.bed")
    WRITES = ("BodyStore.pos", "BodyStore.vel", "BodyStore.angvel", "BodyStore.quat", "BodyStore.force",
              "BodyStore.torque", "BodyStore.sleep", "BodyStore.touching", "BodyStore.contact_keys",
              "BodyStore.contact_impulses", "BodyStore.contact_dt")
    EMITS = (ev.Impact,)

    def bind(self, sim) -> None:
        super().bind(sim)
        self._cap_bodies = 0
        self._contact_cap = 1024
        self._pair_cap = 256
        self._alloc_contacts(self._contact_cap)
        self.pairs = records.Pairs(np.zeros(self._pair_cap, np.int64), np.zeros(self._pair_cap, np.int64))
        self.last_contacts = 0
        self.last_substeps = 0
        self._sandy = bool(sim.sand.any())             # whether any body can land on sand
        self._roll_cache: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], int] = ((np.zeros(0),) * 3, -1)
        self.sleeping = 0
        self._mem_keys = [np.zeros(0, np.int64), np.zeros(0, np.int64)]
        self._mem_j = [np.zeros((0, 3)), np.zeros((0, 3))]
        self._mem_turn = 0

    @property
    def sleep_after(self) -> float:
        """Seconds at rest before a body sleeps: the body store's setting (`BodyStore.sleep_after`,
        which CoupleWater and the body caps read too); math.inf keeps every body awake."""
        return self.sim.body_store.sleep_after

    @sleep_after.setter
    def sleep_after(self, seconds: float) -> None:
        self.sim.body_store.sleep_after = float(seconds)

    def state(self) -> dict[str, np.ndarray]:
        """Arrays a save game must keep to replay exactly: the warm-start memory (it lives in the
        BodyStore: contact_keys, contact_impulses, contact_dt)."""
        st = self.sim.body_store
        return {"prev_keys": st.contact_keys.copy(), "prev_j": st.contact_impulses.copy(),
                "prev_h": st.contact_dt.copy()}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore what state() saved."""
        st = self.sim.body_store
        keys, j = np.asarray(state["prev_keys"]), np.asarray(state["prev_j"])
        if keys.ndim != 1 or j.shape != (len(keys), 3) or (np.diff(keys) < 0).any() \
                or not np.isfinite(j).all():   # the solver bisects sorted keys, one impulse row each
            raise ValueError("the contact memory is damaged (keys and impulses do not match)")
        st.contact_keys = np.asarray(state["prev_keys"], np.int64).copy()
        st.contact_impulses = np.asarray(state["prev_j"], float).reshape(-1, 3).copy()
        st.contact_dt = np.array(float(state["prev_h"]))

    def _alloc_contacts(self, cap: int) -> None:
        self._contact_cap = cap
        self.contacts = records.contact_buffer(cap, contacts.ROW)
        self.impacts = records.impact_buffer(cap)

    def _body_scratch(self, cap: int) -> None:
        if cap > self._cap_bodies:
            self._cap_bodies = cap
            self.motion = records.motion_buffer(cap)

    def _roll_shapes(self, shapes: records.Shapes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per model, what rolls on sand (ground.sand_rolling): the ball radius (0: not a ball), and
        the radius and axial length of its widest rims (0: none), m."""
        m = len(shapes.point_radius)
        if self._roll_cache[1] != m:
            rim_r, rim_l = np.zeros(m), np.zeros(m)
            for j in range(m):
                c = shapes.circles[shapes.circle_start[j]:shapes.circle_start[j + 1]]
                if len(c):
                    along = c[:, :3] @ c[0, 3:6] / np.linalg.norm(c[0, 3:6])
                    rim_r[j], rim_l[j] = c[:, 6].max(), along.max() - along.min()
            self._roll_cache = ((np.asarray(shapes.point_radius, float).copy(), rim_r, rim_l), m)
        return self._roll_cache[0]

    def settings(self, gravity: float) -> records.Settings:
        """The kernels' constants for this step (sleep_after may have been changed on the system)."""
        return records.settings(
            gravity=gravity, slop=SLOP, penetration_slop=PENETRATION_SLOP, beta=BETA, max_push=MAX_PUSH,
            bounce_speed=BOUNCE_SPEED, iterations=ITERATIONS, max_iterations=MAX_ITERATIONS, settled=SETTLED,
            push_iterations=PUSH_ITERATIONS, bounce_iterations=BOUNCE_ITERATIONS, keep_static=KEEP_STATIC,
            keep_pair=KEEP_PAIR, keep_band=KEEP_BAND, fast_margin=FAST_MARGIN, sleep_speed=SLEEP_SPEED,
            sleep_after=self.sleep_after)

    def process(self, dt: float) -> None:
        sim = self.sim
        st = sim.body_store
        n = st.n
        if n == 0 or not st.alive[:n].any():
            return
        self._body_scratch(st.capacity)
        phys = sim.level.physics
        bed = terrain_bed(sim)          # the ground, under any solid columns (engine/blocking.py)
        size_x, size_z = (float(s) for s in sim.level.pool.size)
        ground = records.Ground(bed, float(bed.max()), float(sim.water.dx), size_x, size_z, sim.sand,
                                float(sim.level.pool.wall_height), DECK)
        shapes = records.Shapes(*st.packed())
        bodies = records.bodies_of(st)
        motion = self.motion
        if self._sandy:
            motion.sand_k[:n] = crater_coefficient(st.mass[:n], st.volume[:n], sim.gravity)
            ball_r, rim_r, rim_l = self._roll_shapes(shapes)
            mid = st.model_id[:n]
            motion.sand_rr[:n] = sand_rolling(st.mass[:n] * sim.gravity, ball_r[mid], rim_r[mid], rim_l[mid])
            motion.sand_pivot[:n] = sand_pivot(st.mass[:n] * sim.gravity, ball_r[mid])
        settings = self.settings(sim.gravity)
        # substeps from the fastest point this step (after the gravity kick)
        travel = rigid.max_travel(n, bodies, dt) + sim.gravity * dt * dt
        subs = min(MAX_SUBSTEPS, max(1, math.ceil(travel / MAX_SUBSTEP_TRAVEL)))
        h = dt / subs
        runs: list[tuple[np.ndarray, ...]] = []
        total_contacts = 0
        self.sleeping = 0
        for _ in range(subs):
            # awake mask, rotations, kick, freezing the sleepers, margins, vel_pre = vel, toi = -1
            contacts.begin_substep(n, bodies, motion, settings, h)
            nc = self._detect(n, bodies, motion, shapes, ground, settings)
            # a sleeper struck this substep takes part awake; then its own contacts are found
            while nc and contacts.wake_strikes(n, nc, self.contacts, bodies, motion, settings, h):
                nc = self._detect(n, bodies, motion, shapes, ground, settings)
            con = self.contacts
            total_contacts += nc
            if nc:
                prev_h = float(st.contact_dt)
                warm = records.WarmStart(st.contact_keys, st.contact_impulses,
                                         WARM_START * h / prev_h if prev_h > 0.0 else 0.0)
                contacts.solve(nc, con, bodies, motion, settings, warm, h)
                rigid.wake_struck(nc, con, motion, st.sleep, sim.gravity * h + 2.0 * SLEEP_SPEED)
                m = contacts.impacts(nc, con, IMPACT_SPEED, self.impacts)
                if m:
                    runs.append(tuple(field[:m].copy() for field in self.impacts))
            self._remember(nc, h)
            # drift, the bodies touching something, sleep bookkeeping
            self.sleeping = contacts.end_substep(n, nc, con, bodies, motion, settings, ground, h)
            st.touching[:n] = motion.touching[:n]       # CoupleWater reads it from the body store
        st.force[:n] = 0.0
        st.torque[:n] = 0.0
        self.last_contacts = total_contacts
        self.last_substeps = subs
        if runs:
            self._emit_impacts(runs, phys.impact_threshold)

    def _remember(self, nc: int, h: float) -> None:
        """Keep this (sub)step's impulses by contact key for the next warm start."""
        # two buffers in turn: the solver reads the previous substep's while this one is written
        if len(self._mem_keys[0]) < nc:
            cap = max(nc, 2 * len(self._mem_keys[0]), 64)
            self._mem_keys = [np.zeros(cap, np.int64), np.zeros(cap, np.int64)]
            self._mem_j = [np.zeros((cap, 3)), np.zeros((cap, 3))]
        self._mem_turn ^= 1
        keys, j = self._mem_keys[self._mem_turn], self._mem_j[self._mem_turn]
        contacts.remember(nc, self.contacts, keys, j)
        st = self.sim.body_store
        st.contact_keys = keys[:nc]
        st.contact_impulses = j[:nc]
        st.contact_dt = np.array(h)

    def _detect(self, n: int, bodies: records.Bodies, motion: records.Motion, shapes: records.Shapes,
                ground: records.Ground, settings: records.Settings) -> int:
        """Broad phase, contacts with the pool and between bodies, thinned (contacts.reduce_runs);
        grows the pair and contact buffers until everything fits. Returns the contact count."""
        while True:
            npairs = contacts.broad_phase(n, bodies, motion, self.pairs)
            if npairs > self._pair_cap:
                self._pair_cap = 2 * npairs
                self.pairs = records.Pairs(np.zeros(self._pair_cap, np.int64), np.zeros(self._pair_cap, np.int64))
                continue
            nc = contacts.detect_static(n, bodies, motion, shapes, ground, self.contacts, 0)
            if npairs:
                nc = contacts.detect_pairs(npairs, self.pairs, bodies, motion, shapes, self.contacts, nc)
            if nc > self._contact_cap:
                self._alloc_contacts(2 * nc)
                continue
            return contacts.reduce_runs(nc, self.contacts, motion.margin, settings)

    def _emit_impacts(self, runs: list[tuple[np.ndarray, ...]], threshold: float) -> None:
        """Sum each pair's collision impulse over the substeps and emit one Impact per pair."""
        a = np.concatenate([r[0] for r in runs]); b = np.concatenate([r[1] for r in runs])
        j = np.concatenate([r[2] for r in runs])
        p = np.concatenate([r[3] for r in runs]); nn = np.concatenate([r[4] for r in runs])
        order = np.lexsort((b, a))
        a, b, j, p, nn = a[order], b[order], j[order], p[order], nn[order]
        starts = np.flatnonzero(np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])])
        J = np.add.reduceat(j, starts)
        P = np.add.reduceat(p, starts, axis=0) / J[:, None]
        N = np.add.reduceat(nn, starts, axis=0)
        N /= np.maximum(np.linalg.norm(N, axis=1, keepdims=True), 1e-300)
        hit = np.flatnonzero(J > threshold)
        if not len(hit):
            return
        entity = {ref.slot: e for e, ref in esper.get_component(BodyRef)}
        t = self.sim.time
        for k in hit:
            ea = entity.get(int(a[starts[k]]))
            if ea is None:
                continue
            sb = int(b[starts[k]])
            eb = entity.get(sb, -1) if sb >= 0 else -1
            self.sim.emit(ev.Impact(ea, eb, float(J[k]), ev.as_tuple(P[k]), ev.as_tuple(N[k]), t))
