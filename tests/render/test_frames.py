"""Real frames rendered headless (EGL, Mesa llvmpipe in CI) and checked pixel by pixel."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from engine import events as ev
from engine.levels.schema import Level, PoolSpec, WaterSpec
from engine.render.camera import OrbitCamera

W, H = 320, 180


def small_level(**water) -> Level:
    return Level(pool=PoolSpec(size=(1.6, 1.2), cell=0.04, wall_height=0.6),
                 water=WaterSpec(level=0.3, **water))


@pytest.fixture
def scene(gl_context):
    """A small pool, its renderer and a camera looking down at it."""
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    made = []

    def make(level: Level | None = None):
        sim = Simulation(level or small_level())
        r = Renderer(sim, W, H)
        cam = OrbitCamera((0.8, 0.3, 0.6), 2.2, -20.0, 55.0, 50.0)
        made.append((sim, r))
        return sim, r, cam

    yield make
    for sim, r in made:
        r.close()
        sim.close()


def frame(r, cam, debug=None) -> np.ndarray:
    r.draw(cam, debug=debug)
    assert r.errors() == []
    img = r.read_rgba()
    assert img.shape == (H, W, 4) and (img[..., 3] == 255).all(), "frames must be opaque RGBA8"
    return img[..., :3].astype(float)


def water_box(cam, lo=(0.5, 0.4), hi=(1.1, 0.8), y=0.3) -> tuple[slice, slice]:
    """Pixel rows/columns covering a patch of the water surface well inside the pool."""
    pts = cam.project([(lo[0], y, lo[1]), (hi[0], y, hi[1]), (lo[0], y, hi[1]), (hi[0], y, lo[1])], W, H)
    x0, x1 = int(pts[:, 0].min()), int(pts[:, 0].max())
    y0, y1 = int(pts[:, 1].min()), int(pts[:, 1].max())
    return slice(max(y0, 0), min(y1, H)), slice(max(x0, 0), min(x1, W))


def test_every_shader_compiles_and_links(gl_context, tmp_path: Path):
    from engine.render.glsl import Program, ShaderError, compile_shader, shader_files
    files = shader_files()
    assert {f.suffix for f in files} == {".vert", ".geom", ".frag"}
    for f in files:
        assert f.read_text().startswith("#version 330 core"), f
        compile_shader(f)
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    sim = Simulation(small_level())
    r = Renderer(sim, W, H)          # links every program it uses
    used = {n for p in r.programs.values() for n in p.names}
    assert used == {f.name for f in files}, "every shader file belongs to a program"
    r.close()
    bad = tmp_path / "bad.frag"
    bad.write_text("#version 330 core\nout vec4 c;\nvoid main() {\n  c = vec4(undefined_name);\n}\n")
    with pytest.raises(ShaderError, match=r"bad\.frag:4: "):
        Program("bad.frag", folder=tmp_path)


def test_water_is_blue_green_and_changes_when_a_wave_passes(scene):
    sim, r, cam = scene()
    rows, cols = water_box(cam)
    calm = frame(r, cam)
    patch = calm[rows, cols].reshape(-1, 3).mean(0)
    # clear water over white tiles: red is absorbed first (Beer-Lambert), so blue and green lead
    assert patch[2] > patch[0] + 30 and patch[1] > patch[0] + 30, patch
    w = sim.water
    nz, nx = w.shape
    x = (np.arange(nx) + 0.5) * w.dx
    w.h[:] += 0.02 * np.exp(-((x - 0.8) / 0.12) ** 2)[None, :]    # a crest across the pool
    wavy = frame(r, cam)
    change = np.abs(wavy[rows, cols] - calm[rows, cols]).mean()
    assert change > 3.0, change
    sim.step(40)                                                  # the wave travels on
    later = frame(r, cam)
    assert np.abs(later[rows, cols] - wavy[rows, cols]).mean() > 1.0


def test_bottle_shows_where_its_position_projects(scene):
    sim, r, cam = scene()
    empty = frame(r, cam)
    p = (0.55, 0.62, 0.45)                                        # standing in the air above the water
    e = sim.spawn_bottle(p)
    with_bottle = frame(r, cam)
    diff = np.abs(with_bottle - empty).sum(2) > 30
    ys, xs = np.nonzero(diff)
    assert len(xs) > 20, "the bottle should cover pixels"
    px, py, _ = cam.project([sim.body(e).position], W, H)[0]
    assert abs(xs.mean() - px) < 6 and abs(ys.mean() - py) < 10, (xs.mean(), ys.mean(), px, py)


def test_shards_appear_after_a_shatter(scene):
    """Shards are drawn, and spray flies, after a Shattered event.

    The shatter system is not in the engine yet: the test shatters by hand what it would, removing
    the bottle, adding small glass bodies of kind "shard", and emitting Shattered through the
    simulation's event queue (the path the renderer subscribes to).
    """
    from engine.bodies import KINDS
    sim, r, cam = scene()
    b = sim.spawn_bottle((0.8, 0.55, 0.6))
    before = frame(r, cam)
    pos = tuple(sim.body(b).position)
    sim.remove_body(b)
    shards = []
    rng = np.random.default_rng(0)
    for k in range(8):
        p = (0.65 + 0.04 * k, 0.36 + 0.02 * (k % 3), 0.55 + 0.1 * rng.random())
        e = sim.spawn_body("box", 2500.0, p, size=(0.04, 0.004, 0.03))
        sim.body_store.kind[sim.body(e).slot] = KINDS.index("shard")
        shards.append(e)
    sim.emit(ev.Shattered(b, tuple(shards), 3.0, pos, 1e-4, sim.time))
    sim.step()
    assert len(r.spray) > 0, "a shatter throws spray"
    after = frame(r, cam)
    shard_px = cam.project([sim.body(e).position for e in shards], W, H)
    hits = 0
    for x, y, _ in shard_px:
        x, y = int(round(x)), int(round(y))
        win = np.abs(after[y - 2:y + 3, x - 2:x + 3] - before[y - 2:y + 3, x - 2:x + 3]).sum(2)
        hits += int(win.max() > 25)
    assert hits >= 6, hits


def test_refraction_displaces_floor_tiles_under_a_wave(scene):
    sim, r, cam = scene()
    r.caustic_strength = 0.0                 # isolate refraction from the caustic light
    rows, cols = water_box(cam)
    w = sim.water
    nz, nx = w.shape
    x = (np.arange(nx) + 0.5) * w.dx
    flat_on = frame(r, cam)
    r.refraction_strength = 0.0
    flat_off = frame(r, cam)
    # flat water has no slope: refraction moves nothing
    assert np.abs(flat_on[rows, cols] - flat_off[rows, cols]).mean() < 0.5
    w.h[:] += 0.025 * np.sin(2 * np.pi * x / 0.3)[None, :]
    wavy_off = frame(r, cam)
    r.refraction_strength = Renderer_default()
    wavy_on = frame(r, cam)
    moved = np.abs(wavy_on[rows, cols] - wavy_off[rows, cols]).sum(2)
    # grout lines seen through the wave shift: many pixels change by more than a tile/grout contrast
    assert (moved > 40).mean() > 0.03, (moved > 40).mean()


def Renderer_default() -> float:
    from engine.render.renderer import Renderer
    return Renderer.refraction_strength


def test_debug_views_draw_without_gl_errors(scene):
    sim, r, cam = scene(small_level())
    sim.spawn_bottle((0.8, 0.5, 0.6), velocity=(0.0, -1.0, 0.0))
    sim.water.u[:, 5:10] = 0.3
    normal = frame(r, cam)
    for view in ("depth", "velocity", "bounds"):
        img = frame(r, cam, debug=view)
        changed = (np.abs(img - normal).sum(2) > 30).sum()
        assert changed > 50, (view, changed)
    with pytest.raises(ValueError):
        r.draw(cam, debug="nope")


def test_splash_event_throws_spray_that_falls_back(scene):
    sim, r, cam = scene()
    sim.emit(ev.Splash(-1, (0.8, 0.3, 0.6), 3.0, 1e-4, sim.time))
    sim.step()
    base = frame(r, cam)
    n0 = len(r.spray)
    assert n0 > 20
    sim.step(int(3.0 / sim.dt))                                  # three seconds later all fell back
    frame(r, cam)
    assert len(r.spray) == 0
    assert base is not None
    assert r.foam.field.max() > 0.0, "a splash leaves foam on the water"


def test_render_scale_draws_smaller_and_scales_up_to_the_output(gl_context):
    """At render_scale 0.5 the scene targets are half size; read_rgba still gives the output size,
    the water is still blue-green and a bottle still lands where its position projects."""
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    w, h = 2 * W, 2 * H
    sim = Simulation(small_level())
    r = Renderer(sim, w, h)
    try:
        r.min_render_height = 0
        r.render_scale = 0.5
        assert r.render_size == (W, H) and r.scaled
        cam = OrbitCamera((0.8, 0.3, 0.6), 2.2, -20.0, 55.0, 50.0)
        r.draw(cam)
        assert r.errors() == []
        empty = r.read_rgba()
        assert empty.shape == (h, w, 4) and (empty[..., 3] == 255).all()
        rows, cols = water_box(cam)
        patch = empty[2 * rows.start:2 * rows.stop, 2 * cols.start:2 * cols.stop, :3].reshape(-1, 3).mean(0)
        assert patch[2] > patch[0] + 30 and patch[1] > patch[0] + 30, patch
        e = sim.spawn_bottle((0.55, 0.62, 0.45))
        r.draw(cam)
        diff = np.abs(r.read_rgba()[..., :3].astype(float) - empty[..., :3]).sum(2) > 30
        ys, xs = np.nonzero(diff)
        assert len(xs) > 80
        px, py, _ = cam.project([sim.body(e).position], w, h)[0]
        assert abs(xs.mean() - px) < 12 and abs(ys.mean() - py) < 20, (xs.mean(), ys.mean(), px, py)
        r.render_scale = 1.0
        assert r.render_size == (w, h) and not r.scaled
        r.draw(cam)
        assert r.read_rgba().shape == (h, w, 4) and r.errors() == []
    finally:
        r.close()
        sim.close()


def test_a_renderer_moved_to_a_new_simulation_draws_its_models_not_the_old_ones(scene):
    """The game's Tab, R and F9 attach the renderer to a new simulation, whose model ids start
    again at the same numbers: a crate there must not be drawn with the mesh of the ball that held
    its id before. The switched renderer draws what a fresh one draws (mean difference < 1 level)."""
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    sim, r, cam = scene()
    sim.spawn_body("sphere", radius=0.12, density=500.0, position=(0.8, 0.5, 0.6))
    frame(r, cam)                                        # draws (and keeps a mesh for) the ball
    crates = Simulation(small_level())
    crates.spawn_body("box", size=(0.5, 0.1, 0.3), density=500.0, position=(0.8, 0.5, 0.6))
    fresh = Renderer(crates, W, H)
    try:
        want = frame(fresh, cam)
        r.attach(crates)
        got = frame(r, cam)
    finally:
        fresh.close()
        r.attach(sim)
        crates.close()
    assert np.abs(got - want).mean() < 1.0, np.abs(got - want).mean()


def test_a_state_with_nan_in_the_water_still_draws_without_warnings(scene):
    """The game pauses on a state a mod wrote NaN into and keeps drawing it, with its message: the
    frame draws, with no GL error, no exception and no numpy warning about the casts."""
    import warnings
    sim, r, cam = scene()
    sim.water.h[3, 4] = float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        img = frame(r, cam)
    assert img.std() > 5.0                                     # a picture, not a blank
