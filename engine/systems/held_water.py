"""HeldWater: the water out of the pool: held in open bottles, poured, falling, released by a shatter."""
from __future__ import annotations

import esper
import numpy as np

from engine import events as ev
from engine import pouring
from engine.components import BodyRef, Bottle
from engine.kernels.rigid import quat_to_matrix
from engine.systems.base import System
from engine.terrain import DECK, outside_walls

NECK_SPEED = 0.3        # m/s: water poured from a mouth in the air leaves along the neck this fast


class HeldWater(System):
    """Move water between the bottles, the air and the pool. Every transfer moves volume; none makes it.

    The water out of the pool lives in two stores: `BodyStore.held_water` (m^3 per bottle) and this
    system's falling parcels (rows x, y, z, vx, vy, vz, volume; m, m/s, m^3), whose total is
    published as `sim.water_in_flight`. The invariant, exact to round-off at the end of every step:

        pool + sum(held_water) + water_in_flight = initial total + WaterGrid.source_volume

    (pool = WaterGrid.volume() less the body volume the coupling holds in h), because every
    `add_volume` here is matched by `source_volume -= moved`: moved water is never counted as a
    source.

    Each step, in this order (after Shatter, so that a bottle broken this step pours no more):

    1. pour and fill (engine/pouring.py): each open bottle exchanges Q dt = C A sqrt(2 g H) dt
       through its mouth with the water surface around it (`BodyStore.surface`, the plane
       CoupleWater fitted this step). Water leaving a mouth above the pool's surface becomes a
       parcel with the mouth's velocity plus NECK_SPEED along the neck; under it, it goes into the
       pool at the mouth. Water coming in is taken from the pool at the mouth. The bottle's mass
       model follows its held water in steps of inner_volume / pouring.REMODEL_STEPS, its glass
       staying where it was (centre of mass and velocity shifted with the model's offset).
       A mouth outside the walls has no water around it (outside = -inf): it only pours. Water
       that lands on the deck (outside the walls, at its top, wall_height) or leaves a bottle past
       the deck's outer edge (engine.terrain.DECK beyond the walls), poured or released by a
       shatter, leaves the world: a deck drains away from its pool. `source_volume` counts it
       out, as an outflow (FallOff does the same for a bottle's held water when the bottle itself
       goes).
    2. parcels fall ballistically (v_y -= g dt, then x += v dt), over the pool or the deck; a
       parcel at or below the surface at its (x, z) is added to the pool there; one that meets a
       wall's inner face below the deck's top runs down it into the pool.
    3. water released by a shatter: Shatter moves a broken bottle's held water into
       `sim.water_in_flight` and says so in `Shattered` (released_volume, position, velocity).
       Each Shattered event waiting this step (this step's, or one from a shatter between steps)
       puts that water into the pool at the break point if it is under the surface, else into a
       parcel that starts falling next step.

    Afterwards `sim.water_in_flight` is the parcels' total.
    """

    READS = ("BodyStore.quat", "BodyStore.angvel", "BodyStore.inner_volume", "BodyStore.surface",
             "WaterGrid.bed", BodyRef, Bottle, ev.Shattered)
    WRITES = ("BodyStore.held_water", "BodyStore.pos", "BodyStore.vel", "BodyStore.mass", "BodyStore.inv_mass",
              "BodyStore.inertia", "BodyStore.inv_inertia", "BodyStore.model_id", "BodyStore.radius",
              "BodyStore.models", "WaterGrid.h", "WaterGrid.source_volume", "Simulation.water_in_flight")
    EMITS = ()

    def bind(self, sim) -> None:
        super().bind(sim)
        self.parcels = np.zeros((0, 7))

    def process(self, dt: float) -> None:
        self._pour(dt)
        self._fall(dt)
        for shattered in self.sim.events.of_type(ev.Shattered):
            if shattered.released_volume > 0.0:
                self._release(np.asarray(shattered.position, float), np.asarray(shattered.velocity, float),
                              shattered.released_volume)
        self.sim.water_in_flight = float(self.parcels[:, 6].sum()) if len(self.parcels) else 0.0

    def state(self) -> dict[str, np.ndarray]:
        """Arrays a save game must keep: the falling water parcels."""
        return {"parcels": self.parcels.copy()}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore what state() saved; the water in flight also counts releases still waiting in
        the restored event queue."""
        self.parcels = np.asarray(state["parcels"], float).reshape(-1, 7).copy()
        waiting = sum(e.released_volume for e in self.sim.events.of_type(ev.Shattered))
        self.sim.water_in_flight = (float(self.parcels[:, 6].sum()) if len(self.parcels) else 0.0) + waiting

    # -- 1. pour and fill ------------------------------------------------------------------------
    def _pour(self, dt: float) -> None:
        sim = self.sim
        store = sim.body_store
        water = sim.water
        for _, (ref, bottle) in esper.get_components(BodyRef, Bottle):
            if bottle.sealed:
                continue
            slot = ref.slot
            cav = pouring.cavity(bottle.model)
            model = store.models[int(store.model_id[slot])]
            rot = quat_to_matrix(store.quat[slot])
            origin = store.pos[slot] - rot @ np.asarray(model.offset, float)
            mouth = origin + rot @ cav.mouth
            p = store.surface[slot]
            outside = p[0] + p[1] * (mouth[0] - store.pos[slot, 0]) + p[2] * (mouth[2] - store.pos[slot, 2])
            if outside_walls(mouth[0], mouth[2], sim.level.pool.size) > 0.0:
                outside = -np.inf          # on the deck or past it: no water round the mouth
            held = float(store.held_water[slot])
            flow = pouring.exchange(cav, rot, origin, held, float(outside), sim.gravity, dt)
            if flow == 0.0:
                continue
            if flow > 0.0:
                store.held_water[slot] = max(0.0, held - flow)
                mouth_vel = store.vel[slot] + np.cross(store.angvel[slot], mouth - store.pos[slot])
                if mouth[1] > outside:
                    self._release(mouth, mouth_vel + NECK_SPEED * (rot @ cav.axis), flow)   # falls, then lands
                else:
                    x, z = _inside(water, mouth[0], mouth[2])
                    water.add_volume(x, z, flow)
                    water.source_volume -= flow        # moved, not created
            else:
                x, z = _inside(water, mouth[0], mouth[2])
                taken = -water.add_volume(x, z, flow)   # add_volume returns the (negative) volume moved
                water.source_volume += taken
                store.held_water[slot] = min(float(store.inner_volume[slot]), held + taken)
            self._remodel(slot, bottle.model)

    def _remodel(self, slot: int, model_name: str) -> None:
        """Switch a bottle to the mass model of its (quantised) held water, without moving its glass."""
        from engine import bodies as bd
        from engine.meshes import load_bottle_set
        store = self.sim.body_store
        inner = float(store.inner_volume[slot])
        if inner <= 0.0:
            return
        step = inner / pouring.REMODEL_STEPS
        held_q = round(float(store.held_water[slot]) / step) * step
        phys = self.sim.level.physics
        bs = load_bottle_set(model_name)
        mid, props, _ = bd.bottle_model(store, bs, held_q, phys.glass_density, phys.water_density)
        old = int(store.model_id[slot])
        if mid == old:
            return
        rot = quat_to_matrix(store.quat[slot])
        shift = rot @ (np.asarray(store.models[mid].offset, float) - np.asarray(store.models[old].offset, float))
        store.pos[slot] += shift
        store.vel[slot] += np.cross(store.angvel[slot], shift)
        store.set_mass(slot, props)
        store.model_id[slot] = mid
        store.radius[slot] = store.models[mid].radius

    # -- 2. falling parcels and 3. released water ------------------------------------------------
    def _surface(self, x: float, z: float) -> float:
        water = self.sim.water
        nz, nx = water.shape
        i = min(max(int(x / water.dx), 0), nx - 1)
        k = min(max(int(z / water.dx), 0), nz - 1)
        return float(water.read("bed")[k, i] + water.read("h")[k, i])

    def _clamp(self, x: float, z: float) -> tuple[float, float]:
        sx, sz = self.sim.level.pool.size
        return min(max(x, 0.0), sx), min(max(z, 0.0), sz)

    def _off_pool(self, x: float, y: float, z: float, came_from_pool: bool) -> bool:
        """Whether water at (x, y, z) has left the pool for good: past the deck's outer edge, or on
        the deck (outside the walls, at or below its top, wall_height) having reached it from above
        the deck. A deck falls away from its pool, so what lands on it drains off, not in. Water
        that reached the deck's height from over the pool met a wall's inner face instead and runs
        down it (came_from_pool)."""
        out = float(outside_walls(x, z, self.sim.level.pool.size))
        if out <= 0.0:
            return False
        return out > DECK or (y <= self.sim.level.pool.wall_height and not came_from_pool)

    def _spill(self, volume: float) -> None:
        self.sim.water.source_volume -= volume     # counted out, as an outflow

    def _release(self, pos: np.ndarray, vel: np.ndarray, volume: float) -> None:
        """Water leaving a bottle at `pos` with `vel`: off the world when on the deck or past it,
        into the pool there if under its surface, else a new parcel at `pos`."""
        if volume <= 0.0:
            return
        x, y, z = float(pos[0]), float(pos[1]), float(pos[2])
        if self._off_pool(x, y, z, came_from_pool=False):
            self._spill(volume)
            return
        if outside_walls(x, z, self.sim.level.pool.size) <= 0.0 and y <= self._surface(x, z):
            water = self.sim.water
            moved = water.add_volume(*_inside(water, x, z), volume)
            water.source_volume -= moved          # moved from the bottle, not created
        else:
            self.parcels = np.vstack([self.parcels, [x, y, z, vel[0], vel[1], vel[2], volume]])

    def _fall(self, dt: float) -> None:
        """Move falling water ballistically (over the deck too); add each parcel to the pool where
        it meets the surface, or count it out where it lands on the deck or falls past it. A parcel
        that crosses a wall below the deck's top stops at the wall and runs down into the pool."""
        if not len(self.parcels):
            return
        p = self.parcels
        size = self.sim.level.pool.size
        was_in = outside_walls(p[:, 0], p[:, 2], size) <= 0.0
        p[:, 4] -= self.sim.gravity * dt
        p[:, 0:3] += dt * p[:, 3:6]
        keep = np.ones(len(p), bool)
        water = self.sim.water
        for j in range(len(p)):
            x, y, z = float(p[j, 0]), float(p[j, 1]), float(p[j, 2])
            if self._off_pool(x, y, z, came_from_pool=bool(was_in[j])):
                self._spill(float(p[j, 6]))
                keep[j] = False
                continue
            if outside_walls(x, z, size) > 0.0:
                if y > self.sim.level.pool.wall_height:
                    continue                      # still in the air over the deck
                x, z = self._clamp(x, z)          # at a wall's inner face: down it
                p[j, 0], p[j, 2] = x, z
            if y <= self._surface(x, z):
                moved = water.add_volume(*_inside(water, x, z), float(p[j, 6]))
                water.source_volume -= moved      # landed, not created
                keep[j] = False
        self.parcels = p[keep]


def _inside(water, x: float, z: float) -> tuple[float, float]:
    """(x, z) moved just inside the grid's extent (add_volume spreads around a point in it)."""
    nz, nx = water.shape
    eps = 1e-6
    return (min(max(float(x), eps), nx * water.dx - eps), min(max(float(z), eps), nz * water.dx - eps))
