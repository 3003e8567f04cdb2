"""The heads-up display: what it says (pure text, testable without GL) and how it is drawn.

Lines: frames per second, milliseconds per system per step, bodies and shards, the water volume,
the throwable and its power, mod lines and messages. F1 overlays the controls table; the power bar
and the predicted arc of a throw are drawn while the left button is held.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from game.controls import help_lines

if TYPE_CHECKING:
    from engine.world import Simulation
    from game.controller import Game

_SMOOTH = 0.1   # weight of the newest sample in the running averages


class SystemTimes:
    """Wall-clock milliseconds each system takes per step, as running averages.

    Each system's `process` is wrapped (an instance attribute, like the engine's own mod guard), so
    the simulation and its results are untouched; only the time is read around the call.
    """

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self._this_step: dict[str, float] = {}

    def attach(self, sim: "Simulation") -> None:
        """Wrap every system not wrapped yet (cheap: call it before each step to catch new ones)."""
        for name in sim.system_names():
            system = sim.get_system(name)
            if getattr(system.process, "_hud_timed", False):
                continue
            system.process = self._wrap(name, system.process)  # type: ignore[method-assign]

    def _wrap(self, name: str, inner: Any) -> Any:
        record = self._this_step

        def process(dt: float) -> None:
            t0 = time.perf_counter()
            try:
                inner(dt)
            finally:
                record[name] = record.get(name, 0.0) + (time.perf_counter() - t0) * 1e3

        process._hud_timed = True  # type: ignore[attr-defined]
        return process

    def end_step(self) -> None:
        """Fold the step just taken into the averages."""
        for name, ms in self._this_step.items():
            old = self.ms.get(name)
            self.ms[name] = ms if old is None else (1.0 - _SMOOTH) * old + _SMOOTH * ms
        self._this_step.clear()

    def total(self) -> float:
        return sum(self.ms.values())


def hud_lines(game: "Game") -> list[str]:
    """The HUD's text, top to bottom."""
    sim = game.sim
    state = "PAUSED" if game.paused else f"{game.speed:g}x"
    if game.lagging and not game.paused:
        state += " (behind real time)"
    lines = [f"{sim.level.name}   t = {sim.time:7.2f} s   step {sim.steps}   {state}",
             f"{game.fps:5.1f} fps   physics {game.times.total():.2f} ms/step"]
    if game.times.ms:
        lines.append("  " + "  ".join(f"{n} {ms:.2f}" for n, ms in game.times.ms.items()))
    c = game.counts()
    lines.append(f"bodies {sum(c.values())}: bottles {c.get('bottle', 0)}, shards {c.get('shard', 0)}"
                 f" (limit {sim.level.physics.max_shards}), props {c.get('prop', 0)}")
    vol = sim.total_water()
    lines.append(f"water {vol:.4f} m^3 ({(vol - game.start_volume) * 1e3:+.2f} L since start)"
                 + (f", raining ({game.rain_left})" if game.rain_left else ""))
    item = game.throwables[game.selected]
    power = f"   power {game.charge * 100:3.0f}%" if game.charging else ""
    lines.append(f"throw [{game.selected + 1}] {item.name}{power}")
    if game.debug_view:
        lines.append(f"debug view: {game.debug_view}")
    try:
        from engine.mods import hud_lines as mod_lines
        lines.extend(mod_lines(sim))
    except ImportError:
        pass
    if game.error:
        lines.append(game.error)
    lines.extend(game.current_messages())
    lines.append("F1: controls")
    return lines


class HudOverlay:
    """Draw the HUD over the scene with pyglet (needs a current GL context)."""

    def __init__(self) -> None:
        import pyglet
        self._pyglet = pyglet
        self.batch = pyglet.graphics.Batch()
        self.help_batch = pyglet.graphics.Batch()
        self.text = pyglet.text.Label("", x=10, y=0, anchor_y="top", multiline=True, width=1200,
                                      font_name=("DejaVu Sans Mono", "Menlo", "Consolas", "monospace"),
                                      font_size=11, color=(255, 255, 255, 255), batch=self.batch)
        self.shadow = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(0, 0, 0, 110), batch=self.batch)
        self.shadow.visible = False
        self.bar_back = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(20, 20, 20, 180), batch=self.batch)
        self.bar = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(255, 180, 40, 230), batch=self.batch)
        self.arc: list[Any] = []
        self.help_back = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(0, 0, 0, 190), batch=self.help_batch)
        self.help_text = pyglet.text.Label("\n".join(["Controls", ""] + help_lines()), x=0, y=0,
                                           anchor_x="left", anchor_y="center", multiline=True, width=4000,
                                           font_name=("DejaVu Sans Mono", "Menlo", "Consolas", "monospace"),
                                           font_size=11, color=(255, 255, 255, 255), batch=self.help_batch)

    def draw(self, game: "Game") -> None:
        """Draw the text, the power bar and arc while charging, and the help when asked for."""
        pyglet = self._pyglet
        w, h = game.width, game.height
        self.text.text = "\n".join(hud_lines(game))
        self.text.y = h - 8
        self.text.width = max(w - 20, 100)
        self.shadow.visible = True
        self.shadow.x, self.shadow.y = 4, h - 8 - self.text.content_height - 4
        self.shadow.width, self.shadow.height = min(self.text.content_width + 12, w), self.text.content_height + 8
        charging = game.charging
        self.bar_back.visible = self.bar.visible = charging
        for seg in self.arc:
            seg.delete()
        self.arc = []
        if charging:
            bw, bh = min(300, w // 3), 14
            self.bar_back.x, self.bar_back.y, self.bar_back.width, self.bar_back.height = (w - bw) // 2, 30, bw, bh
            self.bar.x, self.bar.y = (w - bw) // 2 + 2, 32
            self.bar.width, self.bar.height = max((bw - 4) * game.charge, 1), bh - 4
            pts = game.camera.project(game.predicted_arc(), w, h)
            pts = pts[np.isfinite(pts).all(axis=1) & (np.abs(pts[:, 2]) <= 1.0)]
            for a, b in zip(pts[:-1], pts[1:]):
                self.arc.append(pyglet.shapes.Line(a[0], h - a[1], b[0], h - b[1], thickness=2,
                                                   color=(255, 230, 120, 220), batch=self.batch))
        self.batch.draw()
        if game.show_help:
            self.help_back.x, self.help_back.y = w * 0.05, h * 0.05
            self.help_back.width, self.help_back.height = w * 0.9, h * 0.9
            self.help_text.x, self.help_text.y = w * 0.08, h / 2
            self.help_batch.draw()
