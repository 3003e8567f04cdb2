"""Resting contact between bodies: stacks and pyramids stand, a box on a box does not sink.

Dry pool (no water, CoupleWater removed): contacts alone. Every body is kept awake (sleeping
would freeze a stack and hide drift), so what is measured is the contact solver holding them.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation
from engine.levels import Level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec

SLOP = 0.005          # m: the deepest a resting box may sink into another (the contact slop)
CRATE = (0.3, 0.2, 0.2)   # content/models/crate.obj, m


def _sim(friction: float = 0.5, restitution: float = 0.3) -> Simulation:
    sim = Simulation(Level(seed=0, pool=PoolSpec(size=(2.0, 1.0), cell=0.05), water=WaterSpec(level=0.0),
                           physics=PhysicsSpec(restitution=restitution, friction=friction, glass_strength=1e6)))
    sim.remove_system("CoupleWater")
    sim.get_system("IntegrateBodies").sleep_after = math.inf
    return sim


def _lowest(sim: Simulation, e: int) -> float:
    return float(sim.body(e).mesh_world()[0][:, 1].min())


def _highest(sim: Simulation, e: int) -> float:
    return float(sim.body(e).mesh_world()[0][:, 1].max())


def _stand(sim: Simulation, ents: list[int], seconds: float) -> tuple[float, float]:
    """Step `seconds`; return the largest displacement of any body from where it was placed (m) and
    the deepest overlap seen between vertically neighbouring bodies' faces (m)."""
    p0 = np.array([sim.body(e).position.copy() for e in ents])
    worst = 0.0
    for _ in range(int(round(seconds / sim.dt))):
        sim.step(1)
        for lo, hi in _neighbours(sim, ents):
            worst = max(worst, _highest(sim, lo) - _lowest(sim, hi))
    p1 = np.array([sim.body(e).position for e in ents])
    return float(np.linalg.norm(p1 - p0, axis=1).max()), worst


def _neighbours(sim: Simulation, ents: list[int]) -> list[tuple[int, int]]:
    """(lower, upper) pairs whose footprints overlap and whose faces meet (|gap| < 2 cm)."""
    out = []
    for a in ents:
        for b in ents:
            pa, pb = sim.body(a).position, sim.body(b).position
            if pb[1] > pa[1] + 0.01 and abs(_lowest(sim, b) - _highest(sim, a)) < 0.02 \
                    and abs(pb[0] - pa[0]) < 0.25 and abs(pb[2] - pa[2]) < 0.25:
                out.append((a, b))
    return out


def test_a_stack_of_five_crates_stands_for_ten_seconds():
    """Five crates (0.3 x 0.2 x 0.2 m, 200 kg/m^3) stacked face to face: static equilibrium, each
    crate carries the weight of those above, N_k = (5 - k) m g; nothing may move. Drift over 10 s
    < 1 mm; no crate sinks into the one below deeper than the 5 mm contact slop."""
    sim = _sim()
    h = CRATE[1]
    ents = [sim.spawn_body("crate", 200.0, (1.0, 0.5 * h + k * h, 0.5)) for k in range(5)]
    drift, overlap = _stand(sim, ents, 10.0)
    assert drift < 1e-3
    assert overlap < SLOP
    assert _lowest(sim, ents[0]) > -SLOP


def test_a_pyramid_of_six_boxes_stands_for_ten_seconds():
    """Rows of 3, 2 and 1 boxes (0.2 m cubes, 1 cm apart in a row, each upper box across two
    below): statically determinate on friction-free faces too (each upper box is centred on its
    supports). Drift over 10 s < 1 mm; overlaps < 5 mm."""
    sim = _sim()
    s, gap = 0.2, 0.01
    ents = []
    for row, count in enumerate((3, 2, 1)):
        x0 = 1.0 - 0.5 * (count - 1) * (s + gap)
        for k in range(count):
            ents.append(sim.spawn_body("box", 300.0, (x0 + k * (s + gap), 0.5 * s + row * s, 0.5), size=(s, s, s)))
    drift, overlap = _stand(sim, ents, 10.0)
    assert drift < 1e-3
    assert overlap < SLOP


@pytest.mark.parametrize("angle", [0.0, 0.4, math.pi / 4], ids=["aligned", "turned 23 deg", "turned 45 deg"])
def test_a_box_dropped_on_a_box_never_sinks_in(angle):
    """A box dropped 0.3 m onto a box (turned about y: the faces meet edge across edge): at no step
    do the faces overlap by more than the 5 mm slop, and it comes to rest on top, its bottom at the
    lower box's top (0.2 m) to within the slop."""
    sim = _sim()
    low = sim.spawn_body("box", 400.0, (1.0, 0.1, 0.5), size=(0.3, 0.2, 0.3))
    q = (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)
    top = sim.spawn_body("box", 400.0, (1.0, 0.55, 0.5), orientation=q, size=(0.2, 0.1, 0.2))
    worst = 0.0
    for _ in range(240):
        sim.step(1)
        worst = max(worst, _highest(sim, low) - _lowest(sim, top))
    assert worst < SLOP
    assert _lowest(sim, top) == pytest.approx(0.2, abs=SLOP)
    assert np.linalg.norm(sim.body(top).velocity) < 1e-3
