"""Shallow-water kernels on a staggered grid (numba).

Layout (SI units, index [k, i] <-> (z, x)):

    h, bed  (nz, nx)      depth and bed height at cell centres, m
    u       (nz, nx + 1)  x-face velocity; u[k, i] lies between cells (k, i - 1) and (k, i), m/s
    w       (nz + 1, nx)  z-face velocity; w[k, i] lies between cells (k - 1, i) and (k, i), m/s

`advance` takes one fixed step, split into CFL substeps; each substep is three row sweeps
(`_advect`, `_depth`, `_accelerate_faces`: velocities + walls), the depth ping-ponging between h
and the scratch hn. Every kernel has one fixed set of numba flags: the three sweeps use prange and
are compiled parallel; `advance` (the serial substep loop), `_stats`, `_copy` and the per-face
helpers are serial. Inner loops are branch-free (upwind choices are
max/min arithmetic, wet/dry a select) so LLVM vectorises them. fastmath here allows reassociation
and FMA but never assumes finite values, so NaN and infinities are still caught.
`engine.kernels.reference` is the same scheme in plain numpy.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

# what a side of the pool does (the `sides` array holds one code per side, in SIDE order)
REFLECTIVE = 0      # zero normal velocity
OPEN = 1            # absorbing / outflow: characteristic condition against an outside surface
SIDE = ("x_min", "x_max", "z_min", "z_max")

# Scheme constants; each is passed to `advance` so tests may vary them.
# CFL: (sqrt(g h) + |v|) dt / dx per substep. Forward-backward gravity waves on the 5-point staggered
# stencil are stable for c dt / dx <= 1/sqrt(2) = 0.707 in 2D; a checkerboard of noise stayed
# bounded for 3,000 substeps at 0.70 and blew up at 0.72. 0.66 keeps a 7% margin.
CFL = 0.66
FLOW_CFL = 0.25     # |v| dt / dx per substep: four outgoing faces can at most empty a cell, so h >= 0
CLAMP = 0.5         # |v| dt / dx cap after the velocity update: no shoreline spikes, twice FLOW_CFL so flow can still speed up
DRY = 1e-6          # m: a face carries flow only where the higher surface is this far above the higher bed
MAX_SUBSTEPS = 1000  # more substeps than this in one fixed step is a runaway
RUNAWAY = 1000.0    # m/s: a water speed above this is a runaway

# status codes returned by `advance`
OK, NOT_FINITE, RUNAWAY_STATUS = 0, 1, 2

# Per-row statistics scratch `rows`, int64 (nz + 1, 2): the largest |h| and |v| of each row as IEEE
# bit patterns. For non-negative doubles the bit pattern orders like the value, and every NaN sorts
# above infinity, so one integer max (which vectorises, unlike a float max) finds the CFL speed and
# any non-finite value at once.
_H, _V = 0, 1
NSTAT = 2
_ABS = 0x7FFFFFFFFFFFFFFF
_INF_BITS = 0x7FF0000000000000

_FAST = {"nsz", "arcp", "contract", "reassoc"}   # no nnan/ninf: non-finite values must stay visible


@njit(cache=True, fastmath=_FAST)
def _upwind(a, lo, mid, hi):
    """Sample a row at the point displaced by -a cells: linear between mid and its upwind neighbour."""
    return mid - max(a, 0.0) * (mid - lo) - min(a, 0.0) * (hi - mid)


@njit(cache=True, fastmath=_FAST)
def _sample(r0, r1, r2, i, a, b):
    """Bilinear sample around r1[i] displaced by (-a, -b) cells: upwind in x along three rows, then in z.

    |a|, |b| <= 1 put the departure point inside the 2 x 2 upwind stencil, so no gather is needed;
    r0, r1, r2 are the rows behind, at and ahead of the face along z. The neighbours are written
    i - 1 and i + 1 here, not passed in: LLVM then proves them in bounds and vectorises the loop.
    """
    return _upwind(b, _upwind(a, r0[i - 1], r0[i], r0[i + 1]), _upwind(a, r1[i - 1], r1[i], r1[i + 1]),
                   _upwind(a, r2[i - 1], r2[i], r2[i + 1]))


@njit(cache=True)
def _sample_edge(r0, r1, r2, i, im, ip, a, b):
    """`_sample` at the first or last column, the missing neighbour clamped to the edge."""
    return _upwind(b, _upwind(a, r0[im], r0[i], r0[ip]), _upwind(a, r1[im], r1[i], r1[ip]),
                   _upwind(a, r2[im], r2[i], r2[ip]))


@njit(cache=True, fastmath=_FAST)
def _front(v, h_l, h_r, v_behind_l, v_ahead_r, dry):
    """Carry the flow onto a dry cell: at a wet/dry face the water arrives with the velocity behind it.

    Backtracing from a face that still holds zero velocity (it was dry) samples zero, so a front
    running onto a dry bed would only be pushed by the thin tip's own tiny surface gradient and
    stall into a bore. The face in front of the water takes the velocity of the face behind it
    instead, when that one flows towards the dry cell (v_behind_l > 0 into h_r, v_ahead_r < 0 into h_l).
    """
    onto_r = h_r <= dry and h_l > dry
    onto_l = h_l <= dry and h_r > dry
    v = max(v, max(v_behind_l, 0.0)) if onto_r else v
    return min(v, min(v_ahead_r, 0.0)) if onto_l else v


@njit(cache=True, fastmath=_FAST)
def _flux(vel, h_l, b_l, h_r, b_r, dry):
    """Volume flux per unit width through an interior face, m^2/s: velocity times upwind depth.

    A face whose higher surface does not reach over the higher bed carries nothing.
    """
    f = max(vel, 0.0) * h_l + min(vel, 0.0) * h_r
    return f if max(b_l + h_l, b_r + h_r) > max(b_l, b_r) + dry else 0.0


@njit(cache=True, fastmath=_FAST)
def _accelerate(vel, h_l, b_l, h_r, b_r, acc_dt, gc, vcap, dry):
    """New face velocity from the surface gradient and the external acceleration, m/s.

    Surfaces below the higher bed are raised to it (hydrostatic reconstruction): water under a step
    presses on the step, not on the water above it, so still water stays still over any bed and a
    spill over a ledge is driven by the depth on the ledge, not by the drop.
    """
    bmax = max(b_l, b_r)
    e_l = b_l + h_l
    e_r = b_r + h_r
    v = vel - gc * (max(e_r, bmax) - max(e_l, bmax)) + acc_dt
    v = min(max(v, -vcap), vcap)
    return v if max(e_l, e_r) > bmax + dry else 0.0


@njit(cache=True)
def _open_velocity(h_in, b_in, eta_out, g, outward, vcap):
    """Face velocity of an open side: the incoming characteristic carries the outside state at rest.

    u_n = 2 (sqrt(g h_in) - sqrt(g h_out)) along the outward normal, h_out = max(eta_out - bed, 0):
    a wave leaving the pool takes its own Riemann invariant out with it and little comes back.
    """
    h_out = max(eta_out - b_in, 0.0)
    v = outward * 2.0 * (math.sqrt(g * h_in) - math.sqrt(g * h_out))
    return min(max(v, -vcap), vcap)


@njit(cache=True)
def _boundary_flux(vel, h_in, b_in, eta_out, inward):
    """Volume flux per unit width into the pool through an open side, m^2/s (upwind depth)."""
    v = vel * inward
    return max(v, 0.0) * max(eta_out - b_in, 0.0) + min(v, 0.0) * h_in


@njit(cache=True)
def advance(h, bed, u, w, ax, az, u2, w2, hn, rows, inflow, sides, side_eta, dx, g, dt, has_ext,
            cfl, flow_cfl, clamp, dry, max_substeps, runaway):
    """Take one fixed step of dt seconds, in CFL substeps; update h, u, w in place.

    Equations (shallow water, bed height b, surface eta = b + h, external acceleration a):

        h_t + div(h v) = 0                              [m/s]
        v_t + (v . grad) v = -g grad(eta) + a           [m/s^2]

    Each substep of length s (units: m, s, m/s; c = s / dx):
    (1) semi-Lagrangian advection of u and w: backtrace each face by its own velocity and the
        other component averaged from the four faces around it, sample bilinearly; the velocity
        behind a wet/dry front is carried onto it (`_front`);
    (2) depth in flux form with the upwind depth, F = u max(h_l if u > 0 else h_r) on open faces:
        h <- h - c (F_r - F_l + G_t - G_b), which conserves volume to round-off;
    (3) u <- u - g c (eta_r' - eta_l') + a s, eta' the surface raised to the higher bed
        (hydrostatic reconstruction), zero on faces the water cannot reach over, |u| <= clamp / c;
    (4) walls: reflective sides get zero normal velocity, open sides the characteristic condition
        of `_open_velocity`.
    The substep is s = min(cfl dx / (sqrt(g h_max) + v_max), flow_cfl dx / v_max), re-chosen after
    every substep so that the last one ends exactly at dt.

    Scratch: u2, w2, hn shaped like u, w, h; rows int64 (nz + 1, NSTAT); inflow (nz,). `sides`
    holds REFLECTIVE or OPEN for x_min, x_max, z_min, z_max and `side_eta` the outside surface
    height of each, m. Returns (status, t, substeps, boundary_volume): status OK, NOT_FINITE or
    RUNAWAY_STATUS, the time into the step t when it stopped, and the net m^3 that came in through
    open sides.
    """
    nz, nx = h.shape
    _stats(h, u, w, rows)
    remaining = dt
    elapsed = 0.0
    bvol = 0.0
    n = 0
    pair = np.empty(2, dtype=np.int64)
    # The depth ping-pongs between h and hn, one substep writing the other: no copy per substep,
    # and one copy back into h (the caller's live array) only after an odd number of substeps.
    cur = h
    nxt = hn
    status = OK
    while True:
        pair[0] = 0
        pair[1] = 0
        for k in range(nz + 1):
            pair[0] = max(pair[0], rows[k, _H])
            pair[1] = max(pair[1], rows[k, _V])
        if pair[0] >= _INF_BITS or pair[1] >= _INF_BITS:
            status = NOT_FINITE
            break
        hmax, vmax = pair.view(np.float64)
        if remaining <= 0.0:
            break
        speed = math.sqrt(g * hmax) + vmax
        s_cfl = remaining
        if speed > 0.0:
            s_cfl = min(s_cfl, cfl * dx / speed)
        if vmax > 0.0:
            s_cfl = min(s_cfl, flow_cfl * dx / vmax)
        need = max(1, int(math.ceil(remaining / s_cfl)))
        if vmax > runaway or n + need > max_substeps:
            status = RUNAWAY_STATUS
            break
        s = remaining if need == 1 else remaining / need
        _advect(cur, u, w, u2, w2, s / dx, dry)
        _depth(cur, bed, u2, w2, nxt, inflow, sides, side_eta, dx, s, dry)
        for k in range(nz):
            bvol += inflow[k]
        _accelerate_faces(nxt, bed, u, w, ax, az, u2, w2, rows, sides, side_eta, g, s / dx, s, has_ext,
                          clamp * dx / s, dry)
        cur, nxt = nxt, cur
        n += 1
        elapsed += s
        remaining = 0.0 if need == 1 else remaining - s
    if n % 2 == 1:
        _copy(cur, h)
    return status, elapsed, n, bvol


@njit(cache=True)
def _copy(src, dst):
    """dst[...] = src (serial: one memcpy-speed pass, not worth a parallel kernel's compile time)."""
    nz, nx = src.shape
    for k in range(nz):
        for i in range(nx):
            dst[k, i] = src[k, i]


@njit(cache=True)
def _stats(h, u, w, rows):
    """Fill `rows` with the bit patterns of each row's largest |h| and |v| (see NSTAT).

    Serial: it runs once per step (the substeps refresh `rows` as they go) and reads at memory speed.
    """
    nz, nx = h.shape
    hb = h.view(np.int64)
    ub = u.view(np.int64)
    wb = w.view(np.int64)
    for k in range(nz + 1):
        hm = 0
        vm = 0
        if k < nz:
            for i in range(nx):
                hm = max(hm, hb[k, i] & _ABS)
            for i in range(nx + 1):
                vm = max(vm, ub[k, i] & _ABS)
        for i in range(nx):
            vm = max(vm, wb[k, i] & _ABS)
        rows[k, _H] = hm
        rows[k, _V] = vm


@njit(cache=True, fastmath=_FAST)
def _advect_u_row(r0, r1, r2, wl, wh, hr, out, c, dry):
    """Advect one row of x faces (r1) into out; r0, r2 the rows beside it, wl, wh the z faces around."""
    nx = hr.shape[0]
    out[0] = r1[0]
    out[nx] = r1[nx]
    for i in range(1, nx):
        a = min(max(r1[i] * c, -1.0), 1.0)
        b = min(max(0.25 * (wl[i - 1] + wl[i] + wh[i - 1] + wh[i]) * c, -1.0), 1.0)
        out[i] = _front(_sample(r0, r1, r2, i, a, b), hr[i - 1], hr[i], r1[i - 1], r1[i + 1], dry)


@njit(cache=True, fastmath=_FAST)
def _advect_w_row(r0, r1, r2, ul, uh, h0, h1, out, c, dry):
    """Advect one interior row of z faces (r1) into out; ul, uh the x faces of the cells around."""
    nx = h0.shape[0]
    for i in range(1, nx - 1):
        b = min(max(r1[i] * c, -1.0), 1.0)
        a = min(max(0.25 * (ul[i] + ul[i + 1] + uh[i] + uh[i + 1]) * c, -1.0), 1.0)
        out[i] = _front(_sample(r0, r1, r2, i, a, b), h0[i], h1[i], r0[i], r2[i], dry)
    for i in (0, nx - 1):
        b = min(max(r1[i] * c, -1.0), 1.0)
        a = min(max(0.25 * (ul[i] + ul[i + 1] + uh[i] + uh[i + 1]) * c, -1.0), 1.0)
        v = _sample_edge(r0, r1, r2, i, max(i - 1, 0), min(i + 1, nx - 1), a, b)
        out[i] = _front(v, h0[i], h1[i], r0[i], r2[i], dry)


@njit(cache=True, parallel=True, fastmath=_FAST)
def _advect(h, u, w, u2, w2, c, dry):
    """Semi-Lagrangian advection of u into u2 and w into w2, fronts carried onto dry cells (`_front`).

    Boundary faces keep their value (the walls set them after the velocity update). Rows go to
    small functions over 1-D views: LLVM vectorises those loops where it gives up on 2-D indexing.
    """
    nz, nx = h.shape
    for k in prange(nz + 1):
        if k < nz:
            _advect_u_row(u[max(k - 1, 0)], u[k], u[min(k + 1, nz - 1)], w[k], w[k + 1], h[k], u2[k], c, dry)
        if k == 0 or k == nz:
            for i in range(nx):
                w2[k, i] = w[k, i]
        else:
            _advect_w_row(w[k - 1], w[k], w[k + 1], u[k - 1], u[k], h[k - 1], h[k], w2[k], c, dry)


@njit(cache=True, parallel=True, fastmath=_FAST)
def _depth(h, bed, u2, w2, hn, inflow, sides, side_eta, dx, s, dry):
    """Update the depth into hn in flux form with the upwind depth; inflow[k] gets row k's m^3 in.

    Each interior face flux is evaluated by both cells beside it, with the same operands in the
    same order, so what leaves one cell is bit for bit what enters the next: the sum is conserved
    to round-off while every row and column stays an independent, vectorisable loop.
    """
    nz, nx = h.shape
    c = s / dx
    for k in prange(nz):
        hr = h[k]
        br = bed[k]
        hm = h[max(k - 1, 0)]
        bm = bed[max(k - 1, 0)]
        hp = h[min(k + 1, nz - 1)]
        bp = bed[min(k + 1, nz - 1)]
        ur = u2[k]
        wl = w2[k]
        wh = w2[k + 1]
        out = hn[k]
        # interior x faces and the z faces into rows k - 1 and k + 1; walls and open sides below
        low = 1.0 if k > 0 else 0.0
        high = 1.0 if k < nz - 1 else 0.0
        for i in range(1, nx - 1):
            f_l = _flux(ur[i], hr[i - 1], br[i - 1], hr[i], br[i], dry)
            f_r = _flux(ur[i + 1], hr[i], br[i], hr[i + 1], br[i + 1], dry)
            g_b = low * _flux(wl[i], hm[i], bm[i], hr[i], br[i], dry)
            g_t = high * _flux(wh[i], hr[i], br[i], hp[i], bp[i], dry)
            out[i] = max(hr[i] - c * (f_r - f_l + g_t - g_b), 0.0)   # max: round-off only (FLOW_CFL)
        q = 0.0
        for i in (0, nx - 1):
            f_l = _flux(ur[i], hr[i - 1], br[i - 1], hr[i], br[i], dry) if i > 0 else 0.0
            f_r = _flux(ur[i + 1], hr[i], br[i], hr[i + 1], br[i + 1], dry) if i < nx - 1 else 0.0
            if i == 0 and sides[0] == OPEN:
                f_l = _boundary_flux(ur[0], hr[0], br[0], side_eta[0], 1.0)
                q += f_l
            if i == nx - 1 and sides[1] == OPEN:
                f_r = -_boundary_flux(ur[nx], hr[i], br[i], side_eta[1], -1.0)
                q -= f_r
            g_b = low * _flux(wl[i], hm[i], bm[i], hr[i], br[i], dry)
            g_t = high * _flux(wh[i], hr[i], br[i], hp[i], bp[i], dry)
            out[i] = max(hr[i] - c * (f_r - f_l + g_t - g_b), 0.0)
        # the z walls: rows 0 and nz - 1 add their open-side fluxes
        if k == 0 and sides[2] == OPEN:
            for i in range(nx):
                g = _boundary_flux(wl[i], hr[i], br[i], side_eta[2], 1.0)
                out[i] = max(out[i] + c * g, 0.0)
                q += g
        if k == nz - 1 and sides[3] == OPEN:
            for i in range(nx):
                g = -_boundary_flux(wh[i], hr[i], br[i], side_eta[3], -1.0)
                out[i] = max(out[i] - c * g, 0.0)
                q -= g
        inflow[k] = q * dx * s


@njit(cache=True, parallel=True, fastmath=_FAST)
def _accelerate_faces(hn, bed, u, w, ax, az, u2, w2, rows, sides, side_eta, g, c, s, has_ext, vcap, dry):
    """Set u, w from u2, w2 and the surface of the new depth hn, apply the walls, refresh `rows`."""
    nz, nx = hn.shape
    gc = g * c
    for k in prange(nz + 1):
        vm = 0
        hm = 0
        if k < nz:
            hr = hn[k]
            br = bed[k]
            vin = u2[k]
            out = u[k]
            if has_ext:
                acc = ax[k]
                for i in range(1, nx):
                    out[i] = _accelerate(vin[i], hr[i - 1], br[i - 1], hr[i], br[i], acc[i] * s, gc, vcap, dry)
            else:
                for i in range(1, nx):
                    out[i] = _accelerate(vin[i], hr[i - 1], br[i - 1], hr[i], br[i], 0.0, gc, vcap, dry)
            out[0] = _open_velocity(hr[0], br[0], side_eta[0], g, -1.0, vcap) if sides[0] == OPEN else 0.0
            out[nx] = _open_velocity(hr[nx - 1], br[nx - 1], side_eta[1], g, 1.0, vcap) if sides[1] == OPEN else 0.0
            bits = out.view(np.int64)
            for i in range(nx + 1):
                vm = max(vm, bits[i] & _ABS)
            bits = hr.view(np.int64)
            for i in range(nx):
                hm = max(hm, bits[i] & _ABS)
        out = w[k]
        if k == 0:
            for i in range(nx):
                out[i] = _open_velocity(hn[0, i], bed[0, i], side_eta[2], g, -1.0, vcap) if sides[2] == OPEN else 0.0
        elif k == nz:
            for i in range(nx):
                out[i] = (_open_velocity(hn[nz - 1, i], bed[nz - 1, i], side_eta[3], g, 1.0, vcap)
                          if sides[3] == OPEN else 0.0)
        else:
            h0 = hn[k - 1]
            b0 = bed[k - 1]
            h1 = hn[k]
            b1 = bed[k]
            vin = w2[k]
            if has_ext:
                acc = az[k]
                for i in range(nx):
                    out[i] = _accelerate(vin[i], h0[i], b0[i], h1[i], b1[i], acc[i] * s, gc, vcap, dry)
            else:
                for i in range(nx):
                    out[i] = _accelerate(vin[i], h0[i], b0[i], h1[i], b1[i], 0.0, gc, vcap, dry)
        bits = out.view(np.int64)
        for i in range(nx):
            vm = max(vm, bits[i] & _ABS)
        rows[k, _H] = hm
        rows[k, _V] = vm
