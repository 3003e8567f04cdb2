"""`bottles record`: render a level headless, frame by frame, to a clip, a PNG or a folder of PNGs.

The kind of output follows the --out name: `.webp` (animated WebP through Pillow, lossy: small
enough to share, about 0.2 MB a second at 640x360), `.mp4` (H.264 through ffmpeg, only where an
`ffmpeg` program is on PATH), `.gif` (palette per frame: large, kept for old viewers), `.png` (the
last frame), or a name ending in `/` (a folder of PNGs, one a frame). Any other extension is an
error, and an existing file or non-empty folder is kept unless --force is given.

The simulation runs at its fixed step; a frame is drawn each time simulated time passes the next
frame time (1 / --fps apart). Throws come from `--throw T:X,Y,Z:VX,VY,VZ[:KIND]` (repeatable) or
a `--script` TOML file:

    # throws.toml
    [[throw]]
    t = 0.5                       # s
    position = [1.0, 1.2, 1.5]    # m
    velocity = [3.0, 1.0, 0.0]    # m/s
    angular_velocity = [0, 0, 8]  # rad/s (optional)
    kind = "bottle"               # bottle (default), the name of one of the level's [[throwable]]s,
                                  # a built-in shape (box, sphere, cylinder), a model in
                                  # content/models/ (ball, crate) or a path to an .obj file
    fill = 0.3                    # bottles only (optional)

Every throw is checked before anything is drawn (`check_throws`): its kind, finite numbers, a time
before the clip's end, and a start inside the pool's walls or over its deck, at or above the floor.
So is the output: a known extension, an existing folder one can write in.
"""
from __future__ import annotations

import argparse
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.meshes import vec3


class RecordError(ValueError):
    """A bad --throw, --script, --size or --out; the message says which and how to fix it."""


CLIP_KINDS = {".webp": "webp", ".mp4": "mp4", ".gif": "gif", ".png": "png"}
MAX_SECONDS = 300.0     # a clip's length: each frame is simulated and drawn, at about real time
MAX_FPS = 120.0
MAX_CLIP_BYTES = 4 * 2**30   # the raw RGB frames of a .webp/.gif/.mp4 clip, all in memory until written
SHAPES = ("box", "sphere", "cylinder")   # the props engine.bodies.shape_model builds without a file
WEBP_QUALITY = 70       # Pillow's lossy WebP quality, 0-100: 70 keeps tile grout and foam legible


def output_kind(out: str | Path, force: bool = False) -> str:
    """The kind of file `out` names ("webp", "mp4", "gif", "png" or "dir"); RecordError when the
    extension is unknown, mp4 is asked for without ffmpeg, or `out` exists and `force` is not set."""
    import shutil
    text = str(out)
    p = Path(text)
    if text.endswith(("/", "\\")) or (p.is_dir() and not p.suffix):
        kind = "dir"
    elif not p.suffix:
        raise RecordError(f"--out {text!r}: no extension; use .webp, .mp4, .gif, .png, or end a folder name with /")
    else:
        kind = CLIP_KINDS.get(p.suffix.lower(), "")
        if not kind:
            raise RecordError(f"--out {text!r}: unknown extension {p.suffix!r}; use .webp (animated), .mp4 "
                              f"(needs ffmpeg), .gif, .png (last frame), or a folder name ending in /")
    folder = p.parent
    if not folder.is_dir():
        if folder.exists():
            raise RecordError(f"--out {text!r}: {str(folder)!r} is not a folder; choose another place")
        but = " but the frames folder itself" if kind == "dir" else ""
        raise RecordError(f"--out {text!r}: there is no folder {str(folder)!r}; bottles record makes no "
                          f"folders{but}: create it first, or choose another place")
    target = p if kind == "dir" and p.is_dir() else folder
    if not _writable(target):
        raise RecordError(f"--out {text!r}: cannot write in {str(target)!r} (no permission, or a read-only "
                          f"disk); choose a folder you can write to")
    if kind == "mp4" and shutil.which("ffmpeg") is None:
        raise RecordError(f"--out {text!r}: MP4 needs the ffmpeg program, which is not on PATH; "
                          f"install it (apt install ffmpeg) or use a .webp clip")
    if not force:
        if kind == "dir" and p.is_dir() and any(p.glob("frame_*.png")):
            raise RecordError(f"--out {text!r}: the folder already holds frames; add --force to overwrite them")
        if kind != "dir" and p.exists():
            raise RecordError(f"--out {text!r}: the file exists; add --force to overwrite it, or choose another name")
    return kind


