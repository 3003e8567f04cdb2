"""The level reference: `bottles schema` is generated from the schema, docs/levels.md is its output,
the JSON Schema accepts every bundled level and refuses broken ones; wording of a few messages."""
from __future__ import annotations

import json
import tomllib

import pytest

from engine.levels import LevelError, load_level
from engine.levels import reference
from engine.paths import LEVELS, ROOT, find_level
from game.cli import main


def test_docs_levels_md_is_the_output_of_bottles_schema(capsys):
    assert main(["schema"]) == 0
    printed = capsys.readouterr().out
    assert printed == reference.markdown()
    on_disk = (ROOT / "docs" / "levels.md").read_text()
    assert on_disk == printed, "docs/levels.md is stale: run `bottles schema > docs/levels.md`"
    assert "docs/levels.md" in (ROOT / "README.md").read_text()


def _keys(table: dict, header: str):
    """(section header, key) of every key in a parsed level, sections named as the reference does."""
    for key, v in table.items():
        if isinstance(v, dict) and header == "" and key == "materials":
            for mat in v.values():
                yield from ((h, k) for h, k in _keys(mat, "materials.NAME"))
            continue
        if isinstance(v, dict) and header.endswith("boundary"):
            yield from _keys(v, f"{header}.SIDE")
            yield header, key
            continue
        name = f"{header}.{key}" if header else key
        if isinstance(v, dict):
            yield header, key
            yield from _keys(v, name)
        elif isinstance(v, list) and v and all(isinstance(t, dict) for t in v):
            yield header, key
            for t in v:
                yield from _keys(t, name)
        else:
            yield header, key


def test_every_key_of_every_bundled_level_is_documented_in_its_section():
    text = reference.markdown()
    sections: dict[str, str] = {}
    for block in text.split("\n## ")[1:]:
        title, _, body = block.partition("\n")
        sections[title.strip("[] ") if title != "Top level" else ""] = body
    seen = 0
    for path in sorted(LEVELS.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        for header, key in _keys(data, ""):
            assert header in sections, (path.name, header)
            assert f"\n| {key} |" in "\n" + sections[header], (path.name, header, key)
            seen += 1
    assert seen > 100
    # every row gives type, unit, range, default and a description column
    for title, body in sections.items():
        rows = [r for r in body.splitlines() if r.startswith("| ") and not r.startswith("| key")]
        assert rows, title
        assert all(r.count("|") - r.count("\\|") == 7 for r in rows), (title, rows)


def _valid(inst, s) -> bool:
    """A small JSON Schema checker for the keywords the export uses (independent of the exporter)."""
    if "anyOf" in s:
        return any(_valid(inst, sub) for sub in s["anyOf"])
    if "enum" in s and inst not in s["enum"]:
        return False
    t = s.get("type")
    if t == "object":
        if not isinstance(inst, dict):
            return False
        props = s.get("properties", {})
        if any(r not in inst for r in s.get("required", [])):
            return False
        for k, v in inst.items():
            if k in props:
                if not _valid(v, props[k]):
                    return False
            elif s.get("additionalProperties") is False:
                return False
            elif isinstance(s.get("additionalProperties"), dict) and not _valid(v, s["additionalProperties"]):
                return False
        return True
    if t == "array":
        if not isinstance(inst, list):
            return False
        if len(inst) < s.get("minItems", 0) or len(inst) > s.get("maxItems", 10**9):
            return False
        return all(_valid(x, s["items"]) for x in inst) if "items" in s else True
    if t in ("number", "integer"):
        if isinstance(inst, bool) or not isinstance(inst, (int, float)) or (t == "integer" and not isinstance(inst, int)):
            return False
        if "minimum" in s and inst < s["minimum"]:
            return False
        if "exclusiveMinimum" in s and inst <= s["exclusiveMinimum"]:
            return False
        return not ("maximum" in s and inst > s["maximum"])
    if t == "string":
        return isinstance(inst, str) and len(inst) >= s.get("minLength", 0)
    if t == "boolean":
        return isinstance(inst, bool)
    return True


def test_json_schema_accepts_the_bundled_levels_and_refuses_broken_ones(capsys):
    assert main(["schema", "--json"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].endswith("2020-12/schema")
    for path in sorted(LEVELS.glob("*.toml")):
        assert _valid(tomllib.loads(path.read_text()), schema), path.name
    good = tomllib.loads((LEVELS / "harbour.toml").read_text())
    for broken in ({"pool": {"sise": [1, 1]}}, {"pool": {"cell": 5.0}}, {"physics": {"glass_strength": 0}},
                   {"bottle": [{"fill": 0.2}]}, {"look": {"bed": "lava"}},
                   {"water": {"boundary": {"x_max": "sideways"}}}, {"sky": {"zenith": [1, 1]}}):
        assert not _valid({**good, **broken}, schema), broken


def test_glass_strength_zero_says_greater_than(tmp_path):
    bad = tmp_path / "g.toml"
    bad.write_text("[physics]\nglass_strength = 0\n")
    with pytest.raises(LevelError) as info:
        load_level(bad)
    assert "physics.glass_strength: must be greater than 0 and at most 1e+06 (got 0)" in "\n".join(info.value.lines())


def test_a_bottle_below_the_floor_is_not_inside_an_obstacle_elsewhere(tmp_path):
    level = tmp_path / "f.toml"
    level.write_text("[pool]\nsize = [2.0, 1.0]\n[[obstacle]]\nkind = \"pillar\"\ncenter = [1.8, 0.8]\n"
                     "radius = 0.1\nheight = 0.4\n[[bottle]]\nposition = [0.5, -0.2, 0.5]\n")
    with pytest.raises(LevelError) as info:
        load_level(level)
    text = "\n".join(info.value.lines())
    assert "outside the pool" in text and "inside obstacle" not in text
    # where the bottle really is in the pillar, it says so
    level.write_text(level.read_text().replace("[0.5, -0.2, 0.5]", "[1.8, 0.2, 0.8]"))
    with pytest.raises(LevelError, match=r"inside obstacle\[0\]"):
        load_level(level)


def test_level_names_match_in_any_case_with_a_suggestion():
    assert find_level("Beach") == LEVELS / "beach.toml"
    assert find_level("HARBOUR.toml") == LEVELS / "harbour.toml"
    from game.cli import build_parser
    assert build_parser().parse_args(["play", "Beach"]).level == LEVELS / "beach.toml"
    with pytest.raises(LevelError, match=r'did you mean "beach"'):
        load_level(find_level("beech"))
