"""The shallow-water scheme of `engine.kernels.shallow_water`, in plain numpy.

Written independently of the kernel, as whole-array operations: advection is a general bilinear
gather at the backtraced point (the kernel uses its 2 x 2 upwind stencil), fluxes are arrays, and
everything is float64: the scheme in (nearly) exact arithmetic, where the kernel keeps velocities
in float32 and moves depth in whole fixed-point units. The tests check the fast kernel against it
and `bottles bench` times it. Slow; never used to simulate.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from engine.kernels import shallow_water as sw

F64 = NDArray[np.float64]


def bilinear(a: F64, fk: F64, fi: F64) -> F64:
    """Sample a at fractional indices (fk, fi), clamped to the array's edges."""
    nk, ni = a.shape
    fk = np.clip(fk, 0.0, nk - 1)
    fi = np.clip(fi, 0.0, ni - 1)
    k0 = np.minimum(np.floor(fk).astype(np.int64), nk - 2)
    i0 = np.minimum(np.floor(fi).astype(np.int64), ni - 2)
    tk = fk - k0
    ti = fi - i0
    return ((1.0 - tk) * ((1.0 - ti) * a[k0, i0] + ti * a[k0, i0 + 1])
            + tk * ((1.0 - ti) * a[k0 + 1, i0] + ti * a[k0 + 1, i0 + 1]))


def _front(v: F64, hl: F64, hr: F64, behind_l: F64, ahead_r: F64, dry: float) -> F64:
    v = np.where((hr <= dry) & (hl > dry), np.maximum(v, np.maximum(behind_l, 0.0)), v)
    return np.where((hl <= dry) & (hr > dry), np.minimum(v, np.minimum(ahead_r, 0.0)), v)


def _open_faces(hl: F64, bl: F64, hr: F64, br: F64, dry: float) -> NDArray[np.bool_]:
    bmax = np.maximum(bl, br)
    return np.maximum(bl + hl, br + hr) > bmax + dry


def _accelerate(v: F64, hl: F64, bl: F64, hr: F64, br: F64, acc: F64 | float, g: float, s: float,
                dx: float, vcap: float, dry: float) -> F64:
    bmax = np.maximum(bl, br)
    el, er = bl + hl, br + hr
    new = v - g * (s / dx) * (np.maximum(er, bmax) - np.maximum(el, bmax)) + acc * s
    new = np.clip(new, -vcap, vcap)
    return np.where(np.maximum(el, er) <= bmax + dry, 0.0, new)


def _open_velocity(h_in: F64, b_in: F64, eta_out: float, g: float, outward: float, vcap: float) -> F64:
    h_out = np.maximum(eta_out - b_in, 0.0)
    return np.clip(outward * 2.0 * (np.sqrt(g * h_in) - np.sqrt(g * h_out)), -vcap, vcap)


def _boundary_flux(v: F64, h_in: F64, b_in: F64, eta_out: float, inward: float) -> F64:
    """Flux into the pool through an open side (upwind depth), m^2/s."""
    return v * inward * np.where(v * inward > 0.0, np.maximum(eta_out - b_in, 0.0), h_in)


def advect(h: F64, u: F64, w: F64, dx: float, s: float, dry: float = sw.DRY) -> None:
    """Advect u and w by s seconds in place: backtrace by the face velocity, bilinear gather."""
    nz, nx = h.shape
    c = s / dx
    u2 = u.copy()
    kk, ii = np.meshgrid(np.arange(nz, dtype=float), np.arange(1, nx, dtype=float), indexing="ij")
    wbar = 0.25 * (w[:-1, :-1] + w[:-1, 1:] + w[1:, :-1] + w[1:, 1:])
    u2[:, 1:-1] = bilinear(u, kk - np.clip(wbar * c, -1, 1), ii - np.clip(u[:, 1:-1] * c, -1, 1))
    w2 = w.copy()
    kk, ii = np.meshgrid(np.arange(1, nz, dtype=float), np.arange(nx, dtype=float), indexing="ij")
    ubar = 0.25 * (u[:-1, :-1] + u[:-1, 1:] + u[1:, :-1] + u[1:, 1:])
    w2[1:-1, :] = bilinear(w, kk - np.clip(w[1:-1, :] * c, -1, 1), ii - np.clip(ubar * c, -1, 1))
    # fronts onto dry cells take the velocity behind them
    u2[:, 1:-1] = _front(u2[:, 1:-1], h[:, :-1], h[:, 1:], u[:, :-2], u[:, 2:], dry)
    w2[1:-1, :] = _front(w2[1:-1, :], h[:-1, :], h[1:, :], w[:-2, :], w[2:, :], dry)
    u[...] = u2
    w[...] = w2


