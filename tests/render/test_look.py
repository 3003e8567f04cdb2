"""The look: obstacles from their own geometry, no curtain above a dry cell, colour from depth,
anti-aliasing, foam that moves with the flow, wave makers drawn, per-level materials."""
from __future__ import annotations

import ctypes
import dataclasses

import numpy as np
import pytest

from engine.levels.features import ObstacleSpec, TerrainSpec, WaveMakerSpec
from engine.levels.schema import Level, LookSpec, PoolSpec, WaterSpec
from engine.render import vertex_arrays as va
from engine.render.camera import OrbitCamera
from engine.terrain import obstacle_height

W, H = 320, 180


# -- obstacle meshes (pure numpy) ---------------------------------------------------------------
@pytest.mark.parametrize("ob", [
    ObstacleSpec(kind="pillar", center=(1.0, 0.8), radius=0.15, height=0.5),
    ObstacleSpec(kind="box", center=(1.0, 0.8), size=(0.4, 0.2), height=0.3, angle=35.0),
    ObstacleSpec(kind="ramp", center=(1.0, 0.8), size=(0.6, 0.3), heights=(0.1, 0.4), angle=-20.0),
    ObstacleSpec(kind="ledge", side="z_max", width=0.3, height=0.45, span=(0.2, 1.4)),
    ObstacleSpec(kind="wall", start=(0.3, 0.4), end=(1.6, 1.1), thickness=0.1, height=0.35),
])
def test_obstacle_mesh_tops_lie_on_the_obstacle_the_water_sees(ob):
    """Every top vertex of the drawn solid, moved 2 mm towards its top's centre, is inside the
    footprint that engine.terrain puts into the water's bed, at the same height there (a ramp's
    top is the plane through heights[0] and heights[1]). Sides are vertical (normal.y = 0)."""
    size = (2.0, 1.6)
    v = va.obstacle_mesh(ob, size)
    pos, nrm = v[:, :3].astype(float), v[:, 3:6].astype(float)
    top = nrm[:, 1] > 0.5
    sides = np.abs(nrm[:, 1]) < 1e-6
    assert top.any() and sides.any() and (top | sides).all()
    centre = pos[top][:, [0, 2]].mean(0)
    p = pos[top][:, [0, 2]]
    inward = p + 0.002 * (centre - p) / np.maximum(np.linalg.norm(centre - p, axis=1, keepdims=True), 1e-9)
    water_top = obstacle_height(ob, inward[:, 0], inward[:, 1], size)
    assert (water_top > 0).all()
    assert np.allclose(water_top, pos[top][:, 1], atol=0.01)


def test_a_pillar_is_round():
    """Side vertices of a pillar are at its radius from its axis: |(x, z) - c| = r."""
    v = va.cylinder((0.5, 0.7), 0.2, 0.4)
    side = np.abs(v[:, 4]) < 1e-6
    r = np.hypot(v[side, 0] - 0.5, v[side, 2] - 0.7)
    assert np.allclose(r, 0.2, atol=1e-6)
    assert len(np.unique(np.round(np.arctan2(v[side, 2] - 0.7, v[side, 0] - 0.5), 4))) >= 32


# -- GL -------------------------------------------------------------------------------------------
def _scene(level: Level):
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    sim = Simulation(level)
    return sim, Renderer(sim, W, H)


def slope_level(**look) -> Level:
    """A bed rising from 0 at x = 1.2 m to 0.4 m at x = 2.4 m under 0.3 m of water: depth 0.3 m
    at the deep end and 0.075 m at x = 2.1 m."""
    return Level(pool=PoolSpec(size=(2.4, 1.6), cell=0.04, wall_height=0.7), water=WaterSpec(level=0.3),
                 terrain=TerrainSpec(kind="slope", axis="x", span=(1.2, 2.4), heights=(0.0, 0.4)),
                 look=LookSpec(**look))


