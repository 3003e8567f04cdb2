"""Mesh builders and the camera, pure numpy (no GL)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.render import vertex_arrays as va
from engine.render.camera import OrbitCamera


def test_crest_diagonal_follows_the_higher_pair():
    # eta(i,j) + eta(i+1,j+1) = 2 > eta(i+1,j) + eta(i,j+1) = 0: split along (i,j)-(i+1,j+1)
    assert va.crest_diagonal([[1.0, 0.0], [0.0, 1.0]])[0, 0]
    assert not va.crest_diagonal([[0.0, 1.0], [1.0, 0.0]])[0, 0]


def test_fill_level_stays_level_and_holds_the_fraction():
    s = va.inner_samples(2000)
    up = np.eye(3)[None]
    tilt = va.quat_to_matrices([np.cos(0.4), np.sin(0.4), 0.0, 0.0])   # 46 degrees about x
    lv_up = va.fill_levels(s, up, np.zeros((1, 3)), np.array([0.5]))[0]
    lv_tilt = va.fill_levels(s, tilt, np.zeros((1, 3)), np.array([0.5]))[0]
    # the fraction of inside points below the level is the fill fraction, in both poses
    assert abs((s[:, 1] < lv_up).mean() - 0.5) < 0.01
    assert abs(((s @ tilt[0].T)[:, 1] < lv_tilt).mean() - 0.5) < 0.01
    assert va.fill_levels(s, up, np.zeros((1, 3)), np.array([0.0]))[0] < -1e8


def test_flat_shade_gives_face_normals():
    v, t = va.shard_shape(3)
    flat = va.flat_shade(v, t).reshape(-1, 3, 9)
    assert np.allclose(flat[:, 0, 3:6], flat[:, 1, 3:6]) and np.allclose(np.linalg.norm(flat[:, 0, 3:6], axis=1), 1, atol=1e-5)


def test_camera_projects_its_target_to_the_screen_centre():
    cam = OrbitCamera((1.0, 0.5, 2.0), 3.0, 20.0, 30.0, 50.0)
    x, y, z = cam.project([cam.target], 320, 180)[0]
    assert abs(x - 160) < 1e-6 and abs(y - 90) < 1e-6 and -1 < z < 1
    o, d = cam.ray(160, 90, 320, 180)
    assert np.allclose(o + d * np.dot(np.asarray(cam.target) - o, d), cam.target, atol=1e-6)


def test_pool_mesh_covers_floor_and_walls():
    v = va.pool_mesh((2.0, 1.0), 0.6)
    floor = v[(v[:, 3 + 1] == 1) & (v[:, 1] == 0) & (v[:, 8] == 0)]
    assert floor[:, 0].min() == 0 and floor[:, 0].max() == 2 and floor[:, 2].max() == 1


def test_bed_mesh_draws_pillars_as_blocks_and_slopes_smooth():
    from engine.render.vertex_arrays import bed_mesh
    dx = 0.1
    flat = np.zeros((8, 8))
    assert len(bed_mesh(flat, dx)) == 0
    pillar = flat.copy()
    pillar[3:5, 3:5] = 0.6                                   # a 2 x 2 cell pillar, 0.6 m tall
    v = bed_mesh(pillar, dx)
    tops = v[np.isclose(v[:, 4], 1.0)]
    sides = v[np.isclose(v[:, 4], 0.0)]
    assert len(tops) == 4 * 6 and np.allclose(tops[:, 1], 0.6)
    assert len(sides) == 8 * 6                               # 8 cell faces around it
    assert sides[:, 1].min() == 0.0 and sides[:, 1].max() == pytest.approx(0.6)
    # every side faces away from the pillar
    centre = np.array([0.4, 0.4])
    out = sides[:, [0, 2]] - centre
    assert (np.einsum("ij,ij->i", out, sides[:, [3, 5]]) > 0).all()
    slope = np.tile(np.linspace(0.01, 0.2, 8), (8, 1))       # gentle: 0.027 m per 0.1 m cell
    s = bed_mesh(slope, dx)
    assert len(s) == 64 * 6                                  # tops only, no vertical steps
    assert (s[:, 4] > 0.9).all()                             # normals mostly up, tilted with the slope
