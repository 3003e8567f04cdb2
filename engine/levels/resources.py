"""Files a level refers to: heightmap images and OBJ models, found relative to the level file.

Checked when the level loads, so a missing or broken file is one more `file:line: key: message`
problem rather than a crash when the simulation starts.
"""
from __future__ import annotations

import difflib
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from engine.levels.features import SHAPES
from engine.paths import MODELS


MAX_IMAGE_BYTES = 32 * 2**20     # a heightmap file on disk
MAX_SIDE = 2048                  # a heightmap's width and height at most, read from its header before decoding
MAX_MODEL_BYTES = 32 * 2**20     # an OBJ file on disk
MAX_TRIANGLES = 200_000          # an OBJ model's triangles (polygons fanned)


class ResourceError(ValueError):
    """A file the level names is missing or unreadable; the message says what to do."""


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp", ".pgm", ".ppm")


def resolve(name: str, level_path: Path | None, confine: bool = True) -> Path:
    """The file `name` in a level: relative to the level file's folder, and inside that folder or
    below it (after following links) unless `confine` is False. A level is data a player may have
    downloaded: it reads no file outside its own folder. For a level built in code (level_path
    None) the path is relative to the working folder and may lead anywhere."""
    if level_path is None or not confine:
        p = Path(name).expanduser()
        if p.is_absolute():
            return p
        return (level_path.parent if level_path is not None else Path.cwd()) / p
    p = Path(name)
    if p.is_absolute() or p.drive or name.startswith("~"):
        raise ResourceError(f"{name!r} is not a path relative to the level's folder: a level names only files "
                            "in its own folder or below it; copy the file beside the level and give its name")
    base = level_path.parent
    full = base / p
    try:
        inside = full.resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError):      # a loop of links
        inside = False
    if not inside:
        raise ResourceError(f"{name!r} leads outside the level's folder {str(base)!r}: a level names only files "
                            "in its own folder or below it; copy the file beside the level and give its name")
    return full


def image_path(name: str, level_path: Path | None) -> Path:
    """A heightmap image a level names (resolve), with an image file's extension."""
    if not name.lower().endswith(IMAGE_SUFFIXES):
        raise ResourceError(f"{name!r} is not an image file's name: use a greyscale PNG "
                            f"(or {', '.join(IMAGE_SUFFIXES[1:])})")
    return resolve(name, level_path)


def read_heightmap(path: Path) -> NDArray[np.float64]:
    """Load a greyscale image as values in [0, 1], row 0 first (row 0 lies at z = 0)."""
    from PIL import Image, UnidentifiedImageError
    if path.exists() and not path.is_file():
        raise ResourceError(f"{path} is not a plain file (a folder or a device); use a greyscale PNG")
    if not path.is_file():
        raise ResourceError(f"no such image {path} (paths are relative to the level file)")
    if path.stat().st_size > MAX_IMAGE_BYTES:
        raise ResourceError(f"image {path} is {path.stat().st_size / 2**20:.0f} MiB; a heightmap is at most "
                            f"{MAX_IMAGE_BYTES / 2**20:.0f} MiB")
    try:
        with Image.open(path) as img:   # reads the header only: the size is known before decoding
            w, h = img.size
            if w > MAX_SIDE or h > MAX_SIDE:
                raise ResourceError(f"image {path} is {w} x {h} pixels; a heightmap is at most {MAX_SIDE} x "
                                    f"{MAX_SIDE} (the pool's grid is far coarser: scale it down)")
            mode = img.mode
            if mode in ("I;16", "I;16B", "I;16L", "I"):
                data = np.asarray(img, dtype=np.float64)
                top = 65535.0 if mode.startswith("I;16") or data.max() > 255 else 255.0
            else:
                data = np.asarray(img.convert("L"), dtype=np.float64)
                top = 255.0
    except UnidentifiedImageError:
        raise ResourceError(f"{path} is not an image Pillow can read (use a greyscale PNG)") from None
    except (OSError, ValueError, Image.DecompressionBombError, SyntaxError, MemoryError) as exc:
        raise ResourceError(f"cannot read image {path}: {type(exc).__name__}: {str(exc)[:160]}") from None
    if data.ndim != 2 or data.shape[0] < 2 or data.shape[1] < 2:
        raise ResourceError(f"image {path} is {data.shape[1] if data.ndim > 1 else 0} x {data.shape[0]} pixels; "
                            "a heightmap needs at least 2 x 2")
    return np.clip(data / top, 0.0, 1.0)


