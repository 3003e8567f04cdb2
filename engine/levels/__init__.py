"""Levels: TOML files validated into frozen dataclasses."""
from engine.levels.features import (MATERIALS, BedBumpSpec, MaterialSpec, ObjectSpec, ObstacleSpec, TerrainSpec,
                                    ThrowableSpec, WaveMakerSpec)
from engine.levels.loader import LevelError, load_level, parse_level, register_section, unregister_section
from engine.levels.schema import (Boundary, BottleSpec, BumpSpec, CameraSpec, Level, LightSpec, PhysicsSpec,
                                  PoolSpec, SideSpec, SkySpec, WaterSpec)

__all__ = ["Boundary", "BottleSpec", "BumpSpec", "Level", "LevelError", "PhysicsSpec", "PoolSpec",
           "WaterSpec", "SideSpec", "SkySpec", "LightSpec", "CameraSpec", "load_level", "parse_level",
           "register_section", "unregister_section", "TerrainSpec", "BedBumpSpec", "ObstacleSpec",
           "WaveMakerSpec", "ObjectSpec", "ThrowableSpec", "MaterialSpec", "MATERIALS"]
