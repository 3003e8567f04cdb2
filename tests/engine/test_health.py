"""NaN or infinity anywhere is caught in the step it appears and named (body or cell, time, mod);
a mod's BaseException is contained like any other mod error."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.levels import parse_level
from engine.mods import ModSet, hud_lines
from engine.systems import System
from engine.world import NonFiniteError, Simulation

POOL = "seed = 1\n[pool]\nsize = [1.0, 0.8]\ncell = 0.05\nwall_height = 0.6\n[water]\nlevel = 0.3\n"


def _sim() -> Simulation:
    return Simulation(parse_level(POOL))


def _with_mod(sim: Simulation, name: str, system: System, after: str = "StepFluid", **hooks) -> ModSet:
    def register(api):
        api.add_system(system, after=after)
        for kind, fn in hooks.get("handlers", ()):
            api.on(kind, fn)
        for fn in hooks.get("hud", ()):
            api.add_hud_line(fn)
    ms = ModSet()
    ms.add_module(name, register)
    ms.attach(sim)
    return ms


def test_nan_in_a_body_is_named_in_the_step_it_appears():
    sim = _sim()
    e = sim.spawn_bottle((0.5, 0.5, 0.4))
    sim.step(2)
    sim.body(e).velocity[1] = np.nan
    with pytest.raises(NonFiniteError, match=rf"body {e} \(bottle\) has a non-finite (vel|pos).* at t=0\.0"):
        sim.step()


def test_spawning_a_body_with_nan_or_absurd_motion_is_refused():
    sim = _sim()
    with pytest.raises(ValueError, match="angular_velocity must be 3 finite"):
        sim.spawn_bottle((0.5, 0.5, 0.4), angular_velocity=(0, math.nan, 0))
    with pytest.raises(ValueError, match="position"):
        sim.spawn_body("box", 500.0, (0.5, math.inf, 0.4))
    with pytest.raises(ValueError, match="beyond"):
        sim.spawn_bottle((0.5, 0.5, 0.4), velocity=(1e6, 0, 0))
    assert sim.bodies() == []


@pytest.mark.parametrize("array", ["bed", "h", "u", "ax"])
def test_nan_in_the_water_names_the_array_and_cell(array):
    """The cell written, not (0, 0): the bed too, which the water kernel does not name itself. (A
    NaN acceleration has become a NaN velocity on that face by the end of the step.)"""
    sim = _sim()
    sim.step(1)
    getattr(sim.water, array)[5, 7] = np.nan
    named = "(ax|u)" if array == "ax" else array
    with pytest.raises(NonFiniteError, match=rf"water {named} at cell \(k=5, i=7\).* at t=0\.0"):
        sim.step()


class _Writes(System):
    def __init__(self, what: str) -> None:
        self.what = what

    def process(self, dt: float) -> None:
        if self.sim.steps == 3:
            if self.what == "body":
                self.sim.body_store.vel[0, 0] = np.inf
            else:
                self.sim.water.ax[2, 3] = np.nan


@pytest.mark.parametrize("what", ["body", "water"])
def test_a_mod_that_writes_nan_is_named_with_the_time(what):
    sim = _sim()
    sim.spawn_bottle((0.5, 0.5, 0.4))
    _with_mod(sim, "saboteur", _Writes(what))
    sim.step(3)
    with pytest.raises(NonFiniteError) as info:
        sim.step()
    msg = str(info.value)
    assert 'mod "saboteur"' in msg and "t=0.0" in msg
    assert ("body" in msg) if what == "body" else ("water ax at cell (k=2, i=3)" in msg)


class _Exits(System):
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def process(self, dt: float) -> None:
        raise self.exc


@pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt(), GeneratorExit(), RuntimeError("x")])
def test_a_mods_base_exception_in_a_step_is_contained(exc):
    from engine.errors import SimulationError
    sim = _sim()
    _with_mod(sim, "quitter", _Exits(exc))
    sim.step(3)                                   # does not raise, does not exit
    assert len(sim.failures) == 1 and 'mod "quitter"' in sim.failures[0] and type(exc).__name__ in sim.failures[0]
    assert "_Exits" not in sim.system_names()
    sim2 = _sim()
    _with_mod(sim2, "strict", _Exits(SimulationError("mod says stop")))
    sim2.step(2)
    assert 'mod "strict"' in sim2.failures[0]


def test_a_mods_base_exception_in_a_handler_register_or_hud_is_contained():
    from engine import events as ev

    def bye(event):
        raise SystemExit("bye")
    sim = _sim()
    ms = _with_mod(sim, "h", _Exits(RuntimeError("later")), handlers=[(ev.Spawned, bye)])
    sim.spawn_bottle((0.5, 0.5, 0.4))
    sim.step(1)
    assert ms.get("h").failed is not None and "SystemExit" in ms.get("h").failed
    sim = _sim()
    ms = ModSet()

    def register(api):
        raise KeyboardInterrupt
    ms.add_module("r", register)
    assert ms.get("r").failed is not None and "KeyboardInterrupt" in ms.get("r").failed
    sim = _sim()

    def hud(s):
        raise SystemExit
    ms = _with_mod(sim, "hud", _Writes("none"), hud=[hud])
    assert hud_lines(sim) == [] and ms.get("hud").failed is not None
