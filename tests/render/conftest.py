"""A GL context for the render tests: headless EGL (Mesa llvmpipe) in CI, never skipped there."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def gl_context():
    """Make one hidden context for every render test; fail (not skip) when CI is set and GL is missing."""
    from engine.render.context import ContextError, create_context
    try:
        window = create_context(64, 64, headless=os.environ.get("PYGLET_HEADLESS", "true").lower() != "false")
    except ContextError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must render frames headless: {exc}")
        pytest.skip(f"no OpenGL here: {exc}")
    yield window
    window.close()
