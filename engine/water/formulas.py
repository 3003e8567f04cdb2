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
  then bottom friction, implicit, on each face as its row is done (`friction`):
      v_new /= 1 + dt (nu / (h_f delta_f) + g n^2 |v_new| / h_f^(4/3)).

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
never takes more than a cell holds, so depths stay non-negative with no clipping of volume. A step
takes fewer substeps than the last one only where the speeds fit the lower count with a margin
(`substep_count`).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

from engine.water.params import SLACK

DRY = 1e-6        # m: a face carries flow only where the higher surface is this far above the higher bed
EPS_ETA = 1e-12   # m: surface differences this small are the round-off of b + h (b, h below ~1 km)

# float32 constants of `friction` (float32 throughout: the same arithmetic in numba and in numpy)
DRY32 = np.float32(DRY)
ONE32, THIRD32, FOUR_THIRDS32 = np.float32(1.0), np.float32(1.0 / 3.0), np.float32(4.0 / 3.0)
CBRT_MAGIC = 0x54A232A4   # float32 bits: CBRT_MAGIC - bits(x) / 3 ~ bits(x^(-1/3)) to 3.5 % (`inv_cbrt`)


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


def float32_bits(x):
    """The bit pattern of the float32 x, as an int32 (jitted: one register bitcast)."""
    return x.view(np.int32)


def bits_float32(i):
    """The float32 whose bit pattern is the int32 i (jitted: one register bitcast)."""
    return i.view(np.float32)


@intrinsic
def _bitcast(typingctx, x, to):
    """x's 32 bits read as the type `to` (numba's scalar .view goes through memory, which keeps a
    face loop from vectorising)."""
    target = to.dtype if isinstance(to, types.NumberClass) else to

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(target))
    return target(x, to), codegen


@overload(float32_bits, inline="always")
def _float32_bits(x):
    return lambda x: _bitcast(x, np.int32)


@overload(bits_float32, inline="always")
def _bits_float32(i):
    return lambda i: _bitcast(i, np.float32)


@njit(cache=True, inline="always")
def inv_cbrt(x):
    """x^(-1/3) for a float32 x > 0, in float32, to 1.2e-5 relative, by arithmetic alone (no libm
    call: a face loop that calls it vectorises). The bit pattern of x is about 2^23 (log2 x + 127),
    so CBRT_MAGIC - bits(x) / 3 is the bit pattern of x^(-1/3) to 3.5 %; then two Newton steps on
    y^-3 = x, y <- y (4 - x y^3) / 3 = y (4/3 - (x/3) y^3), each taking the relative error e to
    2 e^2 (3.4e-2, 2.4e-3, 1.2e-5)."""
    y = bits_float32(np.int32(CBRT_MAGIC - np.int32(np.float32(float32_bits(x)) * THIRD32)))
    x3 = x * THIRD32
    y = y * (FOUR_THIRDS32 - x3 * (y * y * y))
    y = y * (FOUR_THIRDS32 - x3 * (y * y * y))
    return y * (FOUR_THIRDS32 - x3 * (y * y * y))


@njit(cache=True, inline="always")
def friction(v, h_f, lam_a, lam_b, man_c):
    """Bottom friction over a substep of dt, implicit (never reverses v), on a face velocity v of
    flow depth h_f: v / (1 + dt r), with r = nu / (h_f delta_f) (laminar boundary layer of thickness
    delta_f = min(delta, h_f / 3): the oscillatory Stokes layer, or the steady Poiseuille profile in
    water thinner than it) plus g n^2 |v| / h_f^(4/3) (Manning, turbulent). All float32; the
    constants (`friction_constants`): lam_a = dt nu / delta, lam_b = 3 dt nu, man_c = dt g n^2
    (all 0: v as it is).

    With y = h_f^(-1/3) (`inv_cbrt`): 1 / h_f = y^3, 1 / delta_f = max(1 / delta, 3 y^3),
    h_f^(-4/3) = y^4, so x = dt r = y^3 (max(lam_a, lam_b y^3) + man_c |v| y): no division, no
    libm call, and r to 7e-5 relative (y^6 at most). In float32, 1 + x keeps x only to 6e-8
    absolute, a bias of the whole pool's damping where x ~ 1e-5; so where x <= 1 the change is
    taken off instead, v / (1 + x) = v - v x / (1 + x), whose factor float32 resolves to 1e-7
    relative. Either factor is in [0, 1): the result keeps v's sign. h_f is taken >= DRY (a dry
    face holds 0)."""
    y = inv_cbrt(max(h_f, DRY32))
    y3 = y * y * y
    x = y3 * (max(lam_a, lam_b * y3) + man_c * abs(v) * y)
    q = ONE32 / (ONE32 + x)
    return v * q if x > ONE32 else v - v * (x * q)


@njit(cache=True, inline="always")
def friction_constants(nu, delta, g, manning, dt):
    """(lam_a, lam_b, man_c) of `friction` for a substep of dt, float32."""
    return np.float32(dt * nu / delta), np.float32(3.0 * dt * nu), np.float32(dt * g * manning * manning)


@njit(cache=True, inline="always")
def face_velocity(v, v_lo, v_hi, x_lo, x_hi, q_lo, q_hi, p_lo, p_hi, h_l, b_l, h_r, b_r, acc, g, dt, c, eddy_c):
    """The new velocity of an interior face between cells l and r (see `advect` for the neighbours
    and discharges): advected, pushed by the surface step and the external acceleration acc,
    diffused by the eddy viscosity (eddy_c = nu_t dt / dx^2 times the 5-point Laplacian); zero on a
    dry face. Bottom `friction` follows on the stored float32 velocity (`plain.u_momentum`)."""
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


@njit(cache=True, inline="always")
def substep_count(m, last, remaining, a_max, dx, cfl):
    """The substep count of a step whose speeds need m (`substep_length`) after a step of `last`:
    a count below the last step's is taken only as far as the speeds fit it with the margin SLACK,
    max(m, min(last, n')), n' the count at cfl (1 - SLACK) (engine/water/params.py SLACK: a count
    that follows a_max up and down within a wave period pumps the 2-cell checker mode)."""
    if last <= m:
        return m
    n_slack = substep_length(remaining, a_max, 0.0, dx, cfl * (1.0 - SLACK))[1]
    return max(m, min(int(last), n_slack))
