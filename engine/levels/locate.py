"""Map TOML key paths (``bottle[1].fill``) to the line that defines them.

tomllib gives values but no positions, so this reads the source once more, line by line, tracking
the current table header. It understands what level files use: ``[table]``, ``[[array.of.tables]]``,
``key = value`` (dotted keys too) and values that span lines. Anything it cannot place falls back to
the nearest enclosing table's line, then to line 1.
"""
from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*((?:[A-Za-z0-9_\-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_\-]+|"[^"]*"|'[^']*'))*)\s*=""")
_INLINE_KEY = re.compile(r"""[{,]\s*([A-Za-z0-9_\-]+)\s*=""")


def _split_dotted(key: str) -> list[str]:
    parts = [p.strip().strip("\"'") for p in re.split(r"\.(?=(?:[^\"']*[\"'][^\"']*[\"'])*[^\"']*$)", key)]
    return [p for p in parts if p]


class LineMap:
    """Line numbers of every table and key in one TOML source."""

    def __init__(self, text: str) -> None:
        self.lines: dict[str, int] = {}
        self._last: dict[str, int] = {}   # resolved array-of-tables path -> its latest index (no rescans)
        counters: dict[str, int] = {}
        prefix = ""
        depth = 0  # open brackets of a multi-line value
        for lineno, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0] if '"' not in raw and "'" not in raw else raw
            if depth > 0:
                depth += line.count("[") + line.count("{") - line.count("]") - line.count("}")
                continue
            m = _HEADER.match(line)
            if m and not _KEY.match(line):
                name = ".".join(_split_dotted(m.group(2)))
                if m.group(1) == "[[":
                    idx = counters.get(name, 0)
                    counters[name] = idx + 1
                    resolved = self._resolve(name)
                    prefix = f"{resolved}[{idx}]"
                    self._last[resolved] = max(self._last.get(resolved, -1), idx)
                else:
                    prefix = self._resolve(name)
                self.lines.setdefault(prefix, lineno)
                continue
            m = _KEY.match(line)
            if m:
                path = ".".join(([prefix] if prefix else []) + _split_dotted(m.group(1)))
                self.lines.setdefault(path, lineno)
                rest = line[m.end():]
                for sub in _INLINE_KEY.finditer(rest):
                    self.lines.setdefault(f"{path}.{sub.group(1)}", lineno)
                depth = rest.count("[") + rest.count("{") - rest.count("]") - rest.count("}")
                depth = max(depth, 0)

    def _resolve(self, name: str) -> str:
        """Give a dotted header its array indices: [[water.bump]] under [[bottle]] etc."""
        parts = name.split(".")
        out: list[str] = []
        for part in parts:
            cand = ".".join(out + [part])
            # if an array of tables with this prefix exists, point at its latest element
            last = self._last.get(cand)
            out.append(part if last is None or cand == name else f"{part}[{last}]")
        return ".".join(out)

    def line_of(self, path: str) -> int:
        """Line of `path`, or of its nearest ancestor that has one; 1 if none."""
        p = path
        while p:
            if p in self.lines:
                return self.lines[p]
            p = re.sub(r"(\[\d+\]|\.[^.\[\]]*)$", "", p) if re.search(r"(\[\d+\]|\.[^.\[\]]*)$", p) else ""
        return 1