def model_candidates(name: str, level_path: Path | None, confine: bool = True) -> list[Path]:
    """Where an OBJ model named in a level may live, in the order they are tried: a path (ending
    in .obj, within the level's folder unless `confine` is False), or a name looked up in the
    level's models/ folder, then content/models/."""
    if name.endswith(".obj") or "/" in name or "\\" in name:
        if not name.lower().endswith(".obj"):
            raise ResourceError(f'model "{name}" is a path but not to an .obj file; give a path ending in .obj, '
                                f"or a model's name")
        return [resolve(name, level_path, confine)]
    out = []
    if level_path is not None:
        out.append(level_path.parent / "models" / f"{name}.obj")
    out.append(MODELS / f"{name}.obj")
    return out


def find_model(name: str, level_path: Path | None, confine: bool = True) -> Path | None:
    """The OBJ file for a model name, or None for a built-in shape ("box", "sphere").

    Raises ResourceError naming where it looked (and a close match) when there is no such file,
    or when the file holds no vertices or faces.
    """
    if name in SHAPES:
        return None
    tried = model_candidates(name, level_path, confine)
    for path in tried:
        if path.exists() and not path.is_file():
            raise ResourceError(f'model "{name}": {path} is not a plain file (a folder or a device)')
        if path.is_file():
            check_obj(path)
            return path
    known = sorted({p.stem for d in {t.parent for t in tried} if d.is_dir() for p in d.glob("*.obj")})
    hint = difflib.get_close_matches(Path(name).stem, known + list(SHAPES), n=1)
    extra = f' (did you mean "{hint[0]}"?)' if hint else ""
    where = ", ".join(str(p) for p in tried)
    raise ResourceError(f'no model "{name}"{extra}: looked for {where}; '
                        f'built-in shapes: {", ".join(SHAPES)}')


def check_obj(path: Path) -> float:
    """Make sure an OBJ file is a model the game can use: at most MAX_MODEL_BYTES (checked before
    reading), readable text, finite vertices, faces whose indices exist, at most MAX_TRIANGLES
    triangles, and a closed surface enclosing a volume (mass and inertia follow from it).
    Returns that volume, m^3 (at scale 1)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ResourceError(f"cannot read model {path}: {exc.strerror or exc}") from None
    if size > MAX_MODEL_BYTES:
        raise ResourceError(f"model {path} is {size / 2**20:.0f} MiB; a model is at most "
                            f"{MAX_MODEL_BYTES / 2**20:.0f} MiB")
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceError(f"cannot read model {path}: {exc}") from None
    verts: list[tuple[float, float, float]] = []
    tris: list[tuple[int, int, int]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        parts = line.split("#", 1)[0].split()
        if not parts or parts[0] not in ("v", "f"):
            continue
        try:
            if parts[0] == "v":
                v = tuple(float(x) for x in parts[1:4])
                if len(v) != 3 or not all(np.isfinite(v)):
                    raise ValueError("a vertex needs 3 finite numbers")
                verts.append(v)
            else:
                idx = []
                for tok in parts[1:]:
                    k = int(tok.split("/")[0])
                    k = k - 1 if k > 0 else len(verts) + k
                    if not 0 <= k < len(verts):
                        raise ValueError(f"vertex {tok.split('/')[0]} does not exist (yet)")
                    idx.append(k)
                if len(idx) < 3:
                    raise ValueError("a face needs 3 vertices")
                tris.extend((idx[0], idx[j], idx[j + 1]) for j in range(1, len(idx) - 1))
                if len(tris) > MAX_TRIANGLES:
                    raise ResourceError(f"model {path} has more than {MAX_TRIANGLES} triangles; simplify it")
        except ValueError as exc:
            raise ResourceError(f"model {path}:{lineno}: bad {parts[0]!r} line: {exc}") from None
    if len(verts) < 4 or not tris:
        raise ResourceError(f"model {path} has {len(verts)} vertices and {len(tris)} faces; "
                            "an OBJ model needs 'v' and 'f' lines enclosing a solid")
    v_arr = np.array(verts)
    t = np.array(tris)
    a, b, c = v_arr[t[:, 0]], v_arr[t[:, 1]], v_arr[t[:, 2]]
    volume = abs(float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum()) / 6.0)   # divergence theorem
    extent = float(np.ptp(v_arr, axis=0).max())
    if not volume > 1e-9 * max(extent, 1e-9) ** 3 or not volume > 1e-12:
        raise ResourceError(f"model {path} encloses no volume (its faces do not close a solid); "
                            "a body needs a closed mesh")
    return volume
