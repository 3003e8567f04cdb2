"""The window: a resizable pyglet window that forwards input to a Game and draws it each frame.

All game logic lives in game/controller.py; this module only glues pyglet's events, clock and
drawing to it, so the game can be driven and tested without a window.
"""
from __future__ import annotations

import sys
import time
from typing import Any, Callable

import numpy as np

from engine.meshes import vec3
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
            elif symbol == pyglet.window.key.ESCAPE:    # Esc still quits on the preparing screen
                self.close()

    # pyglet types Config as abstract; at run time gl.Config is the platform's concrete class
    config = pyglet.gl.Config(major_version=3, minor_version=3, forward_compatible=True,  # type: ignore[abstract]
                              double_buffer=True, depth_size=24)
    try:
        return GameWindow(width, height, caption=caption, resizable=True, config=config, vsync=True)
    except pyglet.window.NoSuchConfigException:
        return GameWindow(width, height, caption=caption, resizable=True)


def draw_frame(game: Game, renderer: Any, hud: Any, width: int, height: int) -> None:
    """Draw the scene into the current window's framebuffer of width x height pixels, then the HUD."""
    from engine.render.context import gl
    g = gl()
    seen = getattr(renderer, "_barrier_version", None)
    if renderer.sim is not game.sim or seen != (id(game.barriers), game.barriers.version):
        # reset, next level or a load made a new simulation, or barriers changed the bed: the pool
        # mesh is built from the bed when the renderer attaches
        renderer.attach(game.sim)
        renderer._barrier_version = (id(game.barriers), game.barriers.version)
    nudge = game.camera_nudge()
    target = game.camera.target
    game.camera.target = vec3(np.asarray(target, float) + nudge)   # drawn shaken ...
    try:
        renderer.draw(game.camera, debug=game.debug_view)
        renderer.present(width, height)
    except Exception as exc:  # a drawing bug shows up as a message, not a crash
        msg = f"drawing failed: {type(exc).__name__}: {exc}"
        if not game.messages or game.messages[-1][0] != msg:
            game.notice(msg)
    finally:
        game.camera.target = target                     # ... the camera itself never moves
    g.glBindFramebuffer(g.GL_FRAMEBUFFER, 0)
    g.glViewport(0, 0, width, height)
    g.glDisable(g.GL_DEPTH_TEST)
    g.glDisable(g.GL_CULL_FACE)
    hud.draw(game)


def run(game: Game | Callable[[], Game], window: Any, *, prepare: bool = True,
        timing: dict[str, float] | None = None, exit_after_start: bool = False,
        sound_player: Callable[[], Any] | None = None) -> int:
    """Run the event loop until the window closes or the game asks to quit; return an exit code.

    `game` is a Game or a function that builds one. With `prepare`, the window first shows the
    "preparing physics..." screen (game/loading.py) while every kernel is warmed on a worker thread,
    and the game is built after that, so no frame is ever left undrawn while numba works.
    `timing`, when given, receives seconds since the call: "first_frame" (the first drawn frame,
    whatever it shows) and "first_game_frame" (the first frame of the game itself).
    """
    import pyglet
    from engine.render.renderer import Renderer
    from game import loading

    t0 = time.perf_counter()
    times = timing if timing is not None else {}
    factory = None if isinstance(game, Game) else game
    prep = loading.Preparation(() if not prepare else loading.warmup.GROUPS, then=factory)
    screen = loading.LoadingScreen()
    state: dict[str, Any] = {"game": game if isinstance(game, Game) else None, "renderer": None, "hud": None,
                             "player": None}
    failure: list[str] = []
    drawn = [False]

    def build() -> None:
        """Make the game (if given as a factory), its renderer and HUD, and wire the input."""
        if prep.failure is not None:
            raise prep.failure
        g = state["game"] if state["game"] is not None else prep.result
        if g is None:
            g = game()   # type: ignore[operator]
        state["game"] = g
        if sound_player is not None and state["player"] is None:
            state["player"] = sound_player()
        if state["player"] is not None:
            g.sound.player = state["player"]
        window.game = g
        for msg in prep.errors:
            g.notice(msg)
        fbw, fbh = window.get_framebuffer_size()
        g.on_resize(*window.get_size())
        state["renderer"] = Renderer(g.sim, fbw, fbh)
        if state["hud"] is None:
            from game.hud import HudOverlay
            state["hud"] = HudOverlay()
        window.push_handlers(on_mouse_press=g.on_mouse_press, on_mouse_release=g.on_mouse_release,
                             on_mouse_drag=g.on_mouse_drag, on_mouse_motion=g.on_mouse_motion,
                             on_mouse_scroll=g.on_mouse_scroll, on_key_release=g.on_key_release)

    @window.event
    def on_resize(width: int, height: int) -> None:
        if state["game"] is not None and state["renderer"] is not None:
            state["game"].on_resize(width, height)
            state["renderer"].resize(*window.get_framebuffer_size())

    @window.event
    def on_draw() -> None:
        window.clear()
        fb = window.get_framebuffer_size()
        if state["renderer"] is None:
            screen.draw(prep, *fb)
            times.setdefault("first_frame", time.perf_counter() - t0)
            drawn[0] = True
            return
        draw_frame(state["game"], state["renderer"], state["hud"], *fb)
        times.setdefault("first_game_frame", time.perf_counter() - t0)
        if exit_after_start:
            state["game"].quit_requested = True

    def tick(dt: float) -> None:
        g = state["game"]
        try:
            if state["renderer"] is None:
                if not drawn[0]:
                    return                      # draw the preparing screen before any work starts
                if not prep.finished:
                    prep.start()
                    # meanwhile, on this thread: what needs GL or the audio device, no simulation
                    if state["hud"] is None:
                        from game.hud import HudOverlay
                        state["hud"] = HudOverlay()
                    elif sound_player is not None and state["player"] is None:
                        state["player"] = sound_player()
                    return
                times.setdefault("prepared", time.perf_counter() - t0)
                build()
                times.setdefault("built", time.perf_counter() - t0)
                return
            g.update(dt)
        except Exception as exc:
            failure.append(f"bottles play: {type(exc).__name__}: {exc}")
            pyglet.app.exit()
            return
        if g.quit_requested:
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
