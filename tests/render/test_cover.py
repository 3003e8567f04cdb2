"""The sky's scissor box: every pixel whose ray misses the deck lies inside it (pure numpy)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.render.camera import OrbitCamera
from engine.render.cover import sky_box

W, H = 160, 90
POOL, DECK, Y = (4.0, 4.0), 6.0, 0.6
CORNERS = np.array([(-DECK, Y, -DECK), (POOL[0] + DECK, Y, -DECK), (POOL[0] + DECK, Y, POOL[1] + DECK),
                    (-DECK, Y, POOL[1] + DECK)])


def _misses(cam: OrbitCamera) -> np.ndarray:
    """(y from the bottom, x) of the pixel centres whose ray does not meet the deck rectangle."""
    inv = np.linalg.inv(cam.view_projection(W / H))
    py, px = np.mgrid[0:H, 0:W] + 0.5
    ndc = np.stack([2 * px / W - 1, 1 - 2 * py / H], -1).reshape(-1, 2)
    a = np.c_[ndc, -np.ones(len(ndc)), np.ones(len(ndc))] @ inv.T
    b = np.c_[ndc, np.ones(len(ndc)), np.ones(len(ndc))] @ inv.T
    o, d = a[:, :3] / a[:, 3:], b[:, :3] / b[:, 3:] - a[:, :3] / a[:, 3:]
    down = d[:, 1] < -1e-12
    t = np.where(down, (Y - o[:, 1]) / np.where(down, d[:, 1], -1.0), np.inf)
    p = o + np.where(np.isfinite(t), t, 0.0)[:, None] * d
    hit = down & (t > 0) & (p[:, 0] >= -DECK) & (p[:, 0] <= POOL[0] + DECK) & (p[:, 2] >= -DECK) & (p[:, 2] <= POOL[1] + DECK)
    k = np.nonzero(~hit)[0]
    return np.c_[H - 1 - k // W, k % W]


@pytest.mark.parametrize("yaw, pitch, distance", [(-20.0, 35.0, 7.0), (30.0, 15.0, 5.0), (0.0, 80.0, 4.0),
                                                  (120.0, 5.0, 9.0)])
def test_the_sky_box_holds_every_pixel_the_deck_does_not_cover(yaw, pitch, distance):
    """Ray-cast each pixel against the deck's plane y = Y inside its rectangle: the pixels that
    miss it (the only ones where the sky can show) are all inside the box; a box of None means
    none misses."""
    cam = OrbitCamera((2.0, 0.3, 2.0), distance, yaw, pitch, 50.0)
    box = sky_box(cam.view_projection(W / H), CORNERS, W, H)
    miss = _misses(cam)
    if box is None:
        assert len(miss) == 0
        return
    x, y, w, h = box
    assert ((miss[:, 1] >= x) & (miss[:, 1] < x + w) & (miss[:, 0] >= y) & (miss[:, 0] < y + h)).all()
    # and it is tight (within the 2 px margin and a pixel of rounding): the camera stands over
    # the deck in these views, so the deck's outline is clipped to the near plane first
    assert h <= miss[:, 0].max() - miss[:, 0].min() + 1 + 6 and w <= miss[:, 1].max() - miss[:, 1].min() + 1 + 6


def test_looking_straight_down_at_the_deck_draws_no_sky_and_behind_the_camera_draws_all():
    cam = OrbitCamera((2.0, 0.3, 2.0), 4.0, 0.0, 89.0, 50.0)
    assert sky_box(cam.view_projection(W / H), CORNERS, W, H) is None
    inside = OrbitCamera((2.0, 0.3, 2.0), 30.0, 0.0, 5.0, 50.0)      # the eye beyond the deck
    assert sky_box(inside.view_projection(W / H), CORNERS, W, H) == (0, 0, W, H)


@pytest.mark.parametrize("yaw,pitch,dist", [(-30.0, 38.0, 6.0), (10.0, 70.0, 3.0), (80.0, 15.0, 9.0)])
def test_water_box_holds_every_point_of_the_pool_volume_on_screen(yaw, pitch, dist):
    """bounds_box: every point of the world box lo..hi in front of the camera projects, through
    ndc = clip.xy / clip.w, into the returned pixel box (convexity: a box's projection lies in the
    hull of its corners'); a box the camera stands inside gives the whole screen."""
    from engine.render.cover import bounds_box
    cam = OrbitCamera((2.0, 0.3, 2.0), dist, yaw, pitch, 50.0)
    vp = cam.view_projection(W / H)
    lo, hi = np.array([0.0, 0.0, 0.0]), np.array([POOL[0], 0.55, POOL[1]])
    x, y, w, h = bounds_box(vp, lo, hi, W, H, margin=0)
    assert 0 <= x and 0 <= y and x + w <= W and y + h <= H and w > 0 and h > 0
    pts = lo + np.random.default_rng(1).random((4000, 3)) * (hi - lo)
    c = np.c_[pts, np.ones(len(pts))] @ vp.T
    c = c[c[:, 3] > 1e-6]
    px = (c[:, 0] / c[:, 3] * 0.5 + 0.5) * W
    py = (c[:, 1] / c[:, 3] * 0.5 + 0.5) * H
    on = (px >= 0) & (px < W) & (py >= 0) & (py < H)
    assert on.sum() > 100
    assert (px[on] >= x - 1e-6).all() and (px[on] <= x + w + 1e-6).all()
    assert (py[on] >= y - 1e-6).all() and (py[on] <= y + h + 1e-6).all()
    assert w * h < W * H or pitch > 60.0          # the usual view leaves part of the screen out
    inside = OrbitCamera((2.0, 0.3, 2.0), 0.1, yaw, pitch, 50.0)       # eye within the volume
    assert bounds_box(inside.view_projection(W / H), lo, (POOL[0], 2.0, POOL[1]), W, H) == (0, 0, W, H)
