"""Pointwise formulas of the shallow-water scheme, each written once (numba, scalar in, scalar out).

The scheme (Stelling & Duinmeijer 2003, "A staggered conservative scheme for every Froude number in
rapidly varied shallow water flows"; in 2-D after Kramer & Stelling 2008) on the staggered grid:
depth h and bed b at cell centres, surface eta = b + h, velocity u on x faces and w on z faces.
One substep of length dt, with c = dt / dx, takes

  continuity (flux form, so volume is conserved to round-off):
      h_new = h - c (q_e - q_w + q_n - q_s),     q = v h*,
      h* = eta_upwind - max(b_left, b_right)   (>= 0; the upwind water above the face's higher bed),
  momentum (upwinded advection, then the surface gradient at the new depths):
      v_new = v + sum_n c_n (v_n - v)  -  g c (eta'_right - eta'_left)  +  a_ext dt  +  nu_t dt lap(v),
      eta' = max(eta, max(b_left, b_right)),
  then bottom friction, implicit: v_new /= 1 + dt (nu / (h_f delta_f) + g n^2 |v_new| / h_f^(4/3)).

The advection weights c_n (`advect`) are

  momentum-conservative, where the flow decelerates along itself (bores, hydraulic jumps):
      v du/dx = [ (q_R u*_R - q_L u*_L) - u (q_R - q_L) ] / (h_bar dx),
      q_L, q_R: discharge at the centres of the cells left and right of the face (mean of their
      two faces), u*: the velocity upwind of that centre (q-averaged upwind velocity), h_bar the mean
      depth of the two cells; the same in the cross direction with the cross discharge averaged onto
      the momentum cell's sides. Written out, each term is an upwind difference q (u_n - u) / h_bar dx,
  energy-head-conservative, where the flow accelerates along itself (contractions, rarefactions):
      v du/dx = (u_i^2 - u_upwind^2) / (2 dx),
and all weights together are scaled to sum to at most 1, so the advected velocity is a convex
combination of its neighbours (monotone; this binds only at thin fronts).

A face whose higher surface is not DRY above its higher bed carries no flow (v = 0): still water
beside a dry island stays still. Surface differences below EPS_ETA are round-off of b + h and push
nothing, so still water over any bed stays exactly still. The substep length keeps
(sqrt(g h_max) + |v|_max) c <= CFL and, per cell, (sum of outgoing face speeds) c <= 1: an upwind flux then
never takes more than a cell holds, so depths stay non-negative with no clipping of volume.
"""
from __future__ import annotations

import math

from numba import njit

DRY = 1e-6        # m: a face carries flow only where the higher surface is this far above the higher bed
EPS_ETA = 1e-12   # m: surface differences this small are the round-off of b + h (b, h below ~1 km)


@njit(cache=True, inline="always")
def face_depth(v, h_l, b_l, h_r, b_r):
    """Upwind flow depth h* at a face: the upwind cell's surface above the face's higher bed, m."""
    top = max(b_l, b_r)
    up = b_l + h_l if v > 0.0 else b_r + h_r
    return max(up - top, 0.0)


@njit(cache=True, inline="always")
def face_flux(v, h_l, b_l, h_r, b_r):
    """Discharge per unit width through a face, q = v h*, m^2/s."""
    if v == 0.0:
        return 0.0
    return v * face_depth(v, h_l, b_l, h_r, b_r)


@njit(cache=True, inline="always")
def flow_depth(h_l, b_l, h_r, b_r):
    """Water above a face's higher bed on its higher side, m: <= DRY means the face is dry."""
    return max(b_l + h_l, b_r + h_r) - max(b_l, b_r)


@njit(cache=True, inline="always")
def surface_step(h_l, b_l, h_r, b_r):
    """eta'_right - eta'_left with eta' = max(eta, higher bed): a dry cell above the other's surface
    does not pull water up, and water falls off a ledge by its own depth. Round-off is zero."""
    top = max(b_l, b_r)
    d = max(b_r + h_r, top) - max(b_l + h_l, top)
    if abs(d) <= EPS_ETA:
        return 0.0
    return d