def _writable(folder: Path) -> bool:
    """Whether a file can be made in `folder`: a probe file is created and removed at once, as
    permission bits alone say nothing of a read-only disk or of root."""
    import tempfile
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".bottles-record-"):
            return True
    except OSError:
        return False


def write_clip(out: Path, kind: str, frames: list[np.ndarray], fps: float) -> None:
    """Write RGB frames (h, w, 3 uint8) to `out` as an animated WebP, MP4 or GIF."""
    from PIL import Image
    ms = int(round(1000 / fps))
    if kind == "webp":
        imgs = [Image.fromarray(a) for a in frames]
        imgs[0].save(out, format="WEBP", save_all=True, append_images=imgs[1:], duration=ms, loop=0,
                     quality=WEBP_QUALITY, method=4)
    elif kind == "gif":
        imgs = [Image.fromarray(a).quantize(colors=255, method=Image.Quantize.MEDIANCUT) for a in frames]
        imgs[0].save(out, save_all=True, append_images=imgs[1:], duration=ms, loop=0, optimize=False)
    elif kind == "mp4":
        import shutil
        import subprocess
        h, w = frames[0].shape[:2]
        cmd = [shutil.which("ffmpeg") or "ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo",
               "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", f"{fps:g}", "-i", "-", "-c:v", "libx264",
               "-pix_fmt", "yuv420p", "-crf", "26", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", str(out)]
        proc = subprocess.run(cmd, input=b"".join(np.ascontiguousarray(a).tobytes() for a in frames),
                              capture_output=True)
        if proc.returncode != 0:
            raise RecordError(f"--out {out}: ffmpeg failed: {proc.stderr.decode(errors='replace').strip()[:300]}")
    else:
        raise ValueError(kind)


@dataclass(slots=True)
class Throw:
    t: float
    position: tuple[float, float, float]
    velocity: tuple[float, float, float]
    kind: str = "bottle"
    angular_velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    fill: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    origin: str = ""        # where it was given, for messages: "--throw '...'" or "throws.toml: throw[2]"


def _vec3(text: str, what: str) -> tuple[float, float, float]:
    parts = text.split(",")
    try:
        if len(parts) != 3:
            raise ValueError
        return tuple(float(p) for p in parts)  # type: ignore[return-value]
    except ValueError:
        raise RecordError(f"{what}: expected three numbers X,Y,Z (got {text!r})") from None


def parse_throw(spec: str) -> Throw:
    """Parse `T:X,Y,Z:VX,VY,VZ[:KIND]`."""
    parts = spec.split(":")
    if len(parts) not in (3, 4):
        raise RecordError(f"--throw {spec!r}: expected T:X,Y,Z:VX,VY,VZ[:KIND], e.g. 0.5:1,1.2,1.5:3,1,0")
    try:
        t = float(parts[0])
    except ValueError:
        raise RecordError(f"--throw {spec!r}: time {parts[0]!r} is not a number of seconds") from None
    kind = parts[3].strip() if len(parts) == 4 else "bottle"
    return Throw(t, _vec3(parts[1], f"--throw {spec!r} position"), _vec3(parts[2], f"--throw {spec!r} velocity"), kind,
                 origin=f"--throw {spec!r}")


def load_script(path: str | Path) -> list[Throw]:
    """Read timed throws from a TOML file with [[throw]] tables."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text())
    except OSError as exc:
        raise RecordError(f"{p}: cannot read the script ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise RecordError(f"{p}: {exc}") from None
    unknown = set(data) - {"throw"}
    if unknown:
        raise RecordError(f'{p}: unknown key(s) {", ".join(sorted(unknown))}; a script holds [[throw]] tables')
    out = []
    for j, tb in enumerate(data.get("throw", [])):
        where = f"{p}: throw[{j}]"
        bad = set(tb) - {"t", "position", "velocity", "angular_velocity", "kind", "fill"}
        if bad:
            raise RecordError(f'{where}: unknown key(s) {", ".join(sorted(bad))}')
        try:
            out.append(Throw(float(tb["t"]), vec3(tb["position"]), vec3(tb.get("velocity", (0, 0, 0))),
                             str(tb.get("kind", "bottle")), vec3(tb.get("angular_velocity", (0, 0, 0))),
                             float(tb.get("fill", 0.0)), origin=where))
        except KeyError as exc:
            raise RecordError(f"{where}: missing {exc.args[0]!r}") from None
        except (TypeError, ValueError):
            raise RecordError(f"{where}: t is seconds, position/velocity are [x, y, z] lists of numbers") from None
    return out


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
        if not (16 <= w <= 8192 and 16 <= h <= 8192):
            raise ValueError
        return w, h
    except ValueError:
        raise RecordError(f"--size {text!r}: expected WIDTHxHEIGHT between 16 and 8192, e.g. 640x360") from None


def throw_kinds() -> list[str]:
    """What a throw's kind may name, besides a path to an .obj file: "bottle", the built-in shapes,
    and the models in content/models/ (not the files of a bottle set, <name>.json beside them)."""
    from engine.paths import MODELS
    sets = {p.stem for p in MODELS.glob("*.json")}
    sets |= {f"{name}_fragments" for name in sets}
    return ["bottle", *SHAPES, *sorted(p.stem for p in MODELS.glob("*.obj") if p.stem not in sets)]


def _kind_problem(kind: str, named: tuple[str, ...] = ()) -> str | None:
    """Why a throw cannot be of `kind` (None when it can); `named`: the level's throwables."""
    import difflib
    kinds = [*named, *throw_kinds()]
    if kind in kinds:
        return None
    if kind.endswith(".obj"):            # read as spawn_body reads it: one closed mesh
        from engine.levels.resources import ResourceError, check_obj
        from engine.meshes import load_obj_model
        path = Path(kind)
        if not path.is_file():
            return f"no model file {kind!r} (a path to an .obj is relative to the working folder)"
        try:
            check_obj(path)
            load_obj_model(path.stem, path.parent)
        except (ResourceError, OSError, ValueError) as exc:
            return f"cannot throw model {kind!r}: {exc}"
        return None
    hint = difflib.get_close_matches(kind, kinds, n=1)
    extra = f' (did you mean "{hint[0]}"?)' if hint else ""
    return (f"unknown kind {kind!r}{extra}; a throw is one of: {', '.join(kinds)} (bottle is the default), "
            "or a path to an .obj model")


def check_throws(throws: list[Throw], level: Any, seconds: float = float("inf")) -> None:
    """RecordError for the first throw that cannot happen in `level`: an unknown kind, a time or
    number that is not finite, a time at or after the clip's end (`seconds`), a speed or spin past
    engine.world's limits, a fill outside 0-1, or a start outside the pool's walls and deck
    (engine.terrain.DECK round them) or below its floor (y = 0; the deck's top, wall_height,
    outside the walls)."""
    from engine.terrain import DECK, outside_walls
    from engine.world import check_motion
    sx, sz = level.pool.size
    top = level.pool.wall_height
    extent = (f"start inside its walls (x 0 to {sx:g}, z 0 to {sz:g} m) at y >= 0 (the floor), or over its "
              f"{DECK:g} m deck (x {-DECK:g} to {sx + DECK:g}, z {-DECK:g} to {sz + DECK:g} m) at y >= {top:g} m "
              "(the deck's top)")
    named = tuple(t.name for t in level.throwables)
    for th in throws:
        where = th.origin or "a throw"
        problem = _kind_problem(th.kind, named)
        if problem is not None:
            raise RecordError(f"{where}: {problem}")
        if not (np.isfinite(th.t) and th.t >= 0.0):
            raise RecordError(f"{where}: time {th.t:g} s must be a finite number of seconds >= 0")
        if th.t >= seconds:
            raise RecordError(f"{where}: time {th.t:g} s is not before the clip's end (--seconds {seconds:g}), "
                              f"so it would never be seen; throw earlier or record longer")
        try:
            check_motion(th.position, th.velocity, th.angular_velocity, (1.0, 0.0, 0.0, 0.0))
        except ValueError as exc:
            raise RecordError(f"{where}: {exc}") from None
        if not 0.0 <= th.fill <= 1.0:
            raise RecordError(f"{where}: fill {th.fill:g} must be between 0 and 1")
        x, y, z = th.position
        out = float(outside_walls(x, z, (sx, sz)))
        if out > DECK or y < 0.0 or (out > 0.0 and y < top):
            raise RecordError(f"{where}: start ({x:g}, {y:g}, {z:g}) m is outside the pool; {extent}")


def check_length(seconds: float, fps: float, width: int, height: int, kind: str) -> None:
    """RecordError unless 0 < seconds <= MAX_SECONDS and 0 < fps <= MAX_FPS, and a clip held in
    memory (webp, gif, mp4) fits in MAX_CLIP_BYTES of raw frames."""
    if not 0.0 < seconds <= MAX_SECONDS:
        raise RecordError(f"--seconds {seconds:g}: a recording is more than 0 and at most {MAX_SECONDS:g} s "
                          "(each frame is simulated and drawn, at about real time)")
    if not 0.0 < fps <= MAX_FPS:
        raise RecordError(f"--fps {fps:g}: frames a second are more than 0 and at most {MAX_FPS:g}")
    n_frames = max(1, int(round(seconds * fps)))
    held = n_frames * width * height * 3
    if kind in ("webp", "gif", "mp4") and held > MAX_CLIP_BYTES:
        raise RecordError(f"--seconds {seconds:g} at --fps {fps:g} and --size {width}x{height}: the clip's "
                          f"{n_frames} frames would take {held / 2**30:.1f} GiB of memory before it is written "
                          f"(at most {MAX_CLIP_BYTES / 2**30:.0f} GiB); record fewer seconds, fewer frames a "
                          "second or a smaller size, or to a folder/ of PNGs")


def apply_throw(sim: Any, th: Throw) -> int:
    """Spawn one thrown body: a kind of throw_kinds() or an .obj path, else one of the level's
    [[throwable]]s by its name (as its key in the game throws it: fill, seal, model, material)."""
    builtin = th.kind in throw_kinds() or th.kind.endswith(".obj")     # keeps its meaning
    spec = None if builtin else next((t for t in sim.level.throwables if t.name == th.kind), None)
    if spec is not None and spec.kind == "object":
        from engine.levels.setup import body_arguments
        kw = body_arguments(sim.level, spec)
        kw.update(position=th.position, velocity=th.velocity, angular_velocity=th.angular_velocity)
        return sim.spawn_body(**kw)
    if spec is not None:
        return sim.spawn_bottle(th.position, th.velocity, th.angular_velocity, fill=spec.fill or 0.0,
                                sealed=True if spec.sealed is None else spec.sealed, model=spec.model_name)
    if th.kind == "bottle":
        return sim.spawn_bottle(th.position, th.velocity, th.angular_velocity, fill=th.fill)
    return sim.spawn_body(th.kind, position=th.position, velocity=th.velocity, angular_velocity=th.angular_velocity)


MOD_FAILED = 3   # exit code: the clip was written, but a mod failed (it is off in the clip)


def record(args: argparse.Namespace) -> int:
    """Run `bottles record` with parsed arguments; return the exit code."""
    from engine.render.context import ContextError, create_context
    sim = None
    try:
        width, height = parse_size(args.size)
        throws = [parse_throw(s) for s in args.throw]
        if args.script:
            throws += load_script(args.script)
        out = Path(args.out)
        kind = output_kind(args.out, bool(getattr(args, "force", False)))
        check_length(float(args.seconds), float(args.fps), width, height, kind)
        mod_paths = list(getattr(args, "mod", []) or [])
        level_mods = bool(getattr(args, "mods", False))
        from game.play import note_level_mods
        note_level_mods(args, "record")
        if mod_paths or level_mods:      # the level may use their sections
            from engine.mods import load_level_with_mods
            level = load_level_with_mods(args.level, mod_paths, level_mods=level_mods)
        else:
            from engine.levels import load_level
            level = load_level(args.level)
        check_throws(throws, level, float(args.seconds))
        try:
            window = create_context(64, 64, headless=True)
        except ContextError as exc:
            print(f"bottles record: {exc}", file=sys.stderr)
            return 1
        from engine.render.camera import OrbitCamera
        from engine.render.renderer import Renderer
        from engine.world import Simulation
        from game.modlog import traceback_for
        if mod_paths or level_mods:
            from engine.mods import open_level
            sim = open_level(args.level, mod_paths, level_mods=level_mods)
        else:
            sim = Simulation(level)
        renderer = Renderer(sim, width, height)
        camera = OrbitCamera.from_level(sim.level, width / height)
        throws.sort(key=lambda th: th.t)
        n_frames = max(1, int(round(args.seconds * args.fps)))
        frames: list[np.ndarray] = []
        if kind == "dir":
            out.mkdir(exist_ok=True)
        t0 = time.perf_counter()
        pending = list(throws)
        from PIL import Image
        from engine.errors import SimulationError
        stopped = None       # why the simulation stopped before the clip's end (NaN a mod wrote, ...)
        for f in range(n_frames):
            t_frame = (f + 1) / args.fps
            try:
                while sim.time + 0.5 * sim.dt < t_frame:
                    while pending and pending[0].t <= sim.time + 1e-9:
                        apply_throw(sim, pending.pop(0))
                    sim.step()
            except SimulationError as exc:
                stopped = str(exc)
                n_frames = f
                break
            renderer.draw(camera, debug=args.debug)
            rgba = renderer.read_rgba()
            if kind == "dir":
                Image.fromarray(rgba[..., :3]).save(out / f"frame_{f:05d}.png")
            elif kind in ("gif", "webp", "mp4"):
                frames.append(rgba[..., :3].copy())
            else:                                  # png: the last frame made
                frames = [rgba[..., :3].copy()]
            if f == n_frames - 1 or f % max(1, n_frames // 20) == 0:
                el = time.perf_counter() - t0
                print(f"\rrecording {out}: frame {f + 1}/{n_frames}  t={sim.time:.2f} s  "
                      f"{(f + 1) / max(el, 1e-9):.1f} frames/s", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        errors = renderer.errors()
        if errors:
            print(f"bottles record: GL errors: {', '.join(errors)}", file=sys.stderr)
        failures = list(sim.failures)
        for fail in failures:
            if fail == stopped:
                continue                           # said below, as what stopped the clip
            print(f"warning: {fail}", file=sys.stderr)
            tb = traceback_for(fail)
            if tb:
                print(tb, end="", file=sys.stderr)
        if stopped is not None:
            print(f"bottles record: the simulation stopped at t={sim.time:.3f} s: {stopped}", file=sys.stderr)
        if n_frames == 0:
            print("bottles record: no frame was made; nothing written", file=sys.stderr)
        elif kind in ("gif", "webp", "mp4"):
            write_clip(out, kind, frames, args.fps)
        elif kind == "png":
            Image.fromarray(frames[-1]).save(out)
        if n_frames:
            short = f"; it ends at {n_frames / args.fps:.2f} s, where the simulation stopped" if stopped else ""
            print(f"wrote {out} ({n_frames} frame{'s' if n_frames != 1 else ''}, {width}x{height}{short})")
        renderer.close()
        window.close()
        if stopped is not None and not failures:
            return 1
        if failures:
            made = ("it ends where the simulation stopped" if stopped is not None
                    else "the clip was made without the failed mods")
            print(f"bottles record: {len(failures)} mod failure{'s' if len(failures) != 1 else ''}: {made} "
                  f"(exit code {MOD_FAILED})", file=sys.stderr)
            return MOD_FAILED
        return 0
    except RecordError as exc:
        print(f"bottles record: {exc}", file=sys.stderr)
        return 2
    finally:
        if sim is not None:          # its mods' level sections leave with it (a second record in one process)
            from engine.mods import mods_of
            ms = mods_of(sim)
            if ms is not None:
                ms.close()
            sim.close()
