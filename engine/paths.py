"""Where the project's data lives: content/ and shaders/ sit beside the engine package."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
LEVELS = CONTENT / "levels"
MODELS = CONTENT / "models"
TEXTURES = CONTENT / "textures"
SHADERS = ROOT / "shaders"
DEFAULT_LEVEL = LEVELS / "calm_pool.toml"


def find_level(arg: str) -> Path:
    """The level file a command-line argument names: a path, or a bundled level's name as
    `bottles levels` lists it ("beach" or "beach.toml", in any case: "Beach" too). An argument that
    names neither comes back as the path it spells, so the loader can say the file does not exist
    (and `suggest_level` what was meant)."""
    path = Path(arg)
    if path.exists():
        return path
    if path.parent == Path("."):
        stem = arg[:-5] if arg.lower().endswith(".toml") else arg
        for bundled in sorted(LEVELS.glob("*.toml")):
            if bundled.stem.lower() == stem.lower():
                return bundled
    return path


def suggest_level(arg: str | Path) -> str:
    """' (did you mean "beach"?)' for a name close to a bundled level's, else ''."""
    import difflib
    name = Path(arg).name
    stem = name[:-5] if name.lower().endswith(".toml") else name
    names = {p.stem.lower(): p.stem for p in LEVELS.glob("*.toml")}
    hint = difflib.get_close_matches(stem.lower(), list(names), n=1, cutoff=0.6)
    return f' (did you mean "{names[hint[0]]}"?)' if hint else ""
