"""Anti-aliasing: MSAA in the 3D passes (resolved for the passes that sample the scene), FXAA as
the fallback, and the setting (`Renderer.msaa`, BOTTLES_MSAA, `--msaa`)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.levels.schema import Level, PoolSpec, WaterSpec
from engine.render.camera import OrbitCamera

W, H = 320, 180
CAM = OrbitCamera((0.8, 0.3, 0.6), 2.0, -33.0, 40.0, 50.0)     # the deck's corner over the wall


def pool_level() -> Level:
    return Level(pool=PoolSpec(size=(1.6, 1.2), cell=0.04, wall_height=0.6), water=WaterSpec(level=0.3))


def _frames(sizes_and_samples: list[tuple[int, int, int]]) -> list[np.ndarray]:
    """Draw the same scene at each (width, height, msaa), FXAA off, every water cell triangulated
    (the geometry must not change with the resolution); return float RGB frames."""
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    sim = Simulation(pool_level())
    out = []
    try:
        for w, h, samples in sizes_and_samples:
            r = Renderer(sim, w, h)
            try:
                r.render_scale = 1.0
                r.msaa, r.fxaa, r.water_lod_pixels = samples, False, 0
                assert r.render_size == (w, h)
                r.draw(CAM)
                out.append(r.read_rgba()[..., :3].astype(float))
                assert r.errors() == []
            finally:
                r.close()
    finally:
        sim.close()
    return out


def _rim_crossings(img: np.ndarray, rim: np.ndarray) -> np.ndarray:
    """Walk the projected rim segments in half-pixel steps; at each edge pixel whose two sides
    (2.5 px either way along the segment's normal) differ by more than 40 levels, return where its
    value lies between them: f = (v - B).(A - B) / |A - B|^2, 0 on one side, 1 on the other."""
    h, w = img.shape[:2]
    out = []
    for a, b in zip(rim, np.roll(rim, -1, 0)):
        length = float(np.linalg.norm(b - a))
        t = (b - a) / length
        normal = np.array([-t[1], t[0]])
        for s in np.arange(3.0, length - 3.0, 0.5):
            px = np.floor(a + s * t).astype(int)
            if not (3 <= px[0] < w - 3 and 3 <= px[1] < h - 3):
                continue
            ia = np.floor(px + 0.5 + 2.5 * normal).astype(int)
            ib = np.floor(px + 0.5 - 2.5 * normal).astype(int)
            side_a, side_b, v = img[ia[1], ia[0]], img[ib[1], ib[0]], img[px[1], px[0]]
            if np.abs(side_a - side_b).max() > 40:
                out.append((v - side_b) @ (side_a - side_b) / ((side_a - side_b) @ (side_a - side_b)))
    return np.array(out)


def test_msaa_gives_partial_coverage_along_the_pool_rim(gl_context):
    """A pixel's ideal value is the mean of the picture over its area (box filter): a pixel that a
    silhouette edge crosses takes a value between the two sides in proportion to the area each
    covers. Along a known edge, the top of the pool's walls (its four corners projected), the 4x
    MSAA frame has such intermediate values (15-85 % of the way from one side to the other) at most
    of the edge's pixels, as many as the same frame drawn at 4x the size and averaged over 4 x 4
    blocks (the area mean to a sixteenth of a pixel, made without MSAA); the aliased frame, whose
    pixels are one side or the other, has them only where the texture itself varies. Along the rim
    MSAA is also nearer that area mean than the aliased frame; away from edges both agree."""
    sharp, msaa, big = _frames([(W, H, 0), (W, H, 4), (4 * W, 4 * H, 0)])
    area = big.reshape(H, 4, W, 4, 3).mean((1, 3))
    rim = CAM.project([(0.0, 0.6, 0.0), (1.6, 0.6, 0.0), (1.6, 0.6, 1.2), (0.0, 0.6, 1.2)], W, H)[:, :2]

    def partial(img: np.ndarray) -> float:
        f = _rim_crossings(img, rim)
        assert len(f) > 300, "the rim crosses the frame"
        return float(((f > 0.15) & (f < 0.85)).mean())

    p_sharp, p_msaa, p_area = partial(sharp), partial(msaa), partial(area)
    assert p_msaa > 0.5 and p_sharp < 0.4 and abs(p_msaa - p_area) < 0.15, (p_sharp, p_msaa, p_area)
    yy, xx = np.mgrid[0:H, 0:W] + 0.5
    q = np.stack([xx, yy], -1)
    dist = np.full((H, W), np.inf)
    for a, b in zip(rim, np.roll(rim, -1, 0)):
        s = np.clip((q - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
        dist = np.minimum(dist, np.linalg.norm(q - (a + s[..., None] * (b - a)), axis=-1))
    e_sharp, e_msaa = np.abs(sharp - area).max(2), np.abs(msaa - area).max(2)
    on_rim = (dist < 1.0) & (e_sharp > 20)
    assert on_rim.sum() > 100
    assert e_msaa[on_rim].mean() < 0.75 * e_sharp[on_rim].mean(), (e_msaa[on_rim].mean(), e_sharp[on_rim].mean())
    edges = e_sharp > 20
    assert np.abs(msaa - sharp)[~edges].mean() < 2.0, "colours come through the resolve unchanged"


def test_msaa_keeps_refraction_and_depth_colour_under_water(gl_context):
    """The water samples the scene's colour and depth (refraction, Beer-Lambert thickness): under
    MSAA it reads them resolved from the multisampled target. A broken resolve (no depth: zero
    thickness, or no colour) shows as a different water colour; a working one leaves the middle
    of the pool as it is without MSAA, to a few levels."""
    sharp, msaa = _frames([(W, H, 0), (W, H, 4)])
    pts = CAM.project([(x, 0.3, z) for x in (0.5, 1.1) for z in (0.4, 0.8)], W, H)   # mid-pool patch
    (x0, y0), (x1, y1) = pts[:, :2].min(0).astype(int), pts[:, :2].max(0).astype(int)
    rows, cols = slice(max(y0, 0), min(y1, H)), slice(max(x0, 0), min(x1, W))
    assert (y1 - y0) * (x1 - x0) > 400
    a, b = sharp[rows, cols].reshape(-1, 3).mean(0), msaa[rows, cols].reshape(-1, 3).mean(0)
    assert b[2] > b[0] + 30, "blue-green water"
    assert np.abs(a - b).max() < 3.0, (a, b)


def test_the_msaa_setting_follows_the_context_and_switches_fxaa(gl_context):
    """`msaa` is capped at GL_MAX_SAMPLES; 0 and 1 mean none, and then FXAA runs instead unless
    `fxaa` says otherwise; a new render scale resizes the multisampled target with the others."""
    from engine.render.renderer import Renderer
    from engine.render.targets import MultisampleFramebuffer
    from engine.world import Simulation
    sim = Simulation(pool_level())
    r = Renderer(sim, 2 * W, 2 * H)
    try:
        most = MultisampleFramebuffer.max_samples()
        assert most >= 4, "Mesa llvmpipe offers 4 samples a pixel"
        r.msaa = 64
        assert r.msaa == most and r.multisampled is not None and r.multisampled.samples == most
        assert not r.fxaa_on
        r.msaa = 2
        assert r.msaa == 2 and r.multisampled.samples == 2
        for off in (0, 1):
            r.msaa = off
            assert r.msaa == 0 and r.multisampled is None and r.fxaa_on
        r.fxaa = False
        assert not r.fxaa_on
        r.fxaa = None
        r.msaa = 4
        r.min_render_height = 0
        r.render_scale = 0.5
        assert (r.multisampled.width, r.multisampled.height) == r.render_size == (W, H)
        r.draw(CAM)
        img = r.read_rgba()
        assert img.shape == (2 * H, 2 * W, 4) and (img[..., 3] == 255).all() and r.errors() == []
    finally:
        r.close()
        sim.close()


def test_bottles_msaa_sets_the_default(monkeypatch):
    """BOTTLES_MSAA (which `--msaa` sets) chooses a new renderer's samples; junk is refused by name."""
    from engine.render.renderer import Renderer, default_msaa
    from game.cli import build_parser, main
    monkeypatch.delenv("BOTTLES_MSAA", raising=False)
    assert default_msaa() == Renderer.DEFAULT_MSAA == 4
    monkeypatch.setenv("BOTTLES_MSAA", "2")
    assert default_msaa() == 2
    monkeypatch.setenv("BOTTLES_MSAA", "lots")
    with pytest.raises(ValueError, match="BOTTLES_MSAA"):
        default_msaa()
    monkeypatch.delenv("BOTTLES_MSAA")
    for cmd in ("play", "record", "bench"):
        assert build_parser().parse_args([cmd, "--msaa", "0"]).msaa == 0
    with pytest.raises(SystemExit):
        build_parser().parse_args(["record", "--msaa", "3"])
    assert main(["bench", "--msaa", "2", "--only", "no-such-section"]) == 2
    import os
    assert os.environ["BOTTLES_MSAA"] == "2"


def test_the_floor_drawn_a_sample_a_pixel_leaves_no_gap_at_the_walls(gl_context):
    """The floor is drawn with one coverage sample a pixel (cheaper on llvmpipe) and reaches under
    the deck, so each pixel along its junction with the walls has every sample covered by the
    floor or a wall: no sample keeps the black clear colour. Along the four bottom edges (seen
    through the still water, which bends nothing) the 4x MSAA frame is nowhere darker than the
    4x4-supersampled frame by more than a quarter of a pixel's black would make it."""
    sharp, msaa, big = _frames([(W, H, 0), (W, H, 4), (4 * W, 4 * H, 0)])
    area = big.reshape(H, 4, W, 4, 3).mean((1, 3))
    foot = CAM.project([(0.0, 0.0, 0.0), (1.6, 0.0, 0.0), (1.6, 0.0, 1.2), (0.0, 0.0, 1.2)], W, H)[:, :2]
    yy, xx = np.mgrid[0:H, 0:W] + 0.5
    q = np.stack([xx, yy], -1)
    dist = np.full((H, W), np.inf)
    for a, b in zip(foot, np.roll(foot, -1, 0)):
        s = np.clip((q - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
        dist = np.minimum(dist, np.linalg.norm(q - (a + s[..., None] * (b - a)), axis=-1))
    seen = (dist < 1.0) & (xx > 2) & (xx < W - 2) & (yy > 2) & (yy < H - 2)
    assert seen.sum() > 100
    darker = ((area - msaa).mean(2) / np.maximum(area.mean(2), 1.0))[seen]    # a black sample: 1/4
    assert darker.max() < 0.2, np.round(np.sort(darker)[-5:], 2)
