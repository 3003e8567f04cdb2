"""Radial dam breaks: a column of water released in the middle of the pool.

Dry bed: the flow has no preferred direction, so the front (the furthest cell deeper than 1 mm)
must run as far along the diagonal as along the axes, within 5%: a circle, not a square.

Wet bed: the 2-D solution along an axis must match the 1-D radial shallow-water equations
(cylindrical symmetry, r the distance from the centre):

    h_t + (h u)_r = -h u / r
    (h u)_t + (h u^2 + g h^2 / 2)_r = -h u^2 / r

solved here on a 40x finer grid by an independent finite-volume scheme (Rusanov fluxes, MUSCL
minmod reconstruction, Heun time stepping), within 5% in L1 of the disturbance h - h_ambient.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.water import WaterGrid

G = 9.81
DT = 1.0 / 120.0


def column(n: int, dx: float, r0: float, h0: float, h_out: float) -> tuple[WaterGrid, np.ndarray]:
    """An n x n pool with a column of radius r0, depth h0, centred on the pool's middle (a cell corner)."""
    x = (np.arange(n) + 0.5) * dx
    X, Z = np.meshgrid(x, x)
    r = np.hypot(X - n * dx / 2, Z - n * dx / 2)
    h = np.where(r < r0, h0, h_out)
    grid = WaterGrid(h=h, bed=np.zeros((n, n)), u=np.zeros((n, n + 1)), w=np.zeros((n + 1, n)), dx=dx, gravity=G)
    return grid, r


def test_dry_bed_front_is_a_circle():
    n, dx = 200, 0.02
    grid, r = column(n, dx, 0.5, 0.5, 0.0)
    steps = 36                                           # t = 0.3 s: the front stays clear of the walls
    for _ in range(steps):
        grid.step(DT)
    wet = grid.h > 1e-3
    c = n // 2
    axis = max(r[c, c:][wet[c, c:]].max(), r[c:, c][wet[c:, c]].max(),
               r[c, :c][wet[c, :c]].max(), r[:c, c][wet[:c, c]].max())
    j = np.arange(n)
    diagonal = max(r[j, j][wet[j, j]].max(), r[j, n - 1 - j][wet[j, n - 1 - j]].max())
    assert axis < n * dx / 2 - 2 * dx                   # not at the wall yet
    assert axis > 0.5 + 0.5 * 2 * math.sqrt(G * 0.5) * steps * DT    # and it did run
    assert abs(diagonal - axis) / axis < 0.05, f"diagonal {diagonal:.3f} m vs axis {axis:.3f} m"


def radial_reference(r0: float, h0: float, h_out: float, t_end: float, length: float, cells: int):
    """The 1-D radial shallow-water solution at t_end: (r, h) at cell centres."""
    dr = length / cells
    r = (np.arange(cells) + 0.5) * dr
    h = np.where(r < r0, h0, h_out)
    m = np.zeros(cells)                                  # discharge h u
    faces = np.arange(cells + 1) * dr

    def minmod(a, b):
        return np.where(a * b > 0.0, np.sign(a) * np.minimum(np.abs(a), np.abs(b)), 0.0)

    def rate(h, m):
        # reflect at r = 0 (symmetry) and hold the far end still
        hp = np.concatenate(([h[1], h[0]], h, [h[-1], h[-1]]))
        mp = np.concatenate(([-m[1], -m[0]], m, [0.0, 0.0]))
        sh = minmod(hp[1:-1] - hp[:-2], hp[2:] - hp[1:-1])
        sm = minmod(mp[1:-1] - mp[:-2], mp[2:] - mp[1:-1])
        hl, hr = hp[1:-2] + 0.5 * sh[:-1], hp[2:-1] - 0.5 * sh[1:]
        ml, mr = mp[1:-2] + 0.5 * sm[:-1], mp[2:-1] - 0.5 * sm[1:]
        ul, ur = ml / hl, mr / hr
        a = np.maximum(np.abs(ul) + np.sqrt(G * hl), np.abs(ur) + np.sqrt(G * hr))
        fh = 0.5 * (ml + mr) - 0.5 * a * (hr - hl)
        fm = 0.5 * (ml * ul + 0.5 * G * hl ** 2 + mr * ur + 0.5 * G * hr ** 2) - 0.5 * a * (mr - ml)
        u = m / h
        dh = -(fh[1:] - fh[:-1]) / dr - m / r
        dm = -(fm[1:] - fm[:-1]) / dr - m * u / r
        return dh, dm, float(a.max())

    t = 0.0
    while t < t_end:
        dh, dm, a = rate(h, m)
        s = min(0.4 * dr / a, t_end - t)
        h1, m1 = h + s * dh, m + s * dm
        dh1, dm1, _ = rate(h1, m1)
        h, m = h + 0.5 * s * (dh + dh1), m + 0.5 * s * (dm + dm1)
        t += s
    return r, h, faces


def wet_bed_error(n: int, dx: float, r0: float = 0.6, h0: float = 0.5, h_out: float = 0.1, steps: int = 24) -> float:
    """Largest L1 error of the disturbance along the four half-axes after `steps` (24: t = 0.2 s), relative."""
    grid, r = column(n, dx, r0, h0, h_out)
    for _ in range(steps):
        grid.step(DT)
    r_ref, h_ref, _ = radial_reference(r0, h0, h_out, steps * DT, 2.5, 2500)
    c = n // 2
    dist = r[c, c:]
    exact = np.interp(dist, r_ref, h_ref)
    assert np.abs(exact - h_out)[dist > r0 + 0.3].max() > 0.02      # the wave has run out past the dam
    assert dist.max() > r_ref[np.abs(h_ref - h_out) > 1e-6].max()    # and not yet out of the pool
    rows = [grid.h[c, c:], grid.h[c:, c], grid.h[c - 1, :c][::-1], grid.h[:c, c - 1][::-1]]
    return max(float(np.abs(h - exact).sum() / np.abs(exact - h_out).sum()) for h in rows)


def test_wet_bed_radial_dam_break_matches_the_1d_radial_solution():
    coarse = wet_bed_error(100, 0.04)
    fine = wet_bed_error(200, 0.02)
    assert fine < 0.05, f"L1 of the disturbance off by {fine:.1%}"
    assert fine < coarse                                 # converging under refinement


@pytest.mark.xfail(strict=True, reason="known shortfall (issue 26): once the rarefaction has met itself at the centre "
                                       "(t > r0 / sqrt(g h0)) the centre drains early: 9.4% at dx = 2 cm, 6.1% at 1 cm "
                                       "(first-order accuracy at the rarefaction's head; docs/water.md)")
def test_wet_bed_radial_dam_break_after_the_rarefaction_meets_at_the_centre():
    """The same as above with a column of radius 0.4 m: at t = 0.2 s the rarefaction, at sqrt(g h0)
    = 2.21 m/s, has reached the centre (0.18 s) and the centre is draining."""
    fine = wet_bed_error(200, 0.02, r0=0.4)
    assert fine < 0.05, f"L1 of the disturbance off by {fine:.1%}"
