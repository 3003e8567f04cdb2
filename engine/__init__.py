"""Bottles & Water engine: shallow water, rigid bodies and their coupling on esper.

    from engine import Simulation, load_level, LevelError
    sim = Simulation(load_level("content/levels/calm_pool.toml"))
    sim.step(120)
"""
from engine import events
from engine.errors import SimulationError
from engine.levels import Level, LevelError, load_level
from engine.world import OrderError, Simulation

__all__ = ["Simulation", "load_level", "Level", "LevelError", "SimulationError", "OrderError", "events"]
