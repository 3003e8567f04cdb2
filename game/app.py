"""The window: a resizable pyglet window that forwards input to a Game and draws it each frame.

All game logic lives in game/controller.py; this module only glues pyglet's events, clock and
drawing to it, so the game can be driven and tested without a window.
"""
from __future__ import annotations

import sys
from typing import Any

from game.controller import Game

FRAME_INTERVAL = 1.0 / 60.0     # redraw rate asked of pyglet
UPDATE_INTERVAL = 1.0 / 120.0   # how often the game loop runs (it steps physics by its own accumulator)


def open_window(width: int, height: int, caption: str) -> Any:
    """Open a resizable window with a GL 3.3 core context (raises pyglet's NoSuchDisplayException
    or engine.render.context.ContextError when there is no display)."""
    from engine.render.context import select_backend
    select_backend(False)
    import pyglet

    class GameWindow(pyglet.window.Window):
        game: Game | None = None

        def on_key_press(self, symbol: int, modifiers: int) -> None:   # replaces pyglet's Esc-closes
            if self.game is not None:
                self.game.on_key_press(symbol, modifiers)

    config = pyglet.gl.Config(major_version=3, minor_version=3, forward_compatible=True,
                              double_buffer=True, depth_size=24)
    try:
        return GameWindow(width, height, caption=caption, resizable=True, config=config, vsync=True)
    except pyglet.window.NoSuchConfigException:
        return GameWindow(width, height, caption=caption, resizable=True)


def draw_frame(game: Game, renderer: Any, hud: Any, width: int, height: int) -> None:
    """Draw the scene into the current window's framebuffer of width x height pixels, then the HUD."""
    from engine.render.context import gl
    g = gl()
    if renderer.sim is not game.sim:       # reset, next level or a load made a new simulation
        renderer.attach(game.sim)
    try:
        renderer.draw(game.camera, debug=game.debug_view)
        renderer.present(width, height)
    except Exception as exc:  # a drawing bug shows up as a message, not a crash
        msg = f"drawing failed: {type(exc).__name__}: {exc}"
        if not game.messages or game.messages[-1][0] != msg:
            game.notice(msg)
    g.glBindFramebuffer(g.GL_FRAMEBUFFER, 0)
    g.glViewport(0, 0, width, height)
    g.glDisable(g.GL_DEPTH_TEST)
    g.glDisable(g.GL_CULL_FACE)
    hud.draw(game)


def run(game: Game, window: Any) -> int:
    """Run the event loop until the window closes or the game asks to quit; return an exit code."""
    import pyglet
    from engine.render.renderer import Renderer

    window.game = game
    fbw, fbh = window.get_framebuffer_size()
    renderer = Renderer(game.sim, fbw, fbh)
    from game.hud import HudOverlay
    hud = HudOverlay()
    failure: list[str] = []

    @window.event
    def on_resize(width: int, height: int) -> None:
        game.on_resize(width, height)
        w, h = window.get_framebuffer_size()
        renderer.resize(w, h)

    @window.event
    def on_draw() -> None:
        window.clear()
        draw_frame(game, renderer, hud, *window.get_framebuffer_size())

    window.push_handlers(on_mouse_press=game.on_mouse_press, on_mouse_release=game.on_mouse_release,
                         on_mouse_drag=game.on_mouse_drag, on_mouse_motion=game.on_mouse_motion,
                         on_mouse_scroll=game.on_mouse_scroll, on_key_release=game.on_key_release)

    def tick(dt: float) -> None:
        try:
            game.update(dt)
        except Exception as exc:
            failure.append(f"bottles play: {type(exc).__name__}: {exc}")
            pyglet.app.exit()
            return
        if game.quit_requested:
            window.close()

    pyglet.clock.schedule_interval(tick, UPDATE_INTERVAL)
    try:
        pyglet.app.run(FRAME_INTERVAL)
    finally:
        pyglet.clock.unschedule(tick)
    if failure:
        print(failure[0], file=sys.stderr)
        return 1
    return 0
