"""Fixtures for the game tests: a small level file and a Game on it, driven without a window."""
from __future__ import annotations

from pathlib import Path

import pytest

SMALL = """# Demonstrates: a tiny pool for fast game tests.
name = "Tiny pool"
seed = 3
dt = 0.01

[pool]
size = [1.0, 0.8]
cell = 0.05
wall_height = 0.6

[water]
level = 0.3

[[bottle]]
position = [0.5, 0.5, 0.4]
angular_velocity = [0.0, 0.0, 1.0]
"""


class Clock:
    """A fake clock for message expiry."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def small_level(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(SMALL)
    return path


@pytest.fixture
def game(small_level: Path, tmp_path: Path):
    from game.controller import Game
    g = Game(small_level, width=640, height=360, save_path=tmp_path / "quick.npz", entry_points=False,
             levels=[small_level], clock=Clock())
    yield g
    g.sim.close()
