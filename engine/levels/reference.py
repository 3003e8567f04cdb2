"""The level file reference, generated from the schema itself: `bottles schema` (Markdown) and
`bottles schema --json` (a JSON Schema, draft 2020-12, for editors that check TOML as it is typed).

Every key of every section comes from the dataclass fields of engine.levels.schema (and the
feature specs it uses): kind, range, default and doc are read from each field's `spec(...)`, so the
reference cannot drift from what the loader checks. docs/levels.md is `bottles schema` verbatim;
a test keeps it so.
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import MISSING
from typing import Any, Iterator

from engine.levels.schema import Level

HEADER = """# Level file reference

Generated from the level schema by `bottles schema` (do not edit by hand: run
`bottles schema > docs/levels.md`). `bottles schema --json` prints the same as a JSON Schema.

A level is a TOML file. Units are SI: metres, seconds, kilograms; y points up and the pool floor
is at y = 0; x runs along the pool's first size, z along its second. Unknown keys are errors.
`[table]` sections appear once; `[[table]]` sections may repeat (one per item). A key with no
default is required in its section; "-" as a default means the key is optional and its meaning
when absent is given in its description. Mods may add sections of their own: `bottles validate`
checks them with the mods beside the level (`--mods`) or given by path (`--mod PATH`); this
reference and the JSON Schema know only the built-in ones.
"""

# A doc ends with (or is only) its unit: "pool extent along x and z, m", "m; -1: fit the pool", "kg/m^3"
_UNIT = re.compile(r"(?:^|, |; )(m\^3/s|m/s\^2|kg/m\^3|N s/m\^3|N s|rad/s|m/s|1/s|1/m|m\^3|degrees|s|m)"
                   r"(?=$|[;,( ]|\s)")


def _unit(meta: dict) -> str:
    if meta.get("unit") is not None:
        return meta["unit"]
    m = _UNIT.search(meta.get("doc", ""))
    return m.group(1) if m else ""


def _num(v: float | None) -> str:
    return str(v) if isinstance(v, int) else f"{v:g}"


def _range(meta: dict) -> str:
    lo, hi = meta.get("min"), meta.get("max")
    if lo is None and hi is None:
        return ""
    if lo is not None and hi is not None:
        return f"> {_num(lo)} and <= {_num(hi)}" if meta.get("exclusive_min") else f"{_num(lo)} to {_num(hi)}"
    if lo is not None:
        return f"> {_num(lo)}" if meta.get("exclusive_min") else f">= {_num(lo)}"
    return f"<= {_num(hi)}"


def _type(meta: dict) -> str:
    kind = meta["kind"]
    if kind == "enum":
        return "one of " + ", ".join(f'"{c}"' for c in meta["choices"])
    return {"float": "number", "int": "integer", "bool": "true or false", "str": "string",
            "path": "file path (relative to the level file)", "vec2": "[a, b] numbers",
            "vec3": "[x, y, z] numbers", "quat": "[w, x, y, z] quaternion", "floats": "list of numbers",
            "table": "table", "tables": "tables", "any": "table"}.get(kind, kind)


def _default(f: dataclasses.Field, meta: dict) -> str:
    if f.default is MISSING:
        return "required"
    d = f.default
    if d is None:
        return "-"
    if dataclasses.is_dataclass(d) or isinstance(d, tuple) and d and dataclasses.is_dataclass(d[0]):
        return ""
    if isinstance(d, bool):
        return "true" if d else "false"
    if isinstance(d, str):
        return f'"{d}"'
    if isinstance(d, tuple):
        return "[" + ", ".join(_num(x) for x in d) + "]" if d else "[]"
    if isinstance(d, float):
        return _num(d)
    return str(d)


def _toml_name(cls: type, fname: str) -> str:
    aliases = getattr(cls, "TOML_NAMES", {})
    return next((t for t, f in aliases.items() if f == fname), fname)


def _fields(cls: type) -> Iterator[tuple[str, dataclasses.Field, dict]]:
    for f in dataclasses.fields(cls):
        if f.metadata.get("kind"):
            yield _toml_name(cls, f.name), f, dict(f.metadata)


def sections(cls: type = Level, prefix: str = "", repeat: bool = False) -> Iterator[tuple[str, bool, type]]:
    """(TOML header, repeatable, dataclass) of every section, depth first, top level first."""
    yield prefix, repeat, cls
    shared: set[type] = set()
    for key, _f, meta in _fields(cls):
        sub = meta.get("cls")
        if sub is None or sub in shared:
            continue
        name = f"{prefix}.{key}" if prefix else key
        if sub.__name__ == "SideSpec":      # the four sides share one table: [water.boundary.SIDE]
            shared.add(sub)
            name = f"{prefix}.SIDE"
        if meta["kind"] == "tables":
            yield from sections(sub, name, True)
        elif key == "materials":
            yield from sections(sub, f"{name}.NAME", False)
        elif meta["kind"] in ("table", "any"):
            yield from sections(sub, name, False)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The whole reference as Markdown (what `bottles schema` prints)."""
    out = [HEADER]
    for header, repeat, cls in sections():
        title = "Top level" if not header else (f"[[{header}]]" if repeat else f"[{header}]")
        out.append(f"## {title}\n")
        doc = (cls.__doc__ or "").strip()
        if doc and not doc.startswith(cls.__name__ + "(") and cls is not Level:
            out.append(" ".join(doc.split()) + "\n")
        if cls.__name__ == "SideSpec":
            out.append("SIDE is x_min, x_max, z_min or z_max: `[water.boundary.x_max]` or "
                       "`boundary = { x_max = { kind = \"inflow\", rate = 0.05 } }`.\n")
            out.append('A side may also be given as just its kind: `x_max = "absorbing"`; '
                       '`boundary = "absorbing"` sets all four.\n')
        if header.endswith("materials.NAME"):
            out.append("One table per material: `[materials.oak]`; NAME is what `material = \"oak\"` refers to.\n")
        rows = ["| key | type | unit | range | default | description |", "|---|---|---|---|---|---|"]
        for key, f, meta in _fields(cls):
            if meta["kind"] in ("table", "tables") or meta.get("cls") is not None:
                kind = "[[" if meta["kind"] == "tables" else "["
                name = f"{header}.{key}" if header else key
                target = f"{name}.NAME" if key == "materials" else (
                    f"{header}.SIDE" if meta.get("cls") is not None and meta["cls"].__name__ == "SideSpec" else name)
                ref = f"{kind}{target}{']]' if kind == '[[' else ']'}"
                rows.append(f"| {key} | section {_cell(ref)} | | | | {_cell(meta['doc'])} |")
                continue
            rows.append(f"| {key} | {_cell(_type(meta))} | {_unit(meta)} | {_range(meta)} | "
                        f"{_cell(_default(f, meta))} | {_cell(meta['doc'])} |")
        out.append("\n".join(rows) + "\n")
    return "\n".join(out)


