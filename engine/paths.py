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
    `bottles levels` lists it ("beach" or "beach.toml"). An argument that names neither comes back
    as the path it spells, so the loader can say the file does not exist."""
    path = Path(arg)
    if path.exists():
        return path
    bundled = LEVELS / (arg if arg.endswith(".toml") else f"{arg}.toml")
    if path.parent == Path(".") and bundled.exists():
        return bundled
    return path
