"""Quick save and quick load (F5 / F9): the engine's saves (engine/saves.py) as the game uses them.

The engine owns the format and the state (`Simulation.state()` / `set_state()`); this module only
puts them together: `save` writes and returns what the save could not hold (named for the player),
`load` restores into a simulation (the game gives it a fresh one of the running level and mods, so a
file that does not load leaves the running game untouched). Nothing here imports code a save names.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.saves import FORMAT, VERSION, SaveError, default_path, read, write

if TYPE_CHECKING:
    from engine.world import Simulation

__all__ = ["FORMAT", "VERSION", "SaveError", "default_path", "read", "save", "load"]


def save(sim: "Simulation", path: str | Path) -> tuple[Path, list[str]]:
    """Write the whole state of `sim` to `path`; return the path and what could not be saved."""
    tree, warnings = sim.state()
    return write(path, tree), list(warnings)


def load(sim: "Simulation", path: str | Path) -> None:
    """Restore `sim` (same level, systems and mods) from a file written by `save`."""
    sim.set_state(read(path))
