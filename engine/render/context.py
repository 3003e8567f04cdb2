"""Choose headless (EGL) or windowed pyglet once per process, and make a GL context to draw in.

pyglet decides between its headless and windowed backends when `pyglet.gl` is first imported (it
creates a shadow window then), and the two cannot be mixed in one process. Every module in
engine/render that needs GL imports it through `gl()` below, after `select_backend` has run.
"""
from __future__ import annotations

import os
import sys
from typing import Any


class ContextError(RuntimeError):
    """No GL context could be made, or the backend was chosen twice in conflicting ways."""


def wants_headless() -> bool:
    """Return the default: headless when PYGLET_HEADLESS says so, or when there is no display."""
    flag = os.environ.get("PYGLET_HEADLESS", "").strip().lower()
    if flag in ("1", "true", "yes", "on"):
        return True
    if flag in ("0", "false", "no", "off"):
        return False
    return sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def select_backend(headless: bool | None = None) -> bool:
    """Set pyglet's headless option before pyglet.gl / pyglet.window load; return the choice.

    Raise ContextError when pyglet's GL was already loaded with the other choice.
    """
    import pyglet

    want = wants_headless() if headless is None else bool(headless)
    loaded = "pyglet.gl" in sys.modules or "pyglet.window" in sys.modules
    if loaded:
        have = bool(pyglet.options["headless"])
        if have != want:
            raise ContextError(
                f"pyglet was already loaded {'headless' if have else 'windowed'}; cannot switch to "
                f"{'headless' if want else 'windowed'} in the same process (set PYGLET_HEADLESS before starting)")
        return have
    pyglet.options["headless"] = want
    if want:
        pyglet.options["shadow_window"] = False
    return want


def gl() -> Any:
    """Return the pyglet.gl module, choosing the backend first if nobody has."""
    if "pyglet.gl" not in sys.modules:
        select_backend()
    import pyglet.gl as _gl
    return _gl


def create_context(width: int = 64, height: int = 64, *, headless: bool | None = None,
                   visible: bool = False, caption: str = "Bottles & Water") -> Any:
    """Make a pyglet window (an EGL surface when headless) whose GL context is current; return it.

    The renderer draws into its own RGBA8 framebuffer object, so the window's own framebuffer format
    (RGB565 on headless Mesa) does not matter.
    """
    select_backend(headless)
    try:
        import pyglet.window
        from pyglet import gl as _gl
        try:
            # pyglet types Config as abstract; at run time gl.Config is the platform's concrete class
            config = _gl.Config(major_version=3, minor_version=3, forward_compatible=True,  # type: ignore[abstract]
                                double_buffer=True, depth_size=24)
            window = pyglet.window.Window(width, height, visible=visible, config=config, caption=caption)
        except Exception:
            window = pyglet.window.Window(width, height, visible=visible, caption=caption)
    except Exception as exc:  # NoSuchDisplayException, EGL errors, missing libGL
        raise ContextError(f"could not create an OpenGL 3.3 context ({type(exc).__name__}: {exc}); "
                           "on a machine without a display set PYGLET_HEADLESS=true and install "
                           "libegl1 libgl1 (Mesa)") from exc
    window.switch_to()
    return window
