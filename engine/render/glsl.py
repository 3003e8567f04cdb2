"""Load GLSL programs from shaders/ with file:line compile errors, and set uniforms by name.

Uniform names in the shaders match the Python names that set them: `program["sun_direction"] = v`.
A uniform the GLSL compiler optimised away is ignored, so a shader may drop one without breaking
the caller.
"""
from __future__ import annotations

import ctypes
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from engine.paths import SHADERS
from engine.render.context import gl

_STAGES = {".vert": "GL_VERTEX_SHADER", ".geom": "GL_GEOMETRY_SHADER", ".frag": "GL_FRAGMENT_SHADER"}
# Mesa: "0:12(5): error: ..."; NVIDIA: "0(12) : error C1008: ..."; AMD/Intel: "ERROR: 0:12: ..."
_LINE = re.compile(r"^(?:ERROR:\s*|WARNING:\s*)?\d+[:(](\d+)\)?(?:\(\d+\))?\s*:?\s*(.*)$")


class ShaderError(RuntimeError):
    """A shader failed to compile or a program failed to link; the message names file:line."""


def shader_files(folder: Path = SHADERS) -> list[Path]:
    """Return every shader source in `folder`."""
    return sorted(p for p in folder.iterdir() if p.suffix in _STAGES)


def _format_log(path: Path, log: str) -> str:
    try:
        shown = path.relative_to(SHADERS.parent)
    except ValueError:
        shown = path
    out = []
    for raw in log.strip().splitlines():
        m = _LINE.match(raw.strip())
        out.append(f"{shown}:{m.group(1)}: {m.group(2)}" if m else f"{shown}: {raw.strip()}")
    return "\n".join(out) or f"{shown}: compile failed (no log)"


def _with_defines(source: str, defines: dict[str, Any] | None) -> str:
    """Insert `#define NAME VALUE` lines after the #version line, keeping the file's line numbers."""
    if not defines:
        return source
    first, _, rest = source.partition("\n")
    lines = "".join(f"#define {k} {v}\n" for k, v in defines.items())
    return f"{first}\n{lines}#line 2\n{rest}"


def compile_shader(path: Path, defines: dict[str, Any] | None = None) -> int:
    """Compile one shader file; return its GL name or raise ShaderError with file:line messages.

    `defines` become `#define` lines (compile-time constants such as the number of lights, so
    that llvmpipe runs no masked loop body for lights that do not exist).
    """
    g = gl()
    path = Path(path)
    if path.suffix not in _STAGES:
        raise ShaderError(f"{path}: unknown shader stage (use .vert, .geom or .frag)")
    source = path.read_text()
    if not source.lstrip().startswith("#version"):
        raise ShaderError(f"{path}:1: must start with '#version 330 core'")
    source = _with_defines(source, defines)
    sh = g.glCreateShader(getattr(g, _STAGES[path.suffix]))
    data = source.encode()
    buf = ctypes.create_string_buffer(data)
    ptr = ctypes.cast(ctypes.pointer(ctypes.pointer(buf)), ctypes.POINTER(ctypes.POINTER(ctypes.c_char)))
    length = ctypes.c_int(len(data))
    g.glShaderSource(sh, 1, ptr, ctypes.byref(length))
    g.glCompileShader(sh)
    ok = ctypes.c_int(0)
    g.glGetShaderiv(sh, g.GL_COMPILE_STATUS, ctypes.byref(ok))
    if not ok.value:
        log = _info_log(sh, shader=True)
        g.glDeleteShader(sh)
        raise ShaderError(_format_log(path, log))
    return sh


def _info_log(name: int, shader: bool) -> str:
    g = gl()
    n = ctypes.c_int(0)
    (g.glGetShaderiv if shader else g.glGetProgramiv)(name, g.GL_INFO_LOG_LENGTH, ctypes.byref(n))
    buf = ctypes.create_string_buffer(max(1, n.value))
    (g.glGetShaderInfoLog if shader else g.glGetProgramInfoLog)(name, max(1, n.value), None, buf)
    return buf.value.decode(errors="replace")


