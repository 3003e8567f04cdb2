"""The surface-wave stage's passes on numba's threads: each of engine/water/dispersion.py's kernels
with its blocks of ROWS rows under prange. Every cell is computed by the same row function with the
same operands as there, and every reduction is combined by the same function from the blocks'
partials in block order, so each kernel gives the same bits as its plain twin for any number of
threads (tested). The stage takes these on grids that `schedule.parallel` puts on threads.
`limiter`, `take_out` and `carry` are plain Python around their threaded pass: a cached numba
function that calls a parallel one can crash when a second cached version of it loads before
numba's threading layer has started (tests/engine/kernels/test_cache.py).
`level_blend` (one light pass, only where the bed varies) stays plain: engine/warmup.py's large
pool is flat, so a threaded twin would compile in the middle of play."""
from __future__ import annotations

from numba import njit, prange

from engine.water import dispersion as dk


@njit(cache=True, parallel=True)
def _limiter_pass(water, full, lim, stats):
    for b in prange(stats.shape[0]):
        dk.limiter_rows(water, full, lim, stats, b)


def limiter(water, full, lim, table, stats):
    """`dispersion.limiter` on threads."""
    _limiter_pass(water, full, lim, stats)
    changed = False
    if stats[:, 4].any():
        changed = bool(stats[:, 3].any())
        dk.distance_ramp(lim.dry, table, lim.shore)
        _limiter_pass(water, full, lim, stats)
    return dk._limiter_result(stats, changed)


@njit(cache=True, parallel=True)
def load(water, lam, ref, bed_smooth, inflow, dx, spec, stats):
    """`dispersion.load` on threads."""
    for b in prange(stats.shape[0]):
        dk.load_rows(water, lam, ref, bed_smooth, inflow, dx, spec, stats, b)
    return dk._load_result(stats)


@njit(cache=True, parallel=True)
def split_spectra(spec, k2, keep, out):
    """`dispersion.split_spectra` on threads."""
    for b in prange(dk.blocks(k2.shape[0])):
        dk.split_spectra_rows(spec, k2, keep, out, b)


@njit(cache=True, parallel=True)
def step_spectra(src, per_level, coef, decay, out):
    """`dispersion.step_spectra` on threads."""
    for b in prange(dk.blocks(decay.shape[0])):
        dk.step_spectra_rows(src, per_level, coef, decay, out, b)


@njit(cache=True, parallel=True)
def blend(fields, levels, out):
    """`dispersion.blend` on threads."""
    for b in prange(dk.blocks(out.eta.shape[0])):
        dk.blend_rows(fields, levels, out, b)


@njit(cache=True, parallel=True)
def _take_out_pass(fields, levels, h, lam, basins, dx, part, stats):
    for b in prange(stats.shape[0]):
        dk.take_out_rows(fields, levels, h, lam, basins, dx, part, stats, b)


def take_out(fields, levels, h, lam, basins, dx, part, stats):
    """`dispersion.take_out` on threads."""
    _take_out_pass(fields, levels, h, lam, basins, dx, part, stats)
    return dk._take_out_result(basins, stats)


@njit(cache=True, parallel=True)
def _carry_pass(pending, water, lim, basins, damp, dx, dt, part):
    for b in prange(basins.part.shape[0]):
        dk.carry_rows(pending, water, lim, basins, damp, dx, dt, part, b)


def carry(pending, water, lim, basins, damp, dx, dt, part):
    """`dispersion.carry` on threads."""
    _carry_pass(pending, water, lim, basins, damp, dx, dt, part)
    dk._means(basins)


@njit(cache=True, parallel=True)
def settle(water, part, lam, basins, sign, dx, spec):
    """`dispersion.settle` on threads."""
    for b in prange(basins.part.shape[0]):
        dk.settle_rows(water, part, lam, basins, sign, dx, spec, b)
