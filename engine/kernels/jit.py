"""Tell the user when numba compiles kernels; kernels loaded from the on-disk cache stay silent.

numba broadcasts a "numba:compile" event only when it really compiles a function (a cache miss),
never when it loads one from the cache. `watch()` registers a listener for it, once per process
(`engine.kernels` calls it on import), so every compile is announced wherever it happens: the first
step of a first run, or a kernel first used later (the first contact, the first shatter):

    compiling physics kernels (first run only, a minute or two; cached afterwards) ...
    compiled physics kernels in 67.4 s

Compiles closer together than QUIET seconds count as one; the closing line comes QUIET seconds
after the last of them (from a timer thread), or at once from `flush()`.
"""
from __future__ import annotations

import atexit
import sys
import threading
import time
from typing import Any

from numba.core import event

QUIET = 1.0   # s without a compile that ends a burst of compiles
START = "compiling physics kernels (first run only, a minute or two; cached afterwards) ..."


class CompileAnnouncer(event.Listener):
    """Prints START when numba starts compiling and, once it has stopped for QUIET seconds, the time
    the whole burst took. Nested compiles (a kernel compiling the kernels it calls) are one compile."""

    def __init__(self, quiet: float = QUIET) -> None:
        self.quiet = quiet
        self.depth = 0
        self.started = 0.0           # perf_counter at the start of the burst, 0 when none is open
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None

    def on_start(self, ev: Any) -> None:
        with self.lock:
            if self.timer is not None:       # a compile soon after the last one: the same burst
                self.timer.cancel()
                self.timer = None
            if self.depth == 0 and self.started == 0.0:
                self.started = time.perf_counter()
                print(START, file=sys.stderr, flush=True)
            self.depth += 1

    def on_end(self, ev: Any) -> None:
        with self.lock:
            self.depth = max(self.depth - 1, 0)
            if self.depth == 0 and self.started:
                self.timer = threading.Timer(self.quiet, self.flush)
                self.timer.daemon = True
                self.timer.start()

    def flush(self) -> None:
        """Print the closing line of an open burst now (nothing if none is open or one is compiling)."""
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if self.depth == 0 and self.started:
                took = time.perf_counter() - self.started
                self.started = 0.0
                print(f"compiled physics kernels in {took:.1f} s", file=sys.stderr, flush=True)


_announcer: CompileAnnouncer | None = None


def watch() -> CompileAnnouncer:
    """Announce numba compiles from now on (idempotent); return the listener."""
    global _announcer
    if _announcer is None:
        _announcer = CompileAnnouncer()
        event.register("numba:compile", _announcer)
        atexit.register(_announcer.flush)   # a short run may end before the timer fires
    return _announcer
