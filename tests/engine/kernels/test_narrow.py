"""Narrow-phase manifolds (engine/kernels/narrow.py) against geometry worked out by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.kernels import narrow


def _rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])   # rows: the box's axes in world


def _box_box(ca, A, ha, cb, B, hb, margin=0.01):
    out = narrow.manifold_buffer()
    box_a = narrow.Box(np.asarray(ca, float), np.asarray(A, float), np.asarray(ha, float))
    box_b = narrow.Box(np.asarray(cb, float), np.asarray(B, float), np.asarray(hb, float))
    n = narrow.box_box(box_a, box_b, margin, out)
    if n:      # one normal for the whole manifold
        assert np.array_equal(out.normal[:n], np.repeat(out.normal[:1], n, axis=0))
    return out.point[:n], out.normal[0].copy(), out.separation[:n], out.feature[:n]


@pytest.mark.parametrize("turn", [0.0, 0.3, math.pi / 4])
def test_a_box_resting_on_a_bigger_box_touches_at_its_four_bottom_corners(turn):
    """Small box (half 0.1, 0.05, 0.1) turned about y, sunk 2 mm into a big one's top face (y = 0.2):
    four contacts, at its bottom corners' (x, z), each 2 mm deep, normal +y (from the big box B to
    the small box A)."""
    R = _rot_y(turn)
    ca = np.array([0.0, 0.2 + 0.05 - 0.002, 0.0])
    p, n, d, f = _box_box(ca, R, (0.1, 0.05, 0.1), (0.0, 0.1, 0.0), np.eye(3), (0.3, 0.1, 0.3))
    assert len(d) == 4
    assert n == pytest.approx([0.0, 1.0, 0.0], abs=1e-12)
    assert d == pytest.approx(-0.002, abs=1e-12)
    corners = [ca + sx * 0.1 * R[0] + sz * 0.1 * R[2] for sx in (-1, 1) for sz in (-1, 1)]
    for c in corners:
        assert min(np.hypot(*(q[[0, 2]] - c[[0, 2]])) for q in p) < 1e-9
    assert len(set(f.tolist())) == 4                       # distinct feature ids


def test_equal_faces_stacked_flush_keep_their_corners():
    """Two equal 0.3 x 0.2 x 0.2 boxes, one on the other, the upper shifted 0.5 mm along x (within
    narrow.CLIP_TOL): the manifold is the lower box's four top corners (x = +-0.15; the upper box's
    face is the reference), 1 mm of overlap each, not crossings that come and go with the shift."""
    h = (0.15, 0.1, 0.1)
    p, n, d, f = _box_box((0.0005, 0.299, 0.0), np.eye(3), h, (0.0, 0.1, 0.0), np.eye(3), h)
    assert len(d) == 4 and d == pytest.approx(-0.001, abs=1e-12)
    assert np.abs(p[:, 0]) == pytest.approx(0.15, abs=1e-12) and np.abs(p[:, 2]) == pytest.approx(0.1, abs=1e-12)
    assert sorted(f % 40) == [0, 1, 2, 3]                 # the incident face's corners, by their own ids


def test_crossed_edges_meet_at_one_point_at_the_edge_gap():
    """Two unit-half cubes, A turned 45 deg about z above B turned 45 deg about x: A's lowest edge
    (along z, at y_A - sqrt 2) crosses B's highest edge (along x, at y_B + sqrt 2). One contact,
    d = (y_A - y_B) - 2 sqrt 2, normal +y, at the crossing point."""
    c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
    A = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])      # turned about z
    B = np.array([[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]])      # turned about x
    gap = 0.003
    yA = 2 * math.sqrt(2) + gap
    p, n, d, f = _box_box((0.0, yA, 0.0), A, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), B, (1.0, 1.0, 1.0))
    assert len(d) == 1
    assert d[0] == pytest.approx(gap, abs=1e-12)
    assert n == pytest.approx([0.0, 1.0, 0.0], abs=1e-12)
    assert p[0] == pytest.approx([0.0, math.sqrt(2) + gap / 2, 0.0], abs=1e-12)


def test_boxes_farther_apart_than_the_margin_have_no_contacts():
    p, n, d, f = _box_box((0.0, 0.5, 0.0), np.eye(3), (0.1, 0.1, 0.1), (0.0, 0.0, 0.0), _rot_y(0.3), (0.1, 0.1, 0.1),
                          margin=0.01)
    assert len(d) == 0


def test_sphere_against_a_box_face_and_corner():
    """Face: d = (distance of the centre from the face plane) - r, normal the face's. Corner:
    d = |c - corner| - r, normal along c - corner."""
    B = np.eye(3); cb = np.zeros(3); hb = np.array([0.1, 0.1, 0.1])
    d, n0, n1, n2, *pt = narrow.sphere_box(0.02, 0.2, -0.03, 0.05, narrow.Box(cb, B, hb))
    assert d == pytest.approx(0.2 - 0.1 - 0.05, abs=1e-14) and (n0, n1, n2) == pytest.approx((0, 1, 0))
    c = np.array([0.2, 0.25, 0.15])
    d, n0, n1, n2, *pt = narrow.sphere_box(*c, 0.05, narrow.Box(cb, B, hb))
    r = c - hb
    assert d == pytest.approx(np.linalg.norm(r) - 0.05, abs=1e-14)
    assert (n0, n1, n2) == pytest.approx(tuple(r / np.linalg.norm(r)), abs=1e-14)


def test_crossing_capsules_meet_at_the_distance_of_their_axes():
    """Axes along x at y = 0 and along z at y = 0.15: distance 0.15, d = 0.15 - r_a - r_b."""
    out = narrow.manifold_buffer()
    n = narrow.capsule_capsule(narrow.Capsule(np.array([0.0, 0.15, -0.3]), np.array([0.0, 0.15, 0.3]), 0.05),
                               narrow.Capsule(np.array([-0.3, 0.0, 0.0]), np.array([0.3, 0.0, 0.0]), 0.08), 0.1, out)
    od, on = out.separation, out.normal
    assert n == 1
    assert od[0] == pytest.approx(0.15 - 0.05 - 0.08, abs=1e-14)
    assert on[0] == pytest.approx([0.0, 1.0, 0.0], abs=1e-14)


def test_capsule_box_bounding_test_never_drops_a_touching_pair():
    """capsule_box's early return is conservative: whenever the segment comes within r + margin of
    the box (distance of the segment to the box, sampled densely in numpy: 2001 points of the
    segment, each clamped into the box), the manifold has at least one contact; a pair it rejects
    is farther than r + margin everywhere."""
    rng = np.random.default_rng(11)
    out = narrow.manifold_buffer()
    s = np.linspace(0.0, 1.0, 2001)[:, None]
    touching = 0
    for _ in range(300):
        B = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        hb = rng.uniform(0.01, 0.1, 3)
        cb = rng.normal(0, 0.02, 3)
        p0 = rng.normal(0, 0.15, 3)
        p1 = p0 + rng.normal(0, 0.1, 3)
        r, margin = rng.uniform(0.005, 0.04), 0.01
        seg = p0 + s * (p1 - p0)
        loc = (seg - cb) @ B.T
        gap = np.linalg.norm(loc - np.clip(loc, -hb, hb), axis=1).min() - r
        n = narrow.capsule_box(narrow.Capsule(p0, p1, r), narrow.Box(cb, B, hb), margin, 1.0, out)
        if gap < margin - 1e-4:
            touching += 1
            assert n >= 1
    assert touching > 30      # the sample holds touching pairs as well as distant ones
