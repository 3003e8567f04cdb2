"""`bottles bench`: each section lives in its own module here and registers one function.

A section is `run(quick: bool) -> dict` returning figures; `bottles bench` prints them as a table,
or as JSON with --json. Timing lives here and never in tests.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any, Callable

# section name -> module path; each module defines `run(quick: bool) -> dict[str, Any]`
SECTIONS: dict[str, str] = {
    "water": "engine.bench.water",
    "bodies": "engine.bench.bodies",
    "scene": "engine.bench.scene",
    "render": "engine.bench.render",
    "dispersion": "engine.bench.dispersion",
    "session": "engine.bench.session",
}
DEFAULT = ("water", "bodies", "scene", "dispersion")


def _load(name: str) -> Callable[[bool], dict[str, Any]] | None:
    try:
        return importlib.import_module(SECTIONS[name]).run
    except ModuleNotFoundError:
        return None


def _print(name: str, result: dict[str, Any]) -> None:
    print(f"== {name}")
    for row in result.get("rows", []):
        print("  " + "  ".join(f"{k}={_fmt(v)}" for k, v in row.items()))
    for k, v in result.items():
        if k == "rows":
            continue
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):   # a table: a line a row
            print(f"  {k}:")
            for x in v:
                print("    " + "  ".join(f"{kk}={_fmt(vv)}" for kk, vv in x.items()))
            continue
        print(f"  {k}: {_fmt(v)}")


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def run(args: argparse.Namespace) -> int:
    names = args.only.split(",") if args.only else list(DEFAULT) + (["render"] if args.render else [])
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        print(f"bottles bench: unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}",
              file=sys.stderr)
        return 2
    if any(n != "render" for n in names):
        # compile (or load from the cache) every kernel a section can reach before any timing: a
        # section's own untimed steps need not reach them all (a body's first touch of the water,
        # the surface-wave stage's first wave), and a first compile is tens of seconds
        from engine.warmup import warm
        if not args.json:
            print("warming physics kernels ...", file=sys.stderr, flush=True)
        try:
            warm(None)
        except Exception as exc:   # noqa: BLE001 - the sections still run; say what it costs them
            print(f"bottles bench: warming the physics kernels failed ({type(exc).__name__}: {exc}); "
                  "the first timings may include compiles", file=sys.stderr)
    out: dict[str, Any] = {}
    for name in names:
        fn = _load(name)
        if fn is None:
            out[name] = {"skipped": "not built yet"}
        else:
            if not args.json:
                print(f"running {name} ...", file=sys.stderr, flush=True)
            out[name] = fn(args.quick)
        if not args.json:
            _print(name, out[name])
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        print()
    return 0
