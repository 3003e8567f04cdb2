"""Fountain: a spring that pours water into the pool, and an optional drain that takes it out.

Load it with `bottles play --mod mods/fountain.py`. A level may tune it (every key optional):

    [fountain]
    position = [1.0, 1.5]    # (x, z), m; default: a quarter of the way along the pool
    rate = 0.002             # m^3/s (2 litres a second)
    radius = 0.12            # m over which it spreads
    drain = [3.0, 1.5]       # (x, z), m: takes out what the fountain pours, making a current

Every litre goes through WaterGrid.add_volume, which counts it in `source_volume`, so
`sim.total_water() - sim.water.source_volume` stays constant: the fountain is a declared source.
The fountain also bubbles harder for a second after every Splash near it (an event subscriber).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from engine import events
from engine.levels.fields import spec
from engine.systems import System


@dataclass(frozen=True, slots=True)
class FountainSpec:
    """The [fountain] level section."""
    position: tuple[float, float] | None = spec("vec2", default=None, min=0.0, max=100.0, doc="(x, z), m")
    rate: float = spec("float", default=0.002, min=0.0, max=10.0, doc="m^3/s")
    radius: float = spec("float", default=0.12, min=0.01, max=10.0, doc="m")
    drain: tuple[float, float] | None = spec("vec2", default=None, min=0.0, max=100.0, doc="(x, z), m")


class Fountain(System):
    """Pour `rate` m^3/s in at the fountain (and take it out at the drain). Runs after StepFluid.

    Reads: [fountain]. Writes: WaterGrid h (through add_volume). Emits: nothing.
    """

    READS = ()
    WRITES = ("WaterGrid.h", "WaterGrid.source_volume")
    EMITS = ()

    def __init__(self) -> None:
        self.poured = 0.0   # m^3 in so far
        self.drained = 0.0  # m^3 out so far
        self.boost_until = -1.0

    def bind(self, sim) -> None:  # type: ignore[no-untyped-def]
        super().bind(sim)
        self.cfg: FountainSpec = sim.level.extra.get("fountain", FountainSpec())
        sx, sz = sim.level.pool.size
        self.position = self.cfg.position or (0.25 * sx, 0.5 * sz)

    def on_splash(self, event: events.Splash) -> None:
        x, _, z = event.position
        if math.hypot(x - self.position[0], z - self.position[1]) < 1.0:
            self.boost_until = event.time + 1.0

    def state(self) -> dict:
        """What a save keeps: the litres poured and drained so far and the end of the splash boost."""
        return {"poured": float(self.poured), "drained": float(self.drained), "boost_until": float(self.boost_until)}

    def set_state(self, state: dict) -> None:
        self.poured, self.drained = float(state["poured"]), float(state["drained"])
        self.boost_until = float(state["boost_until"])

    def process(self, dt: float) -> None:
        w = self.sim.water
        rate = self.cfg.rate * (2.0 if self.sim.time < self.boost_until else 1.0)
        x, z = self.position
        self.poured += w.add_volume(x, z, rate * dt, radius=self.cfg.radius)
        if self.cfg.drain is not None:
            self.drained -= w.add_volume(self.cfg.drain[0], self.cfg.drain[1], -rate * dt, radius=self.cfg.radius)


def register(api) -> None:  # type: ignore[no-untyped-def]
    """Add the [fountain] section, the Fountain system, a Splash subscriber and a HUD line."""
    fountain = Fountain()
    api.add_level_section("fountain", FountainSpec)
    api.add_system(fountain, after="StepFluid")
    api.on(events.Splash, fountain.on_splash)
    api.add_hud_line(lambda sim: f"fountain: {fountain.poured * 1000:.1f} L poured, {fountain.drained * 1000:.1f} L drained")
