"""The controls table is the single source of the key map, the F1 help and the README's table."""
from __future__ import annotations

import re

import pytest

from engine.paths import ROOT
from game import controls
from game.controls import CONTROLS, KEY_SYMBOLS, MOUSE_BUTTONS, key_actions, mouse_actions, table_rows


def _readme_rows() -> list[tuple[str, str]]:
    text = (ROOT / "README.md").read_text()
    lines = text.splitlines()
    header = next((i for i, l in enumerate(lines) if re.match(r"^\|\s*Control\s*\|\s*What it does\s*\|", l)), None)
    if header is None:
        return []
    rows = []
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((cells[0], cells[1]))
    return rows


def test_readme_controls_table_matches_the_code():
    assert _readme_rows() == table_rows()


def test_markdown_table_is_the_rows():
    md = controls.markdown_table().splitlines()
    assert md[0] == "| Control | What it does |"
    assert len(md) == 2 + len(CONTROLS)


def test_key_symbols_are_pyglets():
    from engine.render.context import select_backend
    select_backend()                     # as the game does: headless needs no GL just for the key codes
    from pyglet.window import key, mouse
    for name, sym in KEY_SYMBOLS.items():
        assert getattr(key, name) == sym, name
    for name, b in MOUSE_BUTTONS.items():
        assert getattr(mouse, name) == b
    assert key.MOD_SHIFT == controls.MOD_SHIFT


def test_every_binding_is_used_once_and_every_action_is_handled(game):
    seen = set()
    for c in CONTROLS:
        for inp, action in c.bindings:
            assert inp not in seen, f"{inp} is bound twice"
            seen.add(inp)
    keys = key_actions()
    assert set(keys.values()) >= {"pause", "step", "slower", "faster", "reset", "next_level", "rain",
                                  "save", "load", "help", "debug", "quit"}
    assert {a for a in keys.values() if a.startswith("pick:")} == {f"pick:{i}" for i in range(9)}
    assert {a[4:] for a in keys.values() if a.startswith("fly:")} == {"forward", "back", "left", "right", "up", "down"}
    assert set(mouse_actions().values()) == {"throw", "push", "orbit"}
    # the required bindings
    assert keys[KEY_SYMBOLS["P"]] == "pause" and keys[KEY_SYMBOLS["PERIOD"]] == "step"
    assert keys[KEY_SYMBOLS["BRACKETLEFT"]] == "slower" and keys[KEY_SYMBOLS["BRACKETRIGHT"]] == "faster"
    assert keys[KEY_SYMBOLS["R"]] == "reset" and keys[KEY_SYMBOLS["TAB"]] == "next_level"
    assert keys[KEY_SYMBOLS["F1"]] == "help" and keys[KEY_SYMBOLS["K"]] == "debug"
    assert keys[KEY_SYMBOLS["F5"]] == "save" and keys[KEY_SYMBOLS["F9"]] == "load"
    assert mouse_actions()[(MOUSE_BUTTONS["LEFT"], False)] == "throw"
    assert mouse_actions()[(MOUSE_BUTTONS["RIGHT"], False)] == "push"


def test_help_lists_every_control():
    text = "\n".join(controls.help_lines())
    for c in CONTROLS:
        assert c.label in text and c.description in text


def test_debug_views_match_the_renderer():
    from engine.render.renderer import DEBUG_VIEWS
    from game.controller import DEBUG_VIEWS as GAME_VIEWS
    assert tuple(v for v in GAME_VIEWS if v) == DEBUG_VIEWS
