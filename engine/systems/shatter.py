"""Shatter: break bottles whose glass took a collision impulse beyond its strength."""
from __future__ import annotations

import esper
import numpy as np

from engine import bodies as bd
from engine import events as ev
from engine.components import BodyRef, Bottle, Shard, ShatterRequest
from engine.ground import on_sand, sand_pulse_factor
from engine.kernels.rigid import quat_to_matrix
from engine.meshes import load_bottle_set
from engine.systems.base import System

SPREAD = 0.5            # m/s: typical outward speed added to each fragment
SPREAD_PER_STRENGTH = 0.15  # m/s more per strength's worth of impulse beyond the threshold (capped below)
MAX_SPREAD = 2.0        # m/s
SPIN = 6.0              # rad/s: spread of the random spin added to each fragment
FADE_SECONDS = 1.5      # s: a shard past the cap fades out over this long, then is removed
SETTLE_GRACE = 3.0      # s: a shard younger than this is not yet "kept moving" (it is still flying or settling)
MOVING_CHECK = 12       # steps between counts of the shards kept moving (0.1 s at dt = 1/120)
UNGROUP_AFTER = 0.12    # s: fresh fragments of one bottle ignore each other this long (they start
                        # touching face to face; their boxes overlap)


class Shatter(System):
    """Replace over-stressed bottles by their fragments; keep the shard cap.

    A bottle shatters in the step where the glass's share of one Impact on it exceeds its
    Bottle.strength (Mould's impulse on an empty bottle, schema.py):
        J_glass = J m_glass / m,    m = m_glass + rho_w V_held,
    J the collision impulse of one touching pair summed over the step. Against a static surface
    J = m (1 + e) v_n, so J_glass = m_glass (1 + e) v_n: the break is set by the glass's own mass
    and its normal approach speed v_n, the same for an empty and a full bottle (an empty one
    breaks at v_n >= strength / (m_glass (1 + e)) = 2.7 m/s with the defaults). The held water is a
    liquid: its momentum reaches the glass as pressure over the whole inner wall, not at the struck
    point where the glass fails; counting it would break a full bottle set down at 0.9 m/s (a 4 cm
    drop). Its entity is removed and each piece
    of its fragment set spawns in place with the bottle's rigid velocity v + w x r plus a seeded
    outward spread whose mass-weighted mean is removed (so linear momentum is kept exactly). The
    bottle's held water moves into `sim.water_in_flight` and the Shattered event carries it
    (released_volume at the bottle's position and velocity): HeldWater puts it into the pool or
    the air in the same step (or, for a shatter between steps, the next).

    Shards stay until there are more than PhysicsSpec.max_shards; then the oldest ones (smallest
    entity ids, the order they were made in) fade out over FADE_SECONDS and are removed, so at most
    max_shards shards remain once the fades end. This is the one shard cap (`alpha(e)` gives the
    opacity a renderer draws a fading shard with). A shard at rest (asleep: BodyStore.sleep at
    least sleep_after) costs nothing to step; one kept moving (by currents, or struck again) costs
    its contacts and its coupling every step. So, checked every MOVING_CHECK steps, when more than
    PhysicsSpec.max_moving_shards shards older than SETTLE_GRACE are awake, the oldest of those
    fade out the same way: the step's cost stays bounded however long the play goes on. Bottles and props past their caps are retired
    by engine/retire.py.

    A bottle carrying a ShatterRequest component (Simulation.shatter adds it) breaks in the same
    pass with the request's impulse (the larger, if an Impact also broke it), whatever its strength.

    Contract: READS, WRITES, EMITS below (engine/contracts.py checks them).
    """

    READS = (ev.Impact, ShatterRequest, "BodyStore.sleep_after")
    WRITES = (BodyRef, Bottle, Shard, ShatterRequest, "BodyStore.slots", "BodyStore.models", "BodyStore.alive", "BodyStore.kind",
              "BodyStore.model_id", "BodyStore.pos", "BodyStore.vel", "BodyStore.angvel", "BodyStore.quat",
              "BodyStore.force", "BodyStore.torque", "BodyStore.submerged", "BodyStore.sleep", "BodyStore.mass",
              "BodyStore.inv_mass", "BodyStore.inertia", "BodyStore.inv_inertia", "BodyStore.volume",
              "BodyStore.radius", "BodyStore.held_water", "BodyStore.inner_volume", "BodyStore.restitution",
              "BodyStore.friction", "BodyStore.drag", "BodyStore.group", "Simulation.rng", "Simulation.water_in_flight")
    EMITS = (ev.Shattered, ev.Spawned)

    def bind(self, sim) -> None:
        super().bind(sim)
        self.grouped: list[tuple[float, int]] = []   # (born, group) of fragments still ignoring each other
        self.fading: dict[int, float] = {}           # shard entity -> simulated time its fade began
        self._sandy = bool(sim.sand.any())           # whether a bottle can land on sand
        self._stops: dict[int, tuple[int, float]] = {}   # bottle -> (step, impulse) of a stop in sand under way

    def process(self, dt: float) -> None:
        sim = self.sim
        self._ungroup()
        worst: dict[int, float] = {}
        dug: dict[int, float] = {}
        for hit in sim.events.of_type(ev.Impact):
            for e in (hit.entity, hit.other):
                if e >= 0 and esper.entity_exists(e) and esper.has_component(e, Bottle):
                    if self._on_sand(hit):
                        dug[e] = dug.get(e, 0.0) + hit.impulse
                    else:
                        worst[e] = max(worst.get(e, 0.0), hit.impulse * self.glass_share(e))
        # a stop in sand lasts t = 3 d / v (engine/ground.py), often longer than a step, and its
        # impulse comes as Impacts of consecutive steps (a contact approaching faster than
        # IMPACT_SPEED, so a bottle at rest adds none): each step weighs the whole stop so far
        stops: dict[int, tuple[int, float]] = {}
        for e, impulse in dug.items():
            last = self._stops.get(e)
            if last is not None and last[0] == sim.steps - 1:
                impulse += last[1]
            stops[e] = (sim.steps, impulse)
            worst[e] = max(worst.get(e, 0.0), impulse * self.glass_share(e) * self._sand_factor(impulse, e))
        self._stops = stops
        asked = {e: req.impulse for e, req in esper.get_component(ShatterRequest)
                 if esper.has_component(e, Bottle) and esper.has_component(e, BodyRef)}
        for e in sorted(set(worst) | set(asked)):
            if e in asked:
                self._break(e, max(asked[e], worst.get(e, 0.0)))
            elif worst[e] > esper.component_for_entity(e, Bottle).strength:
                self._break(e, worst[e])
        self._cap_shards()

    def state(self) -> dict[str, np.ndarray]:
        """Arrays a save game must keep: fresh fragment groups and the shards fading out."""
        ids = sorted(self.fading)
        stops = sorted(self._stops)
        return {"grouped": np.array(self.grouped, dtype=float).reshape(-1, 2),
                "fading": np.array(ids, np.int64),
                "fade_started": np.array([self.fading[e] for e in ids], np.float64),
                "stops": np.array(stops, np.int64),
                "stop_steps": np.array([self._stops[e][0] for e in stops], np.int64),
                "stop_impulses": np.array([self._stops[e][1] for e in stops], np.float64)}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore what state() saved."""
        self.grouped = [(float(t), int(e)) for t, e in np.asarray(state.get("grouped", np.zeros((0, 2))))]
        self.fading = {int(e): float(t) for e, t in zip(state.get("fading", ()), state.get("fade_started", ()))}
        self._stops = {int(e): (int(n), float(j)) for e, n, j in
                       zip(state.get("stops", ()), state.get("stop_steps", ()), state.get("stop_impulses", ()))}

    def alpha(self, entity: int) -> float:
        """Opacity to draw a body with: 1, falling linearly to 0 while a shard fades out."""
        t0 = self.fading.get(entity)
        if t0 is None:
            return 1.0
        return max(0.0, 1.0 - (self.sim.time - t0) / FADE_SECONDS)

    def slot_alpha(self, slots: np.ndarray) -> np.ndarray:
        """alpha() for body-store slots (what a renderer holds): 1 where not fading."""
        out = np.ones(len(slots))
        if not self.fading:
            return out
        by_slot: dict[int, float] = {}
        for e, t0 in self.fading.items():
            if esper.entity_exists(e) and esper.has_component(e, BodyRef):
                by_slot[esper.component_for_entity(e, BodyRef).slot] = t0
        for j, s in enumerate(np.asarray(slots)):
            start = by_slot.get(int(s))
            if start is not None:
                out[j] = max(0.0, 1.0 - (self.sim.time - start) / FADE_SECONDS)
        return out

    # -- breaking --------------------------------------------------------------------------------
    def glass_share(self, entity: int) -> float:
        """m_glass / m of a bottle: the fraction of a collision impulse its glass takes (<= 1)."""
        st = self.sim.body_store
        slot = esper.component_for_entity(entity, BodyRef).slot
        glass = bd.glass_properties(load_bottle_set(esper.component_for_entity(entity, Bottle).model),
                                    self.sim.level.physics.glass_density).mass
        return min(1.0, glass / float(st.mass[slot]))

    def _on_sand(self, hit: ev.Impact) -> bool:
        """Whether an impact is a landing on loose sand (static ground, sim.sand), not on hard
        ground or another body."""
        sim = self.sim
        return hit.other == -1 and self._sandy and on_sand(sim.sand, float(sim.water.dx), hit.point, hit.normal)

    def _sand_factor(self, impulse: float, entity: int) -> float:
        """For a landing on loose sand with this much impulse so far, how much lower its peak force
        is than the same impulse's on hard ground (engine/ground.py)."""
        st = self.sim.body_store
        slot = esper.component_for_entity(entity, BodyRef).slot
        return sand_pulse_factor(impulse, float(st.mass[slot]), float(st.volume[slot]), self.sim.gravity)

    def _break(self, entity: int, impulse: float) -> tuple[int, ...]:
        """Break one bottle now; return the fragment entities (the Shattered event names them)."""
        sim = self.sim
        st = sim.body_store
        phys = sim.level.physics
        bottle = esper.component_for_entity(entity, Bottle)
        slot = esper.component_for_entity(entity, BodyRef).slot
        bs = load_bottle_set(bottle.model)
        model = st.models[int(st.model_id[slot])]
        pos, vel, w = st.pos[slot].copy(), st.vel[slot].copy(), st.angvel[slot].copy()
        quat = st.quat[slot].copy()
        held = float(st.held_water[slot])
        R = quat_to_matrix(quat)
        parts = bd.fragment_properties(bs, phys.glass_density)
        r = np.array([R @ (p.com - model.offset) for p in parts])          # fragment COMs from the bottle's
        m = np.array([p.mass for p in parts])
        axis = R[:, 1]
        radial = r - np.outer(r @ axis, axis)
        radial /= np.maximum(np.linalg.norm(radial, axis=1, keepdims=True), 1e-9)
        rng = sim.rng
        speed = min(MAX_SPREAD, SPREAD + SPREAD_PER_STRENGTH * max(impulse / bottle.strength - 1.0, 0.0))
        spread = radial * (speed * (0.5 + rng.random(len(parts))))[:, None] + rng.normal(0.0, 0.3 * speed, (len(parts), 3))
        spread -= (m[:, None] * spread).sum(axis=0) / m.sum()               # keep the momentum exact
        spins = rng.normal(0.0, SPIN, (len(parts), 3))
        st.held_water[slot] = 0.0
        sim.water_in_flight += held       # out of the bottle; HeldWater puts it in the pool or the air
        sim.remove_body(entity)
        shards = []
        for i, props in enumerate(parts):
            mid = bd.fragment_model(st, bs, i, phys.glass_density)
            v = vel + np.cross(w, r[i]) + spread[i]
            s = st.spawn("shard", mid, props, pos + r[i], v, w + spins[i], quat,
                         restitution=phys.restitution, friction=phys.friction, group=entity)
            e = esper.create_entity(BodyRef(s), Shard(entity, i, sim.time))
            shards.append(e)
            sim.emit(ev.Spawned(e, "shard", sim.time))
        self.grouped.append((sim.time, entity))
        sim.emit(ev.Shattered(entity, tuple(shards), float(impulse), ev.as_tuple(pos), held, sim.time,
                              velocity=ev.as_tuple(vel)))
        return tuple(shards)

    # -- shard housekeeping ------------------------------------------------------------------------
    def _ungroup(self) -> None:
        t = self.sim.time
        if not self.grouped or t - self.grouped[0][0] < UNGROUP_AFTER:
            return
        st = self.sim.body_store
        done = {g for born, g in self.grouped if t - born >= UNGROUP_AFTER}
        self.grouped = [(b, g) for b, g in self.grouped if g not in done]
        n = st.n
        mask = np.isin(st.group[:n], list(done))
        st.group[:n][mask] = -1

    def _cap_moving(self) -> None:
        """Start fading the oldest awake shards (older than SETTLE_GRACE, not fading yet) past
        max_moving_shards."""
        sim = self.sim
        limit = sim.level.physics.max_moving_shards
        st = sim.body_store
        asleep_at = st.sleep_after            # a shard with st.sleep >= this is at rest
        t = sim.time
        moving = sorted((e, ref.slot) for e, (shard, ref) in esper.get_components(Shard, BodyRef)
                        if t - shard.born >= SETTLE_GRACE and e not in self.fading)
        if len(moving) <= limit:
            return
        ids = np.array(moving, np.int64).reshape(-1, 2)
        awake = st.sleep[ids[:, 1]] < asleep_at
        over = int(np.count_nonzero(awake)) - limit
        for e in ids[awake, 0][:max(over, 0)]:
            self.fading[int(e)] = t

    def _cap_shards(self) -> None:
        """Start fading the oldest shards past max_shards; remove those whose fade has ended."""
        sim = self.sim
        limit = sim.level.physics.max_shards
        if sim.steps % MOVING_CHECK == 0:
            self._cap_moving()
        query = esper.get_component(Shard)
        if len(query) <= limit and not self.fading:
            return
        shards = sorted(e for e, _ in query)
        live = set(shards)
        self.fading = {e: t for e, t in self.fading.items() if e in live}
        over = len(shards) - limit - len(self.fading)
        for e in shards:
            if over <= 0:
                break
            if e not in self.fading:
                self.fading[e] = sim.time
                over -= 1
        for e, t0 in sorted(self.fading.items()):
            if sim.time - t0 >= FADE_SECONDS - 1e-12:
                sim.remove_body(e)
                del self.fading[e]
