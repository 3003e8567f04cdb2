"""Quick save and quick load (F5 / F9): the engine's saves (engine/saves.py) as the game uses them.

The engine owns the format and the state (`Simulation.state()` / `set_state()`); this module only
puts them together: `save` writes and returns what the save could not hold (named for the player),
`load` restores into a simulation (the game gives it a fresh one of the running level and mods, so a
file that does not load leaves the running game untouched). Nothing here imports code a save names.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.saves import FORMAT, VERSION, SaveError, default_path, read, write

if TYPE_CHECKING:
    from engine.world import Simulation

__all__ = ["FORMAT", "VERSION", "SaveError", "default_path", "read", "save", "split", "load"]


GAME = "game"   # the tree's entry for what the game keeps beside the simulation (the camera)


def save(sim: "Simulation", path: str | Path, extra: dict[str, Any] | None = None) -> tuple[Path, list[str]]:
    """Write the whole state of `sim` to `path`, with the game's own plain values `extra` (the
    camera) under GAME; return the path and what could not be saved."""
    tree, warnings = sim.state()
    if extra:
        tree = {**tree, GAME: dict(extra)}
    return write(path, tree), list(warnings)


def split(tree: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the simulation's tree, the game's entry) of a tree `read` returned; the game's entry is
    only plain values to check before use ({} when absent or not a table)."""
    if not isinstance(tree, dict):
        raise SaveError("the save is damaged (no state)")
    extra = tree.get(GAME)
    sim_tree = {k: v for k, v in tree.items() if k != GAME}
    return sim_tree, extra if isinstance(extra, dict) else {}


def load(sim: "Simulation", path: str | Path) -> dict[str, Any]:
    """Restore `sim` (same level, systems and mods) from a file written by `save`; return the
    game's entry (see `split`)."""
    sim_tree, extra = split(read(path))
    sim.set_state(sim_tree)
    return extra
