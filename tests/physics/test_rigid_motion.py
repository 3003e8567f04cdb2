"""Free rigid motion: ballistic flight and torque-free spin (conservation of L and E)."""
from __future__ import annotations

import numpy as np
import pytest

from engine import Simulation
from engine.levels import Level
from engine.levels.schema import PoolSpec, WaterSpec


def _sim(gravity: float = 9.81, size: float = 40.0) -> Simulation:
    sim = Simulation(Level(gravity=gravity, pool=PoolSpec(size=(size, size), cell=1.0), water=WaterSpec(level=0.0)))
    sim.remove_system("CoupleWater")
    return sim


def test_free_flight_follows_the_ballistic_formula():
    sim = _sim()
    x0, v0 = np.array([5.0, 10.0, 6.0]), np.array([3.0, 4.0, -1.5])
    e = sim.spawn_body("box", 600.0, x0, v0, angular_velocity=(1.0, 2.0, 0.5), size=(0.2, 0.1, 0.3))
    sim.step(120)
    t = sim.time
    g = np.array([0.0, -9.81, 0.0])
    # velocity Verlet is exact for a constant force: x = x0 + v0 t + g t^2 / 2, v = v0 + g t
    assert np.allclose(sim.body(e).position, x0 + v0 * t + 0.5 * g * t * t, rtol=0, atol=1e-9)
    assert np.allclose(sim.body(e).velocity, v0 + g * t, rtol=0, atol=1e-9)


@pytest.mark.parametrize("omega", [(3.0, 1.0, 2.0), (0.2, 6.0, 0.3)])   # generic; near the unstable middle axis
def test_torque_free_spin_conserves_angular_momentum_and_energy(omega):
    sim = _sim(gravity=0.0)
    q = np.array([0.9, 0.1, -0.3, 0.2])
    e = sim.spawn_body("box", 500.0, (20.0, 20.0, 20.0), angular_velocity=omega, orientation=q / np.linalg.norm(q),
                       size=(0.3, 0.2, 0.1))
    b = sim.body(e)
    L0, E0 = b.angular_momentum.copy(), b.kinetic_energy
    worst_L = worst_E = 0.0
    for _ in range(10):                      # 10 s at 120 Hz
        sim.step(120)
        worst_L = max(worst_L, np.linalg.norm(b.angular_momentum - L0) / np.linalg.norm(L0))
        worst_E = max(worst_E, abs(b.kinetic_energy - E0) / E0)
    assert worst_L < 0.01 and worst_E < 0.01
    assert np.linalg.norm(b.orientation) == pytest.approx(1.0, abs=1e-12)
    assert not np.allclose(b.angular_velocity, omega)   # it really tumbles (w changes, L does not)


def test_forces_added_by_other_systems_act_over_the_next_step_and_are_cleared():
    sim = _sim(gravity=0.0)
    e = sim.spawn_body("sphere", 1000.0, (20.0, 20.0, 20.0), radius=0.1)
    b = sim.body(e)
    st = sim.body_store
    st.force[b.slot] = (b.mass * 2.0, 0.0, 0.0)     # 2 m/s^2 for one step
    sim.step(1)
    assert b.velocity[0] == pytest.approx(2.0 * sim.dt, rel=1e-12)
    assert np.all(st.force[b.slot] == 0.0)
    sim.step(1)
    assert b.velocity[0] == pytest.approx(2.0 * sim.dt, rel=1e-12)
