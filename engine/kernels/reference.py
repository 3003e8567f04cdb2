"""The water step of `engine.water` in plain float64 numpy, written independently of it.

Whole-array operations, with its own step schedule (the substep lengths are chosen here, from the
same rule stated in `engine.water.formulas`: (sqrt(g h_max) + |v|_max) dt / dx <= CFL and each cell's
outgoing face speeds times dt / dx <= 1), and no import from the kernel. The tests check the kernel
against it (float32 velocities there, float64 here); slow, never used to simulate.

Scheme (Stelling & Duinmeijer 2003; Kramer & Stelling 2008), per substep of length s:
  h -= s/dx div(q),  q = v (eta_upwind - max(b_l, b_r))^+
  v <- advected (momentum-conservative where the flow decelerates along itself, energy head where it
       accelerates; weights summed to at most 1) - g s/dx d(eta') + a s, eta' = max(eta, max(b_l, b_r)),
       zero on faces whose higher surface is not DRY above the higher bed; then implicit friction.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
CFL = 0.65
DRY = 1e-6
EPS_ETA = 1e-12
OPEN = 1


def _upwind_flux(v: F64, hl: F64, bl: F64, hr: F64, br: F64) -> F64:
    top = np.maximum(bl, br)
    depth = np.maximum(np.where(v > 0.0, bl + hl, br + hr) - top, 0.0)
    return np.where(v == 0.0, 0.0, v * depth)


def _side_inflow(v: F64, h_in: F64, b_in: F64, eta_out: float, inward: float) -> F64:
    vi = v * inward
    return np.where(vi > 0.0, vi * np.maximum(eta_out - b_in, 0.0), vi * h_in)


def _side_velocity(h_in: F64, b_in: F64, eta_out: float, g: float, outward: float) -> F64:
    return outward * 2.0 * (np.sqrt(g * h_in) - np.sqrt(g * np.maximum(eta_out - b_in, 0.0)))


def _advect(v, v_lo, v_hi, q_lo, q_hi, x_lo, x_hi, p_lo, p_hi, hbar, c):
    k = c / np.maximum(hbar, DRY)
    acc_up = (v > 0.0) & (v_lo < v)
    acc_down = (v < 0.0) & (v_hi > v)
    mom = ~(acc_up | acc_down)
    c_lo = np.where(acc_up, np.maximum(0.5 * c * (v + v_lo), 0.0), np.where(mom, k * np.maximum(q_lo, 0.0), 0.0))
    c_hi = np.where(acc_down, np.maximum(-0.5 * c * (v + v_hi), 0.0), np.where(mom, k * np.maximum(-q_hi, 0.0), 0.0))
    d_lo = k * np.maximum(p_lo, 0.0)
    d_hi = k * np.maximum(-p_hi, 0.0)
    total = c_lo + c_hi + d_lo + d_hi
    change = c_lo * (v_lo - v) + c_hi * (v_hi - v) + d_lo * (x_lo - v) + d_hi * (x_hi - v)
    change = np.where(total > 1.0, change * (1.0 / np.maximum(total, 1e-300)), change)
    new = v + change
    return np.where(hbar <= DRY, v, new)


def _friction(v, hf, s, g, nu, delta, manning):
    hf = np.maximum(hf, DRY)
    r = np.zeros_like(v)
    if nu > 0.0:
        r = r + nu / (hf * np.minimum(delta, hf / 3.0))
    if manning > 0.0:
        r = r + g * manning ** 2 * np.abs(v) / hf ** (4.0 / 3.0)
    return v / (1.0 + s * r)


def _face_velocity(v, v_lo, v_hi, q_lo, q_hi, x_lo, x_hi, p_lo, p_hi, hl, bl, hr, br, acc, lap, s, dx, g, fr):
    c = s / dx
    top = np.maximum(bl, br)
    hf = np.maximum(bl + hl, br + hr) - top
    adv = _advect(v, v_lo, v_hi, q_lo, q_hi, x_lo, x_hi, p_lo, p_hi, 0.5 * (hl + hr), c)
    d = np.maximum(br + hr, top) - np.maximum(bl + hl, top)
    d = np.where(np.abs(d) <= EPS_ETA, 0.0, d)
    nu, delta, manning, eddy = fr
    new = adv - g * c * d + acc * s + eddy * s / (dx * dx) * lap
    return np.where(hf <= DRY, 0.0, _friction(new, hf, s, g, nu, delta, manning))


def substep(h: F64, bed: F64, u: F64, w: F64, ax: F64, az: F64, sides, side_eta, dx: float, g: float, s: float,
            friction=(0.0, 1.0, 0.0, 0.0)) -> float:
    """One substep of s seconds in place; return the m^3 that came in through open sides."""
    nz, nx = h.shape
    c = s / dx
    qx = np.zeros((nz, nx + 1))
    qz = np.zeros((nz + 1, nx))
    qx[:, 1:-1] = _upwind_flux(u[:, 1:-1], h[:, :-1], bed[:, :-1], h[:, 1:], bed[:, 1:])
    qz[1:-1, :] = _upwind_flux(w[1:-1, :], h[:-1, :], bed[:-1, :], h[1:, :], bed[1:, :])
    if sides[0] == OPEN:
        qx[:, 0] = _side_inflow(u[:, 0], h[:, 0], bed[:, 0], side_eta[0], 1.0)
    if sides[1] == OPEN:
        qx[:, -1] = -_side_inflow(u[:, -1], h[:, -1], bed[:, -1], side_eta[1], -1.0)
    if sides[2] == OPEN:
        qz[0, :] = _side_inflow(w[0, :], h[0, :], bed[0, :], side_eta[2], 1.0)
    if sides[3] == OPEN:
        qz[-1, :] = -_side_inflow(w[-1, :], h[-1, :], bed[-1, :], side_eta[3], -1.0)
    inflow = (qx[:, 0].sum() - qx[:, -1].sum() + qz[0, :].sum() - qz[-1, :].sum()) * c * dx * dx
    h[...] = np.maximum(h - c * (qx[:, 1:] - qx[:, :-1] + qz[1:, :] - qz[:-1, :]), 0.0)
    # x faces 1..nx-1: along x, neighbours u[:, i -+ 1]; across z, u[k -+ 1] (itself at the walls)
    uc = u[:, 1:-1]
    us = np.vstack([uc[:1], uc[:-1]])
    un = np.vstack([uc[1:], uc[-1:]])
    qcx = 0.5 * (qx[:, :-1] + qx[:, 1:])                     # discharge at cell centres, (nz, nx)
    pz = 0.5 * (qz[:, :-1] + qz[:, 1:])                      # z discharge averaged onto x-face columns
    lap = u[:, :-2] + u[:, 2:] + us + un - 4.0 * uc
    new_u = _face_velocity(uc, u[:, :-2], u[:, 2:], qcx[:, :-1], qcx[:, 1:], us, un, pz[:-1], pz[1:],
                           h[:, :-1], bed[:, :-1], h[:, 1:], bed[:, 1:], ax[:, 1:-1], lap, s, dx, g, friction)
    wc = w[1:-1, :]
    ww = np.hstack([wc[:, :1], wc[:, :-1]])
    we = np.hstack([wc[:, 1:], wc[:, -1:]])
    qcz = 0.5 * (qz[:-1, :] + qz[1:, :])
    px = 0.5 * (qx[:-1, :] + qx[1:, :])                      # x discharge averaged onto z-face rows, (nz-1, nx+1)
    lap = w[:-2, :] + w[2:, :] + ww + we - 4.0 * wc
    new_w = _face_velocity(wc, w[:-2, :], w[2:, :], qcz[:-1, :], qcz[1:, :], ww, we, px[:, :-1], px[:, 1:],
                           h[:-1, :], bed[:-1, :], h[1:, :], bed[1:, :], az[1:-1, :], lap, s, dx, g, friction)
    u[:, 1:-1] = new_u
    w[1:-1, :] = new_w
    u[:, 0] = _side_velocity(h[:, 0], bed[:, 0], side_eta[0], g, -1.0) if sides[0] == OPEN else 0.0
    u[:, -1] = _side_velocity(h[:, -1], bed[:, -1], side_eta[1], g, 1.0) if sides[1] == OPEN else 0.0
    w[0, :] = _side_velocity(h[0, :], bed[0, :], side_eta[2], g, -1.0) if sides[2] == OPEN else 0.0
    w[-1, :] = _side_velocity(h[-1, :], bed[-1, :], side_eta[3], g, 1.0) if sides[3] == OPEN else 0.0
    return float(inflow)


def substep_length(h: F64, u: F64, w: F64, dx: float, g: float, remaining: float, cfl: float = CFL) -> float:
    """The next substep: the remaining time in equal parts within the CFL and positivity limits."""
    a = math.sqrt(g * float(h.max())) + max(float(np.abs(u).max()), float(np.abs(w).max()))
    out = float((np.maximum(u[:, 1:], 0.0) - np.minimum(u[:, :-1], 0.0)
                 + np.maximum(w[1:], 0.0) - np.minimum(w[:-1], 0.0)).max())
    limit = min(remaining, cfl * dx / a if a > 0.0 else math.inf, dx / out if out > 0.0 else math.inf)
    return remaining / max(1, math.ceil(remaining / limit - 1e-9))


def advance(h: F64, bed: F64, u: F64, w: F64, ax: F64, az: F64, sides, side_eta, dx: float, g: float, dt: float,
            friction=(0.0, 1.0, 0.0, 0.0)) -> tuple[int, float]:
    """One step of dt in place (ax, az cleared after it); return (substeps, m^3 in through open sides)."""
    t, n, bvol = 0.0, 0, 0.0
    while t < dt:
        s = substep_length(h, u, w, dx, g, dt - t)
        bvol += substep(h, bed, u, w, ax, az, sides, side_eta, dx, g, s, friction)
        n += 1
        t = dt if s == dt - t else t + s
    ax[...] = 0.0
    az[...] = 0.0
    return n, bvol