def test_water_water_darkens_and_turns_blue_green_with_depth(gl_context):
    """Beer-Lambert: light crossing a path L keeps exp(-(a + s) L) of itself, red (largest a) most
    lost, so over the same white-ish floor the deep end is darker and bluer than the shallows.
    With absorption and scattering 0 the two look alike (no hidden depth tint elsewhere)."""
    cam = OrbitCamera((1.2, 0.3, 0.8), 2.4, 0.0, 70.0, 50.0)

    def patch(level, x):
        sim, r = _scene(level)
        r.caustic_strength = 0.0
        r.draw(cam)
        img = r.read_rgba()[..., :3].astype(float)
        px = cam.project([(x, 0.3, 0.8)], W, H)[0]
        r.close()
        sim.close()
        return img[int(px[1]) - 3:int(px[1]) + 4, int(px[0]) - 3:int(px[0]) + 4].reshape(-1, 3).mean(0)

    level = slope_level(bed="tile", absorption=(1.5, 0.4, 0.3), scattering=(0.0, 0.0, 0.0))
    deep, shallow = patch(level, 0.6), patch(level, 2.1)
    assert deep.sum() < shallow.sum() - 40, (deep, shallow)
    assert deep[0] / deep[2] < shallow[0] / shallow[2] - 0.1, (deep, shallow)
    clear = slope_level(bed="tile", absorption=(0.0, 0.0, 0.0), scattering=(0.0, 0.0, 0.0))
    d0, s0 = patch(clear, 0.6), patch(clear, 2.1)
    assert abs(d0.sum() - s0.sum()) < 0.3 * abs(deep.sum() - shallow.sum()), (d0, s0)


def _capture_water_triangles(r, sim, cam) -> np.ndarray:
    """Run the water's vertex and geometry shaders with transform feedback; return the emitted
    world positions (n, 3)."""
    from engine.render.context import gl
    from engine.render.glsl import Program
    g = gl()
    r.draw(cam)                                  # uploads the water textures, sets the uniforms
    prog = Program("water.vert", "water.geom", feedback=("world_position",))
    nx, nz = r.grid
    n_quads = (nx - 1) * (nz - 1)
    buf = ctypes.c_uint(0)
    g.glGenBuffers(1, ctypes.byref(buf))
    g.glBindBuffer(g.GL_TRANSFORM_FEEDBACK_BUFFER, buf.value)
    size = n_quads * 6 * 3 * 4
    g.glBufferData(g.GL_TRANSFORM_FEEDBACK_BUFFER, size, None, g.GL_STATIC_READ)
    g.glBindBufferBase(g.GL_TRANSFORM_FEEDBACK_BUFFER, 0, buf.value)
    query = ctypes.c_uint(0)
    g.glGenQueries(1, ctypes.byref(query))
    r.water_tex.bind(0)
    with prog:
        u = r._shared_uniforms(cam)
        prog.set(**u)
        prog["water"] = 0
        prog["grid_stride"] = 1
        g.glEnable(g.GL_RASTERIZER_DISCARD)
        g.glBeginQuery(g.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, query.value)
        g.glBeginTransformFeedback(g.GL_TRIANGLES)
        g.glBindVertexArray(r.empty_vao.vao)
        g.glDrawArrays(g.GL_POINTS, 0, n_quads)
        g.glEndTransformFeedback()
        g.glEndQuery(g.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN)
        g.glDisable(g.GL_RASTERIZER_DISCARD)
    count = ctypes.c_uint(0)
    g.glGetQueryObjectuiv(query.value, g.GL_QUERY_RESULT, ctypes.byref(count))
    out = np.zeros(count.value * 3 * 3, np.float32)
    g.glGetBufferSubData(g.GL_TRANSFORM_FEEDBACK_BUFFER, 0, out.nbytes, out.ctypes.data_as(ctypes.c_void_p))
    g.glDeleteBuffers(1, ctypes.byref(buf))
    g.glDeleteQueries(1, ctypes.byref(query))
    prog.delete()
    return out.reshape(-1, 3)


