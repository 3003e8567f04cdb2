"""Load GLSL programs from shaders/ with file:line compile errors, and set uniforms by name.

Uniform names in the shaders match the Python names that set them: `program["sun_direction"] = v`.
A uniform the GLSL compiler optimised away is ignored, so a shader may drop one without breaking
the caller.

Code shared by several shaders (the lighting model, the water optics) lives once in
shaders/include/*.glsl and is pulled in with `#include "lighting.glsl"` on a line of its own.
Each included file gets its own GLSL source-string number through `#line`, so a compile error in
it is reported as shaders/include/lighting.glsl:LINE, not as a line of the including file.
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
_LINE = re.compile(r"^(?:ERROR:\s*|WARNING:\s*)?(\d+)[:(](\d+)\)?(?:\(\d+\))?\s*:?\s*(.*)$")
_INCLUDE = re.compile(r'^\s*#include\s+"([^"]+)"\s*$')
INCLUDES = SHADERS / "include"


class ShaderError(RuntimeError):
    """A shader failed to compile or a program failed to link; the message names file:line."""


def shader_files(folder: Path = SHADERS) -> list[Path]:
    """Return every shader source in `folder`."""
    return sorted(p for p in folder.iterdir() if p.suffix in _STAGES)


def _shown(path: Path) -> Path:
    try:
        return path.relative_to(SHADERS.parent)
    except ValueError:
        return path


def _format_log(path: Path, log: str, sources: list[Path] | None = None) -> str:
    """Turn a driver's log into file:line: message lines (`sources[n]` is source string n)."""
    sources = sources or [path]
    out = []
    for raw in log.strip().splitlines():
        m = _LINE.match(raw.strip())
        if m:
            n = int(m.group(1))
            where = _shown(sources[n] if n < len(sources) else path)
            out.append(f"{where}:{m.group(2)}: {m.group(3)}")
        else:
            out.append(f"{_shown(path)}: {raw.strip()}")
    return "\n".join(out) or f"{_shown(path)}: compile failed (no log)"


def expand_includes(source: str, path: Path, sources: list[Path] | None = None) -> tuple[str, list[Path]]:
    """Replace each `#include "name.glsl"` line with that file from shaders/include/.

    Returns the expanded text and the list of files by GLSL source-string number (0: `path`).
    A file is included once per program source (a second include of it is dropped), and an
    unknown name raises ShaderError at the including line.
    """
    sources = sources if sources is not None else [path]
    own = sources.index(path) if path in sources else 0
    out = []
    for lineno, line in enumerate(source.split("\n"), start=1):
        m = _INCLUDE.match(line)
        if not m:
            out.append(line)
            continue
        inc = INCLUDES / m.group(1)
        if inc in sources:
            out.append(f"// {m.group(1)} already included")
            continue
        if not inc.is_file():
            raise ShaderError(f"{_shown(path)}:{lineno}: #include \"{m.group(1)}\": no such file in {_shown(INCLUDES)}/")
        sources.append(inc)
        body, _ = expand_includes(inc.read_text(), inc, sources)
        out.append(f"#line 1 {sources.index(inc)}\n{body}\n#line {lineno + 1} {own}")
    return "\n".join(out), sources


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
    source, sources = expand_includes(source, path)
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
        raise ShaderError(_format_log(path, log, sources))
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
