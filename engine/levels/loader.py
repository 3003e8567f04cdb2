"""Load a level file into a validated `Level`, or raise one LevelError listing every problem."""
from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable

from engine.levels.checks import _clean, check_contents, check_files
from engine.levels.fields import Problem, build
from engine.levels.locate import LineMap
from engine.levels.schema import Level


class LevelError(Exception):
    """A level file has problems. `problems` holds (file, line, key path, message) for each."""

    def __init__(self, problems: list[tuple[str, int, str, str]]) -> None:
        self.problems = problems
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        out = []
        for file, line, key, msg in self.problems:
            out.append(f"{file}:{line}: {key}: {msg}" if key else f"{file}:{line}: {msg}")
        return out


# Extra sections that mods register: name -> (dataclass, or a checker returning a value).
_SECTIONS: dict[str, type] = {}


def register_section(name: str, cls: type) -> None:
    """Let `[name]` appear in levels, validated against dataclass `cls` (see engine.levels.fields)."""
    if name in {f.name for f in dataclasses.fields(Level)} or name in Level.TOML_NAMES:
        raise ValueError(f'level section "{name}" is built in')
    _SECTIONS[name] = cls


def unregister_section(name: str) -> None:
    _SECTIONS.pop(name, None)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _description(text: str) -> str:
    for line in text.splitlines():
        m = re.match(r"\s*#\s*Demonstrates:\s*(.*)", line)
        if m:
            return m.group(1).strip()
        if line.strip() and not line.lstrip().startswith("#"):
            break
    return ""


def _shown_key(path: str, msg: str) -> str:
    """An unknown key is reported against the table that holds it: `pool: unknown key "sise"`."""
    if msg.startswith("unknown key"):
        parent = re.sub(r"\.?[^.\[\]]*$", "", path)
        return parent or "level"
    return path


def parse_level(text: str, path: Path | str | None = None) -> Level:
    """Validate level source text. `path` names it in messages and anchors relative paths."""
    p = Path(path) if path is not None else None
    shown = _display(p) if p is not None else "<level>"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = int(m.group(1)) if m else 1
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        col = f" (column {m.group(2)})" if m else ""
        raise LevelError([(shown, line, "", f"not valid TOML: {msg}{col}")]) from None
    where = LineMap(text)
    problems: list[Problem] = []
    extra_raw = {k: data.pop(k) for k in list(data) if k in _SECTIONS}
    level = build(Level, data, "", problems)
    # checks across sections run even when some values are bad: they skip what has a problem
    bad = {key for key, _ in problems}
    problems.extend(level.check_across(_clean(bad)))
    problems.extend(check_contents(level, bad))
    problems.extend(check_files(dataclasses.replace(level, path=p), bad))
    extra: dict[str, Any] = {}
    for name, raw in extra_raw.items():
        if not isinstance(raw, dict):
            problems.append((name, "must be a table"))
            continue
        extra[name] = build(_SECTIONS[name], raw, name, problems)
    if problems:
        rows = sorted({(where.line_of(k), _shown_key(k, m), m) for k, m in problems})
        raise LevelError([(shown, line, key, msg) for line, key, msg in rows])
    return dataclasses.replace(level, path=p, description=_description(text),
                               extra=MappingProxyType(extra))


def load_level(path: str | Path) -> Level:
    """Read and validate a level file. Raises LevelError (never a bare traceback's worth of noise)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        from engine.paths import suggest_level
        raise LevelError([(str(p), 0, "", f"no such level file{suggest_level(p)} "
                                          "(try `bottles levels` for the bundled ones)")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LevelError([(str(p), 0, "", f"cannot read: {exc}")]) from None
    return parse_level(text, p)
