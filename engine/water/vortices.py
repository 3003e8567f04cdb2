"""Vorticity confinement of the depth-averaged flow (Fedkiw, Stam & Jensen 2001; seed 002): keep the
eddies behind obstacles alive, which the scheme's numerical diffusion takes out.

With the vorticity omega_y = dw/dx - du/dz at cell centres and N = grad|omega_y| / |grad|omega_y||,

    f = eps dx omega_y (N_z, -N_x)                                              (3)

an acceleration added to the faces' ax, az, which the next shallow-water step applies. It turns the
velocity only, so it adds no volume.

One pass over the rows: omega_y in a rolling window of three rows, the force of one row, its faces.
A block of rows [k0, k1) also computes the force of row k0 - 1 (the z faces of row k0 need it) but
adds only its own rows' faces, so every face is added once, with the same operands, however the
rows are cut into blocks: `confinement` (one block) and `confinement_threads` (a block per numba
thread) give the same bits. Where omega_y is 0 in all three rows of the window the row's force is 0
and its cells are skipped; a face whose force is 0 is left as it is (so nothing at all is added
when no cell has a force). ax, az hold no -0.0 (the step clears them to +0.0; forces are added to
them), so leaving a face is the same as adding a zero force to it.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numba
import numpy as np
from numba import njit, prange

WET = 0.01   # m: cells shallower than this (or beside one) get no confinement force

Flow = namedtuple("Flow", "u w h")
"""What the force is computed from: u (nz, nx + 1), w (nz + 1, nx) face velocities (m/s), h depth (m)."""
Forces = namedtuple("Forces", "ax az")
"""The faces' accelerations (m/s^2), float32, added to."""


# The row loops run j over range(m) on slices shifted to each operand's offset: an index that
# starts at 0 lets LLVM drop numba's negative-index wraparound and vectorize the loop.


@njit(cache=True, error_model="numpy")
def _omega_row(u, w, dx, k, om):
    """om[i] = omega_y at cell (k, i), 1 <= i <= nx - 2, by central differences; om[0], om[nx - 1]
    are left as they are. Returns how many of them are not 0. (error_model "numpy": dx > 0.)"""
    wl0, wl1, wr0, wr1 = w[k, :], w[k + 1, :], w[k, 2:], w[k + 1, 2:]
    ud0, ud1, uu0, uu1 = u[k - 1, 1:], u[k - 1, 2:], u[k + 1, 1:], u[k + 1, 2:]
    out = om[1:]
    live = 0
    for j in range(om.shape[0] - 2):
        wl = 0.5 * (wl0[j] + wl1[j])
        wr = 0.5 * (wr0[j] + wr1[j])
        ud = 0.5 * (ud0[j] + ud1[j])
        uu = 0.5 * (uu0[j] + uu1[j])
        o = (wr - wl) / (2.0 * dx) - (uu - ud) / (2.0 * dx)
        out[j] = o
        live += o != 0.0
    return live


@njit(cache=True, error_model="numpy")
def _force_row(h, k, dx, eps, wet, oms, omc, omn, fx, fz):
    """fx[i], fz[i] = force (3) at cell (k, i), 2 <= i <= nx - 3, from omega_y of rows k - 1, k,
    k + 1; 0 where the cell or a neighbour is not deeper than `wet`. Returns how many cells have a
    force (a component not 0). (error_model "numpy": dx > 0 and norm >= 1e-20 or NaN.)"""
    hc, hw, he, hs, hn = h[k, 2:], h[k, 1:], h[k, 3:], h[k - 1, 2:], h[k + 1, 2:]
    oc, ow, oe, os, on = omc[2:], omc[1:], omc[3:], oms[2:], omn[2:]
    x, z = fx[2:], fz[2:]
    forced = 0
    for j in range(h.shape[1] - 4):
        dry = (hc[j] <= wet) | (hw[j] <= wet) | (he[j] <= wet) | (hs[j] <= wet) | (hn[j] <= wet)
        gx = (abs(oe[j]) - abs(ow[j])) / (2.0 * dx)
        gz = (abs(on[j]) - abs(os[j])) / (2.0 * dx)
        norm = math.sqrt(gx * gx + gz * gz) + 1e-20
        a = 0.0 if dry else eps * dx * oc[j] * (gz / norm)
        b = 0.0 if dry else -eps * dx * oc[j] * (gx / norm)
        x[j] = a
        z[j] = b
        forced += (a != 0.0) | (b != 0.0)
    return forced


