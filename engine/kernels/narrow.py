"""Narrow phase between convex primitives: contact manifolds (serial numba, bitwise repeatable).

Shapes, in world frame (m): an oriented Box (centre c, unit axes A[0..2] as rows, half extents h)
and a Capsule (segment end0-end1, radius r; a sphere when the ends meet). Every routine writes into
a Manifold (manifold_buffer()) contacts with

    point p (midway between the two surfaces), separation d (< 0: penetration),
    normal n from shape B to shape A (unit; pushing A along n separates them),
    feature id f (stable while the same features touch: the warm-start key)

and returns how many it wrote (0 when the shapes are farther apart than `margin`).

Box-box is the separating-axis test with face clipping (Gottschalk's 15 axes; the manifold as in
Box2D / Bullet's btBoxBoxDetector): with L a candidate axis and T = c_B - c_A,

    s(L) = |T . L| - sum_k hA_k |A_k . L| - sum_k hB_k |B_k . L|

is the gap along L; the axis of largest s wins, a face axis preferred unless an edge axis beats
it by a tolerance (keeps the manifold, and its feature ids, steady in a stack; for parallel faces
an edge pair's axis can equal a face normal, and must not win). Face axis: the
incident face of the other box (its face most anti-parallel to the reference normal) is clipped
against the four side planes of the reference face (Sutherland-Hodgman); each surviving point is a
contact with d its height above the reference face. Edge axis: one contact at the closest points
of the two supporting edges, d = s(L).

Capsule-box: spheres at both ends and at the segment point nearest the box; sphere-box is the
closest point of the box (clamped local coordinates), or, for a centre inside, the nearest face.
Capsule-capsule: closest points of the segments (Ericson, Real-Time Collision Detection 5.1.9),
plus the end points against the other segment when the two lie parallel (a capsule resting along
another needs two supports).

numba's on-disk cache keys a kernel on its own file only: contacts.detect_pairs, which calls these,
keeps its compiled copy of them until contacts.py changes. After editing this file, touch
contacts.py (or clear engine/kernels/__pycache__).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

# The shapes and the output, as named structures (numba NamedTuples; see engine/kernels/records.py)
Box = namedtuple("Box", ["centre", "axes", "half"])          # (3,), (3, 3) unit axes as rows, (3,) m
Capsule = namedtuple("Capsule", ["end0", "end1", "radius"])  # (3,), (3,) segment ends, radius m (float)
Manifold = namedtuple("Manifold", [
    "point",        # (8, 3) contact points, midway between the surfaces, m
    "normal",       # (8, 3) unit normals from shape B to shape A
    "separation",   # (8,) signed gaps, m (< 0: penetration)
    "feature",      # (8,) int64 feature ids (the warm-start key's stable part)
    "work",         # (22, 3) scratch: clipping polygons
    "work_ids",     # (32,) int64 scratch: their feature ids
])
MAX_CONTACTS = 8


def manifold_buffer() -> Manifold:
    """Room for one manifold of up to MAX_CONTACTS contacts, with its scratch."""
    return Manifold(np.zeros((MAX_CONTACTS, 3)), np.zeros((MAX_CONTACTS, 3)), np.zeros(MAX_CONTACTS),
                    np.zeros(MAX_CONTACTS, np.int64), np.zeros((22, 3)), np.zeros(32, np.int64))

FACE_REL_TOL = 0.05     # an axis replaces the preferred one only if s > s_best + FACE_ABS_TOL + 0.05 |s_best|
FACE_ABS_TOL = 0.0005   # m (preferred: a face of A over a face of B over an edge pair)
CLIP_TOL = 0.001        # m: an incident corner this close outside a side plane is kept as is (faces
                        # of equal size stacked flush keep their corners, and their feature ids);
                        # crossings are cut at the true side planes
EDGE_IDS = 2880         # face-case feature ids are below this: ((side * 6 + ref face) * 6 + inc face) * 40 + point


@njit(cache=True, inline="always")
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def box_box(box_a, box_b, margin, out):
    """Contact manifold of two Boxes into out (Manifold): up to 8 contacts, normals from B to A (one
    normal for all). Returns the count (0 when farther apart than margin)."""
    ca, A, ha = box_a.centre, box_a.axes, box_a.half
    cb, B, hb = box_b.centre, box_b.axes, box_b.half
    out_p, out_n, out_d, out_f, W, Wi = out.point, out.normal, out.separation, out.feature, out.work, out.work_ids
    T0 = cb[0] - ca[0]; T1 = cb[1] - ca[1]; T2 = cb[2] - ca[2]
    # AB[i, j] = A_i . B_j
    AB = W[0:3]
    aAB = W[3:6]
    for i in range(3):
        for j in range(3):
            AB[i, j] = A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]
            aAB[i, j] = abs(AB[i, j]) + 1e-12
    best_a = -1e300; ia = 0
    for i in range(3):
        s = abs(T0 * A[i, 0] + T1 * A[i, 1] + T2 * A[i, 2]) - ha[i] \
            - (hb[0] * aAB[i, 0] + hb[1] * aAB[i, 1] + hb[2] * aAB[i, 2])
        if s > margin:
            return 0
        if s > best_a:
            best_a = s; ia = i
    best_b = -1e300; ib = 0
    for j in range(3):
        s = abs(T0 * B[j, 0] + T1 * B[j, 1] + T2 * B[j, 2]) - hb[j] \
            - (ha[0] * aAB[0, j] + ha[1] * aAB[1, j] + ha[2] * aAB[2, j])
        if s > margin:
            return 0
        if s > best_b:
            best_b = s; ib = j
    best_e = -1e300; ei = -1; ej = -1
    for i in range(3):
        for j in range(3):
            L0 = A[i, 1] * B[j, 2] - A[i, 2] * B[j, 1]
            L1 = A[i, 2] * B[j, 0] - A[i, 0] * B[j, 2]
            L2 = A[i, 0] * B[j, 1] - A[i, 1] * B[j, 0]
            ln = np.sqrt(L0 * L0 + L1 * L1 + L2 * L2)
            if ln < 1e-6:
                continue                      # parallel edges: the face axes cover it
            L0 /= ln; L1 /= ln; L2 /= ln
            ra = 0.0; rb = 0.0
            for k in range(3):
                ra += ha[k] * abs(A[k, 0] * L0 + A[k, 1] * L1 + A[k, 2] * L2)
                rb += hb[k] * abs(B[k, 0] * L0 + B[k, 1] * L1 + B[k, 2] * L2)
            s = abs(T0 * L0 + T1 * L1 + T2 * L2) - ra - rb
            if s > margin:
                return 0
            if s > best_e:
                best_e = s; ei = i; ej = j
    face = max(best_a, best_b)
    if ei >= 0 and best_e > face + FACE_ABS_TOL + FACE_REL_TOL * abs(face):
        return _edge_contact(ca, A, ha, cb, B, hb, ei, ej, best_e, T0, T1, T2, out_p, out_n, out_d, out_f)
    if best_b > best_a + FACE_ABS_TOL + FACE_REL_TOL * abs(best_a):
        # reference face on B; its normal (from B towards A) is the contact normal
        return _face_contact(cb, B, hb, ca, A, ha, ib, -T0, -T1, -T2, 1, margin, 1.0, out_p, out_n, out_d, out_f,
                             W, Wi)
    return _face_contact(ca, A, ha, cb, B, hb, ia, T0, T1, T2, 0, margin, -1.0, out_p, out_n, out_d, out_f, W, Wi)


@njit(cache=True)
def _edge_contact(ca, A, ha, cb, B, hb, i, j, sep, T0, T1, T2, out_p, out_n, out_d, out_f):
    """One contact between edge i of A and edge j of B along L = A_i x B_j (oriented A -> B)."""
    L0 = A[i, 1] * B[j, 2] - A[i, 2] * B[j, 1]
    L1 = A[i, 2] * B[j, 0] - A[i, 0] * B[j, 2]
    L2 = A[i, 0] * B[j, 1] - A[i, 1] * B[j, 0]
    ln = np.sqrt(L0 * L0 + L1 * L1 + L2 * L2)
    L0 /= ln; L1 /= ln; L2 /= ln
    if T0 * L0 + T1 * L1 + T2 * L2 < 0.0:
        L0 = -L0; L1 = -L1; L2 = -L2
    pa0, pa1, pa2 = ca[0], ca[1], ca[2]
    pb0, pb1, pb2 = cb[0], cb[1], cb[2]
    for k in range(3):
        if k != i:     # A's supporting edge: the corner of A farthest along +L, free along A_i
            sg = ha[k] if A[k, 0] * L0 + A[k, 1] * L1 + A[k, 2] * L2 > 0.0 else -ha[k]
            pa0 += sg * A[k, 0]; pa1 += sg * A[k, 1]; pa2 += sg * A[k, 2]
        if k != j:     # B's: farthest along -L, free along B_j
            sg = -hb[k] if B[k, 0] * L0 + B[k, 1] * L1 + B[k, 2] * L2 > 0.0 else hb[k]
            pb0 += sg * B[k, 0]; pb1 += sg * B[k, 1]; pb2 += sg * B[k, 2]
    # closest points of the lines pa + s A_i and pb + t B_j (unit directions)
    bb = A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]
    r0 = pa0 - pb0; r1 = pa1 - pb1; r2 = pa2 - pb2
    cc = A[i, 0] * r0 + A[i, 1] * r1 + A[i, 2] * r2
    ff = B[j, 0] * r0 + B[j, 1] * r1 + B[j, 2] * r2
    den = 1.0 - bb * bb
    s = (bb * ff - cc) / den if den > 1e-12 else 0.0
    t = (ff - bb * cc) / den if den > 1e-12 else 0.0
    s = min(max(s, -ha[i]), ha[i])
    t = min(max(t, -hb[j]), hb[j])
    out_p[0, 0] = 0.5 * (pa0 + s * A[i, 0] + pb0 + t * B[j, 0])
    out_p[0, 1] = 0.5 * (pa1 + s * A[i, 1] + pb1 + t * B[j, 1])
    out_p[0, 2] = 0.5 * (pa2 + s * A[i, 2] + pb2 + t * B[j, 2])
    out_n[0, 0] = -L0; out_n[0, 1] = -L1; out_n[0, 2] = -L2
    out_d[0] = sep
    out_f[0] = EDGE_IDS + 3 * i + j
    return 1


@njit(cache=True)
def _face_contact(cr, R, hr, ci, I, hi, k, T0, T1, T2, side, margin, nsign, out_p, out_n, out_d, out_f, W, Wi):
    """Manifold with reference face k of box R (towards box I; T = c_I - c_R) and I's incident face.
    nsign: +1 stores the reference normal itself as the contact normal, -1 its opposite."""
    sk = 1.0 if T0 * R[k, 0] + T1 * R[k, 1] + T2 * R[k, 2] > 0.0 else -1.0
    nf0 = sk * R[k, 0]; nf1 = sk * R[k, 1]; nf2 = sk * R[k, 2]
    # incident face: I's face most anti-parallel to nf
    m = 0; best = -1.0
    for j in range(3):
        a = abs(I[j, 0] * nf0 + I[j, 1] * nf1 + I[j, 2] * nf2)
        if a > best:
            best = a; m = j
    sm = -1.0 if I[m, 0] * nf0 + I[m, 1] * nf1 + I[m, 2] * nf2 > 0.0 else 1.0
    m1 = (m + 1) % 3; m2 = (m + 2) % 3
    poly = W[6:14]; tmp = W[14:22]
    pid = Wi[0:8]; pline = Wi[8:16]; tid = Wi[16:24]; tline = Wi[24:32]
    for v in range(4):
        su = 1.0 if v == 0 or v == 3 else -1.0
        sv = 1.0 if v < 2 else -1.0
        for c in range(3):
            poly[v, c] = ci[c] + sm * hi[m] * I[m, c] + su * hi[m1] * I[m1, c] + sv * hi[m2] * I[m2, c]
        pid[v] = v          # incident corner v
        pline[v] = v        # the segment v -> v + 1 lies on incident edge v
    cnt = 4
    k1 = (k + 1) % 3; k2 = (k + 2) % 3
    for plane in range(4):
        ax = k1 if plane < 2 else k2
        sg = 1.0 if plane % 2 == 0 else -1.0
        lim = hr[ax]
        out = 0
        for v in range(cnt):
            w = (v + 1) % cnt
            dv = sg * ((poly[v, 0] - cr[0]) * R[ax, 0] + (poly[v, 1] - cr[1]) * R[ax, 1]
                       + (poly[v, 2] - cr[2]) * R[ax, 2]) - lim
            dw = sg * ((poly[w, 0] - cr[0]) * R[ax, 0] + (poly[w, 1] - cr[1]) * R[ax, 1]
                       + (poly[w, 2] - cr[2]) * R[ax, 2]) - lim
            vin = dv <= CLIP_TOL
            win = dw <= CLIP_TOL
            if vin and win:
                for c in range(3):
                    tmp[out, c] = poly[w, c]
                tid[out] = pid[w]; tline[out] = pline[w]
                out += 1
            elif vin or win:
                # the crossing of the true side plane, where the inside end is truly inside (an
                # end within CLIP_TOL outside stands for it)
                if (dv <= 0.0) if vin else (dw <= 0.0):
                    f = dv / (dv - dw)
                    for c in range(3):
                        tmp[out, c] = poly[v, c] + f * (poly[w, c] - poly[v, c])
                    tid[out] = 4 + 4 * pline[v] + plane     # crossing of segment line and clip plane
                    tline[out] = 4 + plane if vin else pline[v]
                    out += 1
                if win:            # entering: the inside end follows
                    for c in range(3):
                        tmp[out, c] = poly[w, c]
                    tid[out] = pid[w]; tline[out] = pline[w]
                    out += 1
        cnt = out
        for v in range(cnt):
            for c in range(3):
                poly[v, c] = tmp[v, c]
            pid[v] = tid[v]; pline[v] = tline[v]
        if cnt == 0:
            return 0
    rf = 2 * k + (1 if sk > 0.0 else 0)
    inc = 2 * m + (1 if sm > 0.0 else 0)
    base = ((side * 6 + rf) * 6 + inc) * 40
    face = (cr[0] * nf0 + cr[1] * nf1 + cr[2] * nf2) + hr[k]
    count = 0
    for v in range(cnt):
        d = poly[v, 0] * nf0 + poly[v, 1] * nf1 + poly[v, 2] * nf2 - face
        if d < margin:
            out_p[count, 0] = poly[v, 0] - 0.5 * d * nf0
            out_p[count, 1] = poly[v, 1] - 0.5 * d * nf1
            out_p[count, 2] = poly[v, 2] - 0.5 * d * nf2
            out_d[count] = d
            out_f[count] = base + pid[v]
            count += 1
    for v in range(count):
        out_n[v, 0] = nsign * nf0; out_n[v, 1] = nsign * nf1; out_n[v, 2] = nsign * nf2
    return count


@njit(cache=True)
def sphere_box(c0, c1, c2, r, box):
    """Separation of a sphere (centre, radius r) from a Box, the normal from the box to the sphere
    and the contact point (midway between the surfaces)."""
    cb, B, hb = box.centre, box.axes, box.half
    q0 = c0 - cb[0]; q1 = c1 - cb[1]; q2 = c2 - cb[2]
    u0 = q0 * B[0, 0] + q1 * B[0, 1] + q2 * B[0, 2]
    u1 = q0 * B[1, 0] + q1 * B[1, 1] + q2 * B[1, 2]
    u2 = q0 * B[2, 0] + q1 * B[2, 1] + q2 * B[2, 2]
    o0 = u0 - min(max(u0, -hb[0]), hb[0])
    o1 = u1 - min(max(u1, -hb[1]), hb[1])
    o2 = u2 - min(max(u2, -hb[2]), hb[2])
    dist = np.sqrt(o0 * o0 + o1 * o1 + o2 * o2)
    if dist > 1e-12:
        d = dist - r
        o0 /= dist; o1 /= dist; o2 /= dist
    else:                 # centre inside: the nearest face
        g0 = hb[0] - abs(u0); g1 = hb[1] - abs(u1); g2 = hb[2] - abs(u2)
        o0 = 0.0; o1 = 0.0; o2 = 0.0
        if g0 <= g1 and g0 <= g2:
            d = -g0 - r; o0 = 1.0 if u0 >= 0.0 else -1.0
        elif g1 <= g2:
            d = -g1 - r; o1 = 1.0 if u1 >= 0.0 else -1.0
        else:
            d = -g2 - r; o2 = 1.0 if u2 >= 0.0 else -1.0
    n0 = o0 * B[0, 0] + o1 * B[1, 0] + o2 * B[2, 0]
    n1 = o0 * B[0, 1] + o1 * B[1, 1] + o2 * B[2, 1]
    n2 = o0 * B[0, 2] + o1 * B[1, 2] + o2 * B[2, 2]
    s = r + 0.5 * d
    return d, n0, n1, n2, c0 - s * n0, c1 - s * n1, c2 - s * n2


@njit(cache=True)
def capsule_box(capsule, box, margin, flip, out):
    """Capsule against Box into out (Manifold): spheres at the ends and at the segment point
    nearest the box. Normals from the box to the capsule (flip = -1: from the capsule to the box).
    Returns the count (<= 3)."""
    p0, p1, r = capsule.end0, capsule.end1, capsule.radius
    cb, B, hb = box.centre, box.axes, box.half
    out_p, out_n, out_d, out_f = out.point, out.normal, out.separation, out.feature
    e0 = p1[0] - p0[0]; e1 = p1[1] - p0[1]; e2 = p1[2] - p0[2]
    ee = e0 * e0 + e1 * e1 + e2 * e2
    # bounding test first: every point of the box lies within |hb| of its centre, so when the
    # segment is farther than |hb| + r + margin from that centre no sphere below can come closer
    # than the margin
    t = 0.0
    if ee > 1e-18:
        t = min(max(((cb[0] - p0[0]) * e0 + (cb[1] - p0[1]) * e1 + (cb[2] - p0[2]) * e2) / ee, 0.0), 1.0)
    g0 = p0[0] + t * e0 - cb[0]; g1 = p0[1] + t * e1 - cb[1]; g2 = p0[2] + t * e2 - cb[2]
    reach = np.sqrt(hb[0] * hb[0] + hb[1] * hb[1] + hb[2] * hb[2]) + r + margin
    if g0 * g0 + g1 * g1 + g2 * g2 > reach * reach * (1.0 + 1e-9):
        return 0
    count = 0
    nt = 1
    tm = 0.5
    if ee > 1e-18:
        nt = 2
        # segment point nearest the box: alternate projections (box clamp, segment projection)
        t = 0.5
        for _ in range(4):
            x0 = p0[0] + t * e0 - cb[0]; x1 = p0[1] + t * e1 - cb[1]; x2 = p0[2] + t * e2 - cb[2]
            y0 = 0.0; y1 = 0.0; y2 = 0.0
            for k in range(3):
                u = min(max(x0 * B[k, 0] + x1 * B[k, 1] + x2 * B[k, 2], -hb[k]), hb[k])
                y0 += u * B[k, 0]; y1 += u * B[k, 1]; y2 += u * B[k, 2]
            t = ((y0 + cb[0] - p0[0]) * e0 + (y1 + cb[1] - p0[1]) * e1 + (y2 + cb[2] - p0[2]) * e2) / ee
            t = min(max(t, 0.0), 1.0)
        if 0.02 < t < 0.98:
            tm = t
            nt = 3
    for s in range(nt):
        t = 0.0 if s == 0 else (1.0 if s == 1 else tm)
        d, n0, n1, n2, x0, x1, x2 = sphere_box(p0[0] + t * e0, p0[1] + t * e1, p0[2] + t * e2, r, box)
        if d < margin:
            out_p[count, 0] = x0; out_p[count, 1] = x1; out_p[count, 2] = x2
            out_n[count, 0] = flip * n0; out_n[count, 1] = flip * n1; out_n[count, 2] = flip * n2
            out_d[count] = d
            out_f[count] = s
            count += 1
    return count


@njit(cache=True)
def _closest_on_segment(x0, x1, x2, p0, p1):
    e0 = p1[0] - p0[0]; e1 = p1[1] - p0[1]; e2 = p1[2] - p0[2]
    ee = e0 * e0 + e1 * e1 + e2 * e2
    t = 0.0
    if ee > 1e-18:
        t = min(max(((x0 - p0[0]) * e0 + (x1 - p0[1]) * e1 + (x2 - p0[2]) * e2) / ee, 0.0), 1.0)
    return p0[0] + t * e0, p0[1] + t * e1, p0[2] + t * e2


@njit(cache=True)
def _sphere_pair(a0, a1, a2, ra, b0, b1, b2, rb, fallback, out_p, out_n, out_d, out_f, slot, fid, margin):
    """Spheres (a, ra) and (b, rb): one contact, normal from b to a (fallback axis when centres meet)."""
    d0 = a0 - b0; d1 = a1 - b1; d2 = a2 - b2
    dist = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    d = dist - ra - rb
    if d >= margin:
        return slot
    if dist > 1e-12:
        n0 = d0 / dist; n1 = d1 / dist; n2 = d2 / dist
    else:
        n0 = fallback[0]; n1 = fallback[1]; n2 = fallback[2]
    s = rb + 0.5 * d
    out_p[slot, 0] = b0 + s * n0; out_p[slot, 1] = b1 + s * n1; out_p[slot, 2] = b2 + s * n2
    out_n[slot, 0] = n0; out_n[slot, 1] = n1; out_n[slot, 2] = n2
    out_d[slot] = d
    out_f[slot] = fid
    return slot + 1


@njit(cache=True, inline="always")
def segment_params(aa, bb, cc, ee, ff):
    """The closest points of segments A = a0 + s d1 and B = b0 + t d2, s and t in [0, 1] (Ericson,
    Real-Time Collision Detection 5.1.9), from aa = d1 . d1, bb = d1 . d2, cc = d1 . r, ee = d2 . d2,
    ff = d2 . r with r = a0 - b0; returns (s, t)."""
    if aa <= 1e-18 and ee <= 1e-18:
        return 0.0, 0.0
    if aa <= 1e-18:
        return 0.0, min(max(ff / ee, 0.0), 1.0)
    if ee <= 1e-18:
        return min(max(-cc / aa, 0.0), 1.0), 0.0
    den = aa * ee - bb * bb
    s = min(max((bb * ff - cc * ee) / den, 0.0), 1.0) if den > 1e-18 * aa * ee else 0.0
    t = (bb * s + ff) / ee
    if t < 0.0:
        return min(max(-cc / aa, 0.0), 1.0), 0.0
    if t > 1.0:
        return min(max((bb - cc) / aa, 0.0), 1.0), 1.0
    return s, t


@njit(cache=True)
def capsule_capsule(cap_a, cap_b, margin, out):
    """Capsules A and B into out (Manifold): the closest points of the segments, and when they lie
    parallel the end points of each against the other (up to 5 contacts). Normals from B to A."""
    a0, a1, ra = cap_a.end0, cap_a.end1, cap_a.radius
    b0, b1, rb = cap_b.end0, cap_b.end1, cap_b.radius
    out_p, out_n, out_d, out_f = out.point, out.normal, out.separation, out.feature
    d1 = np.empty(3); d2 = np.empty(3); r = np.empty(3); up = np.zeros(3)
    up[1] = 1.0
    for c in range(3):
        d1[c] = a1[c] - a0[c]; d2[c] = b1[c] - b0[c]; r[c] = a0[c] - b0[c]
    aa = _dot(d1, d1); ee = _dot(d2, d2)
    s, t = segment_params(aa, _dot(d1, d2), _dot(d1, r), ee, _dot(d2, r))
    count = _sphere_pair(a0[0] + s * d1[0], a0[1] + s * d1[1], a0[2] + s * d1[2], ra,
                         b0[0] + t * d2[0], b0[1] + t * d2[1], b0[2] + t * d2[2], rb, up,
                         out_p, out_n, out_d, out_f, 0, 0, margin)
    if aa > 1e-18 and ee > 1e-18:
        par = _dot(d1, d2)
        if par * par > 0.995 * aa * ee:
            for k in range(2):
                pa = a0 if k == 0 else a1
                x0, x1, x2 = _closest_on_segment(pa[0], pa[1], pa[2], b0, b1)
                count = _sphere_pair(pa[0], pa[1], pa[2], ra, x0, x1, x2, rb, up,
                                     out_p, out_n, out_d, out_f, count, 1 + k, margin)
                pb = b0 if k == 0 else b1
                x0, x1, x2 = _closest_on_segment(pb[0], pb[1], pb[2], a0, a1)
                count = _sphere_pair(x0, x1, x2, ra, pb[0], pb[1], pb[2], rb, up,
                                     out_p, out_n, out_d, out_f, count, 3 + k, margin)
    return count
