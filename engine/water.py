"""The pool's water: a shallow-water height field on a staggered grid.

PLACEHOLDER scheme (issue 3 replaces the stepping with numba kernels); the API is final.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from engine.errors import SimulationError
from engine.levels.schema import Boundary, Level


@dataclass(slots=True)
class WaterGrid:
    """Shallow-water state of one pool. Arrays are (nz, nx), SI units, index [k, i] <-> (z, x).

    Cell (k, i) has its centre at ((i + 0.5) dx, (k + 0.5) dx).
    """
    h: NDArray[np.float64]        # depth above the bed, m, (nz, nx)
    bed: NDArray[np.float64]      # bed height, m, (nz, nx)
    u: NDArray[np.float64]        # x-face velocities, m/s, (nz, nx + 1)
    w: NDArray[np.float64]        # z-face velocities, m/s, (nz + 1, nx)
    dx: float
    gravity: float = 9.81
    boundary: Boundary = field(default_factory=Boundary)
    ax: NDArray[np.float64] = None  # type: ignore[assignment]  external acceleration on x faces, cleared each step
    az: NDArray[np.float64] = None  # type: ignore[assignment]  external acceleration on z faces, cleared each step
    source_volume: float = 0.0    # net m^3 added by explicit sources (add_volume, inflow, outflow)

    def __post_init__(self) -> None:
        if self.ax is None:
            self.ax = np.zeros_like(self.u)
        if self.az is None:
            self.az = np.zeros_like(self.w)

    @classmethod
    def from_level(cls, level: Level) -> "WaterGrid":
        nx, nz = level.pool.shape
        dx = level.pool.cell
        bed = np.zeros((nz, nx))
        x = (np.arange(nx) + 0.5) * dx
        z = (np.arange(nz) + 0.5) * dx
        X, Z = np.meshgrid(x, z)
        eta = np.full((nz, nx), level.water.level)
        for b in level.water.bumps:
            r = np.hypot(X - b.center[0], Z - b.center[1]) / b.radius
            eta += np.where(r < 1.0, b.height * 0.5 * (1.0 + np.cos(np.pi * np.minimum(r, 1.0))), 0.0)
        h = np.maximum(eta - bed, 0.0)
        return cls(h=h, bed=bed, u=np.zeros((nz, nx + 1)), w=np.zeros((nz + 1, nx)), dx=dx,
                   gravity=level.gravity, boundary=level.water.boundary)

    @property
    def shape(self) -> tuple[int, int]:
        return self.h.shape  # type: ignore[return-value]

    @property
    def eta(self) -> NDArray[np.float64]:
        """Surface height bed + h (a new array)."""
        return self.bed + self.h

    def volume(self) -> float:
        """Water in the pool, m^3."""
        return float(self.h.sum() * self.dx * self.dx)

    def velocity_at(self, x: float, z: float) -> tuple[float, float]:
        """Horizontal water velocity (u, w) at a point, bilinear from the faces, m/s."""
        nz, nx = self.shape
        fx = np.clip(x / self.dx, 0.0, nx)
        fz = np.clip(z / self.dx - 0.5, 0.0, nz - 1)
        u = _bilinear(self.u, fz, fx)
        fx2 = np.clip(x / self.dx - 0.5, 0.0, nx - 1)
        fz2 = np.clip(z / self.dx, 0.0, nz)
        w = _bilinear(self.w, fz2, fx2)
        return float(u), float(w)

    def add_volume(self, x: float, z: float, m3: float, radius: float | None = None) -> float:
        """Add (or, negative, remove) water near a point, spread smoothly over nearby cells.

        Returns the volume actually moved (removal stops where cells run dry).
        """
        nz, nx = self.shape
        r = max(radius if radius is not None else 2.0 * self.dx, self.dx)
        i0, i1 = max(0, int((x - r) / self.dx)), min(nx, int((x + r) / self.dx) + 1)
        k0, k1 = max(0, int((z - r) / self.dx)), min(nz, int((z + r) / self.dx) + 1)
        if i0 >= i1 or k0 >= k1:
            i = min(max(int(x / self.dx), 0), nx - 1)
            k = min(max(int(z / self.dx), 0), nz - 1)
            i0, i1, k0, k1 = i, i + 1, k, k + 1
        xs = (np.arange(i0, i1) + 0.5) * self.dx
        zs = (np.arange(k0, k1) + 0.5) * self.dx
        d = np.hypot(xs[None, :] - x, zs[:, None] - z) / r
        wgt = np.maximum(1.0 - d, 0.0) + 1e-12
        if m3 < 0.0:
            wgt = wgt * (self.h[k0:k1, i0:i1] > 0)
            if wgt.sum() == 0.0:
                return 0.0
        dh = m3 * wgt / (wgt.sum() * self.dx * self.dx)
        block = self.h[k0:k1, i0:i1]
        new = np.maximum(block + dh, 0.0)
        moved = float((new - block).sum() * self.dx * self.dx)
        block[...] = new
        self.source_volume += moved
        return moved

    def step(self, dt: float, time: float = 0.0) -> None:
        """Advance by dt (placeholder: linearised, no advection)."""
        g, dx = self.gravity, self.dx
        eta = self.bed + self.h
        self.u[:, 1:-1] += dt * (-g * (eta[:, 1:] - eta[:, :-1]) / dx + self.ax[:, 1:-1])
        self.w[1:-1, :] += dt * (-g * (eta[1:, :] - eta[:-1, :]) / dx + self.az[1:-1, :])
        hu = np.where(self.u[:, 1:-1] > 0, self.h[:, :-1], self.h[:, 1:]) * self.u[:, 1:-1]
        hw = np.where(self.w[1:-1, :] > 0, self.h[:-1, :], self.h[1:, :]) * self.w[1:-1, :]
        div = np.zeros_like(self.h)
        div[:, :-1] += hu
        div[:, 1:] -= hu
        div[:-1, :] += hw
        div[1:, :] -= hw
        self.h -= dt * div / dx
        self.ax[...] = 0.0
        self.az[...] = 0.0
        if not np.isfinite(self.h).all():
            k, i = np.argwhere(~np.isfinite(self.h))[0]
            raise SimulationError(f"water depth became NaN at cell (k={k}, i={i}) at t={time:.4f} s")


def _bilinear(a: NDArray, fk: float, fi: float) -> float:
    nk, ni = a.shape
    k0 = int(min(max(np.floor(fk), 0), nk - 1)); i0 = int(min(max(np.floor(fi), 0), ni - 1))
    k1 = min(k0 + 1, nk - 1); i1 = min(i0 + 1, ni - 1)
    tk = fk - k0; ti = fi - i0
    return ((1 - tk) * ((1 - ti) * a[k0, i0] + ti * a[k0, i1]) + tk * ((1 - ti) * a[k1, i0] + ti * a[k1, i1]))