@njit(cache=True)
def _add_faces(acc, left, right):
    """acc[j] += float32(0.5 (left[j] + right[j])) where that is not 0."""
    for j in range(acc.shape[0]):
        v = np.float32(0.5 * (left[j] + right[j]))
        a = acc[j]
        acc[j] = a + v if v != 0.0 else a


@njit(cache=True)
def _block(flow, dx, eps, wet, out, k0, k1):
    """Add the faces of rows k0 <= k < k1 (ax[k, :], az[k, :]) to out; return how many of these
    rows' cells have a force. Forces are 0 outside rows and columns 2 .. n - 3."""
    u, w, h = flow
    nz, nx = h.shape
    om = np.zeros((3, nx))                # omega_y of row j in om[j % 3]
    live = np.zeros(3, np.int64)          # its count of cells not 0
    fx = np.zeros(nx)
    fz = np.zeros((2, nx))                # fz of row j in fz[j % 2]
    lo, hi = max(2, k0 - 1), min(nz - 3, k1 - 1)     # the force rows worth computing
    top = lo - 2                          # the last omega_y row computed
    forced = 0
    was = False                           # row k - 1's force was computed (else fz of it is 0)
    for k in range(max(k0 - 1, 0), k1):
        on = False
        if lo <= k <= hi:
            while top < k + 1:
                top += 1
                live[top % 3] = _omega_row(u, w, dx, top, om[top % 3])
            on = live[0] + live[1] + live[2] > 0
        fzk = fz[k % 2]
        if on:
            n = _force_row(h, k, dx, eps, wet, om[(k - 1) % 3], om[k % 3], om[(k + 1) % 3], fx, fzk)
            if k >= k0:
                forced += n
        else:
            fzk[:] = 0.0
        if k >= k0:
            if on:
                _add_faces(out.ax[k, 1:nx], fx[:nx - 1], fx[1:])
            if (on or was) and k >= 1:
                _add_faces(out.az[k], fz[(k - 1) % 2], fzk)
        was = on
    return forced


@njit(cache=True)
def confinement(flow, dx, eps, wet, out):
    """Add the vorticity-confinement acceleration (3) on the faces to out.ax, out.az; return how many
    cells have a force (0: nothing was added).

    omega_y and grad|omega_y| by central differences at interior cells; only cells with every
    neighbour deeper than `wet` (m) get a force, and a face gets the mean of its two cells' (float64,
    rounded once to float32)."""
    return _block(flow, dx, eps, wet, out, 0, flow.h.shape[0])


@njit(cache=True, parallel=True)
def confinement_threads(flow, dx, eps, wet, out, threads):
    """`confinement` on `threads` of numba's threads: a block of rows each, the same bits."""
    nz = flow.h.shape[0]
    nb = max(1, min(threads, nz // 8))
    counts = np.zeros(nb, np.int64)
    for b in prange(nb):
        counts[b] = _block(flow, dx, eps, wet, out, b * nz // nb, (b + 1) * nz // nb)
    return counts.sum()


class Confinement:
    """The confinement stage of one grid shape."""

    def __init__(self, shape: tuple[int, int], eps: float) -> None:
        self.shape, self.eps = shape, float(eps)

    def __call__(self, grid, threaded: bool = False) -> int:
        """Add the force to grid.ax, grid.az; return how many cells have one. `threaded`: on numba's
        threads (where the shallow-water step runs on them too: waking sleeping workers for this
        pass alone costs more than it saves)."""
        flow, out = Flow(grid.u, grid.w, grid.h), Forces(grid.ax, grid.az)
        if threaded:
            return int(confinement_threads(flow, float(grid.dx), self.eps, WET, out, numba.get_num_threads()))
        return int(confinement(flow, float(grid.dx), self.eps, WET, out))
