"""`bottles play [LEVEL]`: open the sandbox in a window, or record a demo clip without a display."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path



def parse_size(text: str) -> tuple[int, int]:
    """Parse "WIDTHxHEIGHT" (e.g. 1280x720) or raise ValueError with a readable message."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f'--size must look like 1280x720 (got "{text}")') from None
    if not (64 <= w <= 16384 and 64 <= h <= 16384):
        raise ValueError(f"--size {w}x{h}: each side must be between 64 and 16384 pixels")
    return w, h


def no_display_reason() -> str | None:
    """Why no window can be opened here, or None when one may be tried."""
    flag = os.environ.get("PYGLET_HEADLESS", "").strip().lower()
    if flag in ("1", "true", "yes", "on"):
        return "PYGLET_HEADLESS is set"
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "DISPLAY and WAYLAND_DISPLAY are unset"
    return None


def _demo(args: argparse.Namespace, reason: str) -> int:
    print(f"bottles play: no display ({reason}); recording a short demo clip of scripted throws instead",
          flush=True)
    from game import demo
    out = getattr(args, "demo_out", None) or demo.DEFAULT_OUT
    import pyglet
    if "pyglet.gl" in sys.modules and not pyglet.options["headless"]:
        # pyglet already chose its windowed backend, which cannot be switched: record in a fresh process
        cmd = [sys.executable, "-m", "game", "play", str(args.level), "--demo-out", str(out)]
        for m in args.mod:
            cmd += ["--mod", str(m)]
        if getattr(args, "mods", False):
            cmd += ["--mods"]
        env = dict(os.environ, PYGLET_HEADLESS="true")
        return subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True).returncode
    return demo.run(args.level, list(args.mod), out, level_mods=bool(getattr(args, "mods", False)))


def note_level_mods(args: argparse.Namespace, command: str) -> None:
    """Without --mods, say on stderr which mods come with the level and that they do not run (they
    are code); import nothing."""
    if getattr(args, "mods", False):
        return
    from engine.mods import level_mods_of
    from engine.text import printable
    beside = level_mods_of(args.level)
    if beside:
        print(f"bottles {command}: this level comes with mods ({', '.join(printable(p.name) for p in beside)}) "
              "that are NOT run; they are code: add --mods to run them", file=sys.stderr)


def play(args: argparse.Namespace) -> int:
    """Run the sandbox on `args.level`; return the exit code. LevelError goes up to the CLI."""
    try:
        width, height = parse_size(args.size)
    except ValueError as exc:
        print(f"bottles play: {exc}", file=sys.stderr)
        return 2
    note_level_mods(args, "play")
    # a broken level: its problems, one line each, before anything opens; read with the mods the game
    # will load (installed ones, --mod, with --mods those beside it), whose sections it may use
    from engine.mods import load_level_with_mods
    level_name = load_level_with_mods(args.level, list(args.mod), level_mods=bool(getattr(args, "mods", False))).name
    reason = no_display_reason()
    if reason is not None:
        return _demo(args, reason)
    from engine.render.context import ContextError
    from game import app
    try:
        import pyglet.window
        no_display: tuple[type[BaseException], ...] = (pyglet.window.NoSuchDisplayException, ContextError)
    except Exception as exc:  # pyglet could not even load its window module (no libGL, no X)
        return _demo(args, f"{type(exc).__name__}: {exc}")
    from game.controller import Game

    def make_game() -> Game:
        game = Game(Path(args.level), mod_paths=list(args.mod), width=width, height=height,
                    save_path=getattr(args, "save", None),          # app.run hands it the sound player
                    level_mods=bool(getattr(args, "mods", False)))
        return game       # the game has reported its mods' failures (stderr, with the traceback, and the log)

    try:
        window = app.open_window(width, height, f"Bottles & Water: {level_name}")
    except no_display as exc:
        return _demo(args, f"{type(exc).__name__}: {exc}")
    timing: dict[str, float] = {}
    from game.sound import default_player
    code = app.run(make_game, window, timing=timing, exit_after_start=bool(getattr(args, "startup_time", False)),
                   sound_player=default_player)
    if getattr(args, "startup_time", False):
        print(f"window to first drawn frame: {timing.get('first_frame', float('nan')):.2f} s; "
              f"to the first frame of the game: {timing.get('first_game_frame', float('nan')):.2f} s "
              f"(kernels ready {timing.get('prepared', float('nan')):.2f} s, game built "
              f"{timing.get('built', float('nan')):.2f} s)")
    return code
