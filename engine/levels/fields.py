"""A small schema language for level data: dataclass fields carry their type and range.

    size: tuple[float, float] = spec("vec2", default=(2.0, 1.0), min=0.05, doc="pool extent, m")

`build(cls, table, path, problems)` checks a parsed TOML table against a frozen dataclass and
returns an instance; every problem found is appended as (key path, message) so the loader can
report them all at once. Mods use the same machinery for their own level sections.
"""
from __future__ import annotations

import dataclasses
import difflib
import math
from dataclasses import MISSING, field
from typing import Any, Callable

Problem = tuple[str, str]

_KINDS = {"float", "int", "bool", "str", "enum", "vec2", "vec3", "quat", "table", "tables",
          "floats", "path", "any"}


def spec(kind: str, *, default: Any = MISSING, min: float | None = None, max: float | None = None,
         choices: tuple[str, ...] | None = None, cls: type | None = None, doc: str = "",
         convert: Callable[[Any, str, list[Problem]], Any] | None = None,
         exclusive_min: bool = False, unit: str | None = None) -> Any:
    """Declare a level field: its kind, default, range and meaning (`unit` when the doc's own
    trailing unit, which `bottles schema` reads, is not the one to show)."""
    assert kind in _KINDS, kind
    meta = dict(kind=kind, min=min, max=max, choices=choices, cls=cls, doc=doc, convert=convert,
                exclusive_min=exclusive_min, unit=unit)
    if default is MISSING:
        return field(metadata=meta)
    if isinstance(default, (list, dict, set)):
        raise TypeError("use tuples for defaults")
    return field(default=default, metadata=meta)


def _fmt(v: Any) -> str:
    """A value as the TOML file spells it (true, not True)."""
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v)


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


HUGE_INT = 2**53   # no level number needs more; beyond it an int is not exact as a float


def _number(v: Any, path: str, problems: list[Problem], meta: dict, integer: bool = False) -> Any:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        problems.append((path, f"must be {'an integer' if integer else 'a number'} (got {_fmt(v)})"))
        return None
    if integer and not isinstance(v, int):
        problems.append((path, f"must be an integer (got {_fmt(v)})"))
        return None
    if isinstance(v, float) and not math.isfinite(v):
        problems.append((path, f"must be finite (got {v})"))
        return None
    if isinstance(v, int) and abs(v) > HUGE_INT:   # (formatting it, or making it a float, would fail)
        problems.append((path, f"is far out of range (a {len(str(abs(v))) if v.bit_length() < 14000 else 'very'}"
                               f"-digit number)"))
        return None
    lo, hi = meta.get("min"), meta.get("max")
    low_bad = lo is not None and (v <= lo if meta.get("exclusive_min") else v < lo)
    if low_bad or (hi is not None and v > hi):
        if lo is not None and hi is not None and meta.get("exclusive_min"):
            problems.append((path, f"must be greater than {lo:g} and at most {hi:g} (got {v:g})"))
        elif lo is not None and hi is not None:
            problems.append((path, f"must be between {lo:g} and {hi:g} (got {v:g})"))
        elif lo is not None:
            word = "greater than" if meta.get("exclusive_min") else "at least"
            problems.append((path, f"must be {word} {lo:g} (got {v:g})"))
        else:
            problems.append((path, f"must be at most {hi:g} (got {v:g})"))
        return None
    return int(v) if integer else float(v)


def _vector(v: Any, n: int, path: str, problems: list[Problem], meta: dict) -> Any:
    if not isinstance(v, list) or len(v) != n:
        problems.append((path, f"must be a list of {n} numbers (got {_fmt(v)})"))
        return None
    out = []
    for j, x in enumerate(v):
        y = _number(x, f"{path}[{j}]", problems, meta)
        if y is None:
            return None
        out.append(y)
    return tuple(out)


