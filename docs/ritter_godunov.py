"""What a textbook Godunov-type scheme gives on the Ritter test of tests/physics/test_dam_break.py.

Not part of the engine or the tests: a measurement that puts the "front within 5%" bar in context
(docs/water.md). A 1-D finite-volume solver of the shallow-water equations on a flat, frictionless
bed, independent of engine.water:

    h_t + (h u)_x = 0,    (h u)_t + (h u^2 + g h^2 / 2)_x = 0,

HLL fluxes with the dry-bed wave speeds (Toro 2001: s_L = u_L - c_L, s_R = u_L + 2 c_L when the
right state is dry, and the mirror case), reflective ends, either first order (forward Euler) or
second order (minmod-limited linear h and u, Heun's method), CFL 0.45. The same set-up as the test:
h0 = 1 m for x < 4.5 m in a 14 m channel, t = 1.2 s, front = the furthest cell deeper than 1 mm,
error relative to 2 sqrt(g h0) t; L1 of the depth against Ritter's profile.

Run: python docs/ritter_godunov.py
"""
from __future__ import annotations

import math

import numpy as np

G = 9.81
WET = 1e-10   # m: thinner cells carry no momentum


def minmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(a * b > 0.0, np.sign(a) * np.minimum(np.abs(a), np.abs(b)), 0.0)


def hll(h_l, u_l, h_r, u_r):
    """HLL flux (mass, momentum) between left and right states; dry sides by the dry-bed speeds."""
    c_l, c_r = np.sqrt(G * h_l), np.sqrt(G * h_r)
    s_l = np.minimum(u_l - c_l, u_r - c_r)
    s_r = np.maximum(u_l + c_l, u_r + c_r)
    s_l = np.where(h_l <= 0.0, u_r - 2.0 * c_r, np.where(h_r <= 0.0, u_l - c_l, s_l))
    s_r = np.where(h_r <= 0.0, u_l + 2.0 * c_l, np.where(h_l <= 0.0, u_r + c_r, s_r))
    f_l = np.stack([h_l * u_l, h_l * u_l * u_l + 0.5 * G * h_l * h_l])
    f_r = np.stack([h_r * u_r, h_r * u_r * u_r + 0.5 * G * h_r * h_r])
    q_l, q_r = np.stack([h_l, h_l * u_l]), np.stack([h_r, h_r * u_r])
    width = np.where(s_r - s_l > 0.0, s_r - s_l, 1.0)
    star = (s_r * f_l - s_l * f_r + s_l * s_r * (q_r - q_l)) / width
    return np.where(s_l >= 0.0, f_l, np.where(s_r <= 0.0, f_r, star))


def velocity(h, m):
    return np.where(h > WET, m / np.maximum(h, WET), 0.0)


def tendency(h, m, dx, order):
    u = velocity(h, m)
    hp = np.concatenate([[h[0]], h, [h[-1]]])          # mirror cells: reflective walls
    up = np.concatenate([[-u[0]], u, [-u[-1]]])
    if order == 2:
        dh = np.concatenate([[0.0], minmod(hp[1:-1] - hp[:-2], hp[2:] - hp[1:-1]), [0.0]])
        du = np.concatenate([[0.0], minmod(up[1:-1] - up[:-2], up[2:] - up[1:-1]), [0.0]])
        h_l, h_r = hp[:-1] + 0.5 * dh[:-1], hp[1:] - 0.5 * dh[1:]
        u_l = np.where(h_l > WET, up[:-1] + 0.5 * du[:-1], 0.0)
        u_r = np.where(h_r > WET, up[1:] - 0.5 * du[1:], 0.0)
    else:
        h_l, u_l, h_r, u_r = hp[:-1], up[:-1], hp[1:], up[1:]
    f = hll(h_l, u_l, h_r, u_r)
    return -(f[0, 1:] - f[0, :-1]) / dx, -(f[1, 1:] - f[1, :-1]) / dx


def ritter_front(dx: float, order: int, cfl: float = 0.45) -> tuple[float, float]:
    length, x0, h0, t_end = 14.0, 4.5, 1.0, 1.2
    x = (np.arange(round(length / dx)) + 0.5) * dx
    h, m = np.where(x < x0, h0, 0.0), np.zeros_like(x)
    t = 0.0
    while t < t_end - 1e-12:
        a = (np.abs(velocity(h, m)) + np.sqrt(G * h)).max()
        dt = min(cfl * dx / a, t_end - t)
        dh, dm = tendency(h, m, dx, order)
        h1, m1 = np.maximum(h + dt * dh, 0.0), m + dt * dm
        m1 = np.where(h1 > WET, m1, 0.0)
        if order == 2:
            dh2, dm2 = tendency(h1, m1, dx, order)
            h1, m1 = np.maximum(0.5 * (h + h1 + dt * dh2), 0.0), 0.5 * (m + m1 + dt * dm2)
            m1 = np.where(h1 > WET, m1, 0.0)
        h, m, t = h1, m1, t + dt
    c0 = math.sqrt(G * h0)
    front = x[np.nonzero(h > 1e-3)[0].max()] + 0.5 * dx
    xi = (x - x0) / (2.0 * t_end)
    exact = np.where(x <= x0 - c0 * t_end, h0,
                     np.where(x >= x0 + 2 * c0 * t_end, 0.0, (4.0 / (9.0 * G)) * (c0 - xi) ** 2))
    return (front - x0) / (2.0 * c0 * t_end) - 1.0, float(np.abs(h - exact).sum() / exact.sum())


if __name__ == "__main__":
    for order in (1, 2):
        for dx in (0.1, 0.05, 0.025):
            front, l1 = ritter_front(dx, order)
            print(f"order {order}  dx {dx:5.3f} m   1 mm front {front:+.1%} of 2 c0 t   L1 {l1:.2%}")
