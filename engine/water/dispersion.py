"""Dispersive surface waves over a shallow-water grid (Jeschke & Wojtan 2023): the numerics.

The shallow-water equations send every wave at sqrt(g H). Real water waves obey Airy's dispersion

    omega^2 = g k tanh(k H)                                                     (1)

so short ripples travel far slower than sqrt(g H), long ones first. Following Jeschke & Wojtan,
"Generalizing shallow water simulations with dispersive surface waves" (SIGGRAPH 2023), each step
splits the water into

    bulk flow      eta_b = eta - eta_s,  v_b = v - grad(phi_s)   stepped by the shallow-water solver
    surface waves  eta_s = (1 - L) eta', phi_s = (1 - L) phi      stepped here with (1), exactly

where eta = bed + h is the surface elevation (the split is on eta, not h, so a lake at rest over any
bed has no surface part), eta' = eta - mean over wet cells, phi the velocity potential of the
irrotational part of v (div grad phi = div v), H the still-water depth (mean wet surface - bed) of
the cell, and L(k H) a low-pass that keeps waves with
k H < SPLIT_LO in the bulk (where shallow water is already right: at k H = 0.25 its phase speed is off
by 1%) and sends those with k H > SPLIT_HI to the surface. The rotational part of v (eddies) always
stays in the bulk.

Reflective walls are exact: on the staggered grid the DCT-II diagonalises the cell-centred Neumann
Laplacian, so for the mode (mx, mz) (cos(pi mx (i + 1/2) / nx) cos(pi mz (k + 1/2) / nz))

    div grad = -K2,  K2 = (2 sin(pi mx / 2 nx) / dx)^2 + (2 sin(pi mz / 2 nz) / dx)^2

and the linear surface-wave system eta_t = -H_eff div grad phi, phi_t = -g eta has the exact solution
over a step t (E, P: the mode's amplitudes of eta_s and phi_s; k = pi |(mx / Lx, mz / Lz)|)

    E' = E cos(omega t) + (omega / g) P sin(omega t)
    P' = P cos(omega t) - (g / omega) E sin(omega t)                            (2)

with omega from (1) (H_eff = omega^2 / (g K2)). Where the bed varies, the split and (2) are taken at a few
depths and each cell blends the results of the two depths around its own still-water depth
(piecewise-linear in H): near a shore, where k H is small, waves stay in the (nonlinear) bulk.
The surface part is then carried by the bulk velocity (semi-Lagrangian) and added back.

Invariants the stage keeps (tests/physics/test_dispersion.py):
- the surface part has zero sum over each basin (its mode 0 is zero, and after limiting each
  basin's sum is removed again, weighted by the limiter, or by each cell's room under its cap where
  that would break the cap: see `_clip`), so the pool's volume is unchanged to round-off;
- eta_s is limited to +-HALF of the depth, times a ramp from 0 at DRY_H to 1 at FULL_H (and
  the stage's ramps from dry cells and hulls, engine/water/surface.py), so neither the bulk nor the
  recombined depth goes negative (no depth is clipped after the stage, which would create water)
  and dry cells carry no surface part;
- below QUIET (m) of surface elevation the stage does nothing: a lake at rest stays exactly still;
- every operation is a fixed sequence of numpy/scipy calls and numba passes over fixed blocks of
  ROWS rows, each block's partial sums combined in block order, whether the blocks run one after
  another or on threads (engine/water/dispersion_threads.py): bit for bit deterministic, on any
  number of threads.

Open (absorbing, outflow) sides: the DCT reflects; a sponge of width SPONGE_CELLS (at least
SPONGE_MIN m) damps the surface part at rate up to SPONGE_RATE 1/s near such a side, so short waves
leave the pool there as long ones leave through the shallow-water solver's open sides.

The stage (engine/water/surface.py) runs, each step: `limiter` (lam), `load` (eta' and div v), one
forward DCT of both, `split_spectra` (each level's surface spectra), one inverse DCT, `take_out`
and `settle` (blend, limit, take eta_s, phi_s out of h, u, w); the forward DCT of the limited part
if the limiter acted, `step_spectra` ((2) at each level), one inverse DCT, `blend` (the stepped
part); after the shallow-water step the limiter again, `carry` (transport and sponge, limit) and
`settle` (add it back). Every transform takes all the levels' fields at once (scipy.fft over the
last two axes, float32).
"""
from __future__ import annotations

import math
from collections import namedtuple
from functools import lru_cache

import numpy as np
from numba import njit
from numpy.typing import NDArray

SPLIT_LO = 0.25        # k H below this: bulk only (shallow water's phase speed within 1% of (1))
SPLIT_HI = 0.75        # k H above this: surface only
DRY_H = 0.002          # m: no surface part at or below this depth
FULL_H = 0.005         # m: the full surface part from this depth on (MIN_LEVEL, the shallowest depth
                       # (2) is taken at). Only films thinner than this are kept to the bulk by depth;
                       # deeper, the split filter L(k H) at the cell's own depth decides which waves
                       # are shallow-water waves
