"""Bottles & Water engine: shallow water, rigid bodies and their coupling on esper.

    from engine import Simulation, load_level, LevelError
    sim = Simulation(load_level("content/levels/calm_pool.toml"))
    sim.step(120)
"""
import os

# numba's OpenMP workers (libgomp) spin for GOMP_SPINCOUNT polls after a parallel loop before they
# sleep; libgomp's default of 300,000 kept the second core busy through the serial rest of every
# step, where the renderer's llvmpipe threads need it. 20,000 polls still bridge the gaps between
# the phases of one threaded water substep. Read once, when numba first starts its threads; a
# player's own setting wins.
os.environ.setdefault("GOMP_SPINCOUNT", "20000")

from engine import events  # noqa: E402
from engine.errors import SimulationError  # noqa: E402
from engine.levels import Level, LevelError, load_level  # noqa: E402
from engine.world import OrderError, Simulation  # noqa: E402

__all__ = ["Simulation", "load_level", "Level", "LevelError", "SimulationError", "OrderError", "events"]