@njit(cache=True, inline="always")
def advect(v, v_lo, v_hi, q_lo, q_hi, x_lo, x_hi, p_lo, p_hi, h_bar, c):
    """Advected face velocity (see the module docstring), c = dt / dx.

    Along the face's own axis: v_lo, v_hi the neighbouring faces (index - 1, + 1), q_lo, q_hi the
    discharges at the centres of the two cells the face lies between. Across: x_lo, x_hi the
    neighbouring parallel faces (pass v where there is none), p_lo, p_hi the cross discharge on the
    momentum cell's lower and upper sides.
    """
    k = c / max(h_bar, DRY)
    up = (v > 0.0) & (v_lo < v)       # accelerating along +: energy head, d(u^2/2)/dx upwind
    down = (v < 0.0) & (v_hi > v)     # accelerating along -
    mom = not (up or down)            # decelerating: momentum conservative
    c_lo = max(0.5 * c * (v + v_lo), 0.0) if up else (k * max(q_lo, 0.0) if mom else 0.0)
    c_hi = max(-0.5 * c * (v + v_hi), 0.0) if down else (k * max(-q_hi, 0.0) if mom else 0.0)
    d_lo = k * max(p_lo, 0.0)
    d_hi = k * max(-p_hi, 0.0)
    total = c_lo + c_hi + d_lo + d_hi
    change = c_lo * (v_lo - v) + c_hi * (v_hi - v) + d_lo * (x_lo - v) + d_hi * (x_hi - v)
    if total > 1.0:                   # only at thin fronts: scale the weights to sum to 1
        change *= 1.0 / total
    new = v + change
    return v if h_bar <= DRY else new


@njit(cache=True, inline="always")
def friction(v, h_f, dt, g, nu, delta, manning):
    """Bottom friction, implicit (never reverses v): v / (1 + dt r), with
    r = nu / (h_f delta_f) (laminar boundary layer of thickness delta_f = min(delta, h_f / 3): the
    oscillatory Stokes layer, or the steady Poiseuille profile in water thinner than it) plus
    g n^2 |v| / h_f^(4/3) (Manning, turbulent)."""
    r = 0.0
    if nu > 0.0:
        r += nu / (h_f * min(delta, h_f / 3.0))
    if manning > 0.0:
        r += g * manning * manning * abs(v) / h_f ** (4.0 / 3.0)
    if r > 0.0:
        return v / (1.0 + dt * r)
    return v


@njit(cache=True, inline="always")
def face_velocity(v, v_lo, v_hi, x_lo, x_hi, q_lo, q_hi, p_lo, p_hi, h_l, b_l, h_r, b_r, acc, g, dt, c, eddy_c):
    """The new velocity of an interior face between cells l and r (see `advect` for the neighbours
    and discharges): advected, pushed by the surface step and the external acceleration acc,
    diffused by the eddy viscosity (eddy_c = nu_t dt / dx^2 times the 5-point Laplacian); zero on a
    dry face. Bottom `friction` follows as a phase of its own."""
    v, v_lo, v_hi, x_lo, x_hi, acc = float(v), float(v_lo), float(v_hi), float(x_lo), float(x_hi), float(acc)
    h_f = flow_depth(h_l, b_l, h_r, b_r)
    adv = advect(v, v_lo, v_hi, q_lo, q_hi, x_lo, x_hi, p_lo, p_hi, 0.5 * (h_l + h_r), c)
    lap = v_lo + v_hi + x_lo + x_hi - 4.0 * v
    new = adv - g * c * surface_step(h_l, b_l, h_r, b_r) + acc * dt + eddy_c * lap
    return 0.0 if h_f <= DRY else new


@njit(cache=True, inline="always")
def open_velocity(h_in, b_in, eta_out, g, outward):
    """Face velocity of an open side: the incoming characteristic carries the outside state at rest,
    u_n = 2 (sqrt(g h_in) - sqrt(g h_out)) along the outward normal, h_out = max(eta_out - b, 0):
    a wave leaving the pool takes its own Riemann invariant out and little comes back."""
    h_out = max(eta_out - b_in, 0.0)
    return outward * 2.0 * (math.sqrt(g * h_in) - math.sqrt(g * h_out))


@njit(cache=True, inline="always")
def boundary_flux(vel, h_in, b_in, eta_out, inward):
    """Discharge into the pool through an open side, m^2/s: upwind, the outside depth coming in."""
    v = vel * inward
    if v > 0.0:
        return v * max(eta_out - b_in, 0.0)
    return v * h_in


@njit(cache=True, inline="always")
def cell_outflow(u_w, u_e, w_s, w_n):
    """Sum of a cell's outgoing face speeds, m/s (at most 4 |v|_max)."""
    return max(u_e, 0.0) - min(u_w, 0.0) + max(w_n, 0.0) - min(w_s, 0.0)


@njit(cache=True, inline="always")
def substep_length(remaining, a_max, out_max, dx, cfl):
    """(dt, n): the next substep's length, the remaining time split into n equal parts, each within
    the CFL limit cfl dx / a_max (a_max = sqrt(g h_max) + |v|_max) and the positivity limit
    dx / out_max."""
    limit = remaining
    if a_max > 0.0:
        limit = min(limit, cfl * dx / a_max)
    if out_max > 0.0:
        limit = min(limit, dx / out_max)
    n = max(1, int(math.ceil(remaining / limit - 1e-9)))
    return remaining / n, n
