"""What a textbook first-order Godunov-type scheme gives on the wet-bed radial dam break of
tests/physics/test_radial_dam_break.py, once the rarefaction has met itself at the centre.

Not part of the engine or the tests: a measurement that puts that case's "within 5%" bar in context
(docs/water.md). A 2-D finite-volume solver of the shallow-water equations on a flat, frictionless
bed, independent of engine.water:

    h_t + (h u)_x + (h w)_z = 0,
    (h u)_t + (h u^2 + g h^2 / 2)_x + (h u w)_z = 0,
    (h w)_t + (h u w)_x + (h w^2 + g h^2 / 2)_z = 0,

HLL fluxes on every face (wave speeds s_L = min(u_L - c_L, u_R - c_R), s_R = max(u_L + c_L, u_R + c_R)),
forward Euler, CFL 0.45, closed walls far from the wave. The set-up of the test's second case: a
column of radius 0.4 m and depth 0.5 m in water 0.1 m deep, t = 0.2 s; the error is the L1 of the
disturbance h - 0.1 along the half-axis from the centre, against the test's own 1-D radial
reference (imported from the test: it is not engine code).

Run: python docs/radial_godunov.py
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "physics"))
from test_radial_dam_break import radial_reference  # noqa: E402

G = 9.81


def hll(hl, hr, ml, mr, nl, nr):
    """HLL fluxes of (h, normal discharge, tangential discharge) across faces with left and right states."""
    ul, ur = ml / hl, mr / hr
    cl, cr = np.sqrt(G * hl), np.sqrt(G * hr)
    sl = np.minimum(np.minimum(ul - cl, ur - cr), 0.0)
    sr = np.maximum(np.maximum(ul + cl, ur + cr), 0.0)
    fl = np.stack([ml, ml * ul + 0.5 * G * hl ** 2, nl * ul])
    fr = np.stack([mr, mr * ur + 0.5 * G * hr ** 2, nr * ur])
    ql, qr = np.stack([hl, ml, nl]), np.stack([hr, mr, nr])
    return (sr * fl - sl * fr + sl * sr * (qr - ql)) / (sr - sl), float(max(-sl.min(), sr.max()))


def run(dx: float, r0: float, h0: float, h_out: float, t_end: float, side: float = 2.0):
    n = int(round(side / dx))
    x = (np.arange(n) + 0.5) * dx
    X, Z = np.meshgrid(x, x)
    r = np.hypot(X - side / 2, Z - side / 2)
    h = np.where(r < r0, h0, h_out)
    mx, mz = np.zeros_like(h), np.zeros_like(h)
    t = 0.0
    while t < t_end - 1e-12:
        fx, ax = hll(h[:, :-1], h[:, 1:], mx[:, :-1], mx[:, 1:], mz[:, :-1], mz[:, 1:])
        fz, az = hll(h[:-1], h[1:], mz[:-1], mz[1:], mx[:-1], mx[1:])
        dt = min(0.45 * dx / max(ax, az), t_end - t)
        c = dt / dx
        for q, fxi, fzi in ((h, fx[0], fz[0]), (mx, fx[1], fz[2]), (mz, fx[2], fz[1])):
            q[:, :-1] -= c * fxi
            q[:, 1:] += c * fxi
            q[:-1] -= c * fzi
            q[1:] += c * fzi
        t += dt
    m = n // 2
    return r[m, m:], h[m, m:]


def main() -> None:
    r0, h0, h_out, t = 0.4, 0.5, 0.1, 0.2
    r_ref, h_ref, _ = radial_reference(r0, h0, h_out, t, 2.5, 2500)
    print(f"radial dam break, wet bed: r0 {r0} m, h0 {h0} m, h_out {h_out} m, t {t} s")
    for dx in (0.04, 0.02, 0.01):
        dist, h = run(dx, r0, h0, h_out, t)
        exact = np.interp(dist, r_ref, h_ref)
        err = np.abs(h - exact).sum() / np.abs(exact - h_out).sum()
        print(f"  first-order HLL, dx {100 * dx:g} cm: L1 of the disturbance {err:.1%}, "
              f"centre {h[0]:.4f} m (reference {np.interp(dist[0], r_ref, h_ref):.4f} m)")


if __name__ == "__main__":
    main()
