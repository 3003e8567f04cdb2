"""The "preparing physics..." screen: warm every kernel behind a drawn progress screen.

The window opens and draws at once; the kernel groups of engine.warmup run on a worker thread
(numba compiles or loads from its cache there), and then the same thread builds the game (the
simulation, its mods), while the window keeps drawing the group being prepared, a progress bar and
the seconds so far; the main thread meanwhile builds what needs GL (the HUD) and the sound player.
esper keeps its state in module globals, so only one thread at a time touches simulations: the
worker until it finishes, the main thread after. A group that fails is reported and skipped: its
kernels then compile at first use, which is slower but loses nothing.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from engine import warmup


class Preparation:
    """Run engine.warmup's groups on a thread; expose the progress for drawing.

    `run_inline()` does the same work on the calling thread (tests, and hosts without threads).
    """

    def __init__(self, groups: tuple[warmup.Group, ...] = warmup.GROUPS,
                 clock: Callable[[], float] = time.perf_counter, then: Callable[[], Any] | None = None) -> None:
        self.groups = groups
        self.then = then                 # run on the same thread after the groups (building the game)
        self.result: Any = None
        self.failure: BaseException | None = None
        self.clock = clock
        self.started = clock()
        self.done = 0
        self.current = groups[0].name if groups else ""
        self.finished = not groups and then is None
        self.errors: list[str] = []
        self.times: dict[str, float] = {}
        self._thread: threading.Thread | None = None

    @property
    def total(self) -> int:
        return len(self.groups)

    @property
    def fraction(self) -> float:
        return 1.0 if not self.groups else self.done / len(self.groups)

    def _work(self) -> None:
        for g in self.groups:
            self.current = g.name
            t0 = self.clock()
            try:
                g.run()
            except Exception as exc:   # noqa: BLE001 - the game still starts; the kernels compile at first use
                self.errors.append(f"preparing {g.name} failed: {type(exc).__name__}: {exc}")
            self.times[g.name] = self.clock() - t0
            self.done += 1
        if self.then is not None:
            self.current = "opening the level"
            try:
                self.result = self.then()
            except BaseException as exc:   # noqa: BLE001 - handed to the main thread, which reports it
                self.failure = exc
        self.finished = True

    def start(self) -> None:
        """Start the worker thread (once)."""
        if self._thread is None and not self.finished and (self.groups or self.then is not None):
            # import the kernels (and start numba's threading layer) here, on the main thread
            import engine.world  # noqa: F401
            self._thread = threading.Thread(target=self._work, name="prepare-physics", daemon=True)
            self._thread.start()

    def run_inline(self) -> None:
        self._work()

    def lines(self) -> list[str]:
        """The screen's text: title, the group being prepared, the count and the time so far."""
        secs = self.clock() - self.started
        if self.finished:
            state = "ready"
        elif self.done >= self.total:
            state = self.current
        else:
            state = f"{self.current} ({self.done + 1}/{self.total})"
        return ["preparing physics...",
                f"{state}   {secs:4.1f} s",
                "(the first start after an install compiles the kernels; later starts load them from the cache)"]


class LoadingScreen:
    """Draw a Preparation with pyglet: text and a progress bar on a dark background."""

    def __init__(self) -> None:
        import pyglet
        self.batch = pyglet.graphics.Batch()
        font = ["DejaVu Sans", "Helvetica", "Arial", "sans-serif"]
        self.title = pyglet.text.Label("", font_name=font, font_size=22, anchor_x="center", anchor_y="center",
                                       color=(240, 240, 240, 255), batch=self.batch)
        self.state = pyglet.text.Label("", font_name=font, font_size=13, anchor_x="center", anchor_y="center",
                                       color=(200, 220, 240, 255), batch=self.batch)
        self.note = pyglet.text.Label("", font_name=font, font_size=10, anchor_x="center", anchor_y="center",
                                      color=(150, 160, 170, 255), batch=self.batch)
        self.back = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(40, 50, 60, 255), batch=self.batch)
        self.bar = pyglet.shapes.Rectangle(0, 0, 10, 10, color=(90, 170, 230, 255), batch=self.batch)

    def draw(self, prep: Preparation, width: int, height: int) -> None:
        from engine.render.context import gl
        g = gl()
        g.glBindFramebuffer(g.GL_FRAMEBUFFER, 0)
        g.glViewport(0, 0, width, height)
        g.glDisable(g.GL_DEPTH_TEST)
        g.glClearColor(0.06, 0.09, 0.13, 1.0)
        g.glClear(g.GL_COLOR_BUFFER_BIT)
        title, state, note = prep.lines()
        cx, cy = width / 2, height / 2
        self.title.text, self.state.text, self.note.text = title, state, note
        self.title.position = (cx, cy + 50, 0)
        self.state.position = (cx, cy - 40, 0)
        self.note.position = (cx, cy - 70, 0)
        bw = min(480, width * 0.7)
        self.back.x, self.back.y, self.back.width, self.back.height = cx - bw / 2, cy - 10, bw, 16
        # a group in progress counts as a quarter done, so the bar moves from the first frame
        frac = prep.fraction if prep.finished else (prep.done + 0.25) / max(prep.total, 1)
        self.bar.x, self.bar.y, self.bar.width, self.bar.height = cx - bw / 2 + 2, cy - 8, max((bw - 4) * frac, 1), 12
        self.batch.draw()
