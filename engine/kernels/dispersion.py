"""Dispersive surface waves over a shallow-water grid (Jeschke & Wojtan 2023), and vorticity confinement.

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
- the surface part has zero sum (its mode 0 is zero, and after limiting its sum is removed again,
  weighted by the limiter), so the pool's volume is unchanged to round-off;
- eta_s is limited to +-HALF of the depth, times a ramp from 0 at DRY_H to 1 at full_depth(dx) (and
  the stage's ramp from dry cells, engine/systems/disperse.py), so neither the bulk nor the
  recombined depth goes negative and dry cells carry no surface part;
- below QUIET (m) of surface elevation the stage does nothing: a lake at rest stays exactly still;
- every operation is a fixed sequence of numpy/scipy/numba calls: bit for bit deterministic.

Open (absorbing, outflow) sides: the DCT reflects; a sponge of width SPONGE_CELLS (at least
SPONGE_MIN m) damps the surface part at rate up to SPONGE_RATE 1/s near such a side, so short waves
leave the pool there as long ones leave through the shallow-water solver's open sides.

Vorticity confinement (Fedkiw, Stam & Jensen 2001; seed 002) on the depth-averaged velocity: with the
vorticity omega_y = dw/dx - du/dz at cell centres and N = grad|omega_y| / |grad|omega_y||,

    f = eps dx omega_y (N_z, -N_x)                                              (3)

an acceleration returned on the faces; it turns velocity only, so it adds no volume.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.fft as sfft
from numba import njit
from numpy.typing import NDArray

SPLIT_LO = 0.25        # k H below this: bulk only (shallow water's phase speed within 1% of (1))
SPLIT_HI = 0.75        # k H above this: surface only
DRY_H = 0.002          # m: no surface part at or below this depth
FULL_H = 0.02          # m: the full surface part from this depth on
HALF = 0.5             # |eta_s| <= HALF * depth
QUIET = 1e-9           # m: a surface part smaller than this everywhere is dropped (lake at rest)
MIN_LEVEL = 0.005      # m: the shallowest depth at which (2) is taken
MAX_LEVELS = 4         # depths at which (2) is taken
LEVEL_RATIO = 1.3      # neighbouring depths differ by at most this factor (unless MAX_LEVELS caps it)
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


def depth_levels(lo: float, hi: float) -> NDArray[np.float64]:
    """Depths at which (2) is taken: geometric from lo to hi, at most MAX_LEVELS, each rounded to three
    significant digits (so that steps of a calm pool reuse the same coefficients)."""
    lo, hi = max(lo, MIN_LEVEL), max(hi, MIN_LEVEL)
    if hi <= lo * 1.01:
        return np.array([_round3(0.5 * (lo + hi))])
    n = min(MAX_LEVELS, 1 + math.ceil(math.log(hi / lo) / math.log(LEVEL_RATIO)))
    levels = np.geomspace(lo, hi, n)
    return np.array(sorted({_round3(d) for d in levels}))


def _round3(x: float) -> float:
    return float(f"{x:.3g}")


def level_weights(depth: NDArray[np.float64], levels: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    """Each level's weight in each cell: piecewise-linear hats in depth, clamped at the ends; they sum to 1."""
    if len(levels) == 1:
        return [np.ones_like(depth)]
    d = np.clip(depth, levels[0], levels[-1])
    out = []
    for j, lj in enumerate(levels):
        wgt = np.zeros_like(d)
        if j > 0:
            lo = levels[j - 1]
            m = (d >= lo) & (d <= lj)
            wgt[m] = (d[m] - lo) / (lj - lo)
        if j < len(levels) - 1:
            hi = levels[j + 1]
            m = (d > lj) & (d <= hi) if j > 0 else (d >= lj) & (d <= hi)
            wgt[m] = (hi - d[m]) / (hi - lj)
        out.append(wgt)
    return out


