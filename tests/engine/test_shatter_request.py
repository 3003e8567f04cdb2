"""A shatter asked for (Simulation.shatter) travels as a ShatterRequest component that the Shatter
system reads like an Impact: no code outside the step's order calls into the Shatter system's
methods. Between steps it breaks the bottle at once; asked by a system during a step it breaks in
that step's Shatter pass (or the next step's, if Shatter has run); deterministic; a pending request
saves and loads bit for bit; the contracts recorder finds every touch declared.

The physics each check relies on: the fragments keep the bottle's linear momentum exactly,
    sum_i m_i v_i = M v        (Shatter removes the spread's mass-weighted mean),
and the bottle's held water V moves to the water in flight, so the total water is unchanged."""
from __future__ import annotations

import ast
import inspect

import esper
import numpy as np
import pytest

from engine import Simulation, events
from engine.components import Bottle, ShatterRequest
from engine.contracts import Recorder
from engine.levels import parse_level
from engine.saves import SaveError
from engine.systems import System
from engine.world import Simulation as _Sim

POOL = "[pool]\nsize = [1.2, 0.8]\ncell = 0.05\nwall_height = 0.8\n[water]\nlevel = 0.25\n"


class Breaker(System):
    """Asks for a shatter of `target` in the step whose number is `at` (a mod would)."""
    READS = (Bottle,)
    WRITES = (ShatterRequest,)
    EMITS = ()

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.target = -1
        self.at = -1
        self.got: tuple[int, ...] | None = None

    def process(self, dt: float) -> None:
        if self.sim.steps == self.at and esper.entity_exists(self.target) \
                and esper.has_component(self.target, Bottle):
            self.got = self.sim.shatter(self.target)


def _sim() -> Simulation:
    return Simulation(parse_level(POOL))


def _momentum(sim: Simulation, entities) -> np.ndarray:
    st = sim.body_store
    return sum(float(st.mass[sim.body(e).slot]) * np.asarray(sim.body(e).velocity, float) for e in entities)


def test_between_steps_the_bottle_breaks_at_once_and_keeps_momentum_and_water() -> None:
    sim = _sim()
    e = sim.spawn_bottle((0.6, 0.6, 0.4), velocity=(0.8, -0.5, 0.3), fill=0.5)
    sim.step(3)                                      # in the air: no contact, no spin
    st = sim.body_store
    v = st.vel[sim.body(e).slot].copy()
    total = sim.total_water()
    seen: list = []
    sim.on(events.Shattered, seen.append)
    shards = sim.shatter(e)
    assert shards and sorted(shards) == sim.bodies("shard")
    assert e not in sim.bodies()
    with sim._context():
        assert esper.get_component(ShatterRequest) == []          # the request went with the bottle
    # the glass moves on with the bottle's velocity; its water is in flight
    m_glass = sum(float(st.mass[sim.body(s).slot]) for s in shards)
    np.testing.assert_allclose(_momentum(sim, shards), m_glass * v, rtol=1e-12, atol=1e-15)
    assert sim.total_water() == pytest.approx(total, rel=0, abs=1e-15)
    sim.step()
    assert [s.shards for s in seen] == [shards]


def test_a_system_before_shatter_breaks_the_bottle_in_the_same_step() -> None:
    sim = _sim()
    b = sim.add_system(Breaker("Breaker"), before="Shatter")
    b.target = sim.spawn_bottle((0.6, 0.5, 0.4), fill=0.3)
    sim.step(2)
    b.at = sim.steps
    times: list[float] = []
    sim.on(events.Shattered, lambda ev: times.append(ev.time))
    sim.step()
    assert b.got == ()                              # served by Shatter's pass, later in this step
    assert b.target not in sim.bodies() and len(sim.bodies("shard")) > 0
    assert times == [pytest.approx(2 * sim.dt)]     # the event carries this step's time (before the clock moves)


