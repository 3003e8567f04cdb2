"""Pacer: run a kernel on one thread or on numba's threads, whichever is faster here and now.

Some kernels come in two traversals that give the same bits (a plain loop and a prange over
independent rows). Which is faster depends on the work (waking a worker costs tens of
microseconds) and on the machine: where every core is busy, a parallel sweep waits for a
descheduled worker and runs slower than one thread. So a Pacer times both now and then and keeps
the faster; since both give the same bits, the choice never changes the simulation.

    pacer = Pacer(min_work=48)
    threaded = pacer.threaded(work)            # work: the caller's measure (bodies, cells ...)
    t0 = perf_counter(); run(threaded); pacer.record(threaded, perf_counter() - t0)

Under `min_work`, or with one thread, it always answers one thread and never times anything.
"""
from __future__ import annotations

import numba

PROBE_EVERY = 64      # calls between timings of the traversal not in use
PROBE_CALLS = 3       # calls per timing (the median of 3 shrugs off one descheduled call)
KEEP = 5              # recent timings kept per traversal (the median decides)
SPARSE_RATIO = 2.0    # the other one more than this many times slower ...
PROBE_SPARSE = 64     # ... is timed again, one call, this many times less often (4096 calls: 34 s at 120 Hz)


def median(times: list[float]) -> float:
    return sorted(times)[len(times) // 2]


def choose(pace: dict[bool, list[float]], calls: int, probe_calls: int) -> bool:
    """The policy every Pacer (and the water's `schedule.Scheduler`) follows: whether call number
    `calls` runs on threads, given `pace` (threaded? -> recent seconds a call). Each traversal is
    timed for `probe_calls` calls, then the faster (median of its recent calls) runs, and the other
    is timed again for `probe_calls` calls every PROBE_EVERY calls; one more than SPARSE_RATIO times
    slower for one call every PROBE_EVERY * PROBE_SPARSE (re-timing a far slower traversal costs
    the most and tells the least)."""
    for candidate in (True, False):
        if len(pace[candidate]) < probe_calls:
            return candidate
    threaded, one = median(pace[True]), median(pace[False])
    faster = threaded < one
    sparse = max(threaded, one) > SPARSE_RATIO * min(threaded, one)
    every = PROBE_EVERY * (PROBE_SPARSE if sparse else 1)
    return (not faster) if calls % every < (1 if sparse else probe_calls) else faster


class Pacer:
    """The choice of traversal for one kernel call site (one thread or numba's threads)."""

    def __init__(self, min_work: int) -> None:
        self.min_work = int(min_work)
        self.calls = 0
        self.pace: dict[bool, list[float]] = {False: [], True: []}   # threaded? -> recent s per call
        self.runs = {False: 0, True: 0}       # calls each traversal ran (its first is not timed: it loads)
        self._timed = False                   # does the last answer's call count as a timing

    def threaded(self, work: int) -> bool:
        """Whether this call runs on threads (`choose`, timing each traversal PROBE_CALLS calls)."""
        self._timed = False
        if work < self.min_work or numba.get_num_threads() < 2:
            return False
        self.calls += 1
        self._timed = True
        return self._ran(choose(self.pace, self.calls, PROBE_CALLS))

    def _ran(self, threaded: bool) -> bool:
        self.runs[threaded] += 1
        return threaded

    def record(self, threaded: bool, seconds: float) -> None:
        """Note how long the call just answered took (calls under min_work, and each traversal's
        first call, which loads its code and starts the threads, are not timings)."""
        if not self._timed or self.runs[threaded] < 2:
            return
        self._timed = False
        recent = self.pace[threaded]
        recent.append(seconds)
        del recent[:-KEEP]