class Program:
    """A linked GLSL program with its active uniforms; `with program:` binds it."""

    def __init__(self, *names: str, folder: Path = SHADERS, feedback: Sequence[str] = (),
                 defines: dict[str, Any] | None = None) -> None:
        g = gl()
        self.names = names
        self.defines = dict(defines or {})
        paths = [Path(folder) / n for n in names]
        shaders = [compile_shader(p, self.defines) for p in paths]
        self.id = g.glCreateProgram()
        for sh in shaders:
            g.glAttachShader(self.id, sh)
        if feedback:  # transform feedback varyings (tests capture geometry-shader output)
            arr = (ctypes.c_char_p * len(feedback))(*[f.encode() for f in feedback])
            g.glTransformFeedbackVaryings(self.id, len(feedback),
                                          ctypes.cast(arr, ctypes.POINTER(ctypes.POINTER(ctypes.c_char))),
                                          g.GL_INTERLEAVED_ATTRIBS)
        g.glLinkProgram(self.id)
        for sh in shaders:
            g.glDetachShader(self.id, sh)
            g.glDeleteShader(sh)
        ok = ctypes.c_int(0)
        g.glGetProgramiv(self.id, g.GL_LINK_STATUS, ctypes.byref(ok))
        if not ok.value:
            log = _info_log(self.id, shader=False)
            g.glDeleteProgram(self.id)
            raise ShaderError(f"linking {' + '.join(str(p.name) for p in paths)} failed:\n{log.strip()}")
        self.uniforms = self._introspect()

    def _introspect(self) -> dict[str, tuple[int, int, int]]:
        g = gl()
        count = ctypes.c_int(0)
        g.glGetProgramiv(self.id, g.GL_ACTIVE_UNIFORMS, ctypes.byref(count))
        out: dict[str, tuple[int, int, int]] = {}
        name = ctypes.create_string_buffer(256)
        for i in range(count.value):
            size, kind, length = ctypes.c_int(0), ctypes.c_uint(0), ctypes.c_int(0)
            g.glGetActiveUniform(self.id, i, 256, ctypes.byref(length), ctypes.byref(size), ctypes.byref(kind), name)
            key = name.value.decode()
            loc = g.glGetUniformLocation(self.id, name.value)
            if key.endswith("[0]"):
                key = key[:-3]
            out[key] = (loc, kind.value, size.value)
        return out

    def use(self) -> None:
        gl().glUseProgram(self.id)

    def __enter__(self) -> "Program":
        self.use()
        return self

    def __exit__(self, *exc: object) -> None:
        gl().glUseProgram(0)

    def __contains__(self, name: str) -> bool:
        return name in self.uniforms

    def __setitem__(self, name: str, value: Any) -> None:
        """Set a uniform of the bound program (matrices are row-major numpy, as in camera.py)."""
        entry = self.uniforms.get(name)
        if entry is None:
            return
        g = gl()
        loc, kind, size = entry
        if kind in _INT_TYPES:
            a = np.ascontiguousarray(np.asarray(value, dtype=np.int32).ravel())
            fn = {1: g.glUniform1iv, 2: g.glUniform2iv, 3: g.glUniform3iv, 4: g.glUniform4iv}[_INT_TYPES[kind]]
            fn(loc, max(1, a.size // _INT_TYPES[kind]), a.ctypes.data_as(ctypes.POINTER(ctypes.c_int)))
            return
        a = np.ascontiguousarray(np.asarray(value, dtype=np.float32))
        if kind == g.GL_FLOAT_MAT4 or kind == g.GL_FLOAT_MAT3:
            n = 4 if kind == g.GL_FLOAT_MAT4 else 3
            fn = g.glUniformMatrix4fv if n == 4 else g.glUniformMatrix3fv
            fn(loc, max(1, a.size // (n * n)), g.GL_TRUE, a.ravel().ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
            return
        comps = _FLOAT_TYPES.get(kind, 1)
        fn = {1: g.glUniform1fv, 2: g.glUniform2fv, 3: g.glUniform3fv, 4: g.glUniform4fv}[comps]
        flat = a.ravel()
        fn(loc, max(1, min(size, flat.size // comps)), flat.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))

    def set(self, **values: Any) -> None:
        """Set several uniforms of the bound program."""
        for k, v in values.items():
            self[k] = v

    def delete(self) -> None:
        if self.id:
            gl().glDeleteProgram(self.id)
            self.id = 0


def _types() -> tuple[dict[int, int], dict[int, int]]:
    g = gl()
    ints = {g.GL_INT: 1, g.GL_BOOL: 1, g.GL_INT_VEC2: 2, g.GL_INT_VEC3: 3, g.GL_INT_VEC4: 4,
            g.GL_SAMPLER_2D: 1, g.GL_SAMPLER_CUBE: 1, g.GL_SAMPLER_3D: 1, g.GL_UNSIGNED_INT: 1}
    floats = {g.GL_FLOAT: 1, g.GL_FLOAT_VEC2: 2, g.GL_FLOAT_VEC3: 3, g.GL_FLOAT_VEC4: 4}
    return ints, floats


class _Lazy(dict):
    def __init__(self, which: int) -> None:
        super().__init__()
        self.which = which

    def _fill(self) -> None:
        if not dict.__len__(self):
            self.update(_types()[self.which])

    def get(self, key: Any, default: Any = None) -> Any:
        self._fill()
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self._fill()
        return dict.__contains__(self, key)

    def __getitem__(self, key: Any) -> Any:
        self._fill()
        return dict.__getitem__(self, key)


_INT_TYPES: dict[int, int] = _Lazy(0)
_FLOAT_TYPES: dict[int, int] = _Lazy(1)


def link_all(groups: Iterable[Sequence[str]]) -> dict[str, Program]:
    """Link each group of shader file names; return them by the first file's stem."""
    return {Path(names[0]).stem: Program(*names) for names in groups}
