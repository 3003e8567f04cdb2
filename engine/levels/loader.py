"""Load a level file into a validated `Level`, or raise one LevelError listing every problem."""
from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engine.levels.checks import _clean, check_contents, check_files, check_start_poses
from engine.levels.fields import Problem, build
from engine.levels.locate import LineMap
from engine.levels.schema import Level
from engine.paths import find_level, suggest_level
from engine.text import printable

MAX_LEVEL_BYTES = 4 * 2**20   # a level is a page of TOML; 4 MiB is far beyond any real one
MAX_TABLES = 1000             # [[...]] tables of one kind (bottles and objects have their own caps)


class LevelError(Exception):
    """A level file has problems. `problems` holds (file, line, key path, message) for each."""

    def __init__(self, problems: list[tuple[str, int, str, str]]) -> None:
        self.problems = problems
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """One line per problem, `file:line: key: message`, every control character escaped (a key
        or value from the file never sends an escape sequence to the terminal)."""
        out = []
        for file, line, key, msg in self.problems:
            file, key, msg = printable(file), printable(key, 200), printable(msg, 600)
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
    """Validate level source text. `path` names it in messages and anchors relative paths.

    Raises LevelError and nothing else: what a hostile file provokes (nesting deeper than the
    parser's stack, numbers beyond any range) is one more `file:line` problem.
    """
    p = Path(path) if path is not None else None
    shown = _display(p) if p is not None else "<level>"
    try:
        return _parse(text, p, shown)
    except LevelError:
        raise
    except RecursionError:
        raise LevelError([(shown, 1, "", "nested too deeply (arrays or tables inside each other)")]) from None
    except (ValueError, OverflowError, TypeError, MemoryError) as exc:
        raise LevelError([(shown, 1, "", f"cannot be read: {type(exc).__name__}: {str(exc)[:200]}")]) from None


def _table_counts(data: dict, where: LineMap) -> list[Problem]:
    """[[...]] arrays longer than MAX_TABLES, before any of their entries is checked."""
    out: list[Problem] = []
    for key, v in data.items():
        if isinstance(v, list) and len(v) > MAX_TABLES and all(isinstance(t, dict) for t in v[:1]):
            out.append((f"{key}[{MAX_TABLES}]", f"{len(v)} [[{key}]] tables; a level holds at most {MAX_TABLES}"))
        elif isinstance(v, dict):
            out.extend((f"{key}.{k}", m) for k, m in _table_counts(v, where))
    return out


def _parse(text: str, p: Path | None, shown: str) -> Level:
    if len(text) > MAX_LEVEL_BYTES:
        raise LevelError([(shown, 1, "", f"is {len(text) / 2**20:.1f} MiB; a level file is at most "
                                         f"{MAX_LEVEL_BYTES / 2**20:.0f} MiB")])
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = int(m.group(1)) if m else 1
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        col = f" (column {m.group(2)})" if m else ""
        raise LevelError([(shown, line, "", f"not valid TOML: {msg}{col}")]) from None
    where = LineMap(text)
    too_many = _table_counts(data, where)
    if too_many:
        raise LevelError([(shown, where.line_of(k), k.split("[")[0], m) for k, m in too_many])
    problems: list[Problem] = []
    extra_raw = {k: data.pop(k) for k in list(data) if k in _SECTIONS}
    level = build(Level, data, "", problems)
    # checks across sections run even when some values are bad: they skip what has a problem
    bad = {key for key, _ in problems}
    problems.extend(level.check_across(_clean(bad)))
    problems.extend(check_contents(level, bad))
    problems.extend(check_files(dataclasses.replace(level, path=p), bad))
    if not problems:     # bodies placed into the bed, a wall or each other: needs every model and the bed
        problems.extend(check_start_poses(dataclasses.replace(level, path=p)))
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
    """Read and validate a level file: a path, or a bundled level's name as `bottles levels` lists
    it ("beach"; `engine.paths.find_level`). Raises LevelError (never a bare traceback's worth of
    noise)."""
    p = find_level(str(path))
    try:
        if p.exists() and not p.is_file():
            raise LevelError([(str(p), 0, "", "is not a regular file")])
        if p.stat().st_size > MAX_LEVEL_BYTES:
            raise LevelError([(str(p), 0, "", f"is {p.stat().st_size / 2**20:.1f} MiB; a level file is at most "
                                              f"{MAX_LEVEL_BYTES / 2**20:.0f} MiB")])
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LevelError([(str(p), 0, "", f"no such level file{suggest_level(p)} "
                                          "(try `bottles levels` for the bundled ones)")]) from None
    except UnicodeDecodeError as exc:
        line = p.read_bytes()[:exc.start].count(b"\n") + 1
        raise LevelError([(str(p), line, "", f"is not UTF-8 text (byte {exc.start}: {exc.reason}); a level is a TOML "
                                             "text file: save it as UTF-8, or check that this is the level you meant")]) from None
    except OSError as exc:
        raise LevelError([(str(p), 0, "", f"cannot read: {exc.strerror or exc}")]) from None
    return parse_level(text, p)
