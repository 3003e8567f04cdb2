"""CoupleWater: bodies push the water, the water pushes the bodies."""
from __future__ import annotations

from time import perf_counter

import esper
import numpy as np

from engine import events as ev
from engine.blocking import PROP, Blockers
from engine.components import BodyRef
from engine.kernels import coupling, water_forces
from engine.pacing import Pacer
from engine.systems.base import System
from engine.terrain import outside_walls

RING_MARGIN = 3.0       # cells between a body's bounding sphere and the ring its surface is fitted on
BLUR_PASSES = 2         # [1 2 1] passes over the covered height: a body a few cells wide must not flicker
SPLASH_SPEED = 1.0      # m/s: entering the water faster than this throws a Splash event
WAKE_CHECK = 8          # a sleeping body's water forces are evaluated every 8th step
WET_DEPTH = 1e-3        # m: a piece over a column shallower than this feels that fraction of the water's force
THREADED_LOADS = 48     # bodies whose loads are due at least: the loads may run on numba's threads (engine/pacing.py)
SHORT_WAVE_REACH = coupling.SHORT_WAVE_REACH   # cells around a body's covered columns where short waves are damped
SHORT_WAVE_TAPER = coupling.SHORT_WAVE_TAPER   # cells: the damping fades out over the zone's outer rim
SHORT_WAVE_RATE = coupling.SHORT_WAVE_RATE     # the share of the 2 dx checker's velocity taken out per step


