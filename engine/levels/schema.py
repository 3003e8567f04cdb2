"""The level format, as frozen dataclasses. Each field says its type, range, default and meaning."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

from engine.levels.features import (MaterialSpec, ObjectSpec, ObstacleSpec, TerrainSpec, ThrowableSpec,
                                    WaveMakerSpec, materials_table)
from engine.levels.fields import Problem, spec

BOUNDARY_KINDS = ("reflective", "absorbing", "inflow", "outflow")
SIDES = ("x_min", "x_max", "z_min", "z_max")


@dataclass(frozen=True, slots=True)
class SideSpec:
    """One side of the pool. Inflow pours `rate` m^3/s in across the side; outflow lets water
    leave freely (an absorbing side that also drains the mean level down to `level`, if given)."""
    kind: str = spec("enum", default="reflective", choices=BOUNDARY_KINDS, doc="what the side does")
    rate: float = spec("float", default=0.0, min=0.0, max=1000.0, doc="inflow volume rate, m^3/s")
    level: float = spec("float", default=-1.0, min=-1.0, max=50.0,
                        doc="outflow: surface height the side drains to, m (-1: pass waves out only)")

    def check(self) -> list[Problem]:
        if self.kind == "inflow" and self.rate <= 0.0:
            return [("rate", "an inflow side needs a rate > 0 (m^3/s)")]
        if self.kind != "inflow" and self.rate != 0.0:
            return [("rate", f'only an inflow side has a rate (this side is "{self.kind}")')]
        return []


def _side(v: Any, path: str, problems: list[Problem]) -> SideSpec | None:
    from engine.levels.fields import build, check_value
    if isinstance(v, str):
        kind = check_value(v, {"kind": "enum", "choices": BOUNDARY_KINDS}, path, problems)
        if kind == "inflow":
            problems.append((path, 'an inflow side needs a table: { kind = "inflow", rate = 0.05 }'))
            return None
        return None if kind is None else SideSpec(kind)
    if isinstance(v, dict):
        return build(SideSpec, v, path, problems)
    problems.append((path, f"must be a boundary kind {BOUNDARY_KINDS} or a table (got {v!r})"))
    return None


@dataclass(frozen=True, slots=True)
class Boundary:
    """What each side of the pool does to waves and water."""
    x_min: SideSpec = spec("any", default=SideSpec(), convert=_side, doc="side at x = 0")
    x_max: SideSpec = spec("any", default=SideSpec(), convert=_side, doc="side at x = size_x")
    z_min: SideSpec = spec("any", default=SideSpec(), convert=_side, doc="side at z = 0")
    z_max: SideSpec = spec("any", default=SideSpec(), convert=_side, doc="side at z = size_z")

    def side(self, name: str) -> str:
        """The kind of one side ("reflective", "absorbing", "inflow", "outflow")."""
        return getattr(self, name).kind

    def spec(self, name: str) -> SideSpec:
        return getattr(self, name)


def _boundary(v: Any, path: str, problems: list[Problem]) -> Boundary | None:
    """Accept one kind for all sides ("absorbing") or a table per side."""
    from engine.levels.fields import build
    if isinstance(v, str):
        side = _side(v, path, problems)
        return None if side is None else Boundary(side, side, side, side)
    if isinstance(v, dict):
        return build(Boundary, v, path, problems)
    problems.append((path, f'must be "reflective", "absorbing" or a table per side {SIDES} (got {v!r})'))
    return None


@dataclass(frozen=True, slots=True)
class PoolSpec:
    size: tuple[float, float] = spec("vec2", default=(2.0, 1.0), min=0.1, max=100.0,
                                     doc="pool extent along x and z, m")
    cell: float = spec("float", default=0.02, min=0.002, max=1.0, doc="water grid spacing, m")
    wall_height: float = spec("float", default=0.6, min=0.01, max=50.0, doc="height of the pool walls, m")

    def check(self) -> list[Problem]:
        out: list[Problem] = []
        nx, nz = self.shape
        if nx < 4 or nz < 4:
            out.append(("cell", f"gives a {nx} x {nz} grid; need at least 4 cells per side (make cell smaller)"))
        if nx * nz > 4096 * 4096:
            out.append(("cell", f"gives {nx} x {nz} cells, more than 4096^2; make cell larger"))
        return out

    @property
    def shape(self) -> tuple[int, int]:
        """(nx, nz) cells."""
        return (max(1, round(self.size[0] / self.cell)), max(1, round(self.size[1] / self.cell)))


@dataclass(frozen=True, slots=True)
class BumpSpec:
    """A smooth mound (or dip, with negative height) on the initial water surface."""
    center: tuple[float, float] = spec("vec2", doc="(x, z) centre, m")
    radius: float = spec("float", default=0.1, min=0.0, exclusive_min=True, max=100.0, doc="radius, m")
    height: float = spec("float", default=0.02, min=-10.0, max=10.0, doc="peak height added to the surface, m")


@dataclass(frozen=True, slots=True)
class WaterSpec:
    level: float = spec("float", default=0.3, min=0.0, max=50.0, doc="initial surface height above the floor, m")
    boundary: Boundary = spec("any", default=Boundary(), convert=_boundary,
                              doc='"reflective", "absorbing", or a table per side')
    bumps: tuple[BumpSpec, ...] = spec("tables", default=(), cls=BumpSpec, doc="initial surface mounds")
    damping: float = spec("float", default=0.25, min=0.0, max=100.0,
                          doc="linear damping of the water's velocity, 1/s (bottom friction and viscosity: "
                              "how fast a pool calms down; 0 keeps waves forever)")

    TOML_NAMES = MappingProxyType({"bump": "bumps"})


@dataclass(frozen=True, slots=True)
class BottleSpec:
    """A bottle placed by the level at t = 0."""
    position: tuple[float, float, float] = spec("vec3", doc="centre of mass (x, y, z), m")
    velocity: tuple[float, float, float] = spec("vec3", default=(0.0, 0.0, 0.0), min=-200, max=200, doc="m/s")
    angular_velocity: tuple[float, float, float] = spec("vec3", default=(0.0, 0.0, 0.0), min=-500, max=500,
                                                        doc="rad/s, world frame")
    orientation: tuple[float, float, float, float] = spec("quat", default=(1.0, 0.0, 0.0, 0.0),
                                                          doc="quaternion (w, x, y, z); normalised on load")
    fill: float = spec("float", default=0.0, min=0.0, max=1.0, doc="fraction of the inner volume holding water")
    sealed: bool = spec("bool", default=True, doc="corked (true) or open (false)")
    model: str = spec("str", default="bottle", doc="bottle model name in content/models/")


@dataclass(frozen=True, slots=True)
class PhysicsSpec:
    """Material and coupling constants. Defaults are documented physical or customary values."""
    water_density: float = spec("float", default=1000.0, min=1.0, max=20000.0, doc="kg/m^3")
    glass_density: float = spec("float", default=2500.0, min=100.0, max=20000.0, doc="kg/m^3 (soda-lime glass)")
    glass_strength: float = spec("float", default=3.0, min=0.0, exclusive_min=True, max=1e6,
                                 doc="impulse that shatters a bottle, N s")
    restitution: float = spec("float", default=0.35, min=0.0, max=1.0, doc="bounce, 0 (dead) to 1 (elastic)")
    friction: float = spec("float", default=0.5, min=0.0, max=5.0, doc="Coulomb friction coefficient")
    drag_coefficient: float = spec("float", default=0.8, min=0.0, max=10.0, doc="C_D (Chentanez & Mueller 2010)")
    lift_coefficient: float = spec("float", default=0.007, min=0.0, max=10.0, doc="C_L")
    area_factor: float = spec("float", default=0.9, min=0.0, max=1.0, doc="omega in A_eff = A (omega n.u + 1 - omega)")
    skin_friction: float = spec("float", default=300.0, min=0.0, max=1e5,
                                doc="linear drag per wetted area, N s/m^3 (viscous skin friction and wave "
                                    "radiation lumped: damps a floating body's bobbing)")
    surface_tau: float = spec("float", default=0.5, min=0.0, max=10.0,
                              doc="s: how fast a body's idea of the surface around it follows the water "
                                  "(filters out the echo of its own waves)")
    impact_threshold: float = spec("float", default=0.02, min=0.0, max=1e6,
                                   doc="smallest contact impulse reported as an Impact event, N s")
    max_shards: int = spec("int", default=600, min=0, max=100000, doc="oldest shards fade out past this count")
    max_bottles: int = spec("int", default=40, min=1, max=200,
                            doc="past this many bottles the oldest settled one (else the oldest) is retired")
    max_props: int = spec("int", default=30, min=1, max=200,
                          doc="past this many props the oldest settled one (else the oldest) is retired")


@dataclass(frozen=True, slots=True)
class SkySpec:
    """The sky and the sun. Colours are linear RGB in [0, 1]."""
    zenith: tuple[float, float, float] = spec("vec3", default=(0.25, 0.45, 0.80), min=0.0, max=1.0, doc="colour overhead")
    horizon: tuple[float, float, float] = spec("vec3", default=(0.80, 0.88, 0.95), min=0.0, max=1.0, doc="colour at the horizon")
    sun_direction: tuple[float, float, float] = spec("vec3", default=(0.4, 0.8, 0.3), min=-1.0, max=1.0,
                                                     doc="direction towards the sun (normalised)")
    sun_color: tuple[float, float, float] = spec("vec3", default=(1.0, 0.95, 0.85), min=0.0, max=10.0, doc="sun light colour")

    def check(self) -> list[Problem]:
        if sum(c * c for c in self.sun_direction) < 1e-6 or self.sun_direction[1] <= 0.0:
            return [("sun_direction", "must point upwards (y > 0)")]
        return []


@dataclass(frozen=True, slots=True)
class LightSpec:
    """A point light."""
    position: tuple[float, float, float] = spec("vec3", doc="m")
    color: tuple[float, float, float] = spec("vec3", default=(1.0, 0.9, 0.7), min=0.0, max=10.0, doc="RGB")
    intensity: float = spec("float", default=1.0, min=0.0, max=1000.0, doc="scale of color")
    radius: float = spec("float", default=3.0, min=0.0, exclusive_min=True, max=1000.0, doc="reach, m")


@dataclass(frozen=True, slots=True)
class CameraSpec:
    """Where the camera starts: it orbits `target` at `distance`, `yaw` and `pitch` (degrees)."""
    target: tuple[float, float, float] | None = spec("vec3", default=None, doc="m; default: pool centre at water level")
    distance: float = spec("float", default=-1.0, min=-1.0, max=1000.0, doc="m; -1: fit the pool")
    yaw: float = spec("float", default=-30.0, min=-360.0, max=360.0, doc="degrees about y")
    pitch: float = spec("float", default=35.0, min=-89.0, max=89.0, doc="degrees above the horizon")
    fov: float = spec("float", default=50.0, min=10.0, max=120.0, doc="vertical field of view, degrees")


@dataclass(frozen=True, slots=True)
class Level:
    """A validated level. `path` is where it came from (None for levels built in code)."""
    seed: int = spec("int", default=0, min=0, max=2**63 - 1, doc="seeds every random choice (shatter patterns)")
    dt: float = spec("float", default=1.0 / 120.0, min=1e-4, max=0.05, doc="fixed physics step, s")
    gravity: float = spec("float", default=9.81, min=0.0, max=100.0, doc="m/s^2, pointing down (-y)")
    name: str = spec("str", default="untitled", doc="shown in the game")
    pool: PoolSpec = spec("table", default=PoolSpec(), cls=PoolSpec)
    water: WaterSpec = spec("table", default=WaterSpec(), cls=WaterSpec)
    bottles: tuple[BottleSpec, ...] = spec("tables", default=(), cls=BottleSpec, doc="bottles at t = 0")
    physics: PhysicsSpec = spec("table", default=PhysicsSpec(), cls=PhysicsSpec)
    sky: SkySpec = spec("table", default=SkySpec(), cls=SkySpec)
    lights: tuple[LightSpec, ...] = spec("tables", default=(), cls=LightSpec, doc="up to 4 point lights")
    camera: CameraSpec = spec("table", default=CameraSpec(), cls=CameraSpec)
    terrain: TerrainSpec = spec("table", default=TerrainSpec(), cls=TerrainSpec, doc="the pool floor")
    obstacles: tuple[ObstacleSpec, ...] = spec("tables", default=(), cls=ObstacleSpec,
                                               doc="boxes, pillars, ramps, ledges and walls in the pool")
    wave_makers: tuple[WaveMakerSpec, ...] = spec("tables", default=(), cls=WaveMakerSpec,
                                                  doc="paddles and periodic sources")
    objects: tuple[ObjectSpec, ...] = spec("tables", default=(), cls=ObjectSpec, doc="rigid bodies at t = 0")
    throwables: tuple[ThrowableSpec, ...] = spec("tables", default=(), cls=ThrowableSpec,
                                                 doc="what the player may throw (default: a bottle)")
    materials: Mapping[str, MaterialSpec] | None = spec("any", default=None, convert=materials_table,
                                                        doc="[materials.NAME] density, restitution, friction")
    # not from TOML keys directly
    path: Path | None = None
    description: str = ""
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    TOML_NAMES = MappingProxyType({"bottle": "bottles", "light": "lights", "obstacle": "obstacles",
                                   "wave_maker": "wave_makers", "object": "objects", "throwable": "throwables"})

    def check_across(self, ok: Callable[[str], bool]) -> list[Problem]:
        """Problems between sections; `ok(key)` says a key (and the pool) has no problem of its own.

        Run by the loader on every load, even when other values are bad, so the list is complete.
        """
        out: list[Problem] = []
        pool_ok = ok("pool.size")
        sx, sz = self.pool.size
        for j, b in enumerate(self.bottles):
            if not (pool_ok and ok(f"bottle[{j}].position")) or b.position is None:
                continue
            x, y, z = b.position
            if not (0.0 <= x <= sx and 0.0 <= z <= sz) or y < 0.0:
                out.append((f"bottle[{j}].position", f"({x:g}, {y:g}, {z:g}) is outside the pool "
                            f"(x in [0, {sx:g}], z in [0, {sz:g}], y >= 0)"))
        for j, bump in enumerate(self.water.bumps):
            if not (pool_ok and ok(f"water.bump[{j}].center")) or bump.center is None:
                continue
            cx, cz = bump.center
            if not (0.0 <= cx <= sx and 0.0 <= cz <= sz):
                out.append((f"water.bump[{j}].center", f"({cx:g}, {cz:g}) is outside the pool"))
        if len(self.lights) > 4:
            out.append(("light[4]", f"at most 4 point lights (got {len(self.lights)})"))
        if ok("water.level") and ok("pool.wall_height") and self.water.level > self.pool.wall_height:
            out.append(("water.level", f"{self.water.level:g} m is above the walls ({self.pool.wall_height:g} m)"))
        return out
