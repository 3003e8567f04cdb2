"""The heads-up display: what it says (pure text, testable without GL) and how it is drawn.

The player's HUD (level, goal and score, the throwable and its power, the tool, lasting warnings
and the latest notice) is always shown; the developer overlay (frame rate, milliseconds per system
per step, counts, water volume) toggles with F3; F1 overlays the controls table. The world-space
overlays (aim arc, landing marker, dye, barriers, goal ring) are drawn by game/overlays.py.
"""
from __future__ import annotations

from typing import TYPE_CHECKING


from engine.mods import hud_lines as mod_lines
from game.controls import help_lines

if TYPE_CHECKING:
    from engine.world import Simulation
    from game.controller import Game

_SMOOTH = 0.1   # weight of the newest sample in the running averages


class SystemTimes:
    """Wall-clock milliseconds each system takes per step, as running averages.

    The simulation times its own systems when asked (`sim.timings`, seconds per system since it
    was last emptied); this folds each step's figures into the averages. Timing only reads the
    clock around each call, so the simulation and its results are untouched.
    """

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self._sim: "Simulation | None" = None

    def attach(self, sim: "Simulation") -> None:
        """Time `sim`'s systems from its next step on (cheap: call it before each step)."""
        if sim.timings is None:
            sim.timings = {}
        self._sim = sim

    def end_step(self) -> None:
        """Fold the step just taken into the averages."""
        timings = self._sim.timings if self._sim is not None else None
        if not timings:
            return
        for name, seconds in timings.items():
            ms = seconds * 1e3
            old = self.ms.get(name)
            self.ms[name] = ms if old is None else (1.0 - _SMOOTH) * old + _SMOOTH * ms
        timings.clear()

    def total(self) -> float:
        return sum(self.ms.values())


def mods_off(game: "Game") -> str | None:
    """The lasting line naming the mods that failed and are off, or None."""
    names = game.mods_off()
    if not names:
        return None
    return f"mods off: {', '.join(names)} (details in {game.mod_log})"


def hud_lines(game: "Game") -> list[str]:
    """The player's HUD, top to bottom: level and goal, what is thrown and how hard, the tool,
    lasting warnings (mods off, a stopped simulation), the latest notice, and the keys for more."""
    sim = game.sim
    lines = []
    head = sim.level.name
    if game.paused:
        head += "   PAUSED (P)"
    elif game.speed != 1.0:
        head += f"   {game.speed:g}x"
    lines.append(head)
    goal = game.goal.line()
    if goal:
        lines.append(goal)
    item = game.throwables[game.selected]
    if game.tool == "throw":
        power = f"   power {game.charge * 100:3.0f}%" if game.charging else ""
        picks = f" of {len(game.throwables)}" if len(game.throwables) > 1 else ""
        lines.append(f"throw [{game.selected + 1}{picks}] {item.name}{power}")
    else:
        lines.append({"barrier": "tool: barriers - left drag on the pool floor (B: back to throwing, X: remove all)",
                      "grab": "tool: grab - left drag a body (G: back to throwing)"}[game.tool])
    off = mods_off(game)
    if off:
        lines.append(off)
    lines.extend(mod_lines(sim))
    if game.error:
        lines.append(game.error)
    lines.extend(game.current_messages())
    lines.append("F1: controls   F3: developer" + ("   (muted)" if game.sound.muted else ""))
    return lines


def dev_lines(game: "Game") -> list[str]:
    """The developer overlay (F3): time, steps, frame rate, per-system milliseconds, counts, water."""
    sim = game.sim
    state = "PAUSED" if game.paused else f"{game.speed:g}x"
    if game.lagging and not game.paused:
        state += " (behind real time)"
    lines = [f"t = {sim.time:7.2f} s   step {sim.steps}   {state}",
             f"{game.fps:5.1f} fps   physics {game.times.total():.2f} ms/step"]
    if game.times.ms:
        lines.extend(f"  {n:<16} {ms:6.2f} ms" for n, ms in game.times.ms.items())
    c = game.counts()
    lines.append(f"bodies {sum(c.values())}: bottles {c.get('bottle', 0)}, shards {c.get('shard', 0)}"
                 f" (cap {sim.level.physics.max_shards}), props {c.get('prop', 0)}")
    vol = sim.total_water()
    litres = round((vol - game.start_volume) * 1e3, 2) + 0.0        # + 0.0: no "-0.00"
    lines.append(f"water {vol:.4f} m^3 ({litres:+.2f} L since start)"
                 + (f", raining ({game.rain_left})" if game.rain_left else ""))
    try:
        n_tr = len(sim.get_system("Tracers").xz)  # type: ignore[attr-defined]
    except (KeyError, AttributeError):
        n_tr = 0
    lines.append(f"dye tracers {n_tr}   barrier cells {int(game.barriers.mask.sum())}")
    if game.debug_view:
        lines.append(f"debug view: {game.debug_view}")
    return lines


