"""A GL context for the render tests: headless EGL (Mesa llvmpipe) in CI, never skipped there."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def gl_context(gl_window):
    """Make one hidden context for every render test; fail (not skip) when CI is set and GL is missing."""
    window = gl_window(64, 64)
    yield window
    window.close()