class CoupleWater(System):
    """Exchange volume and momentum between bodies and the water.

    Body to water: the covered-height field b (body thickness below the surface in each column)
    moves water: h += b - b_prev, so the volume a body pushes aside is moved, never destroyed.
    Water to body (engine/kernels/water_forces.py): exact hydrostatic pressure and its centre of
    pressure per submerged piece, quadratic drag, lift and skin friction, none over dry columns;
    integrated implicitly with the added mass into BodyStore.force / .torque for the next
    IntegrateBodies. The water takes the momentum the drag took (ax, az of the next water step).

    Blocking bodies (engine/blocking.py): heavy props standing on the bed turn their footprint into
    solid columns of the water's bed first (`blockers`, which update the Simulation's store
    sim.columns; barriers can be stood there too).

    What the bodies hold aside in the water's depth is the Simulation's HullField (engine/hull.py):
    `b_prev` is sim.hull.covered and `displaced` sim.hull.displaced (StepFluid reads them).

    It leaves the fitted surface around each body in BodyStore.surface (HeldWater pours by it).
    Contract: below (engine/contracts.py).
    """

    READS = (BodyRef, "BodyStore.slots", "BodyStore.models", "BodyStore.alive", "BodyStore.kind", "BodyStore.model_id",
             "BodyStore.pos", "BodyStore.quat", "BodyStore.vel", "BodyStore.angvel", "BodyStore.mass",
             "BodyStore.inv_mass", "BodyStore.inv_inertia", "BodyStore.volume", "BodyStore.sleep",
             "BodyStore.sleep_after", "BodyStore.touching", "BodyStore.drag", "BodyStore.radius", "SolidColumns.terrain",
             "SolidColumns.barriers")
    WRITES = ("BodyStore.force", "BodyStore.torque", "BodyStore.submerged", "BodyStore.surface", "WaterGrid.h",
              "WaterGrid.bed", "WaterGrid.u", "WaterGrid.w", "WaterGrid.ax", "WaterGrid.az", "HullField.covered",
              "HullField.displaced", "SolidColumns.bodies", "SolidColumns.tops")
    EMITS = (ev.Splash,)

    def bind(self, sim) -> None:
        super().bind(sim)
        water = sim.water
        self.b_prev = np.zeros_like(water.h)
        self.b_new = np.zeros_like(water.h)
        self._tmp = np.zeros_like(water.h)
        self.b_static = np.zeros_like(water.h)
        self._static_set = np.zeros(0, dtype=np.bool_)
        self.blur_passes = BLUR_PASSES
        self.displaced = 0.0            # m^3 of body volume currently counted in water.h (sim.hull)
        self._packed_models = -1
        self._pack: coupling.Models | None = None
        self._cd = np.zeros((0, 3))
        self._f = np.zeros((0, 3))
        self._t = np.zeros((0, 3))
        self._s = np.zeros(0)
        self._wet = np.zeros(0)
        self._planes = np.zeros((0, 3))
        self._planes_f = np.zeros((0, 3))
        self._was_wet = np.zeros(0, dtype=np.bool_)
        self._entering = np.zeros(0, dtype=np.bool_)
        phys = sim.level.physics
        self.rho = phys.water_density
        self.cd = phys.drag_coefficient
        self.cl = phys.lift_coefficient
        self.area_factor = phys.area_factor
        self.c_skin = phys.skin_friction
        self.c_added = phys.added_mass
        self.push_water = True          # bodies give the water the momentum their drag takes
        self.blockers = Blockers(sim)
        self._loads = np.zeros((0, water_forces.LOADS))
        self._push = np.zeros((0, 3))
        self.plane_tau = phys.surface_tau
        self._loads_pacer = Pacer(THREADED_LOADS)
        self.damp_short_waves = True    # the grid's shortest waves around hulls (coupling.damp_short_waves)
        self._short_scratch = np.zeros((4, 1, 1))

    @property
    def b_prev(self) -> np.ndarray:
        """The covered height counted in water.h now (m per cell): the store sim.hull.covered."""
        return self.sim.hull.covered

    @b_prev.setter
    def b_prev(self, covered: np.ndarray) -> None:
        self.sim.hull.covered = covered

    @property
    def displaced(self) -> float:
        """m^3 of body volume counted in water.h: the store sim.hull.displaced."""
        return self.sim.hull.displaced

    @displaced.setter
    def displaced(self, volume: float) -> None:
        self.sim.hull.displaced = volume

    def _pack_models(self) -> coupling.Models:
        store = self.sim.body_store
        models = store.models
        if len(models) != self._packed_models:
            self._pack = coupling.pack_models(
                [m.coupling if m.coupling is not None else (m.vertices, m.triangles) for m in models])
            # pressure drag per model along its body axes (engine/drag.py); None: a sphere's
            self._cd = np.array([m.drag if m.drag is not None else (self.cd,) * 3 for m in models],
                                np.float64).reshape(-1, 3)
            self._packed_models = len(models)
        assert self._pack is not None
        return self._pack

    def _buffers(self, n: int) -> None:
        if len(self._s) < n:
            cap = max(n, 2 * len(self._s), 16)
            self._f = np.zeros((cap, 3))
            self._t = np.zeros((cap, 3))
            self._s = np.zeros(cap)
            self._wet = np.zeros(cap)
            self._planes = np.zeros((cap, 3))
            pf = np.full((cap, 3), np.nan)
            pf[: len(self._planes_f)] = self._planes_f
            self._planes_f = pf
            was = np.zeros(cap, dtype=np.bool_)
            was[: len(self._was_wet)] = self._was_wet
            self._was_wet = was
            self._entering = np.zeros(cap, dtype=np.bool_)
            self._loads = np.zeros((cap, water_forces.LOADS))
            self._push = np.zeros((cap, 3))
            self._mid = np.zeros(cap, np.int64)
            self._radius = np.zeros(cap)
            self._active = np.zeros(cap, np.bool_)
            self._asleep = np.zeros(cap, np.bool_)
            self._forced = np.zeros(cap, np.bool_)
            self._fresh = np.zeros(cap, np.bool_)
            self._boxes = np.zeros((cap, 4), np.int64)

    def process(self, dt: float) -> None:
        sim = self.sim
        store = sim.body_store
        water = sim.water
        n = store.n
        if n == 0 or not store.models:
            self.blockers.update(())
            self._settle(water)
            return
        self._buffers(n)
        pack = self._pack_models()
        static_set = self._static_set
        resized = len(static_set) != n
        if resized:
            static_set = np.zeros(n, np.bool_)
        mid, radius = self._mid[:n], self._radius[:n]
        active, asleep, forced, fresh = self._active[:n], self._asleep[:n], self._forced[:n], self._fresh[:n]
        # a body wholly outside the walls (on the deck, or falling past its edge) is out of the
        # water's reach: the coupling leaves it alone (its surface plane reads 0, no water)
        out = outside_walls(store.pos[:n, 0], store.pos[:n, 2], sim.level.pool.size)
        alive = store.alive[:n] & (out <= store.radius[:n])
        # the slots' model ids, radii and masks: sleeping bodies (resting on the floor) don't move,
        # their forces only matter for waking them, so each is `forced` every WAKE_CHECK-th step
        slots = coupling.Slots(alive, store.sleep[:n], store.model_id[:n], store.kind[:n], static_set)
        masks = coupling.Masks(mid, radius, active, asleep, forced, fresh)
        woke, slept, due, props = coupling.prepare_bodies(slots, pack.radius, store.sleep_after, sim.steps,
                                                          WAKE_CHECK, PROP, masks)
        # heavy bodies on the bed: solid columns (engine/blocking.py); only props or marked bodies
        # block, and only columns that bodies stood on need freeing
        if props or self.blockers.marked or sim.columns.any_bodies:
            self.blockers.update(pack)
        else:
            self.blockers.idle(n)
        bodies = coupling.Bodies(mid, store.pos[:n], store.quat[:n], store.vel[:n], store.angvel[:n], radius,
                                 store.inv_mass[:n], store.inv_inertia[:n])
        pos, vel = bodies.pos, bodies.vel
        planes = self._planes[:n]
        # the surface around each body, low-passed over PLANE_TAU (_plane_alpha)
        coupling.surface_planes(pos, radius, active, water.bed, water.h, water.dx, RING_MARGIN * water.dx, planes,
                                self._planes_f[:n], self._plane_alpha(dt), 0.25)
        # covered height: sleeping bodies (resting, mostly shards) go into a cached grid that is
        # redrawn when the set of sleepers changes or every WAKE_CHECK steps (the surface moves)
        # (a body that fell asleep since is drawn with the awake ones until then; one that woke
        # up, or left, forces a redraw at once: its cached thickness would be stale)
        # a blocker's solid columns are the cells whose centres it stands over (engine/blocking.py):
        # its covered height is sampled at the centres too (as for a body SMALL_BODY cells wide),
        # or a column half under its edge would hold it aside twice, once as a solid column and
        # once as covered height beside one
        cov = bodies
        blocking = self.blockers.blocking
        if len(blocking) == n and blocking.any():
            wide = radius.copy()
            wide[blocking] = np.maximum(wide[blocking], coupling.SMALL_BODY * water.dx)
            cov = bodies._replace(radius=wide)
        if resized or woke or (sim.steps % WAKE_CHECK == 0 and (slept or self._static_stale(bodies, planes, pack))):
            coupling.covered_height(pack, cov, asleep, planes, water.bed, water.dx, self.b_static)
            self._static_set = asleep.copy()
            np.logical_and(active, ~asleep, out=fresh)
        # b_new is all zero here (settle_covered and _move_water leave it so): the fresh bodies'
        # raw covered height, add the sleepers, blur, then a body displaces only water that is
        # there: never more than the column holds (its own earlier displacement included), so
        # bodies on a dry floor or shore make no puddles; then move the water (h += b - b_prev)
        boxes = self._boxes[:n]
        covered = coupling.covered_step(pack, cov, fresh, planes, water.bed, water.dx, self.b_new, self.b_static,
                                        self._tmp, self.blur_passes, water.h, self.b_prev, self.blockers.solid, boxes)
        self.b_prev, self.b_new = self.b_new, self.b_prev
        self.displaced = covered * water.dx * water.dx
        loads = self._loads[:n]
        grid = coupling.Water(water.h, water.bed, water.u, water.w, water.ax, water.az, water.dx)
        coefs = water_forces.Coefs(self.rho, sim.gravity, self._cd, self.cl, self.area_factor, self.c_skin,
                                   self.c_added, WET_DEPTH, store.drag[:n])
        pacer = self._loads_pacer
        threaded = pacer.threaded(due)
        t0 = perf_counter()
        (water_forces.water_loads_threaded if threaded else water_forces.water_loads)(
            pack, bodies, forced, planes, grid, coefs, loads)       # the same bits either way
        pacer.record(threaded, perf_counter() - t0)
        # the implicit step of the loads, the water's reaction (push), the forces gathered
        response = water_forces.Response(self._f[:n], self._t[:n], self._s[:n], self._push[:n])
        entering = self._entering[:n]
        if water_forces.respond(loads, forced, active, bodies, store.touching[:n], coefs, dt, response, grid,
                                self.b_prev, self.push_water, (store.force[:n], store.torque[:n], store.submerged[:n]),
                                self._was_wet[:n], SPLASH_SPEED, entering):
            self._splashes(entering, vel, pos)
        store.surface[:n] = planes             # the surface around each body, for HeldWater's pouring
        if self.damp_short_waves:
            # the grid's shortest waves around the hulls, which the surface-wave stage leaves to the
            # bulk (coupling.damp_short_waves)
            self._short_scratch = coupling.damp_short_waves(grid, boxes, radius, fresh, asleep, SHORT_WAVE_REACH,
                                                            SHORT_WAVE_TAPER, SHORT_WAVE_RATE, WET_DEPTH,
                                                            self._short_scratch)

    def _static_stale(self, bodies: coupling.Bodies, planes: np.ndarray, pack: coupling.Models) -> bool:
        """Does the sleepers' cached covered height need drawing again, bodies having neither woken
        nor fallen asleep since? Yes when solid columns can move the bed, or when a sleeper reaches
        its surface plane (or is open). A closed body wholly under its plane covers the same
        height whatever the surface does: its covered height is sum sign max(y, bed)
        (coupling._covered_height)."""
        if self.blockers.any_solid:
            return True
        s = self._static_set
        r = bodies.radius[s]
        p = planes[s]
        reach = bodies.pos[s, 1] + r > p[:, 0] - r * (np.abs(p[:, 1]) + np.abs(p[:, 2]))
        return bool(reach.any() or (pack.solids[bodies.model_id[s], 0] <= 0.0).any())

    def _plane_alpha(self, dt: float) -> float:
        """The weight of a fresh fit in the low-pass of the fitted surfaces, over PLANE_TAU: the ring
        also sees the waves a body makes itself, a little late; followed at once, that delayed echo
        pumps energy into heave."""
        return min(1.0, dt / self.plane_tau) if self.plane_tau > 0 else 1.0

    def _settle(self, water) -> None:
        """No bodies: give back whatever volume they still held aside."""
        if self.displaced != 0.0:
            self.b_new[...] = 0.0
            self._move_water(water)

    def _move_water(self, water) -> None:
        coupling.displace(water.h, self.b_new, self.b_prev, 1.0)
        self.b_prev, self.b_new = self.b_new, self.b_prev
        self.b_new[...] = 0.0
        self.displaced = float(self.b_prev.sum()) * water.dx * water.dx

    def _splashes(self, entering: np.ndarray, vel: np.ndarray, pos: np.ndarray) -> None:
        """A Splash for each body that entered the water this step (gather_forces marks them)."""
        slots = {ref.slot: e for e, ref in esper.get_component(BodyRef)}
        for slot in np.flatnonzero(entering):
            e = slots.get(int(slot))
            if e is None:
                continue
            speed = float(-vel[slot, 1])
            self.sim.emit(ev.Splash(e, ev.as_tuple(pos[slot]), speed,
                                    volume=float(self.sim.body_store.volume[slot]) * min(speed, 10.0) * 0.1,
                                    time=self.sim.time))

    def state(self) -> dict[str, np.ndarray]:
        """Arrays a save game must keep to restore this system exactly."""
        return {"b_prev": self.b_prev.copy(), "was_wet": self._was_wet.copy(),
                "displaced": np.array(self.displaced), "b_static": self.b_static.copy(),
                "static_set": self._static_set.copy(), "planes_f": self._planes_f.copy(),
                **{"blockers." + k: v for k, v in self.blockers.state().items()}}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        self.b_prev[...] = state["b_prev"]
        self.b_new[...] = 0.0
        self.b_static[...] = state["b_static"]
        self._static_set = state["static_set"].copy()
        pf, ww = state["planes_f"], state["was_wet"]
        self._buffers(max(len(pf), len(ww)))
        self._planes_f[...] = np.nan
        self._planes_f[: len(pf)] = pf
        self._was_wet[...] = False
        self._was_wet[: len(ww)] = ww
        self.displaced = float(state["displaced"])
        self._packed_models = -1
        blockers = {k.split(".", 1)[1]: v for k, v in state.items() if k.startswith("blockers.")}
        if blockers:
            self.blockers.set_state(blockers)
