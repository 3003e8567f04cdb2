"""The base of every system: an esper Processor that knows its Simulation, its name and its contract."""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Collection

import esper

from engine.contracts import Entry, check_entries

if TYPE_CHECKING:
    from engine.world import Simulation


class System(esper.Processor):
    """One stage of the fixed step. Subclasses implement `process(self, dt)`.

    `sim` is set when the system is added to a Simulation. `name` defaults to the class name and is
    what other systems use to place themselves (`after="StepFluid"`).

    The contract: what the system touches, as class attributes (engine/contracts.py has the
    vocabulary; a wrong entry is a TypeError when the class is defined):

        READS   what it reads: component types, store fields ("WaterGrid.h", "BodyStore.pos",
                "Simulation.rng"), event types it reads with `sim.events.of_type`
        WRITES  what it changes (component types it creates, deletes or edits; store fields);
                writing implies reading
        EMITS   event types it emits

    None (the default) means undeclared. `engine.contracts.record(sim)` runs steps with recording
    proxies around the stores and names every touch outside the contract; systems talk only
    through components, stores and events, never through each other's attributes.
    """

    name: ClassVar[str] = ""
    # written as tuples in a subclass; __init_subclass__ replaces each with its checked frozenset
    READS: ClassVar[Collection[Entry] | None] = None
    WRITES: ClassVar[Collection[Entry] | None] = None
    EMITS: ClassVar[Collection[type] | None] = None
    sim: "Simulation"

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__
        for attr in ("READS", "WRITES", "EMITS"):
            declared = cls.__dict__.get(attr)
            if declared is not None:
                setattr(cls, attr, check_entries(cls.__qualname__, attr, declared))

    def bind(self, sim: "Simulation") -> None:
        """Called once when the system joins `sim`; allocate scratch buffers here."""
        self.sim = sim

    def process(self, dt: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
