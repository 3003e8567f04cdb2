"""GL state held in small objects, after pyglet's Group: a pass says what state it draws with
(`with OPAQUE:`), instead of a run of glEnable/glDisable calls that the next pass must undo.

A `DrawState` sets every switch it names on entry and restores DEFAULT's on exit, so a pass
never inherits another's blending or depth writes. States are frozen: build a variant with
`dataclasses.replace(OPAQUE, depth_func="GL_LEQUAL")`.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.render.context import gl


@dataclass(frozen=True, slots=True)
class DrawState:
    """Depth test and writes, blending (premultiplied-safe: keeps the target's alpha at 1), culling."""
    depth_test: bool = True
    depth_write: bool = True
    depth_func: str = "GL_LESS"
    blend: bool = False
    cull: str | None = None            # "GL_BACK", "GL_FRONT" or None (both sides drawn)
    point_size_from_shader: bool = False
    additive: bool = False             # with blend: colour += alpha * source, the target's alpha kept

    def apply(self) -> None:
        g = gl()
        (g.glEnable if self.depth_test else g.glDisable)(g.GL_DEPTH_TEST)
        g.glDepthMask(g.GL_TRUE if self.depth_write else g.GL_FALSE)
        g.glDepthFunc(getattr(g, self.depth_func))
        if self.blend and self.additive:
            g.glEnable(g.GL_BLEND)
            g.glBlendFuncSeparate(g.GL_SRC_ALPHA, g.GL_ONE, g.GL_ZERO, g.GL_ONE)
        elif self.blend:
            g.glEnable(g.GL_BLEND)
            # colour: the usual "over"; alpha: ONE, ONE_MINUS_SRC_ALPHA keeps an opaque target
            # opaque (plain SRC_ALPHA there leaves alpha < 1 and washed-out PNGs)
            g.glBlendFuncSeparate(g.GL_SRC_ALPHA, g.GL_ONE_MINUS_SRC_ALPHA, g.GL_ONE, g.GL_ONE_MINUS_SRC_ALPHA)
        else:
            g.glDisable(g.GL_BLEND)
        if self.cull is None:
            g.glDisable(g.GL_CULL_FACE)
        else:
            g.glEnable(g.GL_CULL_FACE)
            g.glCullFace(getattr(g, self.cull))
        (g.glEnable if self.point_size_from_shader else g.glDisable)(g.GL_PROGRAM_POINT_SIZE)

    def __enter__(self) -> "DrawState":
        self.apply()
        return self

    def __exit__(self, *exc: object) -> None:
        DEFAULT.apply()


DEFAULT = DrawState()
OPAQUE = DrawState()
SKY = DrawState(depth_write=False, depth_func="GL_LEQUAL")           # at the far plane, behind all
TRANSPARENT = DrawState(depth_write=False, blend=True)                # glass, liquid: sorted back to front
TRANSPARENT_BACK = DrawState(depth_write=False, blend=True, cull="GL_FRONT")    # far side of glass first
TRANSPARENT_FRONT = DrawState(depth_write=False, blend=True, cull="GL_BACK")    # then its near side
PARTICLES = DrawState(depth_write=False, blend=True, point_size_from_shader=True)
LINES = DrawState(depth_write=False)                                  # debug lines: depth-tested
SCREEN = DrawState(depth_test=False, depth_write=False)               # full-screen passes
GLINT = DrawState(depth_test=False, depth_write=False, blend=True, additive=True)   # shards' glints under water
OVERLAY = DrawState(depth_test=False, depth_write=False, blend=True)  # legends over the frame