def full_depth(dx: float) -> float:
    """Depth from which a cell holds its whole surface part: FULL_H, or one cell if that is more.
    Below about a cell of depth every wave the grid can hold has k H < pi H / dx of order 1 or less,
    a shallow-water wave the bulk steps rightly (and nonlinearly, as runup needs)."""
    return max(FULL_H, float(dx))


def limiter(h: NDArray[np.float64], full: float = FULL_H) -> NDArray[np.float64]:
    """0 at or below DRY_H of depth, 1 from `full`, linear between: how much surface part a cell may hold."""
    return np.clip((h - DRY_H) / (full - DRY_H), 0.0, 1.0)


def limit_surface(eta_s: NDArray[np.float64], h: NDArray[np.float64], lam: NDArray[np.float64],
                  basins: NDArray[np.int64] | None = None, n_basins: int = 1) -> None:
    """Clip eta_s to +-HALF h, scale by the limiter and remove its sum (weighted by the limiter), in place.

    basins: per cell, the label (1..n_basins; 0 where lam == 0) of the connected region of lam > 0
    it lies in. With more than one basin the sum is removed in each basin on its own, so
    sum over each basin of eta_s == 0: the DCT does not see walls standing out of the water, and a
    surface part stepped across one must not move volume between the basins it separates.
    Afterwards sum(eta_s) == 0 (per basin) up to round-off and |eta_s| <= HALF h + |correction|."""
    np.clip(eta_s, -HALF * h, HALF * h, out=eta_s)
    eta_s *= lam
    if basins is not None and n_basins > 1:
        flat = basins.ravel()
        sums = np.bincount(flat, weights=eta_s.ravel(), minlength=n_basins + 1)
        weights = np.bincount(flat, weights=lam.ravel(), minlength=n_basins + 1)
        mean = np.divide(sums, weights, out=np.zeros_like(sums), where=weights > 0.0)
        mean[0] = 0.0
        eta_s -= lam * mean[basins]
        return
    weight = lam.sum()
    if weight > 0.0:
        eta_s -= lam * (eta_s.sum() / weight)


def divergence(u: NDArray, w: NDArray, dx: float) -> NDArray[np.float64]:
    """div v at cell centres, 1/s: (u_right - u_left + w_far - w_near) / dx over every face, the
    pool's sides included. A closed side's face velocity is 0, so there it counts as a wall; an
    inflow, outflow or absorbing side's face carries the bulk's flux through it, so a uniform
    current through the pool has div v = 0 (taken from interior faces only, the current would
    look like a source in the first column and a sink in the last, whose short-wave part the
    stage would step as surface waves at both ends for as long as the current runs)."""
    return ((u[:, 1:] - u[:, :-1]).astype(np.float64) + (w[1:, :] - w[:-1, :]).astype(np.float64)) / dx


