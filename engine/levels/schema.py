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
    x_min: SideSpec = spec("any", default=SideSpec(), convert=_side, cls=SideSpec, doc="side at x = 0")
    x_max: SideSpec = spec("any", default=SideSpec(), convert=_side, cls=SideSpec, doc="side at x = size_x")
    z_min: SideSpec = spec("any", default=SideSpec(), convert=_side, cls=SideSpec, doc="side at z = 0")
    z_max: SideSpec = spec("any", default=SideSpec(), convert=_side, cls=SideSpec, doc="side at z = size_z")

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
    boundary: Boundary = spec("any", default=Boundary(), convert=_boundary, cls=Boundary,
                              doc='"reflective", "absorbing", or a table per side')
    bumps: tuple[BumpSpec, ...] = spec("tables", default=(), cls=BumpSpec, doc="initial surface mounds")
    viscosity: float = spec("float", default=1.0e-6, min=0.0, max=1.0,
                            doc="kinematic viscosity, m^2/s (water 1.0e-6): laminar friction in the bed's "
                                "boundary layer; 0 for none")
    wave_period: float = spec("float", default=2.0, min=0.01, max=1000.0,
                              doc="period of the waves whose Stokes boundary layer sets the laminar friction, s "
                                  "(the layer is sqrt(viscosity period / pi) thick)")
    manning: float = spec("float", default=0.01, min=0.0, max=1.0,
                          doc="Manning's roughness n of the bed, s/m^(1/3) (smooth tiles 0.01, concrete 0.013, "
                              "gravel 0.03): turbulent friction of fast flow; 0 for none")
    eddy_viscosity: float = spec("float", default=5.0e-4, min=0.0, max=10.0,
                                 doc="horizontal eddy viscosity, m^2/s: damps a wave of wavenumber k at the rate "
                                     "nu_t k^2, so ripples calm in seconds and pool-long waves last; 0 for none")
    damping: float = spec("float", default=0.0, min=0.0, max=100.0,
                          doc="extra uniform damping of the water's velocity, 1/s, on top of the friction above, "
                              "for a level that wants its water calmer still; 0 for none")
    dispersion: bool = spec("bool", default=True,
                            doc="dispersive surface waves (Jeschke & Wojtan 2023): short ripples travel at "
                                "Airy's speed omega^2 = g k tanh(k h), not sqrt(g h); false: shallow water only")
    vorticity: float = spec("float", default=2.0, min=0.0, max=10.0,
                            doc="vorticity confinement strength eps, dimensionless (Fedkiw et al. 2001): keeps "
                                "the eddies behind obstacles in a current alive; 0 turns it off")

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
    drag: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=10.0,
                              doc="C_D for flow from any side, replacing the one from its shape (engine/drag.py)")


