"""The Simulation: isolation, system order by name, the event queue, fixed-step determinism."""
from __future__ import annotations

import esper
import numpy as np
import pytest

from engine import OrderError, Simulation, events, load_level
from engine.levels import Level
from engine.paths import DEFAULT_LEVEL
from engine.systems import System


class Recorder(System):
    log: list[str] = []

    def __init__(self, name: str) -> None:
        self.name = name  # instance name shadows the class default

    def process(self, dt: float) -> None:
        Recorder.log.append(self.name)


def test_two_simulations_do_not_see_each_other():
    a = Simulation(load_level(DEFAULT_LEVEL))
    b = Simulation(Level())
    assert a.world_name != b.world_name
    n_a, n_b = len(a.bodies()), len(b.bodies())
    a.spawn_bottle((1.0, 0.8, 1.0))
    assert len(a.bodies()) == n_a + 1
    assert len(b.bodies()) == n_b
    a.water.h[:] += 0.01
    hb = b.water.h.copy()
    a.step(3)
    assert b.steps == 0 and np.array_equal(b.water.h, hb)
    # esper's global default world is untouched by either
    assert esper.current_world == "default"
    assert list(esper.get_component(object)) == []


def test_default_order_is_bodies_fall_off_fluid_coupling_shatter_held_water():
    sim = Simulation(Level())
    assert sim.system_names() == ["IntegrateBodies", "FallOff", "StepFluid", "CoupleWater", "Shatter", "HeldWater"]


def test_systems_placed_by_name_run_in_that_order():
    sim = Simulation(Level())
    sim.add_system(Recorder("A"), after="StepFluid")
    sim.add_system(Recorder("B"), before="IntegrateBodies")
    sim.add_system(Recorder("C"), before="A")
    sim.add_system(Recorder("D"))
    assert sim.system_names() == ["B", "IntegrateBodies", "FallOff", "StepFluid", "C", "A", "CoupleWater", "Shatter",
                                  "HeldWater", "D"]
    Recorder.log = []
    sim.step(2)
    assert Recorder.log == ["B", "C", "A", "D"] * 2


def test_unknown_anchor_and_duplicates_are_rejected():
    sim = Simulation(Level())
    with pytest.raises(OrderError, match='unknown system "StepFlood"'):
        sim.add_system(Recorder("X"), after="StepFlood")
    sim.add_system(Recorder("X"))
    with pytest.raises(OrderError, match="already"):
        sim.add_system(Recorder("X"))


def test_events_are_queued_during_the_step_and_delivered_after_it():
    sim = Simulation(Level())
    seen: list[tuple[str, float]] = []

    class Emitter(System):
        def process(self, dt: float) -> None:
            self.sim.emit(events.Splash(1, (0.0, 0.0, 0.0), 2.0, time=self.sim.time))
            # a later system in the same step sees it in the queue, subscribers do not yet
            assert seen == [] or seen[-1][1] < self.sim.time

    class Reader(System):
        count = 0

        def process(self, dt: float) -> None:
            Reader.count += len(list(self.sim.events.of_type(events.Splash)))

    sim.add_system(Emitter(), after="StepFluid")
    sim.add_system(Reader(), after="Emitter")
    sim.on(events.Splash, lambda e: seen.append(("splash", e.time)))  # lambdas work: held strongly
    sim.step(3)
    assert [t for _, t in seen] == [0.0, sim.dt, 2 * sim.dt]
    assert Reader.count == 3
    assert sim.events.pending == []


def test_a_raising_subscriber_is_dropped_and_reported():
    sim = Simulation(Level())

    def bad(event):
        raise RuntimeError("boom")

    sim.on(events.Spawned, bad)
    sim.spawn_bottle((1.0, 0.5, 0.5))
    sim.step(1)
    assert any("boom" in f for f in sim.failures)
    sim.spawn_bottle((1.0, 0.5, 0.5))
    sim.step(1)  # no second failure: it was unsubscribed
    assert len(sim.failures) == 1


def _run(level: Level, steps: int) -> str:
    sim = Simulation(level)
    sim.spawn_bottle((1.2, 0.9, 0.6), velocity=(1.0, 2.0, -0.5), angular_velocity=(0.0, 3.0, 1.0))
    sim.water.h[5:8, 5:8] += 0.02
    sim.step(steps)
    return sim.fingerprint()


def test_same_level_and_spawns_give_bitwise_identical_state():
    level = load_level(DEFAULT_LEVEL)
    assert _run(level, 60) == _run(level, 60)
    assert _run(level, 60) != _run(level, 61)


def test_time_is_steps_times_dt():
    sim = Simulation(Level(dt=0.01))
    sim.step(n=25)
    assert sim.steps == 25
    assert sim.time == pytest.approx(0.25, abs=1e-12)


def test_writing_h_between_steps_changes_the_simulation():
    sim = Simulation(Level())
    v0 = sim.water.volume()
    sim.water.h[0, 0] += 0.1
    assert sim.water.volume() == pytest.approx(v0 + 0.1 * sim.water.dx ** 2)
    sim.step(1)
    assert sim.water.volume() == pytest.approx(v0 + 0.1 * sim.water.dx ** 2)
