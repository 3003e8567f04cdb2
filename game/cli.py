"""`bottles`: play, record, validate, schema, levels, bench. No traceback reaches the user."""
from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path

from engine.levels import LevelError, load_level
from engine.paths import DEFAULT_LEVEL, LEVELS, find_level
from engine.text import printable


def _cmd_validate(args: argparse.Namespace) -> int:
    """Check each level. Installed mods (entry points) and those given with --mod are loaded for
    their level sections; the mods in a mods/ folder beside a level are named, and imported only
    with --mods (they are code)."""
    from engine.mods import ModSet, level_mods_of
    bad = 0
    for path in args.files:
        shown = printable(path)
        beside = level_mods_of(path)
        if beside:
            names = ", ".join(printable(p.name) for p in beside)
            if args.mods:
                print(f"note: {shown}: loading the mods beside it (--mods): {names}", file=sys.stderr)
            else:
                print(f"note: {shown}: comes with mods it would load with --mods (not imported: they are code, "
                      f"read them first): {names}", file=sys.stderr)
        mods = ModSet.load(args.mod, path, level_mods=bool(args.mods))
        for msg in mods.failures:
            print(f"note: {printable(msg)}", file=sys.stderr)
        try:
            load_level(path)
        except LevelError as exc:
            bad += 1
            for line in exc.lines():
                print(printable(line), file=sys.stderr)
        else:
            sectioned = [printable(m.name) for m in mods.active if m.sections]
            extra = f" (with sections of mods: {', '.join(sectioned)})" if sectioned else ""
            print(f"{shown}: ok{extra}")
        finally:
            mods.close()
    if bad:
        print(f"{bad} of {len(args.files)} level file(s) have problems", file=sys.stderr)
    return 1 if bad else 0


def _cmd_levels(args: argparse.Namespace) -> int:
    """List the bundled levels with what each demonstrates."""
    for path in sorted(LEVELS.glob("*.toml")):
        try:
            level = load_level(path)
            desc = level.description or "(no description)"
        except LevelError as exc:
            desc = f"BROKEN: {exc.lines()[0]}"
        print(f"{path.stem:<20} {desc}")
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    """Print the level reference (Markdown) or, with --json, the level JSON Schema."""
    from engine.levels import reference
    sys.stdout.write(reference.json_text() if args.json else reference.markdown())
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from game.play import play
    return play(args)


def _cmd_record(args: argparse.Namespace) -> int:
    from game.record import record
    return record(args)


def _cmd_bench(args: argparse.Namespace) -> int:
    from engine.bench import run
    return run(args)


def _cmd_warm(args: argparse.Namespace) -> int:
    from engine.warmup import warm
    print("compiling the physics kernels (once per install; cached afterwards), a line per group:", flush=True)
    try:
        took = warm()
    except Exception as exc:  # noqa: BLE001 - set-up goes on: those kernels compile at first use instead
        print(f"bottles warm: warning: a group failed ({type(exc).__name__}: {exc}); its kernels will compile "
              "when the game first needs them", file=sys.stderr)
        return 0
    print(f"physics kernels ready in {took:.1f} s", flush=True)
    return 0


def _add_msaa(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--msaa", type=int, choices=(0, 2, 4, 8), default=None, metavar="N",
                        help="anti-aliasing samples a pixel: 0 (off: FXAA instead), 2, 4 (default; "
                             "capped at what the GL driver offers)")


