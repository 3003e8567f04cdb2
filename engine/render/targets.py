"""GL objects the renderer draws into and samples from: RGBA8 framebuffers, textures, buffers.

Headless Mesa gives an RGB565 default framebuffer with no alpha, so every frame is drawn into a
`Framebuffer` with an RGBA8 colour texture and a 24-bit depth texture, then read back or blitted.
"""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from engine.render.context import gl

if TYPE_CHECKING:
    import pyglet

_ERRORS = {0x0500: "GL_INVALID_ENUM", 0x0501: "GL_INVALID_VALUE", 0x0502: "GL_INVALID_OPERATION",
           0x0505: "GL_OUT_OF_MEMORY", 0x0506: "GL_INVALID_FRAMEBUFFER_OPERATION"}


def gl_errors() -> list[str]:
    """Drain and return the pending GL errors by name (empty when all is well)."""
    g = gl()
    out = []
    for _ in range(32):
        e = g.glGetError()
        if e == 0:
            break
        out.append(_ERRORS.get(e, hex(e)))
    return out


def _gen(fn) -> int:
    n = ctypes.c_uint(0)
    fn(1, ctypes.byref(n))
    return n.value


def _ptr(a: NDArray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


class _Texture:
    """What every texture kind shares: a GL name (`id`) bound to a target."""

    TARGET = "GL_TEXTURE_2D"
    id: int = 0

    def bind(self, unit: int) -> None:
        g = gl()
        g.glActiveTexture(g.GL_TEXTURE0 + unit)
        g.glBindTexture(getattr(g, self.TARGET), self.id)

    def delete(self) -> None:
        if self.id:
            gl().glDeleteTextures(1, ctypes.byref(ctypes.c_uint(self.id)))
            self.id = 0


class Texture2D(_Texture):
    """A 2D texture; `upload(array)` replaces its contents in one call."""

    _FORMATS = {  # (channels, dtype) -> (internal, format, type)
        (1, "float32"): ("GL_R32F", "GL_RED", "GL_FLOAT"),
        (2, "float32"): ("GL_RG32F", "GL_RG", "GL_FLOAT"),
        (4, "float32"): ("GL_RGBA32F", "GL_RGBA", "GL_FLOAT"),
        (1, "uint8"): ("GL_R8", "GL_RED", "GL_UNSIGNED_BYTE"),
        (3, "uint8"): ("GL_RGB8", "GL_RGB", "GL_UNSIGNED_BYTE"),
        (4, "uint8"): ("GL_RGBA8", "GL_RGBA", "GL_UNSIGNED_BYTE"),
    }

    def __init__(self, array: NDArray, *, linear: bool = True, mipmap: bool = False, repeat: bool = False) -> None:
        g = gl()
        self.id = _gen(g.glGenTextures)
        self.mipmap = mipmap
        self.shape = (0, 0)
        g.glBindTexture(g.GL_TEXTURE_2D, self.id)
        mag = g.GL_LINEAR if linear else g.GL_NEAREST
        minf = (g.GL_LINEAR_MIPMAP_NEAREST if mipmap else g.GL_LINEAR) if linear else g.GL_NEAREST
        g.glTexParameteri(g.GL_TEXTURE_2D, g.GL_TEXTURE_MIN_FILTER, minf)
        g.glTexParameteri(g.GL_TEXTURE_2D, g.GL_TEXTURE_MAG_FILTER, mag)
        wrap = g.GL_REPEAT if repeat else g.GL_CLAMP_TO_EDGE
        g.glTexParameteri(g.GL_TEXTURE_2D, g.GL_TEXTURE_WRAP_S, wrap)
        g.glTexParameteri(g.GL_TEXTURE_2D, g.GL_TEXTURE_WRAP_T, wrap)
        self.upload(array)

    def _fmt(self, a: NDArray) -> tuple[int, int, int]:
        g = gl()
        ch = 1 if a.ndim == 2 else a.shape[2]
        names = self._FORMATS[(ch, str(a.dtype))]
        return tuple(getattr(g, n) for n in names)

    def upload(self, array: NDArray) -> None:
        """Replace the texture with `array` (h, w[, c]); row 0 is texture row v = 0."""
        g = gl()
        a = np.ascontiguousarray(array)
        internal, fmt, typ = self._fmt(a)
        h, w = a.shape[:2]
        g.glBindTexture(g.GL_TEXTURE_2D, self.id)
        g.glPixelStorei(g.GL_UNPACK_ALIGNMENT, 1)
        if (h, w) != self.shape:
            g.glTexImage2D(g.GL_TEXTURE_2D, 0, internal, w, h, 0, fmt, typ, _ptr(a))
            self.shape = (h, w)
        else:
            g.glTexSubImage2D(g.GL_TEXTURE_2D, 0, 0, 0, w, h, fmt, typ, _ptr(a))
        if self.mipmap:
            g.glGenerateMipmap(g.GL_TEXTURE_2D)


class CubeMap(_Texture):
    """A cube map from six (n, n, 3) uint8 faces in GL order +x, -x, +y, -y, +z, -z."""

    TARGET = "GL_TEXTURE_CUBE_MAP"

    def __init__(self, faces: list[NDArray[np.uint8]]) -> None:
        g = gl()
        self.id = _gen(g.glGenTextures)
        g.glBindTexture(g.GL_TEXTURE_CUBE_MAP, self.id)
        g.glPixelStorei(g.GL_UNPACK_ALIGNMENT, 1)
        for i, face in enumerate(faces):
            a = np.ascontiguousarray(face, dtype=np.uint8)
            g.glTexImage2D(g.GL_TEXTURE_CUBE_MAP_POSITIVE_X + i, 0, g.GL_RGB8, a.shape[1], a.shape[0], 0,
                           g.GL_RGB, g.GL_UNSIGNED_BYTE, _ptr(a))
        for p, v in ((g.GL_TEXTURE_MIN_FILTER, g.GL_LINEAR), (g.GL_TEXTURE_MAG_FILTER, g.GL_LINEAR),
                     (g.GL_TEXTURE_WRAP_S, g.GL_CLAMP_TO_EDGE), (g.GL_TEXTURE_WRAP_T, g.GL_CLAMP_TO_EDGE),
                     (g.GL_TEXTURE_WRAP_R, g.GL_CLAMP_TO_EDGE)):
            g.glTexParameteri(g.GL_TEXTURE_CUBE_MAP, p, v)


class Framebuffer:
    """An RGBA8 colour texture plus a 24-bit depth texture, both sampleable: pyglet's
    pyglet.image.Framebuffer with two pyglet.image.Texture attachments. `id`, `color` and
    `depth` are their GL names, for binding and blitting."""

    def __init__(self, width: int, height: int) -> None:
        self.id = 0
        self.color = 0
        self.depth = 0
        self._fbo: "pyglet.image.Framebuffer | None" = None
        self._textures: list = []
        self.resize(width, height)

    def resize(self, width: int, height: int) -> None:
        import pyglet.image
        g = gl()
        self.delete()
        self.width, self.height = int(width), int(height)
        color = pyglet.image.Texture.create(self.width, self.height, internalformat=g.GL_RGBA8,
                                            min_filter=g.GL_LINEAR, mag_filter=g.GL_LINEAR, blank_data=False)
        depth = pyglet.image.Texture.create(self.width, self.height, internalformat=g.GL_DEPTH_COMPONENT24,
                                            fmt=g.GL_DEPTH_COMPONENT, min_filter=g.GL_NEAREST,
                                            mag_filter=g.GL_NEAREST, blank_data=False)
        for tex in (color, depth):
            g.glBindTexture(g.GL_TEXTURE_2D, tex.id)
            g.glTexParameteri(g.GL_TEXTURE_2D, g.GL_TEXTURE_WRAP_S, g.GL_CLAMP_TO_EDGE)
            g.glTexParameteri(g.GL_TEXTURE_2D, g.GL_TEXTURE_WRAP_T, g.GL_CLAMP_TO_EDGE)
        fbo = pyglet.image.Framebuffer()
        fbo.attach_texture(color, attachment=g.GL_COLOR_ATTACHMENT0)
        fbo.attach_texture(depth, attachment=g.GL_DEPTH_ATTACHMENT)
        fbo.bind()                         # is_complete asks about the bound framebuffer
        complete, status = fbo.is_complete, fbo.get_status()
        fbo.unbind()
        if not complete:
            raise RuntimeError(f"framebuffer {self.width}x{self.height} incomplete ({status})")
        self._fbo, self._textures = fbo, [color, depth]
        self.id, self.color, self.depth = fbo.id, color.id, depth.id

    def bind(self) -> None:
        g = gl()
        g.glBindFramebuffer(g.GL_FRAMEBUFFER, self.id)
        g.glViewport(0, 0, self.width, self.height)

    def blit_to(self, other: "Framebuffer | int", width: int | None = None, height: int | None = None,
                depth: bool = True) -> None:
        """Copy colour (and depth) into another framebuffer (an id of 0 is the window)."""
        g = gl()
        dst = other.id if isinstance(other, Framebuffer) else int(other)
        w = width if width is not None else (other.width if isinstance(other, Framebuffer) else self.width)
        h = height if height is not None else (other.height if isinstance(other, Framebuffer) else self.height)
        g.glBindFramebuffer(g.GL_READ_FRAMEBUFFER, self.id)
        g.glBindFramebuffer(g.GL_DRAW_FRAMEBUFFER, dst)
        mask = g.GL_COLOR_BUFFER_BIT | (g.GL_DEPTH_BUFFER_BIT if depth else 0)
        filt = g.GL_NEAREST if (w, h) == (self.width, self.height) or depth else g.GL_LINEAR
        g.glBlitFramebuffer(0, 0, self.width, self.height, 0, 0, w, h, mask, filt)
        g.glBindFramebuffer(g.GL_FRAMEBUFFER, dst)

    def read_rgba(self) -> NDArray[np.uint8]:
        """Read the colour attachment back as (height, width, 4) uint8, row 0 at the top."""
        g = gl()
        g.glBindFramebuffer(g.GL_READ_FRAMEBUFFER, self.id)
        g.glPixelStorei(g.GL_PACK_ALIGNMENT, 1)
        out = np.empty((self.height, self.width, 4), np.uint8)
        g.glReadPixels(0, 0, self.width, self.height, g.GL_RGBA, g.GL_UNSIGNED_BYTE, _ptr(out))
        g.glBindFramebuffer(g.GL_READ_FRAMEBUFFER, 0)
        return out[::-1].copy()

    def delete(self) -> None:
        if self._fbo is not None:
            self._fbo.delete()
        for tex in self._textures:
            tex.delete()
        self._fbo, self._textures = None, []
        self.id = self.color = self.depth = 0


class MultisampleFramebuffer:
    """A multisampled RGBA8 colour renderbuffer plus a 24-bit depth renderbuffer (pyglet's
    Renderbuffer with `samples`, attached to a pyglet Framebuffer): a target that is drawn into
    and resolved, never sampled. `resolve_to` averages each pixel's samples into a single-sampled
    `Framebuffer` (glBlitFramebuffer), the only way a shader can read what was drawn here."""

    def __init__(self, width: int, height: int, samples: int) -> None:
        self.id = 0
        self._fbo: "pyglet.image.Framebuffer | None" = None
        self._buffers: list = []
        self.samples = 0
        self.resize(width, height, samples)

    @staticmethod
    def max_samples() -> int:
        """The most samples the context offers per pixel (GL_MAX_SAMPLES; 4 on llvmpipe)."""
        g = gl()
        n = ctypes.c_int(0)
        g.glGetIntegerv(g.GL_MAX_SAMPLES, ctypes.byref(n))
        return int(n.value)

    def resize(self, width: int, height: int, samples: int | None = None) -> None:
        import pyglet.image.buffer as pb
        g = gl()
        self.delete()
        self.width, self.height = int(width), int(height)
        if samples is not None:
            self.samples = int(samples)
        color = pb.Renderbuffer(self.width, self.height, g.GL_RGBA8, samples=self.samples)
        depth = pb.Renderbuffer(self.width, self.height, g.GL_DEPTH_COMPONENT24, samples=self.samples)
        fbo = pb.Framebuffer()
        fbo.attach_renderbuffer(color, attachment=g.GL_COLOR_ATTACHMENT0)
        fbo.attach_renderbuffer(depth, attachment=g.GL_DEPTH_ATTACHMENT)
        fbo.bind()
        complete, status = fbo.is_complete, fbo.get_status()
        fbo.unbind()
        if not complete:
            fbo.delete()
            color.delete()
            depth.delete()
            raise RuntimeError(f"{self.samples}x multisampled framebuffer {self.width}x{self.height} "
                               f"incomplete ({status})")
        self._fbo, self._buffers = fbo, [color, depth]
        self.id = fbo.id

    def bind(self) -> None:
        g = gl()
        g.glBindFramebuffer(g.GL_FRAMEBUFFER, self.id)
        g.glViewport(0, 0, self.width, self.height)

    def resolve_to(self, other: Framebuffer, depth: bool = False,
                   box: tuple[int, int, int, int] | None = None) -> None:
        """Average the samples of each pixel into `other` (same size): colour, and depth when asked
        (a depth resolve keeps one sample's depth, which refraction's thickness needs, never a mean);
        only the pixels of `box` (x, y, width, height) when given, the rest of `other` left as it was."""
        g = gl()
        g.glBindFramebuffer(g.GL_READ_FRAMEBUFFER, self.id)
        g.glBindFramebuffer(g.GL_DRAW_FRAMEBUFFER, other.id)
        mask = g.GL_COLOR_BUFFER_BIT | (g.GL_DEPTH_BUFFER_BIT if depth else 0)
        x, y, w, h = box if box is not None else (0, 0, self.width, self.height)
        if w > 0 and h > 0:
            g.glBlitFramebuffer(x, y, x + w, y + h, x, y, x + w, y + h, mask, g.GL_NEAREST)
        g.glBindFramebuffer(g.GL_FRAMEBUFFER, self.id)

    def delete(self) -> None:
        if self._fbo is not None:
            self._fbo.delete()
        for rb in self._buffers:
            rb.delete()
        self._fbo, self._buffers = None, []
        self.id = 0


class Mesh:
    """Interleaved float32 vertex attributes in one VAO, optionally with per-instance attributes.

    `layout` maps attribute location -> component count, in interleaved order.
    """

    def __init__(self, vertices: NDArray[np.float32], layout: list[int], indices: NDArray | None = None,
                 instance_layout: list[int] | None = None, mode: str = "GL_TRIANGLES") -> None:
        g = gl()
        self.vao = _gen(g.glGenVertexArrays)
        g.glBindVertexArray(self.vao)
        self.vbo = _gen(g.glGenBuffers)
        v = np.ascontiguousarray(vertices, dtype=np.float32)
        stride = sum(layout) * 4
        self.count = v.size // sum(layout) if sum(layout) else 0
        self.capacity = v.nbytes
        g.glBindBuffer(g.GL_ARRAY_BUFFER, self.vbo)
        g.glBufferData(g.GL_ARRAY_BUFFER, max(4, v.nbytes), _ptr(v) if v.size else None, g.GL_DYNAMIC_DRAW)
        off = 0
        for loc, n in enumerate(layout):
            g.glEnableVertexAttribArray(loc)
            g.glVertexAttribPointer(loc, n, g.GL_FLOAT, g.GL_FALSE, stride, ctypes.c_void_p(off))
            off += n * 4
        self.layout = layout
        self.ibo = 0
        self.index_count = 0
        if indices is not None:
            idx = np.ascontiguousarray(indices, dtype=np.uint32)
            self.ibo = _gen(g.glGenBuffers)
            g.glBindBuffer(g.GL_ELEMENT_ARRAY_BUFFER, self.ibo)
            g.glBufferData(g.GL_ELEMENT_ARRAY_BUFFER, idx.nbytes, _ptr(idx), g.GL_STATIC_DRAW)
            self.index_count = idx.size
        self.inst = 0
        self.inst_capacity = 0
        self.instance_layout = instance_layout or []
        if instance_layout:
            self.inst = _gen(g.glGenBuffers)
            g.glBindBuffer(g.GL_ARRAY_BUFFER, self.inst)
            g.glBufferData(g.GL_ARRAY_BUFFER, 4, None, g.GL_STREAM_DRAW)
            istride = sum(instance_layout) * 4
            off = 0
            for j, n in enumerate(instance_layout):
                loc = len(layout) + j
                g.glEnableVertexAttribArray(loc)
                g.glVertexAttribPointer(loc, n, g.GL_FLOAT, g.GL_FALSE, istride, ctypes.c_void_p(off))
                g.glVertexAttribDivisor(loc, 1)
                off += n * 4
        g.glBindVertexArray(0)
        self.mode = getattr(g, mode)
        self.instances = 0

    def update(self, vertices: NDArray[np.float32]) -> None:
        """Replace the per-vertex data (one buffer write)."""
        g = gl()
        v = np.ascontiguousarray(vertices, dtype=np.float32)
        g.glBindBuffer(g.GL_ARRAY_BUFFER, self.vbo)
        if v.nbytes > self.capacity:
            g.glBufferData(g.GL_ARRAY_BUFFER, v.nbytes, _ptr(v), g.GL_DYNAMIC_DRAW)
            self.capacity = v.nbytes
        elif v.nbytes:
            g.glBufferSubData(g.GL_ARRAY_BUFFER, 0, v.nbytes, _ptr(v))
        self.count = v.size // sum(self.layout)

    def set_instances(self, data: NDArray[np.float32]) -> None:
        """Replace the per-instance data, (n, sum(instance_layout)) float32, in one buffer write."""
        g = gl()
        d = np.ascontiguousarray(data, dtype=np.float32)
        g.glBindBuffer(g.GL_ARRAY_BUFFER, self.inst)
        if d.nbytes > self.inst_capacity:
            g.glBufferData(g.GL_ARRAY_BUFFER, d.nbytes, _ptr(d), g.GL_STREAM_DRAW)
            self.inst_capacity = d.nbytes
        elif d.nbytes:
            g.glBufferSubData(g.GL_ARRAY_BUFFER, 0, d.nbytes, _ptr(d))
        self.instances = d.shape[0] if d.ndim == 2 else 0

    def draw(self, first_instance: int = 0, instances: int | None = None) -> None:
        g = gl()
        g.glBindVertexArray(self.vao)
        if self.inst:
            n = self.instances if instances is None else instances
            if n <= 0:
                return
            if first_instance:
                g.glDrawArraysInstancedBaseInstance(self.mode, 0, self.count, n, first_instance) if not self.ibo else \
                    g.glDrawElementsInstancedBaseInstance(self.mode, self.index_count, g.GL_UNSIGNED_INT, None, n, first_instance)
            elif self.ibo:
                g.glDrawElementsInstanced(self.mode, self.index_count, g.GL_UNSIGNED_INT, None, n)
            else:
                g.glDrawArraysInstanced(self.mode, 0, self.count, n)
        elif self.ibo:
            g.glDrawElements(self.mode, self.index_count, g.GL_UNSIGNED_INT, None)
        elif self.count:
            g.glDrawArrays(self.mode, 0, self.count)

    def delete(self) -> None:
        g = gl()
        for b in (self.vbo, self.ibo, self.inst):
            if b:
                g.glDeleteBuffers(1, ctypes.byref(ctypes.c_uint(b)))
        if self.vao:
            g.glDeleteVertexArrays(1, ctypes.byref(ctypes.c_uint(self.vao)))
        self.vao = self.vbo = self.ibo = self.inst = 0
