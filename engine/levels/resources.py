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


class ResourceError(ValueError):
    """A file the level names is missing or unreadable; the message says what to do."""


def resolve(name: str, level_path: Path | None) -> Path:
    """A path relative to the level file's folder (or the working folder for levels built in code)."""
    p = Path(name).expanduser()
    if p.is_absolute():
        return p
    base = level_path.parent if level_path is not None else Path.cwd()
    return base / p


def read_heightmap(path: Path) -> NDArray[np.float64]:
    """Load a greyscale image as values in [0, 1], row 0 first (row 0 lies at z = 0)."""
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError as exc:  # pragma: no cover - Pillow is a dependency
        raise ResourceError(f"reading heightmaps needs Pillow ({exc}); pip install pillow") from None
    if not path.is_file():
        raise ResourceError(f"no such image {path} (paths are relative to the level file)")
    try:
        with Image.open(path) as img:
            mode = img.mode
            if mode in ("I;16", "I;16B", "I;16L", "I"):
                data = np.asarray(img, dtype=np.float64)
                top = 65535.0 if mode.startswith("I;16") or data.max() > 255 else 255.0
            else:
                data = np.asarray(img.convert("L"), dtype=np.float64)
                top = 255.0
    except UnidentifiedImageError:
        raise ResourceError(f"{path} is not an image Pillow can read (use a greyscale PNG)") from None
    except OSError as exc:
        raise ResourceError(f"cannot read image {path}: {exc}") from None
    if data.ndim != 2 or data.shape[0] < 2 or data.shape[1] < 2:
        raise ResourceError(f"image {path} is {data.shape[1] if data.ndim > 1 else 0} x {data.shape[0]} pixels; "
                            "a heightmap needs at least 2 x 2")
    return np.clip(data / top, 0.0, 1.0)


def model_candidates(name: str, level_path: Path | None) -> list[Path]:
    """Where an OBJ model named in a level may live, in the order they are tried."""
    if name.endswith(".obj") or "/" in name or "\\" in name:
        return [resolve(name, level_path)]
    out = []
    if level_path is not None:
        out.append(level_path.parent / "models" / f"{name}.obj")
    out.append(MODELS / f"{name}.obj")
    return out


def find_model(name: str, level_path: Path | None) -> Path | None:
    """The OBJ file for a model name, or None for a built-in shape ("box", "sphere").

    Raises ResourceError naming where it looked (and a close match) when there is no such file,
    or when the file holds no vertices or faces.
    """
    if name in SHAPES:
        return None
    tried = model_candidates(name, level_path)
    for path in tried:
        if path.is_file():
            check_obj(path)
            return path
    known = sorted({p.stem for d in {t.parent for t in tried} if d.is_dir() for p in d.glob("*.obj")})
    hint = difflib.get_close_matches(Path(name).stem, known + list(SHAPES), n=1)
    extra = f' (did you mean "{hint[0]}"?)' if hint else ""
    where = ", ".join(str(p) for p in tried)
    raise ResourceError(f'no model "{name}"{extra}: looked for {where}; '
                        f'built-in shapes: {", ".join(SHAPES)}')


def check_obj(path: Path) -> None:
    """Make sure an OBJ file is readable text with vertices and faces."""
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceError(f"cannot read model {path}: {exc}") from None
    verts = faces = 0
    for line in text.splitlines():
        if line.startswith("v "):
            verts += 1
        elif line.startswith("f "):
            faces += 1
    if verts < 3 or faces < 1:
        raise ResourceError(f"model {path} has {verts} vertices and {faces} faces; "
                            "an OBJ model needs 'v' and 'f' lines")
