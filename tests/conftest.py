"""Shared fixtures. esper keeps its state in module globals: every test starts from a clean slate."""
from __future__ import annotations

import os

os.environ.setdefault("PYGLET_HEADLESS", "true")

import esper
import pytest

from engine.paths import LEVELS, ROOT


@pytest.fixture(autouse=True)
def _fresh_esper():
    """Leave esper on its default world with nothing in it, before and after each test."""
    esper.switch_world("default")
    for name in list(esper.list_worlds()):
        if name != "default":
            esper.delete_world(name)
    esper.clear_database()
    yield
    esper.switch_world("default")


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def levels_dir():
    return LEVELS