def gradient(phi: NDArray[np.float64], dx: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """grad phi on the interior x faces (nz, nx - 1) and z faces (nz - 1, nx), m/s."""
    return (phi[:, 1:] - phi[:, :-1]) / dx, (phi[1:, :] - phi[:-1, :]) / dx


def dct(a: NDArray) -> NDArray:
    """Orthonormal 2-D DCT-II (cell-centred, reflective walls), in a's precision (the stage uses float32:
    half the time of float64, and a surface part of millimetres needs no more than 1e-7 of it)."""
    return sfft.dctn(a, type=2, norm="ortho")


def idct(a: NDArray) -> NDArray:
    """Inverse of `dct`."""
    return sfft.idctn(a, type=2, norm="ortho")


def potential_spectrum(div_hat: NDArray[np.float64], k2: NDArray[np.float64]) -> NDArray[np.float64]:
    """Spectrum of phi with div grad phi = div v (phi's mean is 0)."""
    p = np.zeros_like(div_hat)
    np.divide(-div_hat, k2, out=p, where=k2 > 0.0, casting="same_kind")
    return p


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


@njit(cache=True)
def advect(q, u, w, dx, dt, out):
    """Carry the cell-centred field q by the face velocities (u, w) over dt, semi-Lagrangian:
    out(x) = q(x - v(x) dt), v at the cell centre the mean of its two faces, q bilinear, clamped to the grid."""
    nz, nx = q.shape
    for k in range(nz):
        for i in range(nx):
            vx = 0.5 * (u[k, i] + u[k, i + 1])
            vz = 0.5 * (w[k, i] + w[k + 1, i])
            x = i - vx * dt / dx
            z = k - vz * dt / dx
            x = min(max(x, 0.0), nx - 1.0)
            z = min(max(z, 0.0), nz - 1.0)
            i0 = min(int(x), nx - 2) if nx > 1 else 0
            k0 = min(int(z), nz - 2) if nz > 1 else 0
            fx = x - i0
            fz = z - k0
            i1 = min(i0 + 1, nx - 1)
            k1 = min(k0 + 1, nz - 1)
            out[k, i] = ((1.0 - fz) * ((1.0 - fx) * q[k0, i0] + fx * q[k0, i1])
                         + fz * ((1.0 - fx) * q[k1, i0] + fx * q[k1, i1]))


@njit(cache=True)
def confinement(u, w, h, dx, eps, wet, ax, az):
    """Write the vorticity-confinement acceleration (3) on the faces into ax, az (m/s^2, overwritten);
    return how many cells have a force (0: ax and az are all zero).

    omega_y and grad|omega_y| by central differences at interior cells; only cells with every
    neighbour deeper than `wet` (m) get a force, and a face gets the mean of its two cells'."""
    nz, nx = h.shape
    om = np.zeros((nz, nx))
    for k in range(1, nz - 1):
        for i in range(1, nx - 1):
            wl = 0.5 * (w[k, i - 1] + w[k + 1, i - 1])
            wr = 0.5 * (w[k, i + 1] + w[k + 1, i + 1])
            ud = 0.5 * (u[k - 1, i] + u[k - 1, i + 1])
            uu = 0.5 * (u[k + 1, i] + u[k + 1, i + 1])
            om[k, i] = (wr - wl) / (2.0 * dx) - (uu - ud) / (2.0 * dx)
    fx = np.zeros((nz, nx))
    fz = np.zeros((nz, nx))
    forced = 0
    for k in range(2, nz - 2):
        for i in range(2, nx - 2):
            if (h[k, i] <= wet or h[k, i - 1] <= wet or h[k, i + 1] <= wet
                    or h[k - 1, i] <= wet or h[k + 1, i] <= wet):
                continue
            gx = (abs(om[k, i + 1]) - abs(om[k, i - 1])) / (2.0 * dx)
            gz = (abs(om[k + 1, i]) - abs(om[k - 1, i])) / (2.0 * dx)
            norm = math.sqrt(gx * gx + gz * gz) + 1e-20
            fx[k, i] = eps * dx * om[k, i] * (gz / norm)
            fz[k, i] = -eps * dx * om[k, i] * (gx / norm)
            if fx[k, i] != 0.0 or fz[k, i] != 0.0:
                forced += 1
    ax[:, :] = 0.0
    az[:, :] = 0.0
    for k in range(nz):
        for i in range(1, nx):
            ax[k, i] = 0.5 * (fx[k, i - 1] + fx[k, i])
    for k in range(1, nz):
        for i in range(nx):
            az[k, i] = 0.5 * (fz[k - 1, i] + fz[k, i])
    return forced


def enstrophy(u: NDArray, w: NDArray, dx: float) -> NDArray[np.float64]:
    """Cell-centred omega_y^2 = (dw/dx - du/dz)^2 (1/s^2), central differences, 0 on the border cells."""
    uc = 0.5 * (u[:, 1:] + u[:, :-1]).astype(np.float64)
    wc = 0.5 * (w[1:, :] + w[:-1, :]).astype(np.float64)
    om = np.zeros(uc.shape)
    om[1:-1, 1:-1] = (wc[1:-1, 2:] - wc[1:-1, :-2] - uc[2:, 1:-1] + uc[:-2, 1:-1]) / (2.0 * dx)
    return om * om