def build_parser() -> argparse.ArgumentParser:
    # allow_abbrev=False everywhere: argparse would otherwise take --mod for --mods where a command
    # has only --mods, and run the code in a level's mods/ folder that the player never asked for
    p = argparse.ArgumentParser(prog="bottles", description="Throw glass bottles into a pool of water.",
                                allow_abbrev=False)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, allow_abbrev=False)

    play = command("play", help="open the sandbox on a level (default: the calm pool)")
    play.add_argument("level", nargs="?", type=find_level, default=DEFAULT_LEVEL,
                      help="a level file, or a bundled level's name (see `bottles levels`)")
    play.add_argument("--mod", action="append", default=[], metavar="PATH", help="load a mod (repeatable)")
    play.add_argument("--mods", action="store_true",
                      help="also run the mods/ folder beside the level (code: only for levels you trust)")
    play.add_argument("--size", default="1280x720", help="window size WxH")
    play.add_argument("--save", default=None, metavar="PATH",
                      help="quick save file for F5/F9 (default: ~/.local/share/bottles-and-water/quicksave.npz)")
    play.add_argument("--demo-out", default=None, metavar="PATH",
                      help="without a display: where the demo clip goes (default: out/demo.webp)")
    play.add_argument("--startup-time", action="store_true",
                      help="open, print the seconds to the first drawn frame and to the first game frame, close")
    _add_msaa(play)
    play.set_defaults(func=_cmd_play)

    rec = command("record", help="render a level headless to a WebP/MP4/GIF clip, a PNG or a folder of PNGs")
    rec.add_argument("level", nargs="?", type=find_level, default=DEFAULT_LEVEL,
                     help="a level file, or a bundled level's name (see `bottles levels`)")
    rec.add_argument("--seconds", type=float, default=3.0,
                     help="clip length, s (default 3; at most 300: every frame is simulated and drawn, at "
                          "about real time, and a .webp/.gif/.mp4 clip's frames stay in memory until it is "
                          "written, at most 4 GiB of them)")
    rec.add_argument("--out", default="clip.webp",
                     help="clip.webp (animated), clip.mp4 (needs ffmpeg), clip.gif, frame.png, or a folder/ "
                          "(in a folder that exists: no other folder is made)")
    rec.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    rec.add_argument("--fps", type=float, default=30.0, help="frames a second (default 30, at most 120)")
    rec.add_argument("--size", default="640x360", help="frame size WxH")
    rec.add_argument("--throw", action="append", default=[], metavar="T:X,Y,Z:VX,VY,VZ[:KIND]",
                     help="a timed throw (repeatable): at T s from X,Y,Z (m, inside the pool's walls or "
                          "over its deck) at VX,VY,VZ (m/s); KIND is bottle (default), a name from the level's "
                          "[[throwable]] list, box, sphere, cylinder, a model in content/models/ (ball, "
                          "crate) or a path to an .obj")
    rec.add_argument("--script", default=None, help="TOML file of timed throws")
    rec.add_argument("--debug", default=None, choices=["depth", "velocity", "divergence", "vorticity", "bounds"],
                     help="debug view")
    rec.add_argument("--mod", action="append", default=[], metavar="PATH",
                     help="run a mod in the clip (repeatable)")
    rec.add_argument("--mods", action="store_true", help="also run the mods/ folder beside the level")
    _add_msaa(rec)
    rec.set_defaults(func=_cmd_record)

    val = command("validate", help="check level files; exit 1 if any has problems")
    val.add_argument("files", nargs="+")
    val.add_argument("--mod", action="append", default=[], metavar="PATH",
                     help="load a mod (repeatable) to check the level sections it adds")
    val.add_argument("--mods", action="store_true",
                     help="import the mods/ folder beside each level to check the sections they add")
    val.set_defaults(func=_cmd_validate)

    sch = command("schema", help="print the level file reference (every key) from the schema")
    sch.add_argument("--json", action="store_true", help="a JSON Schema for editors instead of Markdown")
    sch.set_defaults(func=_cmd_schema)

    lv = command("levels", help="list the bundled levels")
    lv.set_defaults(func=_cmd_levels)

    warm = command("warm", help="compile (or load) every physics kernel now, a progress line per group")
    warm.set_defaults(func=_cmd_warm)

    bench = command("bench", help="measure physics (and with --render, drawing) speed")
    bench.add_argument("--json", action="store_true", help="machine-readable output")
    bench.add_argument("--render", action="store_true", help="frames per second of the default level")
    bench.add_argument("--only", default=None, help="comma-separated sections (water, bodies, scene, render)")
    bench.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    _add_msaa(bench)
    bench.set_defaults(func=_cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    if getattr(args, "msaa", None) is not None:    # read by every Renderer, in child processes too
        os.environ["BOTTLES_MSAA"] = str(args.msaa)
    try:
        return int(args.func(args) or 0)
    except LevelError as exc:
        for line in exc.lines():
            print(printable(line), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # last line of defence: one clear message, details in a log file
        log = Path.home() / ".bottles-crash.log"
        try:
            log.write_text(traceback.format_exc())
            where = f" (details in {log})"
        except OSError:
            where = ""
        print(f"bottles {args.command}: {type(exc).__name__}: {printable(exc)}{where}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
