"""Retiring bodies past a level's caps, so that a long session keeps its pace.

Shards are capped by Shatter (the oldest go first, `physics.max_shards`). Bottles and props are
capped here, when a spawn takes their count past `physics.max_bottles` / `physics.max_props`:

    retire first the settled ones (asleep: at rest for BodyStore.sleep_after seconds),
    oldest first (lowest entity id: ids only grow), then, if none is settled, the oldest.

A retired bottle's held water goes to the pool where it stands (moved, not created: the total
water is unchanged and nothing counts as a source).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.bodies import KINDS

if TYPE_CHECKING:
    from engine.world import Simulation


def cap_for(sim: "Simulation", kind: str) -> int | None:
    phys = sim.level.physics
    return {"bottle": getattr(phys, "max_bottles", None), "prop": getattr(phys, "max_props", None)}.get(kind)


def retire_over_cap(sim: "Simulation", kind: str, keep: int | None = None) -> list[int]:
    """Remove the bodies of `kind` past its cap by the rule above (never `keep`, the one just
    spawned); return the entities removed."""
    limit = cap_for(sim, kind)
    if limit is None:
        return []
    live = sim.bodies(kind)
    over = len(live) - int(limit)
    if over <= 0:
        return []
    st = sim.body_store
    sleep_after = float(st.sleep_after)      # the body store's setting (IntegrateBodies sleeps by it)
    candidates = [e for e in live if e != keep]
    slots = {e: sim.body(e).slot for e in candidates}
    settled = [e for e in candidates if st.sleep[slots[e]] >= sleep_after]
    order = settled + [e for e in candidates if e not in set(settled)]
    removed = order[:over]
    for e in removed:
        s = slots[e]
        held = float(st.held_water[s])
        if held > 0.0:
            x, z = float(st.pos[s, 0]), float(st.pos[s, 2])
            sx, sz = sim.level.pool.size
            water = sim.water
            moved = water.add_volume(min(max(x, 0.0), sx), min(max(z, 0.0), sz), held)   # adds all of it
            water.source_volume -= moved          # moved from the bottle, not created
            st.held_water[s] = 0.0
        sim.remove_body(e)
    return removed


def counts(sim: "Simulation") -> dict[str, int]:
    """Live bodies of each kind."""
    st = sim.body_store
    n = st.n
    alive = st.alive[:n]
    return {k: int(np.count_nonzero(alive & (st.kind[:n] == i))) for i, k in enumerate(KINDS)}
