"""Mod failures in play: the message and the mod's traceback (file:line) go to the terminal and to
a log file beside the quick save, which the HUD's notice names.

engine.mods keeps the full traceback of each recent failure (RECENT_TRACEBACKS); a failure's
message names the mod's file and line, "(mods/wind.py:12)", and the traceback that passes through
that line is the one printed with it.
"""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

LOG_NAME = "mod-errors.log"


def log_path(save_path: Path) -> Path:
    """The mod log: beside the quick save (~/.local/share/bottles-and-water/mod-errors.log)."""
    return Path(save_path).with_name(LOG_NAME)


def traceback_for(msg: str) -> str | None:
    """The recorded traceback through the file:line the message names, newest first, or None."""
    from engine.mods import RECENT_TRACEBACKS
    m = re.search(r"\(([^()]+):(\d+)\)", msg)
    if m is None:
        return None
    needle = f'File "{m.group(1)}", line {m.group(2)}'
    for tb in reversed(RECENT_TRACEBACKS):
        if needle in tb:
            return tb
    return None


def report(msg: str, log: Path, out=None) -> None:
    """Print the failure and its traceback to `out` (stderr) and append both to `log`."""
    out = out if out is not None else sys.stderr
    tb = traceback_for(msg)
    text = f"bottles: {msg}\n" + (tb if tb else "(no traceback recorded for this failure)\n")
    print(text, end="", file=out, flush=True)
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')}\n{text}")
    except OSError as exc:
        print(f"bottles: cannot write the mod log {log}: {exc}", file=out)
