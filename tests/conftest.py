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


def _gl_window(width: int, height: int):
    """A hidden window whose GL context is current, for tests that draw. Where GL is missing the
    test is skipped with the reason, but not in CI (CI set), which must render frames headless."""
    from engine.render.context import ContextError, create_context
    try:
        return create_context(width, height, headless=os.environ.get("PYGLET_HEADLESS", "true").lower() != "false")
    except ContextError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must render frames headless: {exc}")
        pytest.skip(f"no OpenGL here: {exc}")


@pytest.fixture(scope="session")
def gl_window():
    """make(width, height): a hidden window with a current GL context, or the test skipped (failed
    in CI) where there is no OpenGL."""
    return _gl_window


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def levels_dir():
    return LEVELS
