"""Tell the user when numba compiles kernels (first run only); later runs load them from the cache.

    with announce_compile(shallow_water.advance, shallow_water._substep):
        shallow_water.advance(...)      # first call: compiles, or loads from the on-disk cache

prints "compiling physics kernels ..." to stderr before a cold first call and the time it took
after; nothing when the cache is warm or on later calls.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator

_seen: set[int] = set()


def cache_is_cold(dispatcher: Any) -> bool:
    """Whether a cache=True dispatcher has no usable on-disk entry (missing, stale source, other numba)."""
    if getattr(dispatcher, "signatures", None):
        return False  # already compiled or loaded in this process
    try:
        return not dispatcher._cache._cache_file._load_index()  # numba's own freshness check
    except Exception:
        return False  # private numba API changed: say nothing rather than something wrong


@contextmanager
def announce_compile(*dispatchers: Any, what: str = "physics kernels") -> Iterator[None]:
    """Around the first call of some kernels: announce a cold compile on stderr, once per process."""
    key = hash(tuple(id(d) for d in dispatchers))
    if key in _seen:
        yield
        return
    _seen.add(key)
    cold = any(cache_is_cold(d) for d in dispatchers)
    if cold:
        print(f"compiling {what} (first run only, about 20 seconds; cached afterwards) ...",
              file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    yield
    if cold:
        print(f"compiled {what} in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
