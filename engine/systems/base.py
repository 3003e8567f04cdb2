"""The base of every system: an esper Processor that knows its Simulation and its name."""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import esper

if TYPE_CHECKING:
    from engine.world import Simulation


class System(esper.Processor):
    """One stage of the fixed step. Subclasses implement `process(self, dt)`.

    `sim` is set when the system is added to a Simulation. `name` defaults to the class name and is
    what other systems use to place themselves (`after="StepFluid"`).
    """

    name: ClassVar[str] = ""
    sim: "Simulation"

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__

    def bind(self, sim: "Simulation") -> None:
        """Called once when the system joins `sim`; allocate scratch buffers here."""
        self.sim = sim

    def process(self, dt: float) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
