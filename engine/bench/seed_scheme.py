"""The seed's shallow-water scheme (semi-Lagrangian advection + upwind flux gravity substeps, the
scheme this project started from), written plainly in numba: float64, one loop nest per phase,
serial, reflective walls. It is the bench's reference column for the water step, timed in the
same run as `engine.water` (never used to simulate).

Per step: n gravity substeps of s = dt / n, (sqrt(g h_max) + v_max) s / dx <= 0.66 and
v_max s / dx <= 0.2, and m advection parts (v_max dt / (m dx) <= 1) spread among them:
  advection: v(x) <- v(x - v s) (bilinear gather at the backtraced point);
  substep:   h -= s/dx div(v h_upwind);  v -= g s/dx d(eta'), |v| s/dx <= 0.25.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

CFL, FLOW_CFL, CLAMP, DRY = 0.66, 0.2, 0.25, 1e-6


@njit(cache=True)
def _sample(a, fk, fi):
    nk, ni = a.shape
    fk = min(max(fk, 0.0), nk - 1.0)
    fi = min(max(fi, 0.0), ni - 1.0)
    k0 = min(int(fk), nk - 2)
    i0 = min(int(fi), ni - 2)
    tk, ti = fk - k0, fi - i0
    return ((1 - tk) * ((1 - ti) * a[k0, i0] + ti * a[k0, i0 + 1])
            + tk * ((1 - ti) * a[k0 + 1, i0] + ti * a[k0 + 1, i0 + 1]))


@njit(cache=True)
def advect(u, w, un, wn, c):
    """Semi-Lagrangian advection of u, w by c = s / dx cells per m/s, into un, wn."""
    nz, nx1 = u.shape
    nx = nx1 - 1
    for k in range(nz):
        for i in range(1, nx):
            wbar = 0.25 * (w[k, i - 1] + w[k, i] + w[k + 1, i - 1] + w[k + 1, i])
            un[k, i] = _sample(u, k - min(max(wbar * c, -1.0), 1.0), i - min(max(u[k, i] * c, -1.0), 1.0))
    for k in range(1, nz):
        for i in range(nx):
            ubar = 0.25 * (u[k - 1, i] + u[k - 1, i + 1] + u[k, i] + u[k, i + 1])
            wn[k, i] = _sample(w, k - min(max(w[k, i] * c, -1.0), 1.0), i - min(max(ubar * c, -1.0), 1.0))
    for k in range(nz):
        for i in range(1, nx):
            u[k, i] = un[k, i]
    for k in range(1, nz):
        for i in range(nx):
            w[k, i] = wn[k, i]


@njit(cache=True)
def gravity(h, bed, u, w, hn, g, c, vcap):
    """One gravity substep: upwind flux update of h, then the surface gradient on u, w."""
    nz, nx = h.shape
    for k in range(nz):
        for i in range(nx):
            div = 0.0
            for side in range(4):
                if side == 0:
                    if i == 0:
                        continue
                    v, kl, il, kr, ir, sgn = u[k, i], k, i - 1, k, i, 1.0
                elif side == 1:
                    if i == nx - 1:
                        continue
                    v, kl, il, kr, ir, sgn = u[k, i + 1], k, i, k, i + 1, -1.0
                elif side == 2:
                    if k == 0:
                        continue
                    v, kl, il, kr, ir, sgn = w[k, i], k - 1, i, k, i, 1.0
                else:
                    if k == nz - 1:
                        continue
                    v, kl, il, kr, ir, sgn = w[k + 1, i], k, i, k + 1, i, -1.0
                hl, hr = h[kl, il], h[kr, ir]
                bl, br = bed[kl, il], bed[kr, ir]
                open_face = max(bl + hl, br + hr) > max(bl, br) + DRY
                if open_face:
                    div += sgn * v * (hl if v > 0.0 else hr)
            hn[k, i] = max(h[k, i] + c * div, 0.0)
    for k in range(nz):
        for i in range(nx):
            h[k, i] = hn[k, i]
    for k in range(nz):
        for i in range(1, nx):
            u[k, i] = _accelerate(u[k, i], h[k, i - 1], bed[k, i - 1], h[k, i], bed[k, i], g, c, vcap)
    for k in range(1, nz):
        for i in range(nx):
            w[k, i] = _accelerate(w[k, i], h[k - 1, i], bed[k - 1, i], h[k, i], bed[k, i], g, c, vcap)


@njit(cache=True)
def _accelerate(v, hl, bl, hr, br, g, c, vcap):
    top = max(bl, br)
    el, er = bl + hl, br + hr
    if max(el, er) <= top + DRY:
        return 0.0
    v = v - g * c * (max(er, top) - max(el, top))
    return min(max(v, -vcap), vcap)


@njit(cache=True)
def advance(h, bed, u, w, un, wn, hn, dx, g, dt):
    """One step of dt; returns the gravity substeps taken."""
    vmax = max(np.abs(u).max(), np.abs(w).max())
    speed = math.sqrt(g * h.max()) + vmax
    s = dt
    if speed > 0.0:
        s = min(s, CFL * dx / speed)
    if vmax > 0.0:
        s = min(s, FLOW_CFL * dx / vmax)
    n = max(1, int(math.ceil(dt / s * (1.0 - 1e-12))))
    m = max(1, int(math.ceil(vmax * dt / dx * (1.0 - 1e-12))))
    done = 0
    for p in range(m):
        stop = (p * n + m - 1) // m          # substeps before advection part p
        while done < stop:
            gravity(h, bed, u, w, hn, g, dt / n / dx, CLAMP * dx / (dt / n))
            done += 1
        advect(u, w, un, wn, dt / m / dx)
    while done < n:
        gravity(h, bed, u, w, hn, g, dt / n / dx, CLAMP * dx / (dt / n))
        done += 1
    return n