@dataclass(frozen=True, slots=True)
class PhysicsSpec:
    """Material and coupling constants. Defaults are documented physical or customary values."""
    water_density: float = spec("float", default=1000.0, min=1.0, max=20000.0, doc="kg/m^3")
    glass_density: float = spec("float", default=2500.0, min=100.0, max=20000.0, doc="kg/m^3 (soda-lime glass)")
    # Mould (1952), "The behavior of glass bottles under impact", J. Am. Ceram. Soc. 35(9): bottles
    # broke under single impact pulses of about 1 ms peaking near 4.4 kN (1000 lb) on the sidewall,
    # an impulse of (2/pi) F t ~ 2.8 N s; blows on the heel, shoulder and rim concentrate the
    # stress (his brittle-coating maps) and break at about half of it: 1.4 N s. It is compared with
    # the glass's share of a collision impulse (engine/systems/shatter.py): with restitution 0.35
    # the 0.39 kg glass breaks when it meets a hard surface at >= 2.7 m/s, empty or full (a drop of
    # >= 0.37 m onto tiles; a 1.5 m drop gives 2.8 N s) (tests/physics/test_glass_strength.py).
    glass_strength: float = spec("float", default=1.4, min=0.0, exclusive_min=True, max=1e6,
                                 doc="impulse of one contact that shatters a bottle, N s (Mould 1952, see schema.py)")
    restitution: float = spec("float", default=0.35, min=0.0, max=1.0, doc="bounce, 0 (dead) to 1 (elastic)")
    friction: float = spec("float", default=0.5, min=0.0, max=5.0, doc="Coulomb friction coefficient")
    drag_coefficient: float = spec("float", default=0.47, min=0.0, max=10.0,
                                   doc="a sphere's C_D on its frontal area (0.47 at Re 1e4-1e5, Hoerner 3-8); other "
                                       "shapes take theirs from their shape (engine/drag.py: bottle, box, shard)")
    lift_coefficient: float = spec("float", default=0.007, min=0.0, max=10.0, doc="C_L (Chentanez & Mueller 2010)")
    area_factor: float = spec("float", default=1.0, min=0.0, max=1.0,
                              doc="omega in A_eff = A (omega n.u + 1 - omega); 1: the frontal area")
    skin_friction: float = spec("float", default=0.004, min=0.0, max=0.1,
                                doc="C_f, skin friction coefficient on the wetted area, tau = 1/2 rho C_f |u_t| u_t "
                                    "(0.004: a turbulent flat plate at Re ~ 1e5)")
    added_mass: float = spec("float", default=0.5, min=0.0, max=5.0,
                             doc="C_a: a body accelerating in water drags m_a = C_a rho V_sub with it (0.5: a sphere)")
    block_mass: float = spec("float", default=40.0, min=0.0, max=1e6,
                             doc="kg: a prop this heavy that sinks blocks the flow (its footprint turns into "
                                 "solid columns) while it rests on the bed; 0: nothing blocks")
    surface_tau: float = spec("float", default=0.5, min=0.0, max=10.0,
                              doc="s: how fast a body's idea of the surface around it follows the water "
                                  "(filters out the echo of its own waves)")
    impact_threshold: float = spec("float", default=0.02, min=0.0, max=1e6,
                                   doc="smallest contact impulse reported as an Impact event, N s")
    max_shards: int = spec("int", default=600, min=0, max=100000, doc="oldest shards fade out past this count")
    max_moving_shards: int = spec("int", default=50, min=0, max=100000,
                                  doc="past this many shards kept moving (awake: rolled by currents, struck), "
                                      "the oldest moving ones fade out too; shards at rest cost nothing and stay")
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
    distance: float = spec("float", default=-1.0, min=-1.0, max=1000.0, doc="m, at least 0.1; -1: fit the pool")
    yaw: float = spec("float", default=-30.0, min=-360.0, max=360.0, doc="degrees about y")
    pitch: float = spec("float", default=35.0, min=-89.0, max=89.0, doc="degrees above the horizon")
    fov: float = spec("float", default=50.0, min=10.0, max=120.0, doc="vertical field of view, degrees")

    def check(self) -> list[Problem]:
        if -1.0 < self.distance < 0.1:
            return [("distance", f"must be at least 0.1 m, or -1 to fit the pool (got {self.distance:g})")]
        return []


BED_MATERIALS = ("tile", "sand", "stone")
OBSTACLE_MATERIALS = ("concrete", "stone", "wood", "tile")


