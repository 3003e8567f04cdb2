"""Solid columns in the water: bodies and barriers the flow goes around (Kellomaki 2014).

`SolidColumns` keeps the terrain bed of one WaterGrid and gives the water the bed
max(terrain, top) wherever something solid stands: the water of a newly covered column is moved
to the nearest free columns (wet ones first), never lost; a column that is freed gets its terrain
bed back and the water flows in (engine/kernels/blocking.py). Two kinds of tops are merged:
barriers, which stay until changed (a game tool draws them), and the tops of the blocking bodies,
which `Blockers` recomputes every step.

    columns = sim.columns                 # the Simulation's store (CoupleWater's blockers update it)
    walls = columns.free_tops()           # -inf everywhere: nothing
    walls[10:12, 5:40] = 0.5              # a wall 0.5 m high along 35 cells
    columns.set_barriers(sim.water, walls)

Contacts use `terrain` (terrain_bed(sim)): the ground under the blockers, which collide as bodies.

Which bodies block (`Blockers`): a marked one (`mark(entity)`), or a prop at least
[physics] block_mass heavy that sinks (denser than the water); and only while it stands on the
terrain: the columns under it whose lowest body point is within GAP of the terrain bed are solid
up to the body's top there.
"""
from __future__ import annotations

import esper
import numpy as np
from numpy.typing import NDArray

from engine.components import BodyRef
from engine.kernels import blocking as kb

PROP = 2                # BodyStore.kind of a prop (engine.bodies.KINDS)
GAP = 0.02              # m: a body whose bottom is this close to the terrain stands on it


class SolidColumns:
    """The terrain bed of one water grid and the solid columns standing on it."""

    def __init__(self, water, terrain: NDArray[np.float64] | None = None) -> None:
        self.terrain = np.array(water.read("bed") if terrain is None else terrain, dtype=np.float64)
        self.barriers = self.free_tops()
        self.bodies = self.free_tops()
        self.tops = self.free_tops()
        self.moved = 0.0            # m^3 moved aside by the last update
        # change counter of `tops` (bumped whenever it is recomputed: readers cache what they derive
        # from it), whether anything stands anywhere, and whether any body does
        self.version = 0
        self.any_tops = False
        self.any_bodies = False

    def free_tops(self) -> NDArray[np.float64]:
        """A tops array with nothing blocked (-inf everywhere), shaped like the grid."""
        return np.full(self.terrain.shape, -np.inf)

    @property
    def blocked(self) -> NDArray[np.bool_]:
        """Columns where something solid stands above the terrain."""
        return self.tops > self.terrain

    def set_barriers(self, water, tops: NDArray[np.float64]) -> bool:
        """Stand barriers with these tops (-inf where none) on the terrain; see `update`."""
        self.barriers = self._checked(tops)
        return self.update(water)

    def set_bodies(self, water, tops: NDArray[np.float64]) -> bool:
        """The blocking bodies' tops this step (-inf where none); see `update`."""
        self.bodies = self._checked(tops)
        self.any_bodies = bool(np.isfinite(self.bodies).any())
        return self.update(water)

    def update(self, water) -> bool:
        """Make the water's bed max(terrain, barriers, bodies), moving the water of newly covered
        columns aside. Returns whether the bed changed; the volume moved is `moved` (m^3). The
        water's total is unchanged."""
        np.maximum(self.barriers, self.bodies, out=self.tops)
        self.version += 1
        self.any_tops = bool(np.isfinite(self.tops).any())
        self.moved = 0.0
        if not kb.beds_differ(water.read("bed"), self.terrain, self.tops):
            return False
        nz, nx = self.terrain.shape
        moved = kb.set_columns(water.h, water.bed, water.u, water.w, self.terrain, self.tops, max(nz, nx))
        self.moved = moved * water.dx * water.dx
        return True

    def _checked(self, tops: NDArray[np.float64]) -> NDArray[np.float64]:
        tops = np.array(tops, dtype=np.float64)
        if tops.shape != self.terrain.shape:
            raise ValueError(f"tops has shape {tops.shape}; this water grid needs {self.terrain.shape}")
        if np.isnan(tops).any():
            raise ValueError("tops holds NaN: use -inf where nothing stands")
        return tops

    def state(self) -> dict[str, NDArray]:
        return {"terrain": self.terrain.copy(), "barriers": self.barriers.copy(), "bodies": self.bodies.copy(),
                "tops": self.tops.copy()}

    def set_state(self, state: dict[str, NDArray]) -> None:
        for name in ("terrain", "barriers", "bodies", "tops"):
            setattr(self, name, np.array(state[name], dtype=np.float64))
        self.version += 1
        self.any_tops = bool(np.isfinite(self.tops).any())
        self.any_bodies = bool(np.isfinite(self.bodies).any())


