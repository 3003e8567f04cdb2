"""Mesh builders and the camera, pure numpy (no GL)."""
from __future__ import annotations

import numpy as np

from engine.render import meshes
from engine.render.camera import OrbitCamera


def test_crest_diagonal_follows_the_higher_pair():
    # eta(i,j) + eta(i+1,j+1) = 2 > eta(i+1,j) + eta(i,j+1) = 0: split along (i,j)-(i+1,j+1)
    assert meshes.crest_diagonal([[1.0, 0.0], [0.0, 1.0]])[0, 0]
    assert not meshes.crest_diagonal([[0.0, 1.0], [1.0, 0.0]])[0, 0]


def test_fill_level_stays_level_and_holds_the_fraction():
    s = meshes.inner_samples(2000)
    up = np.eye(3)[None]
    tilt = meshes.quat_to_matrices([np.cos(0.4), np.sin(0.4), 0.0, 0.0])   # 46 degrees about x
    lv_up = meshes.fill_levels(s, up, np.zeros((1, 3)), np.array([0.5]))[0]
    lv_tilt = meshes.fill_levels(s, tilt, np.zeros((1, 3)), np.array([0.5]))[0]
    # the fraction of inside points below the level is the fill fraction, in both poses
    assert abs((s[:, 1] < lv_up).mean() - 0.5) < 0.01
    assert abs(((s @ tilt[0].T)[:, 1] < lv_tilt).mean() - 0.5) < 0.01
    assert meshes.fill_levels(s, up, np.zeros((1, 3)), np.array([0.0]))[0] < -1e8


def test_flat_shade_gives_face_normals():
    v, t = meshes.shard_shape(3)
    flat = meshes.flat_shade(v, t).reshape(-1, 3, 9)
    assert np.allclose(flat[:, 0, 3:6], flat[:, 1, 3:6]) and np.allclose(np.linalg.norm(flat[:, 0, 3:6], axis=1), 1, atol=1e-5)


def test_camera_projects_its_target_to_the_screen_centre():
    cam = OrbitCamera((1.0, 0.5, 2.0), 3.0, 20.0, 30.0, 50.0)
    x, y, z = cam.project([cam.target], 320, 180)[0]
    assert abs(x - 160) < 1e-6 and abs(y - 90) < 1e-6 and -1 < z < 1
    o, d = cam.ray(160, 90, 320, 180)
    assert np.allclose(o + d * np.dot(np.asarray(cam.target) - o, d), cam.target, atol=1e-6)


def test_pool_mesh_covers_floor_and_walls():
    v = meshes.pool_mesh((2.0, 1.0), 0.6)
    floor = v[(v[:, 3 + 1] == 1) & (v[:, 1] == 0) & (v[:, 8] == 0)]
    assert floor[:, 0].min() == 0 and floor[:, 0].max() == 2 and floor[:, 2].max() == 1
