"""The water mesh's level of detail: strides per tile (pure numpy) and a crack-free mesh (GL)."""
from __future__ import annotations

import ctypes

import numpy as np

from engine.levels.schema import Level, PoolSpec, WaterSpec
from engine.render.camera import OrbitCamera
from engine.render.water_lod import STRIDES, TILE, blocks, tile_strides

N, DX = 64, 0.04
EYE = np.array([1.28, 2.5, 4.0])
FOCAL = 300.0


def _covered(b: np.ndarray, n: int) -> np.ndarray:
    count = np.zeros((n - 1, n - 1), int)
    for i, k, s in b:
        count[k:min(k + s, n - 1), i:min(i + s, n - 1)] += 1
    return count


def test_flat_water_takes_the_coarsest_tiles_and_blocks_cover_every_quad_once():
    """A flat, wet surface is drawn exactly by any stride (error 0): every tile takes the largest;
    the blocks tile the (n - 1)^2 quads with no gap or overlap, whatever the strides."""
    eta = np.full((N, N), 0.3)
    st = tile_strides(eta, np.ones((N, N), bool), DX, EYE, FOCAL, 4.0, 0.5, 0.3)
    assert st.shape == (4, 4) and (st == STRIDES[-1]).all()
    assert (_covered(blocks(st, (N, N)), N) == 1).all()
    rng = np.random.default_rng(3)
    mixed = 1 << rng.integers(0, 5, (4, 4))
    assert (_covered(blocks(mixed, (N, N)), N) == 1).all()
    odd = 1 << rng.integers(0, 5, (4, 5))              # 50 x 70 vertices: partial last tiles
    c = np.zeros((49, 69), int)
    for i, k, s in blocks(odd, (50, 70)):
        c[k:min(k + s, 49), i:min(i + s, 69)] += 1
    assert (c == 1).all()


def test_curved_water_keeps_its_error_under_the_bound_and_neighbours_differ_by_one_level():
    """Linear interpolation over a span L errs by at most L^2 / 8 |f''|: for a ripple
    eta = a sin(2 pi x / lam), |f''| = a (2 pi / lam)^2, so the stride a tile takes keeps
    (s dx)^2 / 8 a (2 pi / lam)^2 * px_per_m within the error bound (or is the size rule's), and
    the actual error of the coarse polyline is under that bound. Adjacent tiles differ by a
    factor of 2 at most; a tile with a dry cell never goes past the size rule."""
    x = (np.arange(N) + 0.5) * DX
    a, lam = 0.01, 0.32
    eta = 0.3 + np.where(x < TILE * DX, a * np.sin(2 * np.pi * x / lam), 0.0)[None, :].repeat(N, 0)
    wet = np.ones((N, N), bool)
    st = tile_strides(eta, wet, DX, EYE, FOCAL, 0.0, 0.5, 0.3)
    assert (st[:, 0] < st[:, -1]).all(), st          # rippled tiles finer than still ones as near
    level = np.log2(st)
    assert np.abs(np.diff(level, axis=0)).max() <= 1 and np.abs(np.diff(level, axis=1)).max() <= 1
    s = int(st[0, 0])                                 # the rippled tile nearest the far wall
    cols = np.arange(0, TILE + 1)
    coarse = cols[::s]
    err = np.abs(eta[0, cols] - np.interp(cols, coarse, eta[0, coarse])).max()
    dist = np.linalg.norm(EYE - np.array([np.clip(EYE[0], 0.0, TILE * DX), 0.3, TILE * DX]))
    bound = (s * DX) ** 2 / 8 * a * (2 * np.pi / lam) ** 2
    assert err <= bound and (bound * FOCAL / dist <= 0.5 or s == 1), (s, err, bound)
    assert (2 * s * DX) ** 2 / 8 * a * (2 * np.pi / lam) ** 2 * FOCAL / dist > 0.5 * 0.9, "the next stride errs"

    wet[5, 40] = False                                # a dry cell (an obstacle, a shore)
    st_dry = tile_strides(eta, wet, DX, EYE, FOCAL, 0.0, 0.5, 0.3)
    assert st_dry[0, 2] == 1 and st[0, 2] > 1


def _capture(r, cam) -> np.ndarray:
    """The water triangles the geometry shader emits through the tiled path, (n, 3, 3)."""
    from engine.render.context import gl
    from engine.render.glsl import Program
    g = gl()
    r.draw(cam)
    prog = Program("water.vert", "water.geom", feedback=("world_position",))
    buf, query = ctypes.c_uint(0), ctypes.c_uint(0)
    g.glGenBuffers(1, ctypes.byref(buf))
    g.glBindBuffer(g.GL_TRANSFORM_FEEDBACK_BUFFER, buf.value)
    size = 2 * N * N * 9 * 4
    g.glBufferData(g.GL_TRANSFORM_FEEDBACK_BUFFER, size, None, g.GL_STATIC_READ)
    g.glBindBufferBase(g.GL_TRANSFORM_FEEDBACK_BUFFER, 0, buf.value)
    g.glGenQueries(1, ctypes.byref(query))
    r.water_tex.bind(0)
    r.lod_tex.bind(1)
    with prog:
        prog.set(**r._shared_uniforms(cam))
        prog["water"], prog["water_lod"], prog["lod_blocks"], prog["lod_tile"] = 0, 1, 1, TILE
        g.glEnable(g.GL_RASTERIZER_DISCARD)
        g.glBeginQuery(g.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, query.value)
        g.glBeginTransformFeedback(g.GL_TRIANGLES)
        r.block_mesh.draw()
        g.glEndTransformFeedback()
        g.glEndQuery(g.GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN)
        g.glDisable(g.GL_RASTERIZER_DISCARD)
    n = ctypes.c_uint(0)
    g.glGetQueryObjectuiv(query.value, g.GL_QUERY_RESULT, ctypes.byref(n))
    out = np.zeros(n.value * 9, np.float32)
    g.glGetBufferSubData(g.GL_TRANSFORM_FEEDBACK_BUFFER, 0, out.nbytes, ctypes.c_void_p(out.ctypes.data))
    g.glDeleteBuffers(1, ctypes.byref(buf))
    g.glDeleteQueries(1, ctypes.byref(query))
    prog.delete()
    return out.reshape(-1, 3, 3).astype(float)