class Blockers:
    """The bodies that block the flow, found each step, and the solid columns they make."""

    def __init__(self, sim) -> None:
        self.sim = sim
        phys = sim.level.physics
        self.block_mass = float(phys.block_mass)
        self.rho = float(phys.water_density)
        self.marked: dict[int, bool] = {}        # entity -> blocks (True) or never blocks (False)
        self.blocking = np.zeros(0, np.bool_)    # per slot: blocking this step
        self._top = self.columns.free_tops()
        self._bottom = self.columns.free_tops()
        self._tops = self.columns.free_tops()
        self.solid = np.zeros(self.columns.terrain.shape, np.bool_)   # columns standing solid now
        self.any_solid = False                                         # solid.any()
        self._solid_of: tuple[SolidColumns | None, int] = (None, -1)   # (columns, version) `solid` comes from

    @property
    def columns(self) -> SolidColumns:
        """The Simulation's solid columns (sim.columns, a store: engine/contracts.py)."""
        return self.sim.columns

    def mark(self, entity: int, blocks: bool | None = True) -> None:
        """Make a body block the flow (True), never block it (False), or follow the mass rule (None)."""
        if blocks is None:
            self.marked.pop(int(entity), None)
        else:
            self.marked[int(entity)] = bool(blocks)

    def candidates(self) -> NDArray[np.bool_]:
        """Per slot: does this body block when it stands on the terrain (its mark, or the mass rule)."""
        st = self.sim.body_store
        n = st.n
        want = st.alive[:n] & (st.kind[:n] == PROP)
        if self.block_mass > 0.0:
            want &= (st.mass[:n] >= self.block_mass) & (st.mass[:n] > self.rho * st.volume[:n])
        else:
            want[:] = False
        if self.marked:
            for e, ref in esper.get_component(BodyRef):
                flag = self.marked.get(e)
                if flag is not None and ref.slot < n:
                    want[ref.slot] = flag and bool(st.alive[ref.slot])
        return want

    def update(self, pack: tuple) -> NDArray[np.bool_]:
        """Find the blocking bodies and stand their columns in the water; return the per-slot mask
        of blocking bodies. `pack`: CoupleWater's packed models (verts, tris, offsets). A blocker's
        own covered height is then zero where it stands (its columns' bed is its top), so it
        displaces water only where it overhangs free columns."""
        st = self.sim.body_store
        water = self.sim.water
        n = st.n
        want = self.candidates() if n else np.zeros(0, np.bool_)
        if want.any():
            verts, tris, vert_off, tri_off = pack[:4]
            self._top[...] = -np.inf
            self._bottom[...] = np.inf
            kb.column_extent(kb.Meshes(verts, tris, vert_off, tri_off),
                             kb.Poses(st.model_id[:n].astype(np.int64), st.pos[:n], st.quat[:n], want),
                             water.dx, self._top, self._bottom)
            kb.resting_tops(self._top, self._bottom, self.columns.terrain, GAP, self._tops)
            self.columns.set_bodies(water, self._tops)
        elif self.columns.any_bodies:
            self.columns.set_bodies(water, self.columns.free_tops())
        self.blocking = want
        self._derive_solid()
        return want

    def idle(self, n: int) -> None:
        """`update` for a step where nothing can block: no prop alive, none marked, no body's columns
        standing (the caller knows; the barriers' solid columns stay)."""
        if len(self.blocking) != n or self.blocking.any():
            self.blocking = np.zeros(n, np.bool_)
        self._derive_solid()

    def _derive_solid(self) -> None:
        """solid = tops > terrain (barriers included), redone only when the columns' tops changed."""
        columns = self.columns
        if self._solid_of[0] is columns and self._solid_of[1] == columns.version:
            return
        np.greater(columns.tops, columns.terrain, out=self.solid)
        self.any_solid = bool(self.solid.any())
        self._solid_of = (columns, columns.version)

    def state(self) -> dict[str, NDArray]:
        ents = np.array(sorted(self.marked), np.int64)
        return {**self.columns.state(), "marked": ents,
                "marked_flag": np.array([self.marked[int(e)] for e in ents], np.bool_)}

    def set_state(self, state: dict[str, NDArray]) -> None:
        self.columns.set_state(state)
        self._derive_solid()
        self.marked = {int(e): bool(f) for e, f in zip(state.get("marked", ()), state.get("marked_flag", ()))}


def terrain_bed(sim) -> NDArray[np.float64]:
    """The ground the bodies stand on: the terrain under the solid columns (sim.columns) once
    anything has been stood there (they keep the bed = max(terrain, tops) from then on); until
    then the water's bed itself, which is the terrain (and follows an edit of the bed)."""
    columns = sim.columns
    return columns.terrain if columns.any_tops else sim.water.bed
