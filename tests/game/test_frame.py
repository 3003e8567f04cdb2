"""Draw real game frames (scene + HUD, power bar, arc, help) through headless EGL."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from game.controls import KEY_SYMBOLS, MOUSE_BUTTONS

W, H = 320, 180


@pytest.fixture(scope="module")
def window(gl_window):
    win = gl_window(W, H)
    yield win
    win.close()


def _read(g) -> np.ndarray:
    buf = (ctypes.c_ubyte * (W * H * 4))()
    g.glBindFramebuffer(g.GL_FRAMEBUFFER, 0)
    g.glReadPixels(0, 0, W, H, g.GL_RGBA, g.GL_UNSIGNED_BYTE, buf)
    return np.frombuffer(buf, np.uint8).reshape(H, W, 4)[::-1, :, :3].astype(int)


def test_scene_hud_power_bar_and_help_draw_without_gl_errors(window, small_level, tmp_path):
    from engine.render.context import gl
    from engine.render.renderer import Renderer
    from engine.render.targets import gl_errors
    from game.app import draw_frame
    from game.controller import Game
    from game.hud import HudOverlay

    g = gl()
    game = Game(small_level, width=W, height=H, save_path=tmp_path / "q.npz", entry_points=False, levels=[])
    window.switch_to()
    renderer = Renderer(game.sim, W, H)
    hud = HudOverlay()
    game.update(0.05)
    draw_frame(game, renderer, hud, W, H)
    plain = _read(g)
    assert plain.std() > 5.0                                  # a scene, not a cleared screen
    assert not game.messages, game.messages                   # no "drawing failed"
    # charging: the power bar appears at the bottom centre
    game.on_mouse_press(W / 2, H / 2, MOUSE_BUTTONS["LEFT"], 0)
    game.update(0.6)
    draw_frame(game, renderer, hud, W, H)
    charged = _read(g)
    bar = (slice(H - 44, H - 30), slice(W // 2 - 40, W // 2 + 40))
    assert np.abs(charged[bar] - plain[bar]).mean() > 20.0
    game.on_mouse_release(W / 2, H / 2, MOUSE_BUTTONS["LEFT"], 0)
    # F1: the help panel darkens the middle of the screen
    game.on_key_press(KEY_SYMBOLS["F1"], 0)
    game.on_key_press(KEY_SYMBOLS["K"], 0)                    # and a debug view draws
    draw_frame(game, renderer, hud, W, H)
    helped = _read(g)
    mid = (slice(H // 3, 2 * H // 3), slice(W // 3, 2 * W // 3))
    assert helped[mid].mean() < plain[mid].mean()
    assert gl_errors() == []
    # a reset hands the renderer the new simulation
    game.on_key_press(KEY_SYMBOLS["R"], 0)
    draw_frame(game, renderer, hud, W, H)
    assert renderer.sim is game.sim
    game.sim.close()


def test_marker_arc_dye_barriers_and_preparing_screen_are_drawn(window, small_level, tmp_path):
    """The landing marker's red ring lands on the pixels of the marked world point; dye and a
    barrier change the picture; the preparing screen draws text and a bar on its own colour."""
    from engine.render.context import gl
    from engine.render.renderer import Renderer
    from engine.render.targets import gl_errors
    from game.app import draw_frame
    from game.controller import Game
    from game.hud import HudOverlay
    from game.loading import LoadingScreen, Preparation

    g = gl()
    game = Game(small_level, width=W, height=H, save_path=tmp_path / "q.npz", entry_points=False, levels=[])
    game.sim.remove_body(game.sim.bodies("bottle")[0])
    window.switch_to()
    renderer = Renderer(game.sim, W, H)
    hud = HudOverlay()
    game.on_mouse_motion(W * 0.4, H * 0.45, 0, 0)
    game.on_mouse_press(W * 0.4, H * 0.45, MOUSE_BUTTONS["LEFT"], 0)
    game.update(0.3)
    draw_frame(game, renderer, hud, W, H)
    aimed = _read(g)
    marker = game.landing_marker()
    mx, my, _ = game.camera.project(marker, W, H)
    ring = aimed[max(int(my) - 25, 0):int(my) + 26, max(int(mx) - 25, 0):int(mx) + 26]
    red = (ring[..., 0] > 200) & (ring[..., 1] < 140) & (ring[..., 2] < 140)
    assert red.sum() >= 10                                     # the red ring around the marked point
    # the arc leaves the hand: yellow pixels where the hand projects (near the bottom right)
    hx, hy, _ = game.camera.project(game.predicted_arc()[1], W, H)   # (this steep throw meets the deck soon)
    patch = aimed[max(int(hy) - 4, 0):int(hy) + 5, max(int(hx) - 4, 0):int(hx) + 5]
    assert ((patch[..., 0] > 200) & (patch[..., 1] > 180) & (patch[..., 2] < 170)).any()
    game.on_mouse_release(W * 0.4, H * 0.45, MOUSE_BUTTONS["LEFT"], 0)
    game.sim.remove_body(game.last_throw)
    game.on_key_press(KEY_SYMBOLS["P"], 0)
    game.on_key_press(KEY_SYMBOLS["G"], 0)                     # grab tool: no aim overlay
    draw_frame(game, renderer, hud, W, H)
    before = _read(g)
    game.on_mouse_motion(W * 0.5, H * 0.5, 0, 0)
    game.on_key_press(KEY_SYMBOLS["Y"], 0)
    game.barriers.draw_segment((0.3, 0.2), (0.7, 0.2))
    draw_frame(game, renderer, hud, W, H)
    after = _read(g)
    assert np.abs(after - before).sum(axis=2).astype(bool).sum() > 200
    assert gl_errors() == []
    screen = LoadingScreen()
    screen.draw(Preparation(()), W, H)
    prep = _read(g)
    assert (np.abs(prep - np.array([15, 23, 33])).sum(axis=2) < 12).mean() > 0.6   # the background
    assert (prep[..., 2] > 200).any()                                             # the bar
    game.sim.close()


@pytest.mark.parametrize("size", [(1280, 720), (800, 450), (640, 360)])
def test_the_help_fits_inside_its_panel(window, size):
    """F1's text lies inside its panel (0.84 of the width, 0.86 of the height from the middle): the
    descriptions wrap under themselves, and a short window gets a smaller font; every control is
    still listed."""
    from game.controls import CONTROLS
    from game.hud import HudOverlay
    w, h = size
    hud = HudOverlay()
    hud.fit_help(w, h)
    label = hud.help_text
    assert label.content_width <= 0.84 * w + 2 and label.content_height <= 0.86 * h + 2, (
        label.content_width, label.content_height, label.font_size)
    text = label.text
    assert all(c.label in text for c in CONTROLS)
    assert " ".join(text.split()).count("hold longer for a faster, flatter throw") == 1
