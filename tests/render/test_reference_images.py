"""Frames compared with checked-in reference images (tests/render/reference/*.png), with a tolerance.

Each scene is set up by hand at t = 0 (a water surface written directly, bodies placed, no physics
steps), so the picture depends on the renderer alone, not on how the solver evolves the water.
A frame matches when its mean absolute difference is under MEAN_TOL (0-255 per channel) and under
BAD_FRACTION of its pixels differ by more than BAD_LEVEL: small changes of the rasteriser (a
different llvmpipe build moving an edge by a pixel) pass, a broken or missing pass does not (the
last test shows that a visible change of the look fails the comparison).

After an intended change of the picture, look at the new frames and regenerate the references:
    BOTTLES_UPDATE_REFERENCES=1 pytest tests/render/test_reference_images.py
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from engine.levels.features import ObstacleSpec, TerrainSpec, WaveMakerSpec
from engine.levels.schema import Level, LookSpec, PoolSpec, WaterSpec
from engine.render.camera import OrbitCamera

REFERENCE = Path(__file__).parent / "reference"
W, H = 320, 180
MEAN_TOL = 3.0
BAD_LEVEL = 48
BAD_FRACTION = 0.02


def pool_level() -> Level:
    return Level(pool=PoolSpec(size=(1.6, 1.2), cell=0.04, wall_height=0.6), water=WaterSpec(level=0.3))


def harbour_level(**look) -> Level:
    """Stone bed rising to a dry shore, a round pillar, a turned box, a ramp, a wall, a paddle."""
    return Level(
        pool=PoolSpec(size=(2.4, 1.6), cell=0.04, wall_height=0.7),
        water=WaterSpec(level=0.3, damping=0.0),
        terrain=TerrainSpec(kind="slope", axis="x", span=(1.2, 2.4), heights=(0.0, 0.45)),
        obstacles=(ObstacleSpec(kind="pillar", center=(0.5, 0.5), radius=0.12, height=0.55),
                   ObstacleSpec(kind="box", center=(1.0, 1.1), size=(0.3, 0.2), height=0.4, angle=30.0),
                   ObstacleSpec(kind="ramp", center=(0.35, 1.25), size=(0.4, 0.3), heights=(0.05, 0.35)),
                   ObstacleSpec(kind="wall", start=(0.9, 0.35), end=(1.5, 0.35), thickness=0.08, height=0.5)),
        wave_makers=(WaveMakerSpec(kind="paddle", side="z_max", stroke=0.04, span=(0.0, 1.2)),),
        look=LookSpec(bed="stone", walls="stone", obstacles="concrete", **look),
    )


def _render(level: Level, cam: OrbitCamera, debug: str | None = None, setup=None) -> np.ndarray:
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    sim = Simulation(level)
    r = Renderer(sim, W, H)
    try:
        if setup is not None:
            setup(sim)
        r.draw(cam, debug=debug)
        assert r.errors() == []
        return r.read_rgba()[..., :3].copy()
    finally:
        r.close()
        sim.close()


def _wave_and_bottle(sim) -> None:
    w = sim.water
    nz, nx = w.shape
    x = (np.arange(nx) + 0.5) * w.dx
    w.h[:] += 0.02 * np.exp(-((x - 0.8) / 0.12) ** 2)[None, :]
    sim.spawn_bottle((0.55, 0.62, 0.45))


def _swirl(sim) -> None:
    """A vortex in the face velocities: u = -s (z - zc), w = s (x - xc) inside r < 0.4 m."""
    w = sim.water
    nz, nx = w.shape
    dx = w.dx
    xu, zu = np.meshgrid(np.arange(nx + 1) * dx, (np.arange(nz) + 0.5) * dx)
    xw, zw = np.meshgrid((np.arange(nx) + 0.5) * dx, np.arange(nz + 1) * dx)
    c = (0.6, 0.8)
    w.u[:] = np.where(np.hypot(xu - c[0], zu - c[1]) < 0.4, -0.8 * (zu - c[1]), 0.0)
    w.w[:] = np.where(np.hypot(xw - c[0], zw - c[1]) < 0.4, 0.8 * (xw - c[0]), 0.0)


HARBOUR_CAM = dict(target=(1.2, 0.25, 0.8), distance=2.2, yaw=-25.0, pitch=48.0, fov=50.0)
SCENES = {
    "pool_wave_bottle": lambda: _render(pool_level(), OrbitCamera((0.8, 0.3, 0.6), 2.2, -20.0, 55.0, 50.0),
                                        setup=_wave_and_bottle),
    "harbour_look": lambda: _render(harbour_level(), OrbitCamera(**HARBOUR_CAM)),
    "harbour_depth_view": lambda: _render(harbour_level(), OrbitCamera(**HARBOUR_CAM), debug="depth"),
    "swirl_vorticity_view": lambda: _render(harbour_level(), OrbitCamera(**HARBOUR_CAM), debug="vorticity",
                                            setup=_swirl),
}


def difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(mean absolute difference, fraction of pixels whose largest channel differs by > BAD_LEVEL)."""
    d = np.abs(a.astype(np.int16) - b.astype(np.int16))
    return float(d.mean()), float((d.max(axis=2) > BAD_LEVEL).mean())


def matches(a: np.ndarray, b: np.ndarray) -> bool:
    mean, bad = difference(a, b)
    return mean < MEAN_TOL and bad < BAD_FRACTION


@pytest.mark.parametrize("name", sorted(SCENES))
def test_frame_matches_its_reference_image(gl_context, name, tmp_path):
    img = SCENES[name]()
    ref_path = REFERENCE / f"{name}.png"
    if os.environ.get("BOTTLES_UPDATE_REFERENCES"):
        REFERENCE.mkdir(exist_ok=True)
        Image.fromarray(img).save(ref_path, optimize=True)
    assert ref_path.exists(), f"no reference image {ref_path}; run with BOTTLES_UPDATE_REFERENCES=1 and look at it"
    ref = np.asarray(Image.open(ref_path).convert("RGB"))
    assert ref.shape == img.shape
    if not matches(img, ref):
        Image.fromarray(img).save(tmp_path / f"{name}_got.png")
        mean, bad = difference(img, ref)
        pytest.fail(f"{name}: differs from {ref_path.name} (mean {mean:.2f} >= {MEAN_TOL} or "
                    f"{bad:.1%} of pixels off by > {BAD_LEVEL} >= {BAD_FRACTION:.0%}); frame saved in {tmp_path}")


def test_the_tolerance_catches_a_visible_change(gl_context):
    """A sand bed instead of stone, or obstacles left out, in the same scene: neither matches the
    reference, so the comparison is tight enough to see a wrong material or a missing pass."""
    import dataclasses
    ref = np.asarray(Image.open(REFERENCE / "harbour_look.png").convert("RGB"))
    level = harbour_level()
    sand = _render(dataclasses.replace(level, look=dataclasses.replace(level.look, bed="sand")),
                   OrbitCamera(**HARBOUR_CAM))
    assert not matches(sand, ref), difference(sand, ref)
    bare = _render(dataclasses.replace(level, obstacles=()), OrbitCamera(**HARBOUR_CAM))
    assert not matches(bare, ref), difference(bare, ref)
