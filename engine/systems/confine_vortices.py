"""Vorticity confinement of the depth-averaged flow: keep the eddies behind obstacles alive."""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from engine.components import WaterGrid
from engine.kernels import dispersion as dk

WET = 0.01   # m: cells shallower than this (or beside one) get no confinement force


def confine(grid: WaterGrid, eps: float, scratch: dict[tuple[int, int], tuple[NDArray, NDArray]]) -> None:
    """Add the vorticity-confinement acceleration f = eps dx omega (N_z, -N_x) (Fedkiw, Stam & Jensen
    2001; engine.kernels.dispersion.confinement) to the grid's face accelerations, which its next step
    applies. It turns the velocity only, so it adds no volume. `scratch` keeps the face buffers per
    grid shape. The arrays are taken from the grid only when there is a force (a calm pool's arrays
    stay untouched, see water._Live)."""
    nz, nx = grid.shape
    fx, fz = scratch.setdefault((nz, nx), (np.zeros((nz, nx + 1), np.float32), np.zeros((nz + 1, nx), np.float32)))
    if dk.confinement(grid.read("u"), grid.read("w"), grid.read("h"), float(grid.dx), float(eps), WET, fx, fz):
        grid.ax[...] += fx
        grid.az[...] += fz
