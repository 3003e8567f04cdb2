"""SurfaceWaves: the dispersive surface-wave stage of one grid (equations: engine/water/dispersion.py).

Its two halves go around the shallow-water step (engine/water/stages.py runs them):

    split   before the step: take the surface part out of h, u, w (h -= eta_s, interior faces
            -= grad phi_s) and step it with Airy's dispersion (equation (2)) over dt
    <the shallow-water step advances the bulk that is left>
    merge   after it: carry the stepped part by the bulk velocity over dt, limit it by the new
            bulk depth, add it back (h += eta_s', faces += grad phi_s')

What other systems write into the grid between steps goes to the bulk and is split again at the
next step. The stage keeps between the halves only the stepped part (`Pending`); its other state
(the shore and hull ramps, the basins, the transforms' coefficients) is a cache of the grid's
shape, sides, bed and dry cells, redone when they change.
"""
from __future__ import annotations

import math
from types import ModuleType
import numpy as np
import scipy.fft as sfft
from numpy.typing import NDArray
from scipy import ndimage

from engine.water import dispersion as dk
from engine.water import dispersion_threads, schedule

SMOOTH = 5       # cells: width of the bed average that sets each cell's depth level weights
SHORE = 3.0      # cells: the surface part ramps in over this distance from the nearest dry cell
QUIET_V = 1e-7   # m/s: with eta_s under dk.QUIET, a surface velocity under this is no surface part
REACH = int(SHORE) + 1   # cells: the ramp is 1 from SHORE + 1 cells on, so it is stamped this far around a shore cell


def dct(a: NDArray[np.float32]) -> NDArray[np.float32]:
    """Orthonormal DCT-II over the last two axes (cell-centred, reflective walls), float32: a surface
    part of millimetres needs no more than 1e-7 of it, and float32 takes half the time of float64.
    On one worker thread (docs/dispersion.md, sessions 15 and 16: why)."""
    return sfft.dctn(a, type=2, norm="ortho", axes=(-2, -1), overwrite_x=True)


def idct(a: NDArray[np.float32]) -> NDArray[np.float32]:
    """Inverse of `dct` (a new array: the input is kept)."""
    return sfft.idctn(a, type=2, norm="ortho", axes=(-2, -1))


