"""Text from files shown to the player: control characters escaped, so that no escape sequence
from a level, a save or a file name reaches the terminal or the HUD."""
from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: object, limit: int = 400) -> str:
    """`text` with every control character (ESC, CR, bidi overrides ...) written as \\xNN / \\uNNNN,
    cut to `limit` characters."""
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + "..."
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), s)
