"""Errors the engine raises at users: each says what went wrong, where, and what to do."""
from __future__ import annotations


class SimulationError(RuntimeError):
    """The simulation reached a state it cannot continue from (NaN, runaway velocities)."""
