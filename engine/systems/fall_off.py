"""FallOff: bodies that went over the deck's outer edge leave the world."""
from __future__ import annotations

import esper
import numpy as np

from engine import events as ev
from engine.bodies import KINDS
from engine.components import BodyRef, Bottle, Prop, Shard
from engine.systems.base import System
from engine.terrain import DECK, outside_walls

FALL_DEPTH = 5.0        # m below the pool's floor (y = 0) at which a body past the deck's edge is gone


class FallOff(System):
    """Remove every body whose centre of mass is past the deck's outer edge (more than
    engine.terrain.DECK metres outside the walls, where IntegrateBodies has no ground) and more than
    FALL_DEPTH below the pool's floor: it went over the edge (rolled, knocked or thrown) and fell
    out of the world. A body up there, or one still over the deck, stays.

    The water a bottle held leaves with it: `WaterGrid.source_volume` is lowered by it, as an
    outflow would, so `pool + held + in flight = initial total + source_volume` still holds, and
    the FellOff event carries it (`lost_volume`). Emits one FellOff per body removed.

    Contract: READS, WRITES, EMITS below (engine/contracts.py checks them).
    """

    READS = ("BodyStore.kind",)   # and Bottle / Prop (their model's name), in WRITES
    WRITES = (BodyRef, Bottle, Shard, Prop, "BodyStore.slots", "BodyStore.alive", "BodyStore.pos", "BodyStore.vel",
              "BodyStore.angvel", "BodyStore.force", "BodyStore.torque", "BodyStore.held_water",
              "BodyStore.submerged", "WaterGrid.source_volume")
    EMITS = (ev.FellOff,)

    def state(self) -> dict:
        """None to keep: whether a body has fallen is read from the bodies each step."""
        return {}

    def set_state(self, state: dict) -> None:
        """Nothing to restore (state() keeps nothing)."""

    def process(self, dt: float) -> None:
        sim = self.sim
        st = sim.body_store
        n = st.n
        if n == 0:
            return
        pos = st.pos[:n]
        if not pos[:, 1].min() < -FALL_DEPTH:      # nobody that low: the usual case, one reduction
            return
        out = outside_walls(pos[:, 0], pos[:, 2], sim.level.pool.size)
        gone = np.flatnonzero(st.alive[:n] & (out > DECK) & (pos[:, 1] < -FALL_DEPTH))
        if not len(gone):
            return
        by_slot = {ref.slot: e for e, ref in esper.get_component(BodyRef)}
        for slot in gone:
            e = by_slot.get(int(slot))
            if e is None:
                continue
            held = float(st.held_water[slot])
            where = (float(pos[slot, 0]), float(pos[slot, 1]), float(pos[slot, 2]))
            kind = KINDS[int(st.kind[slot])]
            named = esper.try_component(e, Bottle) or esper.try_component(e, Prop)
            model = named.model if named is not None else kind
            st.held_water[slot] = 0.0
            sim.water.source_volume -= held      # left the world with the bottle: an outflow
            sim.remove_body(e)
            sim.emit(ev.FellOff(e, kind, where, held, sim.time, model))