def test_tiles_of_different_strides_meet_without_cracks(gl_context):
    """Along every line between two tiles the surface seen from either side is one polyline:
    where the finer side has a vertex the coarser one lacks, the finer one's height equals the
    coarser edge's linear interpolation there (to float precision), so no gap opens. The mesh
    covers the pool's area once (the triangles' xz areas sum to it)."""
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    sim = Simulation(Level(pool=PoolSpec(size=(N * DX, N * DX), cell=DX, wall_height=0.6),
                           water=WaterSpec(level=0.3)))
    r = Renderer(sim, 320, 180)
    try:
        w = sim.water
        x = (np.arange(N) + 0.5) * DX
        w.h[:] += np.where(x < 1.0, 0.02 * np.sin(2 * np.pi * x / 0.5), 0.0)[None, :] * np.exp(-((x - 0.6) / 0.5) ** 2)[:, None]
        r.water_lod_pixels, r.water_lod_error = 2.0, 0.25
        cam = OrbitCamera((1.28, 0.3, 1.28), 3.0, 10.0, 50.0, 50.0)
        tris = _capture(r, cam)
        st = r.water_tiles(cam)
        assert len(np.unique(st)) >= 3, st            # the case is a mix of strides
        e1, e2 = tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
        area = 0.5 * np.abs(e1[:, 0] * e2[:, 2] - e1[:, 2] * e2[:, 0]).sum()
        assert abs(area - (N * DX) ** 2) < 1e-3, area
        centre = (np.arange(N) + 0.5) * DX
        centre[0], centre[-1] = 0.0, N * DX            # the outermost vertices sit on the walls
        checked = 0
        for axis in (0, 2):
            other = 2 - axis
            for t in range(1, N // TILE):
                line = centre[t * TILE]
                sides = []
                for side in (-1, 1):
                    pts = []
                    for tri in tris:
                        on = np.abs(tri[:, axis] - line) < 1e-5
                        if on.sum() == 2 and side * (tri[~on][0, axis] - line) > 0:
                            pts.extend(tri[on][:, [other, 1]])
                    pts = np.unique(np.round(np.array(pts), 6), axis=0)
                    sides.append(pts)
                at = np.union1d(sides[0][:, 0], sides[1][:, 0])
                a = np.interp(at, sides[0][:, 0], sides[0][:, 1])
                b = np.interp(at, sides[1][:, 0], sides[1][:, 1])
                assert np.abs(a - b).max() < 1e-5, (axis, t, np.abs(a - b).max())
                checked += 1
        assert checked == 6
        assert r.errors() == []
    finally:
        r.close()
        sim.close()


def test_tiles_drawn_without_foam_look_exactly_as_with_it(gl_context):
    """The water's quads in tiles that foam_tiles leaves out are drawn by a program without the
    foam (water.frag, NO_FOAM). water.frag's foam is zero where the bilinear foam read is <= 0.004
    and the flow |v| <= 0.06 m/s, and a blend of texels lies within their range (|v| of a blend at
    most the largest |v|), so the frame must equal one drawn with foam on every tile, bit for bit,
    while foam shows where it lies: drawing every tile without foam changes the frame."""
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    level = Level(pool=PoolSpec(size=(2.56, 2.56), cell=0.04, wall_height=0.6), water=WaterSpec(level=0.3))
    sim = Simulation(level)
    r = Renderer(sim, 320, 180)
    try:
        cam = OrbitCamera((1.28, 0.3, 1.28), 3.4, -20.0, 55.0, 50.0)
        r.foam.add(0.6, 0.7, 0.12, 1.0)                  # a splash's foam in one corner
        w = sim.water
        xu = np.arange(w.shape[1] + 1) * w.dx
        w.u[:] = np.where((xu > 1.6) & (xu < 2.2), 0.4, 0.0)[None, :] * (np.arange(w.shape[0]) < 10)[:, None]

        def draw(tiles=None):
            if tiles is not None:
                r.foam_tiles = lambda: tiles(Renderer.foam_tiles(r))
            r.draw(cam)
            assert r.errors() == []
            return r.read_rgba()[..., :3].copy()

        split = draw()
        shown = Renderer.foam_tiles(r)
        assert 0 < shown.sum() < shown.size // 2        # a few tiles foam, most draw without
        assert np.array_equal(draw(lambda t: np.ones_like(t)), split)
        assert not np.array_equal(draw(lambda t: np.zeros_like(t)), split)
    finally:
        r.close()
        sim.close()