# -- JSON Schema -----------------------------------------------------------------------------------
def _number_schema(meta: dict, integer: bool = False) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "integer" if integer else "number"}
    if meta.get("min") is not None:
        s["exclusiveMinimum" if meta.get("exclusive_min") else "minimum"] = meta["min"]
    if meta.get("max") is not None:
        s["maximum"] = meta["max"]
    return s


def _value_schema(key: str, f: dataclasses.Field, meta: dict) -> dict[str, Any]:
    kind = meta["kind"]
    sub = meta.get("cls")
    if kind in ("float", "int"):
        s = _number_schema(meta, kind == "int")
    elif kind == "bool":
        s = {"type": "boolean"}
    elif kind in ("str", "path"):
        s = {"type": "string", "minLength": 1}
    elif kind == "enum":
        s = {"enum": list(meta["choices"])}
    elif kind in ("vec2", "vec3", "quat"):
        n = {"vec2": 2, "vec3": 3, "quat": 4}[kind]
        s = {"type": "array", "items": _number_schema(meta if kind != "quat" else {}), "minItems": n, "maxItems": n}
    elif kind == "floats":
        s = {"type": "array", "items": _number_schema(meta), "minItems": 1}
    elif kind == "table":
        assert sub is not None
        s = object_schema(sub)
    elif kind == "tables":
        assert sub is not None
        s = {"type": "array", "items": object_schema(sub)}
    elif key == "materials":
        assert sub is not None
        s = {"type": "object", "additionalProperties": object_schema(sub)}
    elif sub is not None and sub.__name__ == "SideSpec":
        choices = [c for c in dataclasses.fields(sub)[0].metadata["choices"] if c != "inflow"]
        s = {"anyOf": [{"enum": choices}, object_schema(sub)]}
    elif sub is not None:   # boundary: one kind for all sides, or a table per side
        side = dataclasses.fields(sub)[0]
        s = {"anyOf": [{"enum": [c for c in dataclasses.fields(side.metadata["cls"])[0].metadata["choices"]
                                 if c != "inflow"]}, object_schema(sub)]}
    else:
        s = {}
    if meta.get("doc"):
        s["description"] = meta["doc"]
    d = f.default
    if d is not MISSING and d is not None and not dataclasses.is_dataclass(d) and \
            not (isinstance(d, tuple) and d and dataclasses.is_dataclass(d[0])) and kind not in ("tables", "any"):
        s["default"] = list(d) if isinstance(d, tuple) else d
    return s


def object_schema(cls: type) -> dict[str, Any]:
    props = {key: _value_schema(key, f, meta) for key, f, meta in _fields(cls)}
    required = [key for key, f, meta in _fields(cls)
                if f.default is MISSING and meta["kind"] not in ("table", "tables")]
    s: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        s["required"] = required
    doc = (cls.__doc__ or "").strip()
    if doc and not doc.startswith(cls.__name__ + "("):
        s["description"] = " ".join(doc.split())
    return s


def json_schema() -> dict[str, Any]:
    """The level format as a JSON Schema (a level file's TOML, parsed, is the instance)."""
    s = object_schema(Level)
    s.pop("description", None)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://bottles-and-water.invalid/level.schema.json",
            "title": "Bottles & Water level", **s}


def json_text() -> str:
    return json.dumps(json_schema(), indent=2) + "\n"
