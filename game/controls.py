"""The one table of the game's controls: what to press, what it does, and the action it triggers.

The input handler (game/controller.py) builds its key and mouse maps from `CONTROLS`, and the
README's controls table is `markdown_table()` pasted in; a test checks that the two agree.

Key symbols are pyglet's (X11 keysyms). They are written out here so that this module never
imports pyglet.window, which would pick a windowing backend; a test checks them against pyglet.
"""
from __future__ import annotations

from dataclasses import dataclass

# pyglet.window.key symbols for the keys the game uses
KEY_SYMBOLS: dict[str, int] = {
    "W": 119, "A": 97, "S": 115, "D": 100, "Q": 113, "E": 101,
    "_1": 49, "_2": 50, "_3": 51, "_4": 52, "_5": 53, "_6": 54, "_7": 55, "_8": 56, "_9": 57,
    "T": 116, "P": 112, "PERIOD": 46, "BRACKETLEFT": 91, "BRACKETRIGHT": 93,
    "R": 114, "TAB": 65289, "F1": 65470, "K": 107, "F5": 65474, "F9": 65478, "ESCAPE": 65307,
    "B": 98, "G": 103, "Y": 121, "X": 120, "M": 109, "H": 104, "HOME": 65360, "F3": 65472,
}
# pyglet.window.mouse buttons and pyglet.window.key modifier bits
MOUSE_BUTTONS: dict[str, int] = {"LEFT": 1, "MIDDLE": 2, "RIGHT": 4}
MOD_SHIFT = 1


@dataclass(frozen=True, slots=True)
class Control:
    """One row of the controls table.

    `bindings` pairs an input with the action it triggers: "key:NAME" (a KEY_SYMBOLS name),
    "mouse:BUTTON" or "mouse:shift+BUTTON" (press, drag and release of that button), or "wheel".
    """
    label: str
    description: str
    bindings: tuple[tuple[str, str], ...]


CONTROLS: tuple[Control, ...] = (
    Control("Left button: hold, release", "throw at the point under the cursor (the marker shows where it lands); "
            "hold longer for a faster, flatter throw", (("mouse:LEFT", "throw"),)),
    Control("1 - 9", "pick what to throw, from the level's list (the HUD names it); by default empty sealed bottle, "
            "full bottle, open bottle, stone ball", tuple((f"key:_{k}", f"pick:{k - 1}") for k in range(1, 10))),
    Control("Right drag", "push the water under the cursor (makes waves)", (("mouse:RIGHT", "push"),)),
    Control("T", "drop a shower of rain on the pool", (("key:T", "rain"),)),
    Control("B", "barrier tool: left drag draws barriers on the pool floor (B again: back to throwing)",
            (("key:B", "tool:barrier"),)),
    Control("X", "remove every barrier", (("key:X", "clear_barriers"),)),
    Control("G", "grab tool: left drag picks up a body and drags it (G again: back to throwing)",
            (("key:G", "tool:grab"),)),
    Control("Y", "drop dye at the cursor: tracer particles that drift with the flow", (("key:Y", "dye"),)),
    Control("Middle drag or Shift + left drag", "orbit the camera around its target",
            (("mouse:MIDDLE", "orbit"), ("mouse:shift+LEFT", "orbit"))),
    Control("Mouse wheel", "zoom in and out", (("wheel", "zoom"),)),
    Control("W / A / S / D", "fly the camera forward, left, back, right",
            (("key:W", "fly:forward"), ("key:A", "fly:left"), ("key:S", "fly:back"), ("key:D", "fly:right"))),
    Control("Q / E", "fly the camera down / up", (("key:Q", "fly:down"), ("key:E", "fly:up"))),
    Control("P", "pause or resume", (("key:P", "pause"),)),
    Control(".", "step one physics step (pauses first)", (("key:PERIOD", "step"),)),
    Control("[ / ]", "slow down / speed up time (1/8x to 4x)",
            (("key:BRACKETLEFT", "slower"), ("key:BRACKETRIGHT", "faster"))),
    Control("R", "reset the level (re-read from its file) and its camera", (("key:R", "reset"),)),
    Control("H / Home", "bring the camera home (the level's view), without resetting",
            (("key:H", "home"), ("key:HOME", "home"))),
    Control("Tab", "next bundled level", (("key:TAB", "next_level"),)),
    Control("F5 / F9", "quick save / quick load the whole state and the camera",
            (("key:F5", "save"), ("key:F9", "load"))),
    Control("F1", "show or hide this help", (("key:F1", "help"),)),
    Control("F3", "show or hide the developer overlay (timings, counts, water volume)", (("key:F3", "dev"),)),
    Control("M", "mute or unmute the sound", (("key:M", "mute"),)),
    Control("K", "cycle the debug views (depth, velocity, divergence, vorticity, bounds)", (("key:K", "debug"),)),
    Control("Esc", "quit", (("key:ESCAPE", "quit"),)),
)


def key_actions() -> dict[int, str]:
    """Map pyglet key symbols to action names."""
    out: dict[int, str] = {}
    for c in CONTROLS:
        for inp, action in c.bindings:
            if inp.startswith("key:"):
                out[KEY_SYMBOLS[inp[4:]]] = action
    return out


def mouse_actions() -> dict[tuple[int, bool], str]:
    """Map (pyglet mouse button, shift held) to action names."""
    out: dict[tuple[int, bool], str] = {}
    for c in CONTROLS:
        for inp, action in c.bindings:
            if inp.startswith("mouse:"):
                name = inp[6:]
                shift = name.startswith("shift+")
                out[(MOUSE_BUTTONS[name.removeprefix("shift+")], shift)] = action
    return out


def table_rows() -> list[tuple[str, str]]:
    """(control, what it does) for every row, in order."""
    return [(c.label, c.description) for c in CONTROLS]


def markdown_table() -> str:
    """The controls as the Markdown table the README carries."""
    lines = ["| Control | What it does |", "| --- | --- |"]
    lines += [f"| {label} | {desc} |" for label, desc in table_rows()]
    return "\n".join(lines)


def help_lines(columns: int = 0) -> list[str]:
    """The controls as plain text lines for the F1 overlay: the key, then what it does, wrapped to
    `columns` characters (0: no wrapping) with the continuation under the description."""
    import textwrap
    width = max(len(c.label) for c in CONTROLS)
    if columns <= 0:
        return [f"{c.label:<{width}}  {c.description}" for c in CONTROLS]
    room = max(columns - width - 2, 24)
    out = []
    for c in CONTROLS:
        parts = textwrap.wrap(c.description, room) or [""]
        out.append(f"{c.label:<{width}}  {parts[0]}")
        out.extend(" " * (width + 2) + part for part in parts[1:])
    return out