class Pending:
    """The stepped surface part of one grid between the two halves of a step (float64 cells)."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.part = dk.Surface(np.zeros(shape), np.zeros(shape))


def ramp_table(reach: int = REACH) -> NDArray[np.float64]:
    """clip((d - 1) / SHORE, 0, 1) at the offsets (dk, di) of |dk|, |di| <= reach, d = sqrt(dk^2 + di^2):
    the ramp from a dry cell (or a hull), 1 from SHORE + 1 cells on (so reach = SHORE + 1 covers it)."""
    d = np.hypot(*np.meshgrid(np.arange(-reach, reach + 1), np.arange(-reach, reach + 1)))
    return np.clip((d - 1.0) / SHORE, 0.0, 1.0)


class SurfaceWaves:
    """The dispersive surface-wave stage of one grid shape and set of sides: wavenumbers, cached
    Airy coefficients, the sponge, the limiter's ramps and basins, and the transforms' buffers."""

    def __init__(self, shape: tuple[int, int], dx: float, gravity: float, open_sides: tuple[bool, ...],
                 damping: float = 0.0, eddy_viscosity: float = 0.0,
                 inflow_sides: tuple[bool, ...] = (False, False, False, False)) -> None:
        nz, nx = shape
        self.shape, self.dx, self.g, self.damping = tuple(shape), float(dx), float(gravity), float(damping)
        self.eddy_viscosity = float(eddy_viscosity)   # m^2/s, the bulk's horizontal eddy viscosity
        self.open_sides = tuple(bool(s) for s in open_sides)
        self.inflow_sides = tuple(bool(s) for s in inflow_sides)
        self.k, self.k2 = dk.wavenumbers(nz, nx, self.dx)
        self.full = dk.FULL_H
        self._k2_min = float(self.k2[self.k2 > 0.0].min()) if (self.k2 > 0.0).any() else math.inf
        self.levels: tuple[float, ...] = ()           # the depth levels of the last split
        self._inflow = np.array(self.inflow_sides, dtype=np.bool_)
        self._lim = dk.Limit(np.zeros(shape), np.ones(shape), np.ones(shape),
                             np.full(shape, 2, np.uint8), np.full(shape, 2, np.uint8))
        self._basins = _basins(np.zeros(shape, np.int32), 1)
        self._stats = np.zeros((dk.blocks(nz), 5))     # the passes' partial results, a row per block
        self._blend = dk.Levels(np.zeros(shape, np.int32), np.zeros(shape))
        self._spec = np.zeros((2, nz, nx), np.float32)
        self._part = dk.Surface(np.zeros(shape), np.zeros(shape))
        self._carried = dk.Surface(np.zeros(shape), np.zeros(shape))
        self._pending = Pending(shape)
        self.threaded = False                         # whether this step's passes run on threads
        self._bed: NDArray | None = None
        self._bed_smooth = np.zeros(shape)
        self._hull_source = np.zeros(shape, np.bool_)   # the covered mask the hull ramp was stamped from
        self._hull_now = np.zeros(shape, np.bool_)
        self._hulls = False                           # whether the hull ramp is not all 1
        self._table = ramp_table()
        self._stack = np.zeros(nz * nx, np.int64)
        self._keep: dict[tuple[float, ...], NDArray] = {}
        self._coef: dict[tuple[tuple[float, ...], float], NDArray] = {}
        self._decay: dict[float, NDArray] = {}
        self._sponge: dict[float, NDArray] = {}

    # -- the two halves ----------------------------------------------------------------------
    def split(self, water: dk.Water, dt: float, covered: NDArray | None = None,
              threaded: bool = False) -> Pending | None:
        """Take the surface part out of water (h, u, w, in place) and step it over dt; return the
        stepped part for `merge`, or None when there is none (calm, or no wet cell: then water is
        untouched). `covered` (m, cells): the height of floating bodies counted in h (CoupleWater);
        the surface part ramps out towards those columns (see `_hull`). threaded: this step's passes
        (split and merge) run on numba's threads (`dispersion_threads`, the same bits) where the grid
        is large enough for `schedule.parallel`."""
        self.threaded = threaded and schedule.parallel(self.shape[0] * self.shape[1])
        run = self._passes()
        n_wet, ref, lam_min = self._limiter(water, covered)
        if n_wet == 0:
            return None
        lam = self._lim.lam
        bed_smooth = self._smooth_bed(water.bed)
        spec = self._spec
        lo, hi, e2, d2 = run.load(water, lam, ref, bed_smooth, self._inflow, self.dx, spec, self._stats)
        if self._calm(e2, d2):
            return None
        # the still-water depth sets both the split and the dispersion of each cell: blend the levels' results
        levels = self.levels = dk.depth_levels(lo, hi)
        if len(levels) > 1:
            dk.level_blend(ref, bed_smooth, np.array(levels), self._blend)
        key = levels
        parts = np.empty((2 * len(levels),) + self.shape, np.float32)
        run.split_spectra(dct(spec), self.k2, self._keep_of(key), parts)
        part = self._part
        # limit, then step exactly what is taken out (stepping more would count the rest twice)
        within, e_max, v_max = run.take_out(idct(parts), self._blend, water.h, lam, self._basins, self.dx,
                                            part, self._stats)
        if e_max < dk.QUIET and v_max < QUIET_V:
            return None
        run.settle(water, part, lam, self._basins, -1.0, self.dx, spec)   # the bulk, which the shallow-water step advances
        unlimited = within and len(levels) == 1 and lam_min >= 1.0
        # unlimited: the limiter only removed the sum's round-off, the spectra are eta_s's; else
        # transform the limited part (settle left it in spec)
        src = parts if unlimited else dct(spec)
        stepped = np.empty_like(parts)
        run.step_spectra(src, unlimited, self._coef_of(key, dt), self._decay_of(dt), stepped)
        run.blend(idct(stepped), self._blend, self._pending.part)
        return self._pending

    def merge(self, pending: Pending, water: dk.Water, dt: float, covered: NDArray | None = None) -> None:
        """Carry the stepped surface part by the bulk velocity (u, w) over dt, limit it by the bulk
        depth h and add it back to water (in place)."""
        run = self._passes()
        self._limiter(water, covered, hull=False)
        run.carry(pending.part, water, self._lim, self._basins, self._sponge_of(dt), self.dx, float(dt),
                  self._carried)
        run.settle(water, self._carried, self._lim.lam, self._basins, 1.0, self.dx, self._spec)

    def _passes(self) -> ModuleType:
        """The kernels' module of this step: threaded or plain (the same bits)."""
        return dispersion_threads if self.threaded else dk

    def _calm(self, e2: float, d2: float) -> bool:
        """Whether the surface part is surely below QUIET and QUIET_V, from the sums of squares of eta'
        and of div v alone (then the transforms are skipped; the full split would drop it too).
        The DCT is orthonormal and every filter and blend weight is at most 1, so every blended
        |eta_s| <= ||eta'||_2 and |phi_s| <= ||div v||_2 / K2_min; limiting (clip, times lam <= 1,
        minus lam times a basin mean no larger than the largest |eta|) at most doubles |eta_s|, and
        |grad phi_s| <= 2 max |phi_s| / dx. A factor 2 more covers float32 round-off."""
        return (4.0 * math.sqrt(e2) < dk.QUIET
                and 4.0 * math.sqrt(d2) / (self._k2_min * self.dx) < QUIET_V)

    # -- the limiter ---------------------------------------------------------------------------
    def _limiter(self, water: dk.Water, covered: NDArray | None, hull: bool = True) -> tuple[int, float, float]:
        """lam (self._lim.lam): the depth limiter times a ramp from 0 at a dry cell to 1 at SHORE cells
        from it (the DCT's walls are the pool's sides only, so the surface part fades out at shores
        and at obstacles standing out of the water, which then absorb short waves instead of
        reflecting them, and what reaches them goes on in the bulk) and the hulls' ramp (`_hull`).
        Relabels the basins when the set of wet cells changed. Returns (wet cells, mean wet
        surface, smallest wet lam). hull=False keeps the hulls' ramp of the last call (merge: the
        covered height does not change within a step)."""
        lim = self._lim
        if hull:
            self._hull(covered)
        run = self._passes()
        n, ref, lam_min, changed = run.limiter(water, self.full, lim, self._table, self._stats)
        if changed:
            n_basins = dk.label(lim.wet, self._basins.labels, self._stack)
            self._basins = _basins(self._basins.labels, n_basins)
        return n, ref, lam_min

    def _hull(self, covered: NDArray | None) -> None:
        """The hulls' ramp (self._lim.hull): 0 in a column a floating body covers (covered > 0), 1 at
        SHORE cells from it: a hull is a shore to the surface part. Such a column's h holds the
        body's displaced volume (h += b - b_prev, CoupleWater), a level the hull sets, not a free
        surface: stepped as free Airy waves, the sharp edge of b (redrawn every step as the body
        moves) turns into short waves that run back onto the hull and pump its roll and heave. The
        body's own waves start in the bulk, as the coupling's radiation damping
        (engine/kernels/water_forces.py) assumes, and join the surface part SHORE cells out."""
        if covered is not None:
            np.greater(covered, 0.0, out=self._hull_now)
            if self._hull_now.any():
                # the ramp is a function of the covered mask alone: restamped only when it changed
                if not (self._hulls and np.array_equal(self._hull_now, self._hull_source)):
                    self._hull_source[...] = self._hull_now
                    dk.distance_ramp(self._hull_source.view(np.uint8), self._table, self._lim.hull)
                    self._hulls = True
                return
        if self._hulls:
            self._lim.hull[...] = 1.0
            self._hulls = False

    # -- cached pieces -----------------------------------------------------------------------
    def _smooth_bed(self, bed: NDArray) -> NDArray:
        """The bed averaged over SMOOTH x SMOOTH cells (kept while the bed is unchanged): the depth levels'
        weights then change over a few cells, not at once across a step in the bed, where the
        velocity between two cells stepped at different depths would mix two different fields."""
        if self._bed is None or not np.array_equal(self._bed, bed):
            self._bed = np.array(bed)
            ndimage.uniform_filter(self._bed, size=SMOOTH, mode="nearest", output=self._bed_smooth)
        return self._bed_smooth

    def _keep_of(self, levels: tuple[float, ...]) -> NDArray:
        """(levels, nz, nx) float32: each level's surface share 1 - L(k H) of each mode."""
        got = self._keep.get(levels)
        if got is None:
            _evict(self._keep)
            got = self._keep[levels] = np.stack([1.0 - dk.split_filter(self.k, d) for d in levels]).astype(np.float32)
        return got

    def _coef_of(self, levels: tuple[float, ...], dt: float) -> NDArray:
        """(levels, 3, nz, nx) float32: each level's cos(omega t), (omega / g) sin, (g / omega) sin of (2)."""
        key = (levels, float(dt))
        got = self._coef.get(key)
        if got is None:
            _evict(self._coef)
            got = self._coef[key] = np.stack([np.stack(dk.airy_coefficients(self.k, d, self.g, float(dt)))
                                              for d in levels]).astype(np.float32)
        return got

    def _decay_of(self, dt: float) -> NDArray:
        """exp(-(nu_t K2 + damping) dt) per mode, float32: the bulk's eddy viscosity nu_t lap(v) acting
        on the surface part's potential (a mode then decays at the same rate nu_t K2 / 2 in amplitude
        whichever part holds it) and the level's extra uniform damping."""
        got = self._decay.get(float(dt))
        if got is None:
            got = self._decay[float(dt)] = np.exp(-(self.eddy_viscosity * self.k2 + self.damping) * float(dt)
                                                  ).astype(np.float32)
        return got

    def _sponge_of(self, dt: float) -> NDArray:
        got = self._sponge.get(float(dt))
        if got is None:
            nz, nx = self.shape
            s = dk.sponge(nz, nx, self.dx, self.open_sides, float(dt))  # type: ignore[arg-type]
            got = self._sponge[float(dt)] = np.ones(self.shape) if s is None else s
        return got


def _basins(labels: NDArray[np.int32], n: int) -> dk.Basins:
    """Basins over `labels` (1..n) with their scratch sums, and each block's partials."""
    sums, weights, caps, lo, hi = (np.zeros(n + 1) for _ in range(5))
    return dk.Basins(labels, sums, weights, caps, lo, hi, np.zeros((dk.blocks(labels.shape[0]), 5, n + 1)))


def _evict(cache: dict, keep: int = 8) -> None:
    """Drop the oldest entries of a cache so that a new one leaves at most `keep`."""
    while len(cache) >= keep:
        del cache[next(iter(cache))]
