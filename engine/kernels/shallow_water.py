"""Shallow-water kernels on a staggered grid (numba).

Layout (SI units, index [k, i] <-> (z, x)):

    h, bed  (nz, nx)      depth and bed height at cell centres, m
    u       (nz, nx + 1)  x-face velocity; u[k, i] lies between cells (k, i - 1) and (k, i), m/s
    w       (nz + 1, nx)  z-face velocity; w[k, i] lies between cells (k - 1, i) and (k, i), m/s

`advance` takes one fixed step, split into CFL substeps; each substep is one sweep (`_substep`:
advection, depth, velocities, walls), the state ping-ponging between (h, u, w) and the scratch
(hn, u2, w2). Every kernel has one fixed set of numba flags: `_substep` uses prange and is
compiled parallel; `advance` (the serial substep loop), `_stats`, `_copy` and the per-face
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
    (2) depth in flux form with the upwind depth, F = u h_up (h_up = h_l if u > 0 else h_r) on open faces:
        h <- h - c (F_r - F_l + G_t - G_b), which conserves volume to round-off;
    (3) u <- u - g c (eta_r' - eta_l') + a s, eta' the surface raised to the higher bed
        (hydrostatic reconstruction), zero on faces the water cannot reach over, |u| <= clamp / c;
    (4) walls: reflective sides get zero normal velocity, open sides the characteristic condition
        of `_open_velocity`.
    The substep is s = min(cfl dx / (sqrt(g h_max) + v_max), flow_cfl dx / v_max), re-chosen after
    every substep so that the last one ends exactly at dt.

    Scratch: u2, w2, hn shaped like u, w, h (the other half of the ping-pong); rows int64 (nz + 1, NSTAT); inflow (nz,). `sides`
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
    # The state ping-pongs between (h, u, w) and the scratch (hn, u2, w2), one substep reading one
    # set and writing the other: no copies per substep, and one copy back into the caller's live
    # arrays only after an odd number of substeps.
    h_cur, u_cur, w_cur = h, u, w
    h_nxt, u_nxt, w_nxt = hn, u2, w2
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
        _substep(h_cur, bed, u_cur, w_cur, ax, az, h_nxt, u_nxt, w_nxt, rows, inflow, sides,
                 side_eta, g, dx, s, has_ext, clamp * dx / s, dry)
        for k in range(nz):
            bvol += inflow[k]
        h_cur, h_nxt = h_nxt, h_cur
        u_cur, u_nxt = u_nxt, u_cur
        w_cur, w_nxt = w_nxt, w_cur
        n += 1
        elapsed += s
        remaining = 0.0 if need == 1 else remaining - s
    if n % 2 == 1:
        _copy(h_cur, h)
        _copy(u_cur, u)
        _copy(w_cur, w)
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


@njit(cache=True, fastmath=_FAST)
def _advect_u_face_row(k, h, u, w, out, c, dry):
    """Advected x faces of cell row k into out (boundary faces copied: the walls set them later)."""
    nz = h.shape[0]
    _advect_u_row(u[max(k - 1, 0)], u[k], u[min(k + 1, nz - 1)], w[k], w[k + 1], h[k], out, c, dry)


@njit(cache=True, fastmath=_FAST)
def _advect_w_face_row(k, h, u, w, out, c, dry):
    """Advected z faces of face row k (0..nz) into out; the wall rows 0 and nz are copied."""
    nz = h.shape[0]
    if k == 0 or k == nz:
        r = w[k]
        for i in range(out.shape[0]):
            out[i] = r[i]
    else:
        _advect_w_row(w[k - 1], w[k], w[k + 1], u[k - 1], u[k], h[k - 1], h[k], out, c, dry)


@njit(cache=True, fastmath=_FAST)
def _depth_row(k, h, bed, ur, wl, wh, out, sides, side_eta, c, dry):
    """New depth of cell row k into out, flux form with the upwind depth; return the inflow, m^2/s.

    ur: the row's advected x faces; wl, wh: the advected z faces below and above it.

    Each interior face flux is evaluated by both cells beside it, with the same operands in the
    same order, so what leaves one cell is bit for bit what enters the next: the sum is conserved
    to round-off while every row stays an independent, vectorisable loop.
    """
    nz, nx = h.shape
    hr = h[k]
    br = bed[k]
    hm = h[max(k - 1, 0)]
    bm = bed[max(k - 1, 0)]
    hp = h[min(k + 1, nz - 1)]
    bp = bed[min(k + 1, nz - 1)]
    low = 1.0 if k > 0 else 0.0          # the z walls are handled below
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
    return q


@njit(cache=True, fastmath=_FAST)
def _u_row(hr, br, vin, acc, has_ext, out, sides, side_eta, g, gc, s, vcap, dry):
    """x faces of one row from the new depth hr, side walls included; acc is the row's external
    acceleration, m/s^2, read only when has_ext (the loop without it saves a stream)."""
    nx = hr.shape[0]
    if has_ext:
        for i in range(1, nx):
            out[i] = _accelerate(vin[i], hr[i - 1], br[i - 1], hr[i], br[i], acc[i] * s, gc, vcap, dry)
    else:
        for i in range(1, nx):
            out[i] = _accelerate(vin[i], hr[i - 1], br[i - 1], hr[i], br[i], 0.0, gc, vcap, dry)
    out[0] = _open_velocity(hr[0], br[0], side_eta[0], g, -1.0, vcap) if sides[0] == OPEN else 0.0
    out[nx] = _open_velocity(hr[nx - 1], br[nx - 1], side_eta[1], g, 1.0, vcap) if sides[1] == OPEN else 0.0


@njit(cache=True, fastmath=_FAST)
def _w_row(h0, b0, h1, b1, vin, acc, has_ext, out, gc, s, vcap, dry):
    """Interior z faces of one row, between cell rows with new depths h0 (below) and h1 (above)."""
    if has_ext:
        for i in range(h0.shape[0]):
            out[i] = _accelerate(vin[i], h0[i], b0[i], h1[i], b1[i], acc[i] * s, gc, vcap, dry)
    else:
        for i in range(h0.shape[0]):
            out[i] = _accelerate(vin[i], h0[i], b0[i], h1[i], b1[i], 0.0, gc, vcap, dry)


@njit(cache=True)
def _max_bits(a):
    """Largest |a[i]| as an IEEE bit pattern (see NSTAT)."""
    bits = a.view(np.int64)
    m = 0
    for i in range(bits.shape[0]):
        m = max(m, bits[i] & _ABS)
    return m


ROWS_PER_CHUNK = 32   # rows one task sweeps in order; fixed, so results never depend on the thread count


@njit(cache=True, parallel=True, fastmath=_FAST)
def _substep(h, bed, u, w, ax, az, hn, un, wn, rows, inflow, sides, side_eta,
             g, dx, s, has_ext, vcap, dry):
    """One substep in one sweep: read h, u, w; write the new state into hn, un, wn; fill `rows`.

    Each task takes ROWS_PER_CHUNK cell rows in order and keeps what the next row needs in private
    rows: the advected z faces above row k are those below row k + 1, and the new depth of row
    k - 1 (for the z faces below row k) was just written by the same task; only the first row of
    a task recomputes its lower neighbour. The old state is only read and the new one only
    written (they ping-pong in `advance`), so tasks never race, and every input array is streamed
    through once: the seven arrays of the scheme's minimum traffic, plus ax, az when present.
    """
    nz, nx = h.shape
    c = s / dx
    gc = g * c
    chunks = (nz + ROWS_PER_CHUNK - 1) // ROWS_PER_CHUNK
    for t in prange(chunks):
        k0 = t * ROWS_PER_CHUNK
        k1 = min(k0 + ROWS_PER_CHUNK, nz)
        ua = np.empty(nx + 1)        # advected x faces of the current row
        wa_lo = np.empty(nx)         # advected z faces below it ...
        wa_hi = np.empty(nx)         # ... and above it
        below = np.empty(nx)         # new depth of row k0 - 1
        _advect_w_face_row(k0, h, u, w, wa_lo, c, dry)
        if k0 > 0:
            w_below = np.empty(nx)
            _advect_u_face_row(k0 - 1, h, u, w, ua, c, dry)
            _advect_w_face_row(k0 - 1, h, u, w, w_below, c, dry)
            _depth_row(k0 - 1, h, bed, ua, w_below, wa_lo, below, sides, side_eta, c, dry)
        for k in range(k0, k1):
            _advect_u_face_row(k, h, u, w, ua, c, dry)
            _advect_w_face_row(k + 1, h, u, w, wa_hi, c, dry)
            hr = hn[k]
            br = bed[k]
            inflow[k] = _depth_row(k, h, bed, ua, wa_lo, wa_hi, hr, sides, side_eta, c, dry) * dx * s
            _u_row(hr, br, ua, ax[k], has_ext, un[k], sides, side_eta, g, gc, s, vcap, dry)
            out = wn[k]
            if k == 0:
                for i in range(nx):
                    out[i] = _open_velocity(hr[i], br[i], side_eta[2], g, -1.0, vcap) if sides[2] == OPEN else 0.0
            else:
                h0 = hn[k - 1] if k > k0 else below
                _w_row(h0, bed[k - 1], hr, br, wa_lo, az[k], has_ext, out, gc, s, vcap, dry)
            rows[k, _H] = _max_bits(hr)
            rows[k, _V] = max(_max_bits(un[k]), _max_bits(out))
            wa_lo, wa_hi = wa_hi, wa_lo
        if k1 == nz:
            out = wn[nz]
            hr = hn[nz - 1]
            br = bed[nz - 1]
            for i in range(nx):
                out[i] = _open_velocity(hr[i], br[i], side_eta[3], g, 1.0, vcap) if sides[3] == OPEN else 0.0
            rows[nz, _H] = 0
            rows[nz, _V] = _max_bits(out)