def test_no_curtain_of_water_rises_against_a_dry_obstacle(gl_context):
    """A box 0.6 m tall stands in 0.3 m of water; its cells are dry, with eta = bed = 0.6 m. No
    vertex of the water surface may stand above the highest wet surface (before: quads joined the
    water to the box top, a sheet of water up the box's sides)."""
    level = Level(pool=PoolSpec(size=(1.6, 1.2), cell=0.04, wall_height=0.8), water=WaterSpec(level=0.3),
                  obstacles=(ObstacleSpec(kind="box", center=(0.8, 0.6), size=(0.4, 0.4), height=0.6),))
    sim, r = _scene(level)
    w = sim.water
    nz, nx = w.shape
    x = (np.arange(nx) + 0.5) * w.dx
    w.h[:] = np.where(w.h > 0, w.h + 0.05 * np.exp(-((x - 0.5) / 0.1) ** 2)[None, :], 0.0)   # a splash by it
    cam = OrbitCamera((0.8, 0.3, 0.6), 2.2, -20.0, 45.0, 50.0)
    pts = _capture_water_triangles(r, sim, cam)
    h, bed = np.asarray(w.h), np.asarray(w.bed)
    wet_top = float((h + bed)[h > 1e-4].max())
    assert len(pts) > 100
    assert pts[:, 1].max() <= wet_top + 1e-5, (pts[:, 1].max(), wet_top)
    r.close()
    sim.close()


def test_fxaa_smooths_a_hard_edge(gl_context):
    """With FXAA the pixels along a wall's slanted edge take intermediate values: fewer pixels
    jump by more than 60 grey levels to their right-hand neighbour than without it."""
    level = Level(pool=PoolSpec(size=(1.6, 1.2), cell=0.04, wall_height=0.6), water=WaterSpec(level=0.3))
    sim, r = _scene(level)
    cam = OrbitCamera((0.8, 0.3, 0.6), 2.0, -33.0, 40.0, 50.0)

    r.msaa = 0                 # FXAA alone: the fallback where the context offers no MSAA

    def jumps(fx: bool) -> int:
        r.fxaa = fx
        r.draw(cam)
        img = r.read_rgba()[..., :3].astype(float).mean(2)
        return int((np.abs(np.diff(img, axis=1)) > 60).sum())

    sharp, smooth = jumps(False), jumps(True)
    assert sharp > 20 and smooth < 0.7 * sharp, (sharp, smooth)
    r.close()
    sim.close()


def test_foam_streaks_move_downstream_with_the_flow(gl_context):
    """In a uniform current u = 0.4 m/s the streak pattern drifts along +x: the frame at t + dt
    matches the frame at t shifted by about u dt (correlation peaks at a positive shift)."""
    level = Level(pool=PoolSpec(size=(2.0, 1.2), cell=0.04, wall_height=0.6), water=WaterSpec(level=0.3),
                  look=LookSpec(foam=3.0))
    sim, r = _scene(level)
    sim.water.u[:, 1:-1] = 0.4
    cam = OrbitCamera((1.0, 0.3, 0.6), 1.2, 0.0, 89.0, 50.0)       # straight down: x to the right
    r.caustic_strength = 0.0

    def shot(t: float) -> np.ndarray:
        sim.time = t
        r._last_time = t
        r.draw(cam)
        return r.read_rgba()[40:140, 60:260, :3].astype(float).mean(2)

    a, b = shot(10.2), shot(10.5)          # within one flow-map half period, 0.3 s apart
    assert np.abs(b - a).mean() > 1.0, "the foam pattern changes with time"
    px_per_m = W / (2 * 1.2 * np.tan(np.radians(25.0)) * (W / H))
    expected = 0.4 * 0.3 * px_per_m
    scores = {s: float(np.corrcoef(a[:, :a.shape[1] - 20].ravel(), b[:, s:s + a.shape[1] - 20].ravel())[0, 1])
              for s in range(0, 20)}
    best = max(scores, key=scores.get)
    assert best > 0 and abs(best - expected) <= max(3, 0.5 * expected), (best, expected, scores[best])
    r.close()
    sim.close()