HELP_FONT = 11          # pt, the F1 help's font, made smaller (down to HELP_FONT_MIN) to fit a short window
HELP_FONT_MIN = 6


class HudOverlay:
    """Draw the HUD over the scene with pyglet (needs a current GL context)."""

    def __init__(self) -> None:
        import pyglet
        self._pyglet = pyglet
        self.batch = pyglet.graphics.Batch()
        self.help_batch = pyglet.graphics.Batch()
        self.text = pyglet.text.Label("", x=10, y=0, anchor_y="top", multiline=True, width=1200,
                                      font_name=["DejaVu Sans Mono", "Menlo", "Consolas", "monospace"],
                                      font_size=11, color=(255, 255, 255, 255), batch=self.batch)
        self.shadow = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(0, 0, 0, 110), batch=self.batch)
        self.shadow.visible = False
        self.bar_back = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(20, 20, 20, 180), batch=self.batch)
        self.bar = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(255, 180, 40, 230), batch=self.batch)
        self.dev_back = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(0, 0, 0, 140), batch=self.batch)
        self.dev = pyglet.text.Label("", x=0, y=0, anchor_y="top", multiline=True, width=520,
                                     font_name=["DejaVu Sans Mono", "Menlo", "Consolas", "monospace"],
                                     font_size=10, color=(200, 255, 200, 255), batch=self.batch)
        from game.overlays import WorldOverlays
        self.world = WorldOverlays()
        self.help_back = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(0, 0, 0, 230), batch=self.help_batch)
        self.help_text = pyglet.text.Label("", x=0, y=0,
                                           anchor_x="left", anchor_y="center", multiline=True, width=4000,
                                           font_name=["DejaVu Sans Mono", "Menlo", "Consolas", "monospace"],
                                           font_size=HELP_FONT, color=(255, 255, 255, 255), batch=self.help_batch)
        self._help_fit: tuple[int, int] | None = None     # the window size the help text was laid out for

    def draw(self, game: "Game") -> None:
        """Draw the world overlays, the HUD text, the developer overlay, the power bar, the help."""
        w, h = game.width, game.height
        self.world.draw(game)
        self.text.text = "\n".join(hud_lines(game))
        self.text.y = h - 8
        self.text.width = max(w - 20, 100)
        self.shadow.visible = True
        self.shadow.x, self.shadow.y = 4, h - 8 - self.text.content_height - 4
        self.shadow.width, self.shadow.height = min(self.text.content_width + 12, w), self.text.content_height + 8
        self.dev.visible = self.dev_back.visible = game.show_dev
        if game.show_dev:
            self.dev.text = "\n".join(dev_lines(game))
            # bottom right, clear of the player's HUD at the top left and the power bar at the bottom
            self.dev.x = max(w - self.dev.content_width - 14, 10)
            self.dev.y = 56 + self.dev.content_height
            self.dev_back.x, self.dev_back.y = self.dev.x - 6, 56 - 4
            self.dev_back.width, self.dev_back.height = self.dev.content_width + 12, self.dev.content_height + 8
        charging = game.charging and game.tool == "throw"
        self.bar_back.visible = self.bar.visible = charging
        if charging:
            bw, bh = min(300, w // 3), 14
            self.bar_back.x, self.bar_back.y, self.bar_back.width, self.bar_back.height = (w - bw) // 2, 30, bw, bh
            self.bar.x, self.bar.y = (w - bw) // 2 + 2, 32
            self.bar.width, self.bar.height = max((bw - 4) * game.charge, 1), bh - 4
        if not game.show_help:      # the help covers the screen: the HUD would show through its edges
            self.batch.draw()
        if game.show_help:
            self.help_back.x, self.help_back.y = w * 0.05, h * 0.05
            self.help_back.width, self.help_back.height = w * 0.9, h * 0.9
            self.fit_help(w, h)
            self.help_text.x, self.help_text.y = w * 0.08, h / 2
            self.help_batch.draw()

    def fit_help(self, w: int, h: int) -> None:
        """Lay the help text out inside its panel (0.84 w by 0.86 h): descriptions wrapped to the
        panel's width, the font made smaller when the lines would not fit its height."""
        if self._help_fit == (w, h):
            return
        self._help_fit = (w, h)
        label = self.help_text
        label.font_size = HELP_FONT
        for _ in range(6):
            label.text = "M" * 100
            char_w = max(label.content_width / 100.0, 1.0)
            label.text = "\n".join(["Controls", ""] + help_lines(int(0.84 * w / char_w)))
            if label.content_height <= 0.86 * h or label.font_size <= HELP_FONT_MIN:
                break
            label.font_size = max(HELP_FONT_MIN, label.font_size * 0.86 * h / label.content_height)
