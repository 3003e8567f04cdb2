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
