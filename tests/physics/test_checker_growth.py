"""The 2-cell checker (the (pi, pi) mode of eta = b + h) in a bare pool does not grow.

Energy: with no forcing, the step's friction and eddy viscosity only take energy out. The forward-
backward step keeps, for the checker (amplitudes eta, U scaled to the same units, Courant number
r = c s / dx, a = 2 sqrt(2) r), the quadratic eta^2 + U^2 - a eta U rather than eta^2 + U^2, so a
checker seeded at rest may swing up to rms(0) / sqrt(1 - a^2 / 4) = rms(0) / sqrt(1 - 2 r^2)
(r <= CFL 0.65: 2.54 rms(0)) but never beyond; and the eddy viscosity nu_t damps its velocity at
gamma = 8 nu_t / dx^2 (the 5-point Laplacian on the checker), its amplitude at gamma / 2. This holds
only if the CFL substep count does not follow the checker's own speed swing up and down
(engine/water/params.py SLACK; docs/water.md, session 16): before it, a 30 mm checker in 0.5 m of
water at dx 1/32 (one substep at c dt / dx 0.59) grew to 50 mm rms in 2 s.

eta_c is measured with the 3 x 3 kernel [1 -2 1] x [1 -2 1] / 16 (response sin^2(k_x dx/2)
sin^2(k_z dx/2): 1 on the checker, 0 on anything constant along one axis), in numpy here.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine.water.grid import WaterGrid
from engine.water.params import CFL

DT = 1.0 / 120.0
N = 64


def _checker_rms(eta: np.ndarray) -> float:
    lx = eta[:, :-2] - 2.0 * eta[:, 1:-1] + eta[:, 2:]
    lxz = (lx[:-2] - 2.0 * lx[1:-1] + lx[2:]) / 16.0
    return float(np.sqrt((lxz ** 2).mean()))


def _pool(depth: float, amplitude: float, dx: float) -> WaterGrid:
    """A walled N x N pool of still water `depth` deep, a checker of +-amplitude on a disc of radius N/4
    in its middle; the level defaults' friction (laminar 1e-6 m^2/s, Manning 0.01, eddy 5e-4 m^2/s)."""
    k, i = np.mgrid[0:N, 0:N]
    disc = np.hypot(k - N / 2 + 0.5, i - N / 2 + 0.5) < N / 4
    h = depth + amplitude * np.where((k + i) % 2 == 0, 1.0, -1.0) * disc
    return WaterGrid(h=h, bed=np.zeros((N, N)), u=np.zeros((N, N + 1), np.float32),
                     w=np.zeros((N + 1, N), np.float32), dx=dx, viscosity=1e-6, manning=0.01,
                     eddy_viscosity=5e-4)


@pytest.mark.parametrize("depth, amplitude, dx", [
    (0.5, 0.030, 1 / 32),    # one substep at c dt / dx 0.59, two while the checker's speeds are up
    (0.5, 0.050, 1 / 32),
    (0.5, 0.080, 1 / 32),
    (0.5, 0.050, 1 / 64),    # two substeps, three while the speeds are up
    (0.2, 0.050, 1 / 32),
])
def test_checker_does_not_grow(depth, amplitude, dx):
    """Over 2 s: rms(eta_c)(t) <= rms(0) / sqrt(1 - 2 CFL^2) (the step's invariant), and over the
    last 0.5 s <= rms(0) (exp(-gamma 1.5 s / 2) / sqrt(1 - 2 CFL^2) + 1e-3) (damped by the eddy
    viscosity; 1e-3 for the patch's edge and the nonlinear terms); the volume is kept to round-off;
    and once the checker has died down the step takes the substeps still water of this depth
    needs, ceil(sqrt(g h) dt / dx / CFL) (the count falls back: no lasting cost)."""
    g = _pool(depth, amplitude, dx)
    start, v0 = _checker_rms(g.eta), g.volume()
    swing = 1.0 / np.sqrt(1.0 - 2.0 * CFL ** 2)
    gamma = 8.0 * g.eddy_viscosity / dx ** 2
    worst, late = 0.0, 0.0
    for n in range(1, 241):
        g.step(DT)
        rms = _checker_rms(g.eta)
        worst = max(worst, rms)
        if n > 180:
            late = max(late, rms)
    assert worst <= swing * start, f"the checker grew from {start * 1e3:.2f} to {worst * 1e3:.2f} mm rms"
    bound = start * (np.exp(-gamma * 1.5 / 2.0) * swing + 1e-3)
    assert late <= bound, f"the checker is {late * 1e3:.3f} mm rms after 1.5-2 s (bound {bound * 1e3:.3f} mm)"
    assert abs(g.volume() - v0) <= 1e-12 * v0
    still = int(np.ceil(np.sqrt(g.gravity * depth) * DT / dx / CFL))
    assert g.substeps == still