@dataclass(frozen=True, slots=True)
class LookSpec:
    """How the pool looks: what its floor and obstacles are made of, and the water's optics.

    Light crossing a path of length L through the water keeps exp(-(absorption + scattering) L)
    of itself (Beer-Lambert); the scattered part returns as `scatter_color`. Both coefficients
    are per metre, red green blue.
    """
    bed: str = spec("enum", default="tile", choices=BED_MATERIALS,
                    doc="pool floor: glazed tiles, beach sand or harbour stone; sand is loose ground: a body "
                        "striking it digs a crater and stops in it without a rebound, and glass lands on it "
                        "whole (a bottle would need about 35 m/s to break; engine/ground.py); obstacles on it "
                        "stay hard")
    walls: str = spec("enum", default="tile", choices=BED_MATERIALS, doc="pool walls and deck")
    obstacles: str = spec("enum", default="concrete", choices=OBSTACLE_MATERIALS,
                          doc="what pillars, boxes, ramps, ledges and walls are made of")
    absorption: tuple[float, float, float] = spec("vec3", default=(1.2, 0.30, 0.20), min=0.0, max=100.0,
                                                  doc="water's absorption per metre (r, g, b), 1/m; water takes "
                                                      "red first, so depth turns blue-green (pure water: about "
                                                      "0.45 in red; the default is pool water with a little in "
                                                      "it, so depths of tens of centimetres read at a glance)")
    scattering: tuple[float, float, float] = spec("vec3", default=(0.10, 0.14, 0.16), min=0.0, max=100.0,
                                                  doc="in-scattering per metre (r, g, b), 1/m: how milky it is")
    scatter_color: tuple[float, float, float] = spec("vec3", default=(0.06, 0.36, 0.44), min=0.0, max=1.0,
                                                     doc="colour of light scattered back out of deep water")
    foam: float = spec("float", default=1.0, min=0.0, max=4.0,
                       doc="strength of shoreline foam and flow streaks (0: none)")