def check_value(v: Any, meta: dict, path: str, problems: list[Problem]) -> Any:
    """Validate one value against its field metadata; None (and a problem) when it is bad."""
    kind = meta["kind"]
    if meta.get("convert") is not None:
        return meta["convert"](v, path, problems)
    if kind == "float":
        return _number(v, path, problems, meta)
    if kind == "int":
        return _number(v, path, problems, meta, integer=True)
    if kind == "bool":
        if not isinstance(v, bool):
            problems.append((path, f"must be true or false (got {_fmt(v)})"))
            return None
        return v
    if kind in ("str", "path"):
        if not isinstance(v, str) or not v:
            problems.append((path, f"must be a non-empty string (got {_fmt(v)})"))
            return None
        return v
    if kind == "enum":
        choices = meta["choices"]
        if v not in choices:
            hint = difflib.get_close_matches(str(v), choices, n=1)
            extra = f' (did you mean "{hint[0]}"?)' if hint else ""
            problems.append((path, f"must be one of {', '.join(map(_fmt, choices))} (got {_fmt(v)}){extra}"))
            return None
        return v
    if kind == "vec2":
        return _vector(v, 2, path, problems, meta)
    if kind == "vec3":
        return _vector(v, 3, path, problems, meta)
    if kind == "quat":
        q = _vector(v, 4, path, problems, {})
        if q is None:
            return None
        n = math.sqrt(sum(c * c for c in q))
        if n < 1e-9:
            problems.append((path, "must be a non-zero quaternion (w, x, y, z)"))
            return None
        return tuple(c / n for c in q)
    if kind == "floats":
        if not isinstance(v, list) or not v:
            problems.append((path, f"must be a non-empty list of numbers (got {_fmt(v)})"))
            return None
        vals = [_number(x, f"{path}[{j}]", problems, meta) for j, x in enumerate(v)]
        return None if any(x is None for x in vals) else tuple(vals)
    if kind == "table":
        if not isinstance(v, dict):
            problems.append((path, f"must be a table (got {_fmt(v)})"))
            return None
        return build(meta["cls"], v, path, problems)
    if kind == "tables":
        if isinstance(v, dict):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(t, dict) for t in v):
            problems.append((path, "must be a list of tables ([[...]] sections)"))
            return None
        return tuple(build(meta["cls"], t, f"{path}[{j}]", problems) for j, t in enumerate(v))
    return v


def build(cls: type, table: dict, path: str, problems: list[Problem]) -> Any:
    """Check `table` against dataclass `cls`; return an instance (defaults stand in for bad values)."""
    fields = {f.name: f for f in dataclasses.fields(cls) if f.metadata.get("kind")}
    aliases = getattr(cls, "TOML_NAMES", {})  # toml key -> field name, e.g. "bottle" -> "bottles"
    names = {aliases.get(k, k): k for k in table}
    for key in table:
        fname = aliases.get(key, key)
        if fname not in fields:
            known = [next((t for t, f in aliases.items() if f == n), n) for n in fields]
            hint = difflib.get_close_matches(key, known, n=1)
            extra = f' (did you mean "{hint[0]}"?)' if hint else ""
            problems.append((join(path, key), f'unknown key "{key}"{extra}'))
    kwargs: dict[str, Any] = {}
    before = len(problems)
    bad = False
    for name, f in fields.items():
        key = names.get(name)
        if key is None:
            if f.default is MISSING and f.default_factory is MISSING:
                if f.metadata["kind"] == "table":
                    kwargs[name] = build(f.metadata["cls"], {}, join(path, name), problems)
                    continue
                if f.metadata["kind"] == "tables":
                    kwargs[name] = ()
                    continue
                problems.append((join(path, name), "is required"))
                bad = True
            continue
        value = check_value(table[key], dict(f.metadata), join(path, key), problems)
        if value is None:
            bad = True
            continue
        kwargs[name] = value
    if bad:
        # fill required fields with placeholders so the rest can still be checked
        for name, f in fields.items():
            if name not in kwargs and f.default is MISSING and f.default_factory is MISSING:
                kwargs[name] = None
    obj = cls(**kwargs)
    check = getattr(obj, "check", None)
    if check is not None and len(problems) == before:
        for sub, msg in check():
            problems.append((join(path, sub) if sub else path, msg))
    return obj


def describe(cls: type, prefix: str = "") -> list[tuple[str, str, Any, str]]:
    """(key, kind, default, doc) for every field: used by docs and `bottles validate --schema`."""
    out = []
    for f in dataclasses.fields(cls):
        meta = f.metadata
        if not meta.get("kind"):
            continue
        key = join(prefix, f.name)
        if meta["kind"] in ("table", "tables"):
            out.extend(describe(meta["cls"], key))
        else:
            out.append((key, meta["kind"], None if f.default is MISSING else f.default, meta["doc"]))
    return out
