"""Input: pyglet-style key and mouse events turned into game actions.

`Input` is a part of game.controller.Game (a mixin): the window in game/app.py forwards its events
to these methods, and tests call them directly with synthetic events.
"""
from __future__ import annotations

from game import camera as cam
from game.controls import MOD_SHIFT
from game.host import GameHost


SPEEDS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0)
DEBUG_VIEWS: tuple[str | None, ...] = (None, "depth", "velocity", "divergence", "vorticity", "bounds")


class Input(GameHost):
    """Game methods that receive input events and run actions."""

    def do(self, action: str) -> None:
        """Perform a key action by name (see game/controls.py)."""
        if action.startswith("pick:"):
            k = int(action[5:])
            if k < len(self.throwables):
                self.selected = k
                self.notice(f"throwing: {self.throwables[k].name}")
            else:
                n = len(self.throwables)
                keys = f"keys 1-{n}" if n > 1 else "key 1"
                self.notice(f"nothing on key {k + 1}: this level has {n} thing{'s' * (n != 1)} to throw ({keys})")
        elif action == "pause":
            self.paused = not self.paused
            self.accumulator = 0.0
        elif action == "step":
            self.paused = True
            self.pending_steps += 1
        elif action == "slower":
            self.speed_index = max(0, self.speed_index - 1)
            self.notice(f"speed {self.speed:g}x")
        elif action == "faster":
            self.speed_index = min(len(SPEEDS) - 1, self.speed_index + 1)
            self.notice(f"speed {self.speed:g}x")
        elif action == "reset":
            self.reset()
        elif action == "next_level":
            self.next_level()
        elif action == "rain":
            self.rain()
        elif action == "save":
            self.save()
        elif action == "load":
            self.load()
        elif action == "help":
            self.show_help = not self.show_help
        elif action == "debug":
            self.debug_index = (self.debug_index + 1) % len(DEBUG_VIEWS)
            self.notice(f"debug view: {self.debug_view or 'off'}")
        elif action == "dev":
            self.show_dev = not self.show_dev
        elif action == "mute":
            self.sound.muted = not self.sound.muted
            silent = getattr(self.sound.player, "reason", None)
            if silent is not None:
                why = f" ({silent})" if silent else ""
                self.notice(f"no sound here{why}: M has nothing to {'mute' if self.sound.muted else 'unmute'}")
            else:
                self.notice("sound off (M turns it on)" if self.sound.muted else "sound on")
        elif action == "home":
            self.home()
            self.notice("camera: home")
        elif action.startswith("tool:"):
            tool = action[5:]
            self.tool = "throw" if self.tool == tool else tool      # the HUD's tool line says which
        elif action == "clear_barriers":
            self.barriers.clear()
            self.notice("barriers removed")
        elif action == "dye":
            self.drop_dye(*self.cursor)
        elif action == "quit":
            self.quit_requested = True

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        action = self._keys.get(symbol)
        if action is None:
            return
        if action.startswith("fly:"):
            self.held.add(action[4:])
        else:
            self.do(action)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        action = self._keys.get(symbol)
        if action is not None and action.startswith("fly:"):
            self.held.discard(action[4:])

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        self.cursor = (x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.cursor = (x, y)
        action = self._mouse.get((button, bool(modifiers & MOD_SHIFT))) or self._mouse.get((button, False))
        if self.drag_action is not None or action is None:
            return
        if action == "throw" and self.tool != "throw":
            action = self.tool
        self.drag_action = action
        if action == "throw":
            self.charging = True
            self.charge_time = 0.0
        elif action == "barrier":
            self._barrier_last = self._floor_point(x, y)
            self.barriers.begin_stroke()
            if self._barrier_last is not None:
                self.barriers.draw_segment(self._barrier_last, self._barrier_last)
        elif action == "grab":
            t = self.aim_target()
            if t is not None and t.what == "body":
                y_plane = max(float(t.point[1]), self.surface_y + 0.15)
                self._grab = (t.entity, y_plane)
                self.notice("grabbed: drag it, release to let go")
        elif action == "push":
            self._push_last = self.cursor_on_water(x, y)
            self._push_disp[:] = 0.0
            self._push_time = 0.0

    def on_mouse_drag(self, x: float, y: float, dx: float, dy: float, buttons: int, modifiers: int) -> None:
        self.cursor = (x, y)
        if self.drag_action == "orbit":
            cam.orbit_by_drag(self.camera, dx, dy)
        elif self.drag_action == "barrier":
            p = self._floor_point(x, y)
            if p is not None:
                self.barriers.draw_segment(self._barrier_last or p, p)
            self._barrier_last = p
        elif self.drag_action == "push":
            w = self.cursor_on_water(x, y)
            if w is not None and self._push_last is not None:
                self._push_disp += w - self._push_last
            self._push_last = w

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.cursor = (x, y)
        action = self.drag_action
        if action is None:
            return
        # the button that started the drag ends it, whatever the modifiers are now
        started = [b for (b, _), a in self._mouse.items() if a == (action if action not in ("barrier", "grab") else "throw")]
        if button not in started:
            return
        self.drag_action = None
        if action == "throw" and self.charging:
            self.throw()
            self.charging = False
            self.charge_time = 0.0
        elif action == "push":
            self._push_last = None
        elif action == "barrier":
            self._barrier_last = None
            self.barriers.end_stroke()
        elif action == "grab":
            self._grab = None

    def on_mouse_scroll(self, x: float, y: float, scroll_x: float, scroll_y: float) -> None:
        cam.zoom_by_wheel(self.camera, scroll_y)
        cam.keep_in_reach(self.camera, self.sim.level)

    def on_resize(self, width: int, height: int) -> None:
        self.width, self.height = max(int(width), 1), max(int(height), 1)
