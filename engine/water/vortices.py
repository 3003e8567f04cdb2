"""Vorticity confinement of the depth-averaged flow (Fedkiw, Stam & Jensen 2001; seed 002): keep the
eddies behind obstacles alive, which the scheme's numerical diffusion takes out.

With the vorticity omega_y = dw/dx - du/dz at cell centres and N = grad|omega_y| / |grad|omega_y||,

    f = eps dx omega_y (N_z, -N_x)                                              (3)

an acceleration added to the faces' ax, az, which the next shallow-water step applies. It turns the
velocity only, so it adds no volume.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

WET = 0.01   # m: cells shallower than this (or beside one) get no confinement force

Flow = namedtuple("Flow", "u w h")
"""What the force is computed from: u (nz, nx + 1), w (nz + 1, nx) face velocities (m/s), h depth (m)."""
Forces = namedtuple("Forces", "ax az om fx fz")
"""ax, az: the faces' accelerations (m/s^2), added to; om, fx, fz (nz, nx) float64: scratch."""


@njit(cache=True)
def confinement(flow, dx, eps, wet, out):
    """Add the vorticity-confinement acceleration (3) on the faces to out.ax, out.az; return how many
    cells have a force (0: nothing was added).

    omega_y and grad|omega_y| by central differences at interior cells; only cells with every
    neighbour deeper than `wet` (m) get a force, and a face gets the mean of its two cells'."""
    u, w, h = flow
    om, fx, fz = out.om, out.fx, out.fz
    nz, nx = h.shape
    for k in range(1, nz - 1):
        for i in range(1, nx - 1):
            wl = 0.5 * (w[k, i - 1] + w[k + 1, i - 1])
            wr = 0.5 * (w[k, i + 1] + w[k + 1, i + 1])
            ud = 0.5 * (u[k - 1, i] + u[k - 1, i + 1])
            uu = 0.5 * (u[k + 1, i] + u[k + 1, i + 1])
            om[k, i] = (wr - wl) / (2.0 * dx) - (uu - ud) / (2.0 * dx)
    forced = 0
    fx[:, :] = 0.0
    fz[:, :] = 0.0
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
    if forced:
        for k in range(nz):
            for i in range(1, nx):
                out.ax[k, i] += np.float32(0.5 * (fx[k, i - 1] + fx[k, i]))
        for k in range(1, nz):
            for i in range(nx):
                out.az[k, i] += np.float32(0.5 * (fz[k - 1, i] + fz[k, i]))
    return forced


class Confinement:
    """The confinement stage of one grid shape: its scratch arrays, allocated once."""

    def __init__(self, shape: tuple[int, int], eps: float) -> None:
        self.shape, self.eps = shape, float(eps)
        self._scratch = tuple(np.zeros(shape) for _ in range(3))

    def __call__(self, grid) -> int:
        """Add the force to grid.ax, grid.az; return how many cells have one."""
        return confinement(Flow(grid.u, grid.w, grid.h), float(grid.dx), self.eps, WET,
                           Forces(grid.ax, grid.az, *self._scratch))
