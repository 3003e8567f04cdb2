"""Level goals and the score: break the gallery's bottles, smash bottles, land throws in a ring.

The level's [goal] table (engine.levels.schema.GoalSpec) says what to do; `GoalTracker` counts it
from the simulation's events (Shattered, Splash) and the game's throws, keeps the score and says
when the goal is won or lost (throws or time used up). Time is simulated time, so a paused game
does not lose time.

Score: 100 per target, and on a win 50 per throw left and 10 per second left, counted when it is
won; the score, the clock and the throws left then stay as they were, and throwing is free.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

import esper

if TYPE_CHECKING:
    from engine.world import Simulation

SETTLE = 3.0   # s after the last allowed throw before an unfinished goal counts as lost


class GoalTracker:
    """Follow one simulation's progress towards its level's goal."""

    def __init__(self, sim: "Simulation", clock: Callable[[], float] | None = None) -> None:
        from engine import events as ev
        from engine.components import Bottle
        self.sim = sim
        self.spec = sim.level.goal
        self.kind = self.spec.kind if self.spec is not None else "none"
        with sim._context():
            self.level_bottles = {e for e, _ in esper.get_component(Bottle)}
        count = self.spec.count if self.spec is not None else 0
        if self.kind == "break" and count == 0:
            count = len(self.level_bottles)
        self.count = count
        self.done = 0
        self.throws = 0
        self.last_throw_time = -math.inf
        self.thrown: set[int] = set()
        self.ringed: set[int] = set()
        self.state = "none" if self.kind == "none" else "playing"
        self.finished_at: float | None = None
        self.throws_at_end: int | None = None     # throws used when the goal was won or lost
        sim.on(ev.Shattered, self.on_shattered)
        sim.on(ev.Splash, self.on_splash)
        sim.on(ev.FellOff, self.on_fell_off)

    # -- events --------------------------------------------------------------------------------
    def on_shattered(self, e) -> None:
        if self.state != "playing":
            return
        if (self.kind == "break" and e.entity in self.level_bottles) or self.kind == "smash":
            self.done += 1

    def on_fell_off(self, e) -> None:
        """A goal bottle knocked off the deck's edge is out of play, as good as broken (else the
        goal could no longer be won)."""
        if self.state == "playing" and self.kind == "break" and e.entity in self.level_bottles:
            self.done += 1

    def on_splash(self, e) -> None:
        if self.state != "playing" or self.kind != "ring" or e.entity not in self.thrown or e.entity in self.ringed:
            return
        cx, cz = self.spec.center if self.spec.center is not None else self._pool_centre()
        if math.hypot(e.position[0] - cx, e.position[2] - cz) <= self.spec.radius:
            self.ringed.add(e.entity)
            self.done += 1

    def _pool_centre(self) -> tuple[float, float]:
        sx, sz = self.sim.level.pool.size
        return sx / 2.0, sz / 2.0

    def ring(self) -> tuple[float, float, float] | None:
        """(x, z, radius) of a ring goal's circle, or None."""
        if self.kind != "ring":
            return None
        cx, cz = self.spec.center if self.spec.center is not None else self._pool_centre()
        return cx, cz, self.spec.radius

    def threw(self, entity: int | None) -> None:
        """The game threw `entity`."""
        if entity is None:
            return
        self.throws += 1
        self.thrown.add(entity)
        self.last_throw_time = self.sim.time

    # -- state ---------------------------------------------------------------------------------
    @property
    def throws_left(self) -> int | None:
        if self.spec is None or self.spec.throws == 0:
            return None
        used = self.throws if self.throws_at_end is None else self.throws_at_end   # counted to the end
        return max(self.spec.throws - used, 0)

    @property
    def time_left(self) -> float | None:
        if self.spec is None or self.spec.time == 0.0:
            return None
        now = self.finished_at if self.finished_at is not None else self.sim.time   # the clock stops at the end
        return max(self.spec.time - now, 0.0)

    def can_throw(self) -> bool:
        """Throws are limited while playing; after a win the pool is a free sandbox again."""
        if self.state == "won":
            return True
        return self.state != "lost" and (self.throws_left is None or self.throws_left > 0)

    @property
    def score(self) -> int:
        s = 100 * self.done
        if self.state == "won":
            s += 50 * (self.throws_left or 0) + int(10 * (self.time_left or 0.0))
        return s

    def update(self) -> None:
        """Check for a win or a loss (call after steps)."""
        if self.state != "playing":
            return
        if self.done >= self.count > 0:
            self.state = "won"
        elif self.time_left is not None and self.time_left <= 0.0:
            self.state = "lost"
        elif self.throws_left == 0 and self.sim.time - self.last_throw_time >= SETTLE:
            self.state = "lost"
        if self.state != "playing":
            self.finished_at = self.sim.time
            self.throws_at_end = self.throws

    def describe(self) -> str:
        """The goal in words."""
        if self.spec is not None and self.spec.text:
            return self.spec.text
        return {"break": f"break the {self.count} bottles", "smash": f"smash {self.count} bottles",
                "ring": f"land {self.count} throws in the ring", "none": "free play"}[self.kind]

    def line(self) -> str | None:
        """One HUD line: the goal, progress, score, throws and time left, and the outcome."""
        if self.kind == "none":
            return None
        parts = [f"goal: {self.describe()}", f"{self.done}/{self.count}", f"score {self.score}"]
        if self.throws_left is not None:
            parts.append(f"throws left {self.throws_left}")
        if self.time_left is not None:
            parts.append(f"time {self.time_left:4.0f} s")
        if self.state == "won":
            parts.append("WON! (R plays again, Tab: next level)")
        elif self.state == "lost":
            parts.append("out of " + ("time" if self.time_left == 0.0 else "throws") + " (R tries again)")
        return "   ".join(parts)
