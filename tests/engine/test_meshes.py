"""Closed-mesh mass properties against closed forms; OBJ round trips; the bottle's fragment set."""
from __future__ import annotations

import numpy as np
import pytest

from engine import meshes
from engine.bodies import fragment_properties, glass_properties


def test_box_mass_properties_match_the_closed_form():
    a, b, c, rho = 0.3, 0.2, 0.1, 700.0
    v, t = meshes.box((a, b, c))
    v = v + np.array([1.0, 2.0, -0.5])         # off the origin: the COM must follow
    mp = meshes.mass_properties(v, t, rho)
    m = rho * a * b * c
    assert mp.volume == pytest.approx(a * b * c, rel=1e-12)
    assert mp.mass == pytest.approx(m, rel=1e-12)
    assert np.allclose(mp.com, [1.0, 2.0, -0.5], atol=1e-12)
    # I = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2)
    expect = m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    assert np.allclose(mp.inertia, expect, rtol=1e-10, atol=1e-14)


def test_a_rotated_box_has_the_rotated_inertia_tensor():
    v, t = meshes.box((0.4, 0.1, 0.2))
    ang = 0.7
    r = np.array([[np.cos(ang), -np.sin(ang), 0], [np.sin(ang), np.cos(ang), 0], [0, 0, 1]])
    i0 = meshes.mass_properties(v, t, 1.0).inertia
    i1 = meshes.mass_properties(v @ r.T, t, 1.0).inertia
    assert np.allclose(i1, r @ i0 @ r.T, atol=1e-15)   # full tensor, off-diagonal terms included


def test_icosphere_approaches_the_ball():
    r, rho = 0.1, 1000.0
    v, t = meshes.sphere(r, 4)
    mp = meshes.mass_properties(v, t, rho)
    m = rho * 4.0 / 3.0 * np.pi * r**3
    assert mp.mass == pytest.approx(m, rel=5e-3)             # inscribed polyhedron: slightly less
    assert np.allclose(mp.com, 0.0, atol=1e-12)
    assert np.allclose(np.diag(mp.inertia), 0.4 * m * r * r, rtol=1e-2)   # I = 2/5 m r^2
    assert abs(mp.inertia[0, 1]) < 1e-9


def test_cylinder_shell_matches_the_closed_form():
    R, r, h, rho, seg = 0.05, 0.045, 0.2, 2500.0, 512
    prof = np.array([[0.0, 0.0], [R, 0.0], [R, h], [r, h], [r, 0.01], [0.0, 0.01]])  # cup: shell + base
    v, t = meshes.lathe(prof, seg)
    assert meshes.is_closed(t)
    # the same cup computed as (outer cylinder) - (inner cylinder from 0.01 to h)
    shrink = np.sin(2 * np.pi / seg) * seg / (2 * np.pi)        # regular polygon area / circle area
    v_out = np.pi * R * R * h * shrink
    v_in = np.pi * r * r * (h - 0.01) * shrink
    mp = meshes.mass_properties(v, t, rho)
    assert mp.volume == pytest.approx(v_out - v_in, rel=1e-9)
    m_o, m_i = rho * v_out, rho * v_in
    y_o, y_i = h / 2, (h + 0.01) / 2
    com = (m_o * y_o - m_i * y_i) / (m_o - m_i)
    assert mp.com[1] == pytest.approx(com, rel=1e-6)
    # axial: m/2 R^2 for each solid cylinder (polygon correction is 1e-4 here)
    i_axis = 0.5 * m_o * R * R - 0.5 * m_i * r * r
    assert mp.inertia[1, 1] == pytest.approx(i_axis, rel=2e-4)
    # transverse about the cup's COM: m (3 R^2 + h^2)/12 + m d^2 per solid
    i_perp = (m_o * (3 * R * R + h * h) / 12 + m_o * (y_o - com) ** 2
              - m_i * (3 * r * r + (h - 0.01) ** 2) / 12 - m_i * (y_i - com) ** 2)
    assert mp.inertia[0, 0] == pytest.approx(i_perp, rel=2e-4)
    assert mp.inertia[2, 2] == pytest.approx(i_perp, rel=2e-4)


def test_obj_round_trip_keeps_groups_and_values(tmp_path):
    a = meshes.box((1.0, 2.0, 3.0))
    b = meshes.sphere(0.3, 1)
    meshes.write_obj(tmp_path / "x.obj", {"first": a, "second": b}, "test")
    got = meshes.read_obj(tmp_path / "x.obj")
    assert list(got) == ["first", "second"]
    for (v, t), (v2, t2) in zip((a, b), got.values()):
        assert np.array_equal(v, v2) and np.array_equal(t, t2)


def test_inward_meshes_are_rejected():
    v, t = meshes.box((1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="closed and outward"):
        meshes.mass_properties(v, t[:, ::-1], 1.0)


def test_bottle_fragments_tile_the_shell_exactly():
    bs = meshes.load_bottle_set()
    outer = meshes.signed_volume(*bs.outer)
    cav = meshes.lathe(np.vstack([bs.cavity_profile, [[0.0, bs.cavity_profile[-1, 1]]]]), bs.segments)
    cavity = meshes.signed_volume(*cav)
    assert cavity == pytest.approx(bs.inner_volume, rel=1e-12)
    pieces = [meshes.signed_volume(v, t) for v, t in bs.fragments]
    assert all(meshes.is_closed(t) for _, t in bs.fragments)
    assert all(p > 0 for p in pieces)
    # tiling: outer volume = cavity + glass, to round-off
    assert sum(pieces) == pytest.approx(outer - cavity, rel=1e-10)
    glass = glass_properties(bs, 2500.0)
    assert sum(p.mass for p in fragment_properties(bs, 2500.0)) == pytest.approx(glass.mass, rel=1e-12)
    assert 0.3 < glass.mass < 0.5              # a wine bottle: ~0.4 kg of glass
    assert 6e-4 < bs.inner_volume < 9e-4       # ~0.75 l


def test_water_settles_in_the_bottom_of_the_cavity():
    bs = meshes.load_bottle_set()
    for frac in (0.1, 0.5, 1.0):
        w = meshes.cavity_water(bs, frac * bs.inner_volume)
        mp = meshes.mass_properties(*w, 1000.0)
        assert mp.volume == pytest.approx(frac * bs.inner_volume, rel=1e-9)
    low = meshes.mass_properties(*meshes.cavity_water(bs, 0.2 * bs.inner_volume), 1.0).com[1]
    high = meshes.mass_properties(*meshes.cavity_water(bs, 0.8 * bs.inner_volume), 1.0).com[1]
    assert low < high