def substep(h: F64, bed: F64, u: F64, w: F64, ax: F64, az: F64, sides: NDArray, side_eta: NDArray,
            dx: float, g: float, s: float, clamp: float = sw.CLAMP, dry: float = sw.DRY) -> float:
    """One gravity substep of s seconds in place (depth, surface gradient, walls); return the m^3
    that came in through open sides."""
    c = s / dx
    # fronts onto dry cells take the velocity behind them
    u[:, 1:-1] = _front(u[:, 1:-1], h[:, :-1], h[:, 1:], u[:, :-2], u[:, 2:], dry)   # (new arrays: no copies needed)
    w[1:-1, :] = _front(w[1:-1, :], h[:-1, :], h[1:, :], w[:-2, :], w[2:, :], dry)
    # (2) depth in flux form, upwind depth, closed faces carry nothing
    F = np.zeros_like(u)
    up = np.where(u[:, 1:-1] > 0.0, h[:, :-1], h[:, 1:])
    F[:, 1:-1] = np.where(_open_faces(h[:, :-1], bed[:, :-1], h[:, 1:], bed[:, 1:], dry), u[:, 1:-1] * up, 0.0)
    G = np.zeros_like(w)
    up = np.where(w[1:-1, :] > 0.0, h[:-1, :], h[1:, :])
    G[1:-1, :] = np.where(_open_faces(h[:-1, :], bed[:-1, :], h[1:, :], bed[1:, :], dry), w[1:-1, :] * up, 0.0)
    inflow = 0.0
    if sides[0] == sw.OPEN:
        F[:, 0] = _boundary_flux(u[:, 0], h[:, 0], bed[:, 0], side_eta[0], 1.0)
        inflow += F[:, 0].sum()
    if sides[1] == sw.OPEN:
        F[:, -1] = -_boundary_flux(u[:, -1], h[:, -1], bed[:, -1], side_eta[1], -1.0)
        inflow -= F[:, -1].sum()
    if sides[2] == sw.OPEN:
        G[0, :] = _boundary_flux(w[0, :], h[0, :], bed[0, :], side_eta[2], 1.0)
        inflow += G[0, :].sum()
    if sides[3] == sw.OPEN:
        G[-1, :] = -_boundary_flux(w[-1, :], h[-1, :], bed[-1, :], side_eta[3], -1.0)
        inflow -= G[-1, :].sum()
    hn = np.maximum(h - c * (F[:, 1:] - F[:, :-1] + G[1:, :] - G[:-1, :]), 0.0)
    # (3) velocity from the new surface gradient, (4) walls
    vcap = clamp * dx / s
    u[:, 1:-1] = _accelerate(u[:, 1:-1], hn[:, :-1], bed[:, :-1], hn[:, 1:], bed[:, 1:], ax[:, 1:-1], g, s, dx, vcap, dry)
    w[1:-1, :] = _accelerate(w[1:-1, :], hn[:-1, :], bed[:-1, :], hn[1:, :], bed[1:, :], az[1:-1, :], g, s, dx, vcap, dry)
    u[:, 0] = _open_velocity(hn[:, 0], bed[:, 0], side_eta[0], g, -1.0, vcap) if sides[0] == sw.OPEN else 0.0
    u[:, -1] = _open_velocity(hn[:, -1], bed[:, -1], side_eta[1], g, 1.0, vcap) if sides[1] == sw.OPEN else 0.0
    w[0, :] = _open_velocity(hn[0, :], bed[0, :], side_eta[2], g, -1.0, vcap) if sides[2] == sw.OPEN else 0.0
    w[-1, :] = _open_velocity(hn[-1, :], bed[-1, :], side_eta[3], g, 1.0, vcap) if sides[3] == sw.OPEN else 0.0
    h[...] = hn
    return float(inflow * dx * s)


def advance(h: F64, bed: F64, u: F64, w: F64, ax: F64, az: F64, sides: NDArray, side_eta: NDArray,
            dx: float, g: float, dt: float, cfl: float = sw.CFL, flow_cfl: float = sw.FLOW_CFL,
            clamp: float = sw.CLAMP, dry: float = sw.DRY) -> tuple[int, float]:
    """Take one fixed step of dt in place: n equal CFL substeps of depth and surface gradient, with
    the velocities advected in m parts spread among them (`sw._plan`); return (n, boundary m^3).

    n and m are chosen once, from the state at the start of the step.
    """
    hmax = float(h.max())
    vmax = float(max(np.abs(u).max(), np.abs(w).max()))
    n = sw.substeps_for(dt, dx, g, hmax, vmax, cfl, flow_cfl)
    m = sw.advections_for(dt, dx, vmax)
    bvol = 0.0
    for kind in sw._plan(m, n):
        if kind == 1:
            advect(h, u, w, dx, dt / m, dry)
        else:
            bvol += substep(h, bed, u, w, ax, az, sides, side_eta, dx, g, dt / n, clamp, dry)
    return n, bvol