HALF = 0.5             # |eta_s| <= HALF * depth
QUIET = 1e-9           # m: a surface part smaller than this everywhere is dropped (lake at rest)
MIN_LEVEL = 0.005      # m: the shallowest depth at which (2) is taken
MAX_LEVELS = 3         # depths at which (2) is taken (each costs two inverse transforms of the grid each way)
LEVEL_RATIO = 1.3      # neighbouring depths differ by at most this factor (unless MAX_LEVELS caps it)
HI_SNAP = 1.02         # the deepest level is a power of this times MIN_LEVEL, at most 2% deeper than the deepest cell
SPONGE_CELLS = 10
SPONGE_MIN = 0.15      # m
SPONGE_RATE = 20.0     # 1/s at the open side itself


def wavenumbers(nz: int, nx: int, dx: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The continuous |k| and the discrete Laplacian's -eigenvalue K2 of each DCT-II mode (mz, mx), 1/m."""
    mx = np.arange(nx)
    mz = np.arange(nz)
    kc = np.hypot((np.pi * mz / (nz * dx))[:, None], (np.pi * mx / (nx * dx))[None, :])
    kdx = (2.0 * np.sin(np.pi * mx / (2 * nx)) / dx) ** 2
    kdz = (2.0 * np.sin(np.pi * mz / (2 * nz)) / dx) ** 2
    return kc, kdz[:, None] + kdx[None, :]


def split_filter(k: NDArray[np.float64], depth: float) -> NDArray[np.float64]:
    """The bulk's share L(k H) of each mode: 1 below SPLIT_LO, 0 above SPLIT_HI, a cosine ramp between."""
    s = np.clip((k * depth - SPLIT_LO) / (SPLIT_HI - SPLIT_LO), 0.0, 1.0)
    return 0.5 * (1.0 + np.cos(np.pi * s))


def airy_omega(k: NDArray[np.float64], depth: float, g: float) -> NDArray[np.float64]:
    """Airy's angular frequency omega = sqrt(g k tanh(k H)), rad/s (equation (1))."""
    return np.sqrt(g * k * np.tanh(k * depth))


def airy_coefficients(k: NDArray[np.float64], depth: float, g: float, t: float
                      ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """cos(omega t), (omega / g) sin(omega t), (g / omega) sin(omega t) of (2); the last is g t at k = 0."""
    om = airy_omega(k, depth, g)
    c = np.cos(om * t)
    s = np.sin(om * t)
    with np.errstate(divide="ignore", invalid="ignore"):
        back = np.where(om > 0.0, g * s / om, g * t)
    return c, om * s / g, back


def depth_levels(lo: float, hi: float) -> tuple[float, ...]:
    """Depths at which (2) is taken, spanning the wet cells' still-water depths lo..hi: one level (their
    mean) where they differ by at most 1%; else geometric from lo rounded down to a power of
    LEVEL_RATIO times MIN_LEVEL to hi rounded up to a power of HI_SNAP times MIN_LEVEL, at most
    MAX_LEVELS, each rounded to three significant digits. The rounding keeps the levels (and so the
    stage's cached coefficients) the same while the shoreline and the mean surface wobble."""
    lo, hi = max(lo, MIN_LEVEL), max(hi, MIN_LEVEL)
    if hi <= lo * 1.01:
        return (_round3(0.5 * (lo + hi)),)
    return _ladder(math.floor(math.log(lo / MIN_LEVEL) / math.log(LEVEL_RATIO) + 1e-9),
                   math.ceil(math.log(hi / MIN_LEVEL) / math.log(HI_SNAP) - 1e-9))


@lru_cache(maxsize=64)
def _ladder(a: int, b: int) -> tuple[float, ...]:
    """The levels from MIN_LEVEL LEVEL_RATIO^a to MIN_LEVEL HI_SNAP^b (see depth_levels)."""
    lo, hi = MIN_LEVEL * LEVEL_RATIO ** a, MIN_LEVEL * HI_SNAP ** b
    if hi <= lo * 1.01:
        return (_round3(hi),)
    n = min(MAX_LEVELS, 1 + math.ceil(math.log(hi / lo) / math.log(LEVEL_RATIO) - 1e-9))
    return tuple(sorted({_round3(lo * (hi / lo) ** (j / (n - 1))) for j in range(n)}))


def _round3(x: float) -> float:
    return float(f"{x:.3g}")


def sponge(nz: int, nx: int, dx: float, open_sides: tuple[bool, bool, bool, bool], dt: float
           ) -> NDArray[np.float64] | None:
    """Per-cell factor exp(-rate dt) of the surface part near open sides (x_min, x_max, z_min, z_max);
    rate = SPONGE_RATE (1 - d / width)^2 at distance d from the side. None when no side is open."""
    if not any(open_sides):
        return None
    width = max(SPONGE_CELLS * dx, SPONGE_MIN)
    x = (np.arange(nx) + 0.5) * dx
    z = (np.arange(nz) + 0.5) * dx
    rate = np.zeros((nz, nx))
    for side, is_open in zip(("x_min", "x_max", "z_min", "z_max"), open_sides):
        if not is_open:
            continue
        d = {"x_min": x[None, :], "x_max": nx * dx - x[None, :],
             "z_min": z[:, None], "z_max": nz * dx - z[:, None]}[side]
        r = SPONGE_RATE * np.clip(1.0 - d / width, 0.0, 1.0) ** 2
        rate = np.maximum(rate, np.broadcast_to(r, (nz, nx)))
    return np.exp(-rate * dt)


# -- the stage's kernels -------------------------------------------------------------------------
# Each takes small named structures (namedtuples, which numba compiles as typed tuples):
Water = namedtuple("Water", "h bed u w")
"""The grid's live state: h, bed (nz, nx) float64, m; u (nz, nx + 1), w (nz + 1, nx) float32, m/s."""
Surface = namedtuple("Surface", "eta phi")
"""A surface part at the cells: eta (m) and phi (m^2/s), float64, (nz, nx)."""
Limit = namedtuple("Limit", "lam shore hull dry wet")
"""The limiter: lam, the share of surface part each cell may hold (float64); shore and hull, the ramps
from dry cells and from hulls that multiply it (float64, 1 away from both); dry and wet, the masks
lam_depth <= 0 and lam_depth * shore > 0 as last seen (uint8), so that the ramps and basins are
redone only when they change. A hull does not cut a basin: the water goes on under a floating
body (its column's h > 0) and the shallow-water step connects it there, so a moving hull never
relabels the basins; its cells have lam = 0 and take no part of their basin's correction."""
Basins = namedtuple("Basins", "labels sums weights caps lo hi part")
"""labels (nz, nx) int32: the basin (1..n) of each cell with lam_depth * shore > 0, 0 elsewhere;
sums, weights, caps, lo, hi (n + 1,) float64: each basin's sums of eta_s, of lam and of the caps
HALF h lam, and the range of means its cells can give up (`_clip`), gathered from part (blocks, 5,
n + 1), the same per block of rows; after `_means`, each basin's correction (`settle`)."""
Levels = namedtuple("Levels", "index frac")
"""Per cell the lower of the two depth levels around its still-water depth (int32) and the weight of
the upper one (float64): the piecewise-linear blend of the levels' results."""

# Every pass runs over blocks of ROWS rows: one after another (the plain kernels), or on numba's
# threads (the `_threads` kernels, same row functions). Each block writes its own cells and its own
# row of partial results (stats (blocks, 5) float64, Basins.part); the partials are then combined in
# block order. The blocks do not depend on the number of threads, so both give the same bits.
ROWS = 8


@njit(cache=True)
def blocks(nz):
    """How many blocks of ROWS rows cover nz rows."""
    return (nz + ROWS - 1) // ROWS


@njit(cache=True)
def distance_ramp(source, table, out):
    """out = table at the offset of the nearest cell with source != 0 (by Euclidean distance), 1 where
    none lies within the table's reach; 0 on those cells. table[R + dk, R + di] is the ramp at
    distance sqrt(dk^2 + di^2) (0 at the cell, rising to 1 within R cells). Only a source cell beside a
    non-source cell can be the nearest one to a non-source cell (a neighbour on the way would be
    nearer), so those stamp the table around them: the work is the shore's length times (2 R + 1)^2."""
    nz, nx = source.shape
    reach = (table.shape[0] - 1) // 2
    out[:, :] = 1.0
    for k in range(nz):
        for i in range(nx):
            if not source[k, i]:
                continue
            out[k, i] = 0.0
            if not ((k > 0 and not source[k - 1, i]) or (k < nz - 1 and not source[k + 1, i])
                    or (i > 0 and not source[k, i - 1]) or (i < nx - 1 and not source[k, i + 1])):
                continue
            for dk in range(-reach, reach + 1):
                kk = k + dk
                if kk < 0 or kk >= nz:
                    continue
                for di in range(-reach, reach + 1):
                    ii = i + di
                    if 0 <= ii < nx and table[dk + reach, di + reach] < out[kk, ii]:
                        out[kk, ii] = table[dk + reach, di + reach]


@njit(cache=True)
def label(mask, labels, stack):
    """labels = the connected regions (across cell faces) of mask != 0, numbered 1, 2, ... in the order
    of their first cell (row by row), 0 elsewhere; returns how many. stack: nz nx int64 scratch."""
    nz, nx = mask.shape
    labels[:, :] = 0
    n = 0
    for k in range(nz):
        for i in range(nx):
            if not mask[k, i] or labels[k, i] != 0:
                continue
            n += 1
            labels[k, i] = n
            stack[0] = k * nx + i
            top = 1
            while top > 0:
                top -= 1
                ck, ci = stack[top] // nx, stack[top] % nx
                for nk, ni in ((ck - 1, ci), (ck + 1, ci), (ck, ci - 1), (ck, ci + 1)):
                    if 0 <= nk < nz and 0 <= ni < nx and mask[nk, ni] and labels[nk, ni] == 0:
                        labels[nk, ni] = n
                        stack[top] = nk * nx + ni
                        top += 1
    return n


@njit(cache=True)
def limiter_rows(water, full, lim, stats, b):
    """Block b of the limiter: lim.lam = clip((h - DRY_H) / (full - DRY_H), 0, 1) (the depth limiter)
    * shore * hull; lim.dry (lam_depth <= 0) and lim.wet (lam_depth * shore > 0: the basins' cells,
    hulls included) updated; stats[b] = (cells with lam > 0, the sum of their surface bed + h, their
    smallest lam, whether wet changed, whether dry changed)."""
    h = water.h
    nz, nx = h.shape
    scale = 1.0 / (full - DRY_H)
    n = 0
    total = 0.0
    lam_min = 1.0
    changed = 0.0
    dry_changed = 0.0
    for k in range(b * ROWS, min(nz, b * ROWS + ROWS)):
        for i in range(nx):
            lam = min(max((h[k, i] - DRY_H) * scale, 0.0), 1.0)
            dry = np.uint8(1) if lam <= 0.0 else np.uint8(0)
            if dry != lim.dry[k, i]:
                lim.dry[k, i] = dry
                dry_changed = 1.0
            lam = lam * lim.shore[k, i]
            wet = np.uint8(1) if lam > 0.0 else np.uint8(0)
            if wet != lim.wet[k, i]:
                lim.wet[k, i] = wet
                changed = 1.0
            lam = lam * lim.hull[k, i]
            lim.lam[k, i] = lam
            if lam > 0.0:
                n += 1
                total += water.bed[k, i] + h[k, i]
                lam_min = min(lam_min, lam)
    stats[b, 0] = n
    stats[b, 1] = total
    stats[b, 2] = lam_min
    stats[b, 3] = changed
    stats[b, 4] = dry_changed


@njit(cache=True)
def _limiter_result(stats, changed):
    """(wet cells, their mean surface, their smallest lam, whether the wet cells changed) from the
    blocks' stats, in block order."""
    n = 0.0
    total = 0.0
    lam_min = 1.0
    for b in range(stats.shape[0]):
        n += stats[b, 0]
        total += stats[b, 1]
        lam_min = min(lam_min, stats[b, 2])
        changed = changed or stats[b, 3] > 0.0
    return int(n), total / max(n, 1.0), lam_min, changed


@njit(cache=True)
def limiter(water, full, lim, table, stats):
    """lim.lam = the depth limiter times the shore ramp (`distance_ramp` with `table`) from the dry
    cells (lam_depth <= 0), redone (and the pass with it) when they changed, times the hull ramp.
    Returns (wet cells, their mean surface bed + h (m), their smallest lam, whether the set of wet
    cells changed since the last call). stats: (blocks, 5) scratch."""
    nb = stats.shape[0]
    for b in range(nb):
        limiter_rows(water, full, lim, stats, b)
    changed = False
    if stats[:, 4].any():
        changed = stats[:, 3].any()
        distance_ramp(lim.dry, table, lim.shore)
        for b in range(nb):
            limiter_rows(water, full, lim, stats, b)
    return _limiter_result(stats, changed)


@njit(cache=True)
def load_rows(water, lam, ref, bed_smooth, inflow, dx, spec, stats, b):
    """Block b of `load`; stats[b] = (lo, hi, sum of eta'^2, sum of (div v)^2) of its cells."""
    h, bed, u, w = water
    nz, nx = h.shape
    lo, hi = np.inf, 0.0
    e2, d2 = 0.0, 0.0
    for k in range(b * ROWS, min(nz, b * ROWS + ROWS)):
        for i in range(nx):
            ul, ur = u[k, i], u[k, i + 1]
            ws, wn = w[k, i], w[k + 1, i]
            if inflow[0] and i == 0:
                ul = u[k, 1]
            if inflow[1] and i == nx - 1:
                ur = u[k, nx - 1]
            if inflow[2] and k == 0:
                ws = w[1, i]
            if inflow[3] and k == nz - 1:
                wn = w[nz - 1, i]
            div = (float(ur - ul) + float(wn - ws)) / dx
            spec[1, k, i] = div
            d2 += div * div
            if lam[k, i] > 0.0:
                e = bed[k, i] + h[k, i] - ref
                spec[0, k, i] = e
                e2 += e * e
                still = max(ref - bed_smooth[k, i], 0.0)
                hi = max(hi, still)
                if still >= MIN_LEVEL:
                    lo = min(lo, still)
            else:
                spec[0, k, i] = 0.0
    stats[b, 0] = lo
    stats[b, 1] = hi
    stats[b, 2] = e2
    stats[b, 3] = d2


@njit(cache=True)
def _load_result(stats):
    lo, hi, e2, d2 = np.inf, 0.0, 0.0, 0.0
    for b in range(stats.shape[0]):
        lo = min(lo, stats[b, 0])
        hi = max(hi, stats[b, 1])
        e2 += stats[b, 2]
        d2 += stats[b, 3]
    return (lo if lo < np.inf else MIN_LEVEL), hi, e2, d2


@njit(cache=True)
def load(water, lam, ref, bed_smooth, inflow, dx, spec, stats):
    """spec[0] = eta - ref on wet cells (0 elsewhere), spec[1] = div v (see the module docstring:
    every side's face counts; an inflow side's face carries the next interior face's velocity),
    float32, ready for the forward transform. Returns (lo, hi, sum of eta'^2, sum of (div v)^2): lo
    and hi the smallest still-water depth ref - bed_smooth of a wet cell at least MIN_LEVEL deep
    (MIN_LEVEL if none) and the largest of a wet cell, m: the range the depth levels span."""
    for b in range(stats.shape[0]):
        load_rows(water, lam, ref, bed_smooth, inflow, dx, spec, stats, b)
    return _load_result(stats)


@njit(cache=True)
def level_blend_rows(ref, bed_smooth, levels, out, b):
    nz, nx = bed_smooth.shape
    n = len(levels)
    for k in range(b * ROWS, min(nz, b * ROWS + ROWS)):
        for i in range(nx):
            d = min(max(ref - bed_smooth[k, i], levels[0]), levels[n - 1])
            j = 0
            while j < n - 2 and d > levels[j + 1]:
                j += 1
            out.index[k, i] = j
            out.frac[k, i] = (d - levels[j]) / (levels[j + 1] - levels[j])


@njit(cache=True)
def level_blend(ref, bed_smooth, levels, out):
    """out.index, out.frac of each cell's still-water depth ref - bed_smooth, clamped to the levels'
    range: the hats of `levels` (sorted, at least two) in piecewise-linear interpolation."""
    for b in range(blocks(bed_smooth.shape[0])):
        level_blend_rows(ref, bed_smooth, levels, out, b)


@njit(cache=True)
def split_spectra_rows(spec, k2, keep, out, b):
    nl, nz, nx = keep.shape
    for k in range(b * ROWS, min(nz, b * ROWS + ROWS)):
        for i in range(nx):
            e = spec[0, k, i]
            p = np.float32(-spec[1, k, i] / k2[k, i]) if k2[k, i] > 0.0 else np.float32(0.0)
            for j in range(nl):
                out[2 * j, k, i] = keep[j, k, i] * e
                out[2 * j + 1, k, i] = keep[j, k, i] * p


@njit(cache=True)
def split_spectra(spec, k2, keep, out):
    """Each level j's surface spectra (1 - L(k H_j)) times the spectra of eta' and phi, phi's by
    div grad phi = div v: P = -D / K2 (0 for the mode K2 = 0). out[2 j] eta's, out[2 j + 1] phi's."""
    for b in range(blocks(k2.shape[0])):
        split_spectra_rows(spec, k2, keep, out, b)


@njit(cache=True)
def step_spectra_rows(src, per_level, coef, decay, out, b):
    nl = coef.shape[0]
    nz, nx = decay.shape
    for j in range(nl):
        s = 2 * j if per_level else 0
        for k in range(b * ROWS, min(nz, b * ROWS + ROWS)):
            for i in range(nx):
                e = src[s, k, i]
                p = src[s + 1, k, i]
                c = coef[j, 0, k, i]
                out[2 * j, k, i] = c * e + coef[j, 1, k, i] * p
                out[2 * j + 1, k, i] = (c * p - coef[j, 2, k, i] * e) * decay[k, i]


@njit(cache=True)
def step_spectra(src, per_level, coef, decay, out):
    """Equation (2) for each level j: out[2 j] = c E + a P, out[2 j + 1] = (c P - b E) decay, with
    (c, a, b) = coef[j] and (E, P) = src[2 j], src[2 j + 1] (per_level) or src[0], src[1] (one pair
    for every level). decay: per mode, the viscous and uniform damping of phi over the step."""
    for b in range(blocks(decay.shape[0])):
        step_spectra_rows(src, per_level, coef, decay, out, b)


@njit(cache=True, inline="always")
def _blended(fields, levels, k, i):
    """(eta, phi) at cell (k, i): the levels' fields (fields[2 j], fields[2 j + 1]) blended, float64."""
    if fields.shape[0] == 2:
        return float(fields[0, k, i]), float(fields[1, k, i])
    j = levels.index[k, i]
    t = levels.frac[k, i]
    return ((1.0 - t) * fields[2 * j, k, i] + t * fields[2 * j + 2, k, i],
            (1.0 - t) * fields[2 * j + 1, k, i] + t * fields[2 * j + 3, k, i])


@njit(cache=True)
def blend_rows(fields, levels, out, b):
    nz, nx = out.eta.shape
    for k in range(b * ROWS, min(nz, b * ROWS + ROWS)):
        for i in range(nx):
            out.eta[k, i], out.phi[k, i] = _blended(fields, levels, k, i)


@njit(cache=True)
def blend(fields, levels, out):
    """out.eta, out.phi = the levels' fields blended per cell (`_blended`)."""
    for b in range(blocks(out.eta.shape[0])):
        blend_rows(fields, levels, out, b)


# The volume correction of a basin (`_clip`, `_means`, `settle`). After clipping, a cell holds
# e = r lam with |r| <= c = HALF h (h the depth it is clipped by), so |e| <= cap = c lam. A basin's
# clipped eta sums to S, not 0, and the correction takes S out again:
#   the mean       e' = e - lam m, m = S / sum(lam), wherever that keeps every cell within
#                  |e'| <= cap, that is m in [max(r - c), min(r + c)] over the basin's cells;
#   else the room  e' = e - f (e + s cap), s = sign(S), f = |S| / (sum(cap) + |S|) in [0, 1):
#                  each cell gives up the share f of its room towards -s cap, so e' lies between e
#                  and -s cap, again |e'| <= cap.
# Both sum to 0 over the basin (S - m sum(lam) = 0; S - f (S + s sum(cap)) = S - s |S| = 0). So
# the part's volume is 0 to round-off AND |eta_s| <= HALF h lam in every cell, hence h - eta_s >=
# h (1 - HALF lam) >= h / 2 >= 0 (split) and h + eta_s >= h / 2 >= 0 (merge): no depth is ever
# clipped after the stage, which would create water (a small basin between a hull and a wall
# that lies in a trough of the surface part has m far below -HALF h). m is a lam-weighted mean
# of the cells' r, so |m| <= max |r|: the room form is needed only where some |r| >= c / 2 >= HALF
# DRY_H / 2, never for a quiet surface part.
@njit(cache=True, inline="always")
def _clip(part, h, lam, k, i, e, p):
    """Store the limited (e, p) of cell (k, i): e = clip(e, -HALF h, HALF h) lam, p lam. Returns
    (e, r, cap, lam): what the cell adds to its basin's sums (`_Sums`)."""
    lk = lam[k, i]
    cap = HALF * h[k, i]
    r = min(max(e, -cap), cap)
    e = r * lk
    part.eta[k, i] = e
    part.phi[k, i] = p * lk
    return e, r, cap, lk


@njit(cache=True, inline="always")
def _clip_back(part, h, lim, k, i, e, p):
    """Store the limited (e, p) of cell (k, i) for the merge: the carried part comes back with the
    shore and hull ramps (w = shore hull, which fade what has moved towards a shore or a hull), and
    eta within the cap: e = clip(e w, -cap, cap), cap = HALF h lam, p w. The depth limiter is not
    applied again: the split took lam times the part out, and scaling what comes back by lam once
    more would lose lam (1 - lam) of it every step wherever lam < 1. Returns (e, r, cap, lam) in
    `_clip`'s form e = r lam, |r| <= HALF h."""
    lk = lim.lam[k, i]
    c = HALF * h[k, i]
    if lk > 0.0:
        w = lim.shore[k, i] * lim.hull[k, i]
        r = min(max(e * w / lk, -c), c)
        e = r * lk
        p = p * w
    else:
        r = 0.0
        e = 0.0
        p = 0.0
    part.eta[k, i] = e
    part.phi[k, i] = p
    return e, r, c, lk


@njit(cache=True, inline="always")
def _start(acc):
    """Clear a block's basin partials (5, n + 1): sums of e, lam, cap lam; max of r - cap, min of r + cap."""
    acc[0, :] = 0.0
    acc[1, :] = 0.0
    acc[2, :] = 0.0
    acc[3, :] = -np.inf
    acc[4, :] = np.inf


# `take_out_rows` and `carry_rows` each write out the run of one basin (cur, s, wt, cp, lo, hi) as
# local scalars, which stay in registers (a helper carrying it as a tuple was far slower).
@njit(cache=True, inline="always")
def _flush(acc, b, s, wt, cp, lo, hi):
    """Add a run of cells of basin b (their sums s, wt, cp and range lo, hi) to the block's partials."""
    acc[0, b] += s
    acc[1, b] += wt
    acc[2, b] += cp
    acc[3, b] = max(acc[3, b], lo)
    acc[4, b] = min(acc[4, b], hi)


@njit(cache=True)
def _means(basins):
    """Gather the blocks' partials (in block order) into each basin's sums, then each basin's
    correction (see above): sums[b] = the mean m and caps[b] = 0 where the mean keeps every cell
    within its cap, else sums[b] = 0 and caps[b] = s f (the room form); basin 0 (outside every
    basin) none. Returns a bound on the correction of any cell: |m|, or |S| >= f sum(cap)."""
    sums, weights, caps, lo, hi, part = basins.sums, basins.weights, basins.caps, basins.lo, basins.hi, basins.part
    sums[:] = 0.0
    weights[:] = 0.0
    caps[:] = 0.0
    lo[:] = -np.inf
    hi[:] = np.inf
    for blk in range(part.shape[0]):
        for b in range(len(sums)):
            sums[b] += part[blk, 0, b]
            weights[b] += part[blk, 1, b]
            caps[b] += part[blk, 2, b]
            lo[b] = max(lo[b], part[blk, 3, b])
            hi[b] = min(hi[b], part[blk, 4, b])
    top = 0.0
    sums[0] = 0.0
    caps[0] = 0.0
    for b in range(1, len(sums)):
        s = sums[b]
        m = s / weights[b] if weights[b] > 0.0 else 0.0
        if lo[b] <= m <= hi[b]:
            sums[b] = m
            caps[b] = 0.0
            top = max(top, abs(m))
        else:
            sums[b] = 0.0
            caps[b] = s / (caps[b] + abs(s))
            top = max(top, abs(s))
    return top


@njit(cache=True)
def take_out_rows(fields, levels, h, lam, basins, dx, part, stats, b):
    """Block b of `take_out`: its cells blended and clipped (`_clip`), its basin partials, and
    stats[b] = (whether every blended |eta| <= HALF h, max |eta| clipped, max |grad phi|)."""
    nz, nx = h.shape
    labels = basins.labels
    acc = basins.part[b]
    _start(acc)
    k0 = b * ROWS
    within = 1.0
    e_max = 0.0
    v_max = 0.0
    cur, s, wt, cp, lo, hi = 0, 0.0, 0.0, 0.0, -np.inf, np.inf
    for k in range(k0, min(nz, k0 + ROWS)):
        for i in range(nx):
            e, p = _blended(fields, levels, k, i)
            if abs(e) > HALF * h[k, i]:
                within = 0.0
            e, r, cap, lk = _clip(part, h, lam, k, i, e, p)
            e_max = max(e_max, abs(e))
            lb = labels[k, i]
            if lb != cur:
                _flush(acc, cur, s, wt, cp, lo, hi)
                cur, s, wt, cp, lo, hi = lb, 0.0, 0.0, 0.0, -np.inf, np.inf
            s += e
            wt += lk
            cp += cap * lk
            lo = max(lo, r - cap)
            hi = min(hi, r + cap)
            if i > 0:
                v_max = max(v_max, abs(part.phi[k, i] - part.phi[k, i - 1]) / dx)
            if k > k0:
                v_max = max(v_max, abs(part.phi[k, i] - part.phi[k - 1, i]) / dx)
            elif k > 0:   # the row above is another block's: its phi again, by the same operations
                v_max = max(v_max, abs(part.phi[k, i] - _blended(fields, levels, k - 1, i)[1] * lam[k - 1, i]) / dx)
    _flush(acc, cur, s, wt, cp, lo, hi)
    stats[b, 0] = within
    stats[b, 1] = e_max
    stats[b, 2] = v_max


@njit(cache=True)
def _take_out_result(basins, stats):
    within = True
    e_max = 0.0
    v_max = 0.0
    for b in range(stats.shape[0]):
        within = within and stats[b, 0] > 0.0
        e_max = max(e_max, stats[b, 1])
        v_max = max(v_max, stats[b, 2])
    return within, e_max + _means(basins), v_max


@njit(cache=True)
def take_out(fields, levels, h, lam, basins, dx, part, stats):
    """The first pass of the split's limiting: part = the levels' fields blended (`_blended`), eta
    clipped to +-HALF h and both times lam (`_clip`), each basin's mean found (`_means`). Returns
    (whether every blended |eta| <= HALF h, a bound on max |eta| after `settle`, max |grad phi| over
    the interior faces, m/s)."""
    for b in range(stats.shape[0]):
        take_out_rows(fields, levels, h, lam, basins, dx, part, stats, b)
    return _take_out_result(basins, stats)


@njit(cache=True, inline="always")
def _bilinear(pending, u, w, damp, c, k, i):
    """damp pending at the foot (x, z) = (i, k) - v dt / dx of cell (k, i), bilinear, the foot clamped
    to the grid; v at the cell centre the mean of its two faces. (eta, phi)."""
    q_eta, q_phi = pending
    nz, nx = q_eta.shape
    vx = 0.5 * (u[k, i] + u[k, i + 1])
    vz = 0.5 * (w[k, i] + w[k + 1, i])
    x = min(max(i - vx * c, 0.0), nx - 1.0)
    z = min(max(k - vz * c, 0.0), nz - 1.0)
    i0 = min(int(x), nx - 2) if nx > 1 else 0
    k0 = min(int(z), nz - 2) if nz > 1 else 0
    fx = x - i0
    fz = z - k0
    i1 = min(i0 + 1, nx - 1)
    k1 = min(k0 + 1, nz - 1)
    a, bb, cc, d = (1.0 - fz) * (1.0 - fx), (1.0 - fz) * fx, fz * (1.0 - fx), fz * fx
    return (damp[k, i] * (a * q_eta[k0, i0] + bb * q_eta[k0, i1] + cc * q_eta[k1, i0] + d * q_eta[k1, i1]),
            damp[k, i] * (a * q_phi[k0, i0] + bb * q_phi[k0, i1] + cc * q_phi[k1, i0] + d * q_phi[k1, i1]))


@njit(cache=True)
def _tent_row(pending, u, w, damp, c, part, k):
    """`_bilinear` of the interior cells of row k (0 < k < nz - 1, 0 < i < nx - 1) where the foot lies
    within one cell of the centre, |v| dt / dx <= 1 in both directions: there bilinear interpolation
    is the tent-weighted sum over the 3 x 3 neighbours, weights (max(-s, 0), 1 - |s|, max(s, 0)) in
    each direction for the displacement s = -v dt / dx (no clamping, no index arithmetic: the loop
    vectorises). Cells whose |s| exceeds 1 get a value here that `carry_rows` replaces."""
    q_eta, q_phi = pending
    nx = q_eta.shape[1]
    for i in range(1, nx - 1):
        sx = -(0.5 * (u[k, i] + u[k, i + 1])) * c
        sz = -(0.5 * (w[k, i] + w[k + 1, i])) * c
        xm = max(-sx, 0.0)
        xp = max(sx, 0.0)
        x0 = 1.0 - xm - xp
        zm = max(-sz, 0.0)
        zp = max(sz, 0.0)
        z0 = 1.0 - zm - zp
        em = xm * q_eta[k - 1, i - 1] + x0 * q_eta[k - 1, i] + xp * q_eta[k - 1, i + 1]
        e0 = xm * q_eta[k, i - 1] + x0 * q_eta[k, i] + xp * q_eta[k, i + 1]
        ep = xm * q_eta[k + 1, i - 1] + x0 * q_eta[k + 1, i] + xp * q_eta[k + 1, i + 1]
        pm = xm * q_phi[k - 1, i - 1] + x0 * q_phi[k - 1, i] + xp * q_phi[k - 1, i + 1]
        p0 = xm * q_phi[k, i - 1] + x0 * q_phi[k, i] + xp * q_phi[k, i + 1]
        pp = xm * q_phi[k + 1, i - 1] + x0 * q_phi[k + 1, i] + xp * q_phi[k + 1, i + 1]
        part.eta[k, i] = damp[k, i] * (zm * em + z0 * e0 + zp * ep)
        part.phi[k, i] = damp[k, i] * (zm * pm + z0 * p0 + zp * pp)


@njit(cache=True)
def carry_rows(pending, water, lim, basins, damp, dx, dt, part, b):
    """Block b of `carry`: its cells carried (`_tent_row`, else `_bilinear`: at the grid's edge and
    where the foot lies more than a cell away), damped and clipped, and its basin partials."""
    h, _, u, w = water
    nz, nx = h.shape
    c = dt / dx
    labels = basins.labels
    acc = basins.part[b]
    _start(acc)
    cur, s, wt, cp, lo, hi = 0, 0.0, 0.0, 0.0, -np.inf, np.inf
    for k in range(b * ROWS, min(nz, b * ROWS + ROWS)):
        edge = k == 0 or k == nz - 1 or nx < 3
        if not edge:
            _tent_row(pending, u, w, damp, c, part, k)
        for i in range(nx):
            if (edge or i == 0 or i == nx - 1 or abs(-(0.5 * (u[k, i] + u[k, i + 1])) * c) > 1.0
                    or abs(-(0.5 * (w[k, i] + w[k + 1, i])) * c) > 1.0):
                e, p = _bilinear(pending, u, w, damp, c, k, i)
            else:
                e, p = part.eta[k, i], part.phi[k, i]
            e, r, cap, lk = _clip_back(part, h, lim, k, i, e, p)
            lb = labels[k, i]
            if lb != cur:
                _flush(acc, cur, s, wt, cp, lo, hi)
                cur, s, wt, cp, lo, hi = lb, 0.0, 0.0, 0.0, -np.inf, np.inf
            s += e
            wt += lk
            cp += cap * lk
            lo = max(lo, r - cap)
            hi = min(hi, r + cap)
    _flush(acc, cur, s, wt, cp, lo, hi)


@njit(cache=True)
def carry(pending, water, lim, basins, damp, dx, dt, part):
    """The first pass of the merge: part = the stepped surface part carried by the face velocities
    over dt, semi-Lagrangian, and damped: q(x) = damp(x) pending(x - v(x) dt) for eta and phi, v at
    the cell centre the mean of its two faces, pending bilinear, the foot clamped to the grid (v = 0
    gives damp pending exactly); then limited by the bulk depth (`_clip_back`, lim: the limiter of the
    bulk) and each basin's mean found (`_means`)."""
    for b in range(basins.part.shape[0]):
        carry_rows(pending, water, lim, basins, damp, dx, dt, part, b)
    _means(basins)


@njit(cache=True)
def settle_rows(water, part, lam, basins, sign, dx, spec, b):
    h, _, u, w = water
    eta, phi = part
    nz, nx = h.shape
    for k in range(b * ROWS, min(nz, b * ROWS + ROWS)):
        for i in range(nx):
            lb = basins.labels[k, i]
            g = basins.caps[lb]
            if g == 0.0:
                e = eta[k, i] - lam[k, i] * basins.sums[lb]
            else:        # the room form: e - f (e + s cap), g = s f
                e = eta[k, i] - (abs(g) * eta[k, i] + g * (HALF * h[k, i] * lam[k, i]))
            eta[k, i] = e
            spec[0, k, i] = e
            spec[1, k, i] = phi[k, i]
            h[k, i] += sign * e
        for i in range(1, nx):        # the faces in loops of their own (no branch per cell)
            u[k, i] = u[k, i] + sign * ((phi[k, i] - phi[k, i - 1]) / dx)
        if k > 0:
            for i in range(nx):
                w[k, i] = w[k, i] + sign * ((phi[k, i] - phi[k - 1, i]) / dx)


@njit(cache=True)
def settle(water, part, lam, basins, sign, dx, spec):
    """The second pass: eta gets its basin's correction (`_means`: the sum of eta over each basin is
    then 0 to round-off and |eta| <= HALF h lam still), then h += sign eta and each interior face +=
    sign grad phi (the pool's side faces keep their own); spec[0], spec[1] = eta, phi as float32 (for
    the forward transform). h must be the depth `_clip` limited by (read before it is changed)."""
    for b in range(basins.part.shape[0]):
        settle_rows(water, part, lam, basins, sign, dx, spec, b)