def test_a_paddle_is_drawn_where_its_stroke_puts_it(gl_context):
    """A paddle on x_min stands at x = width + (stroke / 2) sin(omega t + phase): frames half a
    period apart differ around it, and a level without the paddle has no yellow plate there."""
    maker = WaveMakerSpec(kind="paddle", side="x_min", stroke=0.1, period=2.0, ramp=0.0, width=0.3)
    level = Level(pool=PoolSpec(size=(2.0, 1.2), cell=0.04, wall_height=0.6), water=WaterSpec(level=0.3),
                  wave_makers=(maker,))
    sim, r = _scene(level)
    cam = OrbitCamera((1.0, 0.3, 0.6), 2.2, 0.0, 50.0, 50.0)
    frames = []
    for t in (0.5, 1.5):                   # omega t = pi/2 and 3 pi/2: x = 0.35 and 0.25
        sim.time = t
        r.draw(cam)
        frames.append(r.read_rgba()[..., :3].astype(float))
    yellow = [((f[..., 0] > 150) & (f[..., 1] > 100) & (f[..., 2] < 90)).sum() for f in frames]
    assert min(yellow) > 50, yellow
    cols = [np.nonzero(((f[..., 0] > 150) & (f[..., 1] > 100) & (f[..., 2] < 90)).any(0))[0].mean() for f in frames]
    x_px = cam.project([(0.35, 0.3, 0.6), (0.25, 0.3, 0.6)], W, H)[:, 0]
    assert np.sign(cols[0] - cols[1]) == np.sign(x_px[0] - x_px[1]), (cols, x_px)
    r.close()
    sim.close()


def test_bed_material_comes_from_the_level(gl_context):
    """[look] bed = "sand" draws a warm floor (red > blue), "tile" a cool one (blue > red)."""
    cam = OrbitCamera((1.2, 0.3, 0.8), 2.4, 0.0, 70.0, 50.0)
    means = {}
    for bed in ("sand", "tile"):
        level = slope_level(bed=bed, absorption=(0.0, 0.0, 0.0), scattering=(0.0, 0.0, 0.0))
        sim, r = _scene(level)
        r.draw(cam)
        img = r.read_rgba()[..., :3].astype(float)
        px = cam.project([(2.2, 0.4, 0.8)], W, H)[0]           # the dry shore
        means[bed] = img[int(px[1]) - 4:int(px[1]) + 5, int(px[0]) - 4:int(px[0]) + 5].reshape(-1, 3).mean(0)
        r.close()
        sim.close()
    assert means["sand"][0] > 1.1 * means["sand"][2], means
    assert means["tile"][2] > 1.1 * means["tile"][0], means


def test_field_views_have_legends_and_every_view_draws(gl_context):
    """depth, divergence and vorticity colour the water and put a legend in the top right corner
    (the game's HUD holds the top left);
    velocity and bounds draw lines; an unknown view is refused."""
    from engine.render.renderer import DEBUG_VIEWS, FIELD_VIEWS
    level = slope_level()
    sim, r = _scene(level)
    sim.water.u[:, 5:10] = 0.3
    sim.spawn_bottle((0.8, 0.6, 0.8))
    cam = OrbitCamera((1.2, 0.3, 0.8), 2.4, -20.0, 55.0, 50.0)
    r.draw(cam)
    normal = r.read_rgba()[..., :3].astype(float)
    corner = (slice(4, 30), slice(normal.shape[1] - 100, normal.shape[1] - 4))
    for view in DEBUG_VIEWS:
        r.draw(cam, debug=view)
        assert r.errors() == []
        img = r.read_rgba()[..., :3].astype(float)
        changed = np.abs(img - normal).sum(2) > 30
        assert changed.sum() > 50, view
        legend = changed[corner].mean()
        assert (legend > 0.5) == (view in FIELD_VIEWS), (view, legend)
    with pytest.raises(ValueError):
        r.draw(cam, debug="nope")
    r.close()
    sim.close()