@dataclass(frozen=True, slots=True)
class GoalSpec:
    """What the player is asked to do (game/goals.py keeps the score). kind "none": a free sandbox.

    break: shatter `count` of the bottles the level places (0: all of them); smash: shatter `count`
    bottles of any kind (thrown ones too); ring: land `count` throws in the circle at `center`
    of `radius`. `throws` and `time` limit the attempt (0: no limit).
    """
    kind: str = spec("enum", default="none", choices=("none", "break", "smash", "ring"), doc="none | break | smash | ring")
    count: int = spec("int", default=0, min=0, max=10000, doc="how many (break: 0 means every level bottle)")
    throws: int = spec("int", default=0, min=0, max=10000, doc="throws allowed, 0: unlimited")
    time: float = spec("float", default=0.0, min=0.0, max=36000.0, doc="seconds allowed, 0: unlimited")
    center: tuple[float, float] | None = spec("vec2", default=None, doc="ring: centre (x, z), m")
    radius: float = spec("float", default=0.3, min=0.01, max=100.0, doc="ring: radius, m")
    text: str = spec("str", default="", doc="the goal in words, shown in the HUD")

    def check(self) -> list[Problem]:
        """A goal the game can decide: smash and ring count something (count >= 1); "none" uses
        none of the goal's keys."""
        if self.kind in ("smash", "ring") and self.count == 0:
            what = "bottles to smash" if self.kind == "smash" else "throws to land in the ring"
            return [("count", f'kind "{self.kind}" needs how many {what}: a count of 1 or more')]
        if self.kind == "none":
            given = [k for k, v in (("count", self.count), ("throws", self.throws), ("time", self.time))
                     if v != 0] + (["center"] if self.center is not None else [])
            return [(k, 'is not used by kind "none" (a free sandbox); remove it, or set kind') for k in given]
        if self.kind != "ring" and self.center is not None:
            return [("center", f'is not used by kind "{self.kind}" (only by ring); remove it')]
        return []


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
    look: LookSpec = spec("table", default=LookSpec(), cls=LookSpec, doc="materials and water optics")
    goal: GoalSpec = spec("table", default=GoalSpec(), cls=GoalSpec, doc="the level's goal, if any")
    terrain: TerrainSpec = spec("table", default=TerrainSpec(), cls=TerrainSpec, doc="the pool floor")
    obstacles: tuple[ObstacleSpec, ...] = spec("tables", default=(), cls=ObstacleSpec,
                                               doc="boxes, pillars, ramps, ledges and walls in the pool")
    wave_makers: tuple[WaveMakerSpec, ...] = spec("tables", default=(), cls=WaveMakerSpec,
                                                  doc="paddles and periodic sources")
    objects: tuple[ObjectSpec, ...] = spec("tables", default=(), cls=ObjectSpec, doc="rigid bodies at t = 0")
    throwables: tuple[ThrowableSpec, ...] = spec("tables", default=(), cls=ThrowableSpec,
                                                 doc="what the player may throw, picked with keys 1-9 in this order (at most 9; "
                                                     "default: empty sealed bottle, full bottle, open bottle, stone ball)")
    materials: Mapping[str, MaterialSpec] | None = spec("any", default=None, convert=materials_table, cls=MaterialSpec,
                                                        doc="[materials.NAME] density, restitution, friction")
    # not from TOML keys directly
    path: Path | None = None
    description: str = ""
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    TOML_NAMES = MappingProxyType({"bottle": "bottles", "light": "lights", "obstacle": "obstacles",
                                   "wave_maker": "wave_makers", "object": "objects", "throwable": "throwables"})

    def _camera_problems(self) -> list[Problem]:
        """A start view that shows the pool: its target over the pool or its deck, its eye above
        the floor and out of the walls' solid (engine.render.camera places it)."""
        from engine.render.camera import OrbitCamera
        from engine.terrain import DECK, outside_walls
        sx, sz = self.pool.size
        cam = OrbitCamera.from_level(self)
        tx, ty, tz = cam.target
        if float(outside_walls(tx, tz, (sx, sz))) > DECK or not -1.0 <= ty <= self.pool.wall_height + 50.0:
            return [("camera.target", f"({tx:g}, {ty:g}, {tz:g}) is away from the pool: keep it over the pool "
                     f"or its deck (x {-DECK:g} to {sx + DECK:g}, z {-DECK:g} to {sz + DECK:g} m, y from 0 "
                     "to a little over the walls)")]
        ex, ey, ez = (float(c) for c in cam.eye)
        out = float(outside_walls(ex, ez, (sx, sz)))
        under = "the pool's floor" if ey < 0.0 else None
        if under is None and out > 0.0 and ey < self.pool.wall_height:
            under = f"the deck (its top is at {self.pool.wall_height:g} m)"
        if under is None and out <= 0.0 and ey < self.water.level:
            under = f"the water (its surface is at {self.water.level:g} m; the pool is drawn from above it)"
        if under is not None:
            return [("camera.pitch", f"{self.camera.pitch:g} degrees puts the camera's eye at ({ex:.3g}, {ey:.3g}, "
                     f"{ez:.3g}) m, under {under}: it would see nothing; raise pitch or target, or shorten "
                     "distance")]
        return []

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
        if pool_ok and ok("camera") and ok("pool.wall_height") and ok("water.level") and self.camera != CameraSpec():
            out.extend(self._camera_problems())     # the view the author chose (the default fits the pool)
        goal = self.goal
        if goal is not None and ok("goal"):
            n = len(self.bottles)
            if goal.kind == "break" and n == 0:
                out.append(("goal.kind", 'is "break" but the level places no bottle to break: add [[bottle]] '
                            'tables, or use kind "smash" (any bottle, thrown ones too)'))
            elif goal.kind == "break" and goal.count > n:
                out.append(("goal.count", f"{goal.count} bottles to break, but the level places {n}: "
                            f"at most {n} (0 means all of them)"))
            if goal.kind == "ring" and goal.center is not None and pool_ok:
                cx, cz = goal.center
                if not (0.0 <= cx <= sx and 0.0 <= cz <= sz):
                    out.append(("goal.center", f"({cx:g}, {cz:g}) is outside the pool (x in [0, {sx:g}], "
                                f"z in [0, {sz:g}]): no throw could land in the ring"))
        if len(self.lights) > 4:
            out.append(("light[4]", f"at most 4 point lights (got {len(self.lights)})"))
        if ok("water.level") and ok("pool.wall_height") and self.water.level > self.pool.wall_height:
            out.append(("water.level", f"{self.water.level:g} m is above the walls ({self.pool.wall_height:g} m)"))
        return out
