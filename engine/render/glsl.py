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
from typing import Any, Sequence

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


_PYGLET_STAGES: dict[str, Any] = {".vert": "vertex", ".geom": "geometry", ".frag": "fragment"}


def _shader_log(exc: BaseException) -> str:
    """The driver's log from a pyglet ShaderException (which prints the source before it)."""
    text = str(exc.args[0]) if exc.args else str(exc)
    marker = "Please review the error on the specified line."
    return text.split(marker, 1)[1].strip() if marker in text else text.strip()


def compile_shader(path: Path, defines: dict[str, Any] | None = None) -> Any:
    """Compile one shader file into a pyglet Shader, or raise ShaderError with file:line messages.

    Includes are expanded first (each included file its own source-string number); `defines`
    become `#define` lines (compile-time constants such as the number of lights, so that
    llvmpipe runs no masked loop body for lights that do not exist).
    """
    from pyglet.graphics.shader import Shader, ShaderException
    path = Path(path)
    if path.suffix not in _STAGES:
        raise ShaderError(f"{path}: unknown shader stage (use .vert, .geom or .frag)")
    source = path.read_text()
    if not source.startswith("#version"):
        raise ShaderError(f"{path}:1: must start with '#version 330 core'")
    source, sources = expand_includes(source, path)
    source = _with_defines(source, defines)
    try:
        return Shader(source, _PYGLET_STAGES[path.suffix])
    except ShaderException as exc:
        raise ShaderError(_format_log(path, _shader_log(exc), sources)) from None


def _program_log(program: int) -> str:
    g = gl()
    n = ctypes.c_int(0)
    g.glGetProgramiv(program, g.GL_INFO_LOG_LENGTH, ctypes.byref(n))
    buf = ctypes.create_string_buffer(max(1, n.value))
    g.glGetProgramInfoLog(program, max(1, n.value), None, buf)
    return buf.value.decode(errors="replace")


class Program:
    """A pyglet ShaderProgram linked from files in shaders/ (includes, defines, file:line errors).

    `self.program` is the pyglet.graphics.shader.ShaderProgram; `with program:` binds it. `program[name] = value` sets a uniform from numpy values: matrices
    are row-major numpy (as camera.py builds them), arrays take one row per element, and a
    uniform the GLSL compiler optimised away is ignored, so a shader may drop one without
    breaking the caller. `feedback` names varyings to capture with transform feedback (tests
    read what the geometry shader emits).
    """

    def __init__(self, *names: str, folder: Path = SHADERS, feedback: Sequence[str] = (),
                 defines: dict[str, Any] | None = None) -> None:
        from pyglet.graphics.shader import ShaderException, ShaderProgram
        self.names = names
        self.defines = dict(defines or {})
        self._values: dict[str, bytes] = {}     # each uniform's value as last set: a repeat is skipped
        paths = [Path(folder) / n for n in names]
        shaders = [compile_shader(p, self.defines) for p in paths]
        try:
            self.program = ShaderProgram(*shaders)
            if feedback:
                self._capture(feedback, paths, shaders)
        except ShaderException as exc:
            raise ShaderError(f"linking {' + '.join(p.name for p in paths)} failed:\n{_shader_log(exc)}") from None
        finally:
            for sh in shaders:
                sh.delete()

    def _capture(self, feedback: Sequence[str], paths: list[Path], shaders: list[Any]) -> None:
        """Name the transform-feedback varyings and link again (pyglet links without them)."""
        from pyglet.graphics.shader import _introspect_uniforms
        g = gl()
        for sh in shaders:
            g.glAttachShader(self.id, sh.id)
        arr = (ctypes.c_char_p * len(feedback))(*[f.encode() for f in feedback])
        g.glTransformFeedbackVaryings(self.id, len(feedback),
                                      ctypes.cast(arr, ctypes.POINTER(ctypes.POINTER(ctypes.c_char))),
                                      g.GL_INTERLEAVED_ATTRIBS)
        g.glLinkProgram(self.id)
        for sh in shaders:
            g.glDetachShader(self.id, sh.id)
        ok = ctypes.c_int(0)
        g.glGetProgramiv(self.id, g.GL_LINK_STATUS, ctypes.byref(ok))
        if not ok.value:
            raise ShaderError(f"linking {' + '.join(p.name for p in paths)} with feedback failed:\n"
                              f"{_program_log(self.id).strip()}")
        self.program._uniforms = _introspect_uniforms(self.id, True)

    @property
    def id(self) -> int:
        return self.program.id or 0

    @property
    def _uniforms(self) -> dict[str, Any]:
        return self.program._uniforms

    def use(self) -> None:
        self.program.use()

    def __enter__(self) -> "Program":
        self.program.use()
        return self

    def __exit__(self, *exc: object) -> None:
        self.program.stop()

    def __contains__(self, name: str) -> bool:
        return name in self._uniforms

    def __setitem__(self, name: str, value: Any) -> None:
        """Set a uniform (matrices are row-major numpy, as in camera.py); unknown names are ignored."""
        u = self._uniforms.get(name)
        if u is None:
            return
        from pyglet.graphics.shader import _gl_matrices, _uniform_setters
        a = np.asarray(value, dtype=np.float64)
        key = a.tobytes()
        if self._values.get(name) == key:      # a program keeps its uniforms: no call to repeat one
            return
        self._values[name] = key
        ctype = _uniform_setters[u.type][0]
        cast = int if ctype in (ctypes.c_int, ctypes.c_uint, ctypes.c_int32, ctypes.c_uint32) else float
        if u.type in _gl_matrices:
            n = int(round(np.sqrt(u.length)))
            a = a.reshape(-1, n, n).transpose(0, 2, 1)      # GL wants columns first
        flat = [cast(x) for x in a.ravel()]
        if u.size > 1:                                     # an array: one element per row
            rows = [flat[i * u.length:(i + 1) * u.length] for i in range(u.size)]
            rows = [r if len(r) == u.length else [cast(0)] * u.length for r in rows]
            u.set([tuple(r) if u.length > 1 else r[0] for r in rows])
        elif u.length == 1:
            u.set(flat[0])
        else:
            u.set(flat[:u.length])

    def set(self, **values: Any) -> None:
        """Set several uniforms."""
        for k, v in values.items():
            self[k] = v

    def delete(self) -> None:
        if self.program.id is not None:
            self.program.delete()
