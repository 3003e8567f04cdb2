"""Simulation events and the per-step queue that carries them.

Systems emit events during a step; later systems in the same step may read them (Shatter reads
Impact), and when the step ends the Simulation hands every event, in emission order, to the
subscribers registered with `Simulation.on`. Subscribers are held strongly, so a lambda works.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, TypeVar

import numpy as np

E = TypeVar("E")


@dataclass(frozen=True, slots=True)
class Impact:
    """A contact whose impulse exceeded the reporting threshold. `other` is -1 for static geometry."""
    entity: int
    other: int
    impulse: float            # N s, magnitude along the normal
    point: tuple[float, float, float]
    normal: tuple[float, float, float]
    time: float = 0.0


@dataclass(frozen=True, slots=True)
class Shattered:
    """A bottle broke: `entity` is gone, `shards` are the new fragment entities.

    `released_volume` is the bottle's held water, moved into sim.water_in_flight by Shatter; HeldWater
    puts it into the pool (or a falling parcel) at `position` with `velocity`, the bottle's, when it
    sees this event. So emit one only for water that really left a bottle that way.
    """
    entity: int
    shards: tuple[int, ...]
    impulse: float
    position: tuple[float, float, float]
    released_volume: float    # m^3 of held water released
    time: float = 0.0
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)   # m/s, the bottle's centre of mass


@dataclass(frozen=True, slots=True)
class Splash:
    """A body entered the water fast: for particles and sound."""
    entity: int
    position: tuple[float, float, float]
    speed: float              # m/s, normal entry speed
    volume: float = 0.0       # m^3 of water thrown up (visual only)
    time: float = 0.0


@dataclass(frozen=True, slots=True)
class Spawned:
    """A body entered the world (thrown, spawned by a level, a mod or a shatter)."""
    entity: int
    kind: str
    time: float = 0.0


@dataclass(frozen=True, slots=True)
class FellOff:
    """A body went over the deck's outer edge and fell out of the world (FallOff removed it).

    `position` is where it was removed, below the deck; `lost_volume` the water it held, which
    left the world with it (WaterGrid.source_volume counts it, as an outflow)."""
    entity: int
    kind: str                 # "bottle", "shard" or "prop"
    position: tuple[float, float, float]
    lost_volume: float = 0.0  # m^3
    time: float = 0.0
    model: str = ""           # its model's name ("bottle", "crate", "sphere", ...)


@dataclass(frozen=True, slots=True)
class ModFailed:
    """A mod raised; it has been disabled. For the HUD and logs."""
    mod: str
    error: str
    time: float = 0.0


Handler = Callable[[Any], Any]


@dataclass(slots=True)
class EventQueue:
    """Events emitted during the current step, plus the subscribers they go to when it ends."""
    pending: list[Any] = field(default_factory=list)
    handlers: dict[type, list[Handler]] = field(default_factory=lambda: defaultdict(list))

    def emit(self, event: Any) -> None:
        """Queue an event for the end of this step."""
        self.pending.append(event)

    def of_type(self, kind: type[E]) -> Iterator[E]:
        """Events of one type emitted so far in this step, in order."""
        return (e for e in self.pending if isinstance(e, kind))

    def subscribe(self, kind: type, fn: Handler) -> None:
        self.handlers[kind].append(fn)

    def unsubscribe(self, kind: type, fn: Handler) -> None:
        if fn in self.handlers.get(kind, ()):
            self.handlers[kind].remove(fn)

    def flush(self, on_error: Callable[[Handler, Any, BaseException], None] | None = None) -> list[Any]:
        """Deliver every pending event to its subscribers and empty the queue; return the events."""
        events, self.pending = self.pending, []
        for event in events:
            for kind, fns in list(self.handlers.items()):
                if isinstance(event, kind):
                    for fn in list(fns):
                        try:
                            fn(event)
                        except BaseException as exc:  # a subscriber must not kill the step (sys.exit() included)
                            if on_error is None:
                                raise
                            on_error(fn, event, exc)
        return events


def as_tuple(v: Any) -> tuple[float, float, float]:
    a = np.asarray(v, dtype=float).reshape(3)
    return (float(a[0]), float(a[1]), float(a[2]))