def test_a_system_after_shatter_is_served_by_the_next_step() -> None:
    sim = _sim()
    b = sim.add_system(Breaker("Breaker"), after="Shatter")
    b.target = sim.spawn_bottle((0.6, 0.5, 0.4), fill=0.3)
    sim.step(2)
    b.at = sim.steps
    sim.step()
    assert b.target in sim.bodies("bottle")          # asked after Shatter's pass: still whole
    with sim._context():
        assert esper.has_component(b.target, ShatterRequest)
    sim.step()
    assert b.target not in sim.bodies() and len(sim.bodies("shard")) > 0


def _run() -> str:
    sim = _sim()
    b = sim.add_system(Breaker("Breaker"), before="Shatter")
    e1 = sim.spawn_bottle((0.4, 0.5, 0.4), velocity=(0.5, 0.0, 0.0), fill=0.5)
    e2 = sim.spawn_bottle((0.8, 0.5, 0.4), velocity=(-0.5, 0.0, 0.0), sealed=False, fill=0.2)
    b.target, b.at = e2, 5
    sim.step(3)
    sim.shatter(e1, impulse=12.0)
    sim.step(20)
    out = sim.fingerprint()
    sim.close()
    return out


def test_requested_shatters_are_deterministic_bit_for_bit() -> None:
    assert _run() == _run()


def test_a_pending_request_saves_and_loads_bit_for_bit() -> None:
    sim = _sim()
    b = sim.add_system(Breaker("Breaker"), after="Shatter")
    b.target = sim.spawn_bottle((0.6, 0.5, 0.4), fill=0.4)
    sim.step(2)
    b.at = sim.steps
    sim.step()                                       # the request waits on the bottle now
    tree, warnings = sim.state()
    at_save = sim.fingerprint()
    sim.step(8)
    later = sim.fingerprint()
    fresh = _sim()
    fresh.add_system(Breaker("Breaker"), after="Shatter")
    fresh.set_state(tree)
    assert fresh.fingerprint() == at_save
    with fresh._context():
        assert [e for e, _ in esper.get_component(ShatterRequest)] == [b.target]
    fresh.step(8)
    assert fresh.fingerprint() == later
    fresh.close()
    sim.close()


def test_a_request_on_a_body_that_is_not_a_bottle_is_refused_by_the_loader() -> None:
    sim = _sim()
    p = sim.spawn_body("box", 500.0, (0.6, 0.5, 0.4), size=(0.1, 0.1, 0.1))
    tree, _ = sim.state()
    for row in tree["entities"]:
        if row[0] == p:
            row[1].append(["ShatterRequest", 5.0])
    with pytest.raises(SaveError, match="damaged"):
        sim.set_state(tree)
    with pytest.raises(ValueError, match="impulse"):
        sim.shatter(sim.spawn_bottle((0.3, 0.5, 0.4)), impulse=float("nan"))


def test_the_recorder_finds_a_requesting_system_inside_its_contract() -> None:
    sim = _sim()
    b = sim.add_system(Breaker("Breaker"), before="Shatter")
    b.target = sim.spawn_bottle((0.6, 0.5, 0.4), fill=0.3)
    b.at = 2
    usage: dict = {}
    with Recorder(sim, usage) as rec:
        sim.step(4)
    assert rec.violations() == []
    assert b.target not in sim.bodies()


def test_simulation_shatter_calls_no_method_of_the_shatter_system() -> None:
    """Simulation.shatter hands a looked-up system only to the scheduler's _run_pass: it calls
    nothing on it (no `get_system(...).m()` and no `s = get_system(...); s.m()`)."""
    import textwrap
    tree = ast.parse(textwrap.dedent(inspect.getsource(_Sim.shatter)))
    bound = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
             and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
             and n.value.func.attr == "get_system" for t in n.targets if isinstance(t, ast.Name)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute):
            recv = n.value
            assert not (isinstance(recv, ast.Call) and isinstance(recv.func, ast.Attribute)
                        and recv.func.attr == "get_system"), ast.unparse(n)
            assert not (isinstance(recv, ast.Name) and recv.id in bound), ast.unparse(n)
