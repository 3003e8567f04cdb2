"""The one shard cap's fade is drawn: a shard past physics.max_shards fades out whole.

A fading shard is drawn with its fragment alpha times fade = 1 - (t - t0) / FADE_SECONDS
(Shatter.slot_alpha). Alpha blending gives out = fade a c + (1 - fade a) d, so the frame differs from
the frame without the shard by fade a (c - d) for one layer of glass (through two layers, back
and front, by f a1 (c1 - d) + f a2 (1 - f a1) (c2 - d): still of order f). So the frame moves
towards the frame without the shards as the fade goes 1, 0.5, 0.1, and at fade 0 it is that frame,
highlights and edges included (they are alpha-blended too, so nothing pops when the shard goes).
"""
from __future__ import annotations

import numpy as np

from engine.levels.schema import Level, PoolSpec, WaterSpec
from engine.render.camera import OrbitCamera
from engine.systems.shatter import FADE_SECONDS

W, H = 320, 180


def test_a_fading_shard_is_drawn_at_its_fade(gl_context):
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    sim = Simulation(Level(pool=PoolSpec(size=(1.6, 1.2), cell=0.04, wall_height=0.6), water=WaterSpec(level=0.3)))
    r = Renderer(sim, W, H)
    cam = OrbitCamera((0.8, 0.45, 0.6), 1.2, -20.0, 40.0, 50.0)
    try:
        shards = sim.shatter(sim.spawn_bottle((0.8, 0.5, 0.6)))
        shatter = sim.get_system("Shatter")

        def frame(fading_since: float | None) -> np.ndarray:
            shatter.fading = {} if fading_since is None else {e: fading_since for e in shards}
            r.draw(cam)
            assert r.errors() == []
            return r.read_rgba()[..., :3].astype(float)

        fades = (1.0, 0.5, 0.1, 0.0)
        frames = [frame(sim.time - (1.0 - f) * FADE_SECONDS) for f in fades]
        for e in shards:
            sim.remove_body(e)
        shatter.fading = {}
        none = frame(None)
        diff = [np.abs(img - none).sum() for img in frames]
        assert diff[0] > 1000.0                                   # the shards are in view
        assert diff[0] > diff[1] > diff[2] > diff[3]
        assert diff[2] < 0.35 * diff[0], diff                     # fade 0.1: of order 0.1 (two layers)
        assert np.abs(frames[3] - none).max() <= 1.0, diff        # fade 0: nothing left of them
    finally:
        r.close()
        sim.close()
