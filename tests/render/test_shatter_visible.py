"""A shatter reads on screen: the shards of a bottle broken over the calm pool stand out.

The shards' pixels are found by drawing the same frame twice, with and without the shard bodies
(the spray, foam and water identical: the effects follow sim.time, which does not move between the
two draws). A pixel is a shard's where its luma, Y = 0.299 R + 0.587 G + 0.114 B, differs between
the two by more than CONTRAST (of 255): a visible step against whatever is behind it. At the calm
pool's own camera a 5-6 cm shard spans ~6 px, so 23 shards that each read as a glint or a rim
cover a few hundred such pixels; hidden under a white puff, or dim, they do not.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.levels.loader import load_level
from engine.render.camera import OrbitCamera

ROOT = Path(__file__).resolve().parents[2]
W, H = 800, 450
CONTRAST = 40.0     # luma step (0..255) a player sees at a glance
MIN_PIXELS = 200    # shard pixels in the frame 0.25 s after the break


def _luma(img: np.ndarray) -> np.ndarray:
    return img[..., :3].astype(float) @ np.array([0.299, 0.587, 0.114])


def shard_pixels(height: float = 0.9, steps: int = 30, msaa: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Luma step of every pixel (with shards - without), and the frame with them."""
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    level = load_level(ROOT / "content/levels/calm_pool.toml")
    sim = Simulation(level)
    r = Renderer(sim, W, H)
    r.msaa = msaa         # 4 (the default) or 0 (FXAA): a thin rim must not alias away
    cam = OrbitCamera.from_level(level, W / H)
    try:
        sim.step(2)
        r.draw(cam)
        shards = sim.shatter(sim.spawn_bottle((2.0, height, 1.5)))   # mid-pool; the water is at 0.5 m
        sim.step(steps)
        r.draw(cam)
        assert r.errors() == []
        with_shards = r.read_rgba().copy()
        for e in shards:
            sim.remove_body(e)
        r.draw(cam)
        without = r.read_rgba().copy()
        return np.abs(_luma(with_shards) - _luma(without)), with_shards
    finally:
        r.close()
        sim.close()


@pytest.mark.parametrize("msaa", [4, 0])
@pytest.mark.parametrize("height", [0.9, 0.25], ids=["above_water", "under_water"])
def test_shards_stand_out_after_a_shatter(gl_context, height, msaa):
    """0.4 m over the water (shards not hidden by their own splash puff), and 0.25 m under it
    (a glint kept through the refraction), with MSAA and without. The original look gave 74 and
    31 such pixels with 4x MSAA, 35 and 18 without."""
    step, _ = shard_pixels(height, msaa=msaa)
    seen = int((step > CONTRAST).sum())
    assert seen >= MIN_PIXELS, f"only {seen} shard pixels step > {CONTRAST} in luma (want {MIN_PIXELS})"
