"""What a level builds inside the pool: bed terrain, obstacles, wave makers, objects, throwables and
materials. Each is a frozen dataclass checked by engine.levels.fields, like the rest of the schema.

Several tables take a `kind` and then only the keys that kind understands. Those keys default to
None (not given), and `_kind_keys` reports a key that the kind does not use, or a missing one, at
the line of that key.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from engine.levels.fields import Problem, build, spec

SIDES = ("x_min", "x_max", "z_min", "z_max")
SHAPES = ("box", "sphere")  # built-in object shapes; any other model name is an OBJ file


def _span_rises(span: tuple[float, float] | None) -> list[Problem]:
    """A `span` (from, to) must rise."""
    if span is not None and span[1] <= span[0]:
        return [("span", f"must rise: span[1] > span[0] (got {span[0]:g}, {span[1]:g})")]
    return []


def _kind_keys(obj: Any, kind: str, keys: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> list[Problem]:
    """Report keys given that `kind` does not use, and required keys it lacks.

    `keys[kind]` is (required, optional); every other kind-specific field must stay None.
    """
    required, optional = keys[kind]
    every = {k for req, opt in keys.values() for k in req + opt}
    out: list[Problem] = []
    for name in sorted(every):
        given = getattr(obj, name) is not None
        if name in required and not given:
            out.append((name, f'is required for kind "{kind}"'))
        elif given and name not in required and name not in optional:
            users = sorted(k for k, (req, opt) in keys.items() if name in req + opt)
            out.append((name, f'is not used by kind "{kind}" (only by {", ".join(users)}); remove it'))
    return out


# -- terrain ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BedBumpSpec:
    """A smooth mound (or, with negative height, a hollow) on the bed: h * (1 + cos(pi r/R)) / 2."""
    center: tuple[float, float] = spec("vec2", doc="(x, z) centre, m")
    radius: float = spec("float", default=0.3, min=0.0, exclusive_min=True, max=100.0, doc="m")
    height: float = spec("float", default=0.1, min=-50.0, max=50.0, doc="peak height added to the bed, m")


_TERRAIN_KEYS = {
    "flat": ((), ("height",)),
    "slope": (("heights",), ("axis", "span")),
    "heightmap": (("image",), ("heights",)),
}


@dataclass(frozen=True, slots=True)
class TerrainSpec:
    """The pool floor (bed) before obstacles: flat, a slope, or a greyscale heightmap image, plus bumps.

    slope: the bed rises linearly from heights[0] at span[0] to heights[1] at span[1] along `axis`
    and stays level beyond. heightmap: black -> heights[0], white -> heights[1]; the image covers
    the pool, its left column at x = 0 and its top row at z = 0.
    """
    kind: str = spec("enum", default="flat", choices=tuple(_TERRAIN_KEYS), doc="flat | slope | heightmap")
    height: float | None = spec("float", default=None, min=0.0, max=50.0, doc="flat: bed height, m (0)")
    axis: str | None = spec("enum", default=None, choices=("x", "z"), doc="slope: direction it rises (x)")
    span: tuple[float, float] | None = spec("vec2", default=None, min=0.0, max=100.0,
                                            doc="slope: where it starts and ends along axis, m (whole pool)")
    heights: tuple[float, float] | None = spec("vec2", default=None, min=0.0, max=50.0,
                                               doc="slope: bed at start and end; heightmap: black and white, m")
    image: str | None = spec("path", default=None, doc="heightmap: PNG/greyscale image, relative to the level file and inside its folder")
    bumps: tuple[BedBumpSpec, ...] = spec("tables", default=(), cls=BedBumpSpec, doc="mounds on the bed")

    TOML_NAMES = MappingProxyType({"bump": "bumps"})

    def check(self) -> list[Problem]:
        out = _kind_keys(self, self.kind, _TERRAIN_KEYS)
        out += _span_rises(self.span)
        return out


# -- obstacles ---------------------------------------------------------------------------------------
_OBSTACLE_KEYS = {
    "box": (("center", "size", "height"), ("angle",)),
    "pillar": (("center", "radius", "height"), ()),
    "ramp": (("center", "size", "heights"), ("angle",)),
    "ledge": (("side", "width", "height"), ("span",)),
    "wall": (("start", "end", "height"), ("thickness",)),
}


@dataclass(frozen=True, slots=True)
class ObstacleSpec:
    """Solid shape standing on the pool floor, rasterised into the bed height field.

    box: `size` (x, z) footprint turned by `angle` degrees about y; pillar: a round column;
    ramp: a box whose top rises from heights[0] at its local -x end to heights[1] at +x;
    ledge: a shelf along one `side`, `width` deep, over `span` of that side; wall: a straight
    wall from `start` to `end`, `thickness` thick. Heights are of the top above the floor, m.
    """
    kind: str = spec("enum", choices=tuple(_OBSTACLE_KEYS), doc="box | pillar | ramp | ledge | wall")
    center: tuple[float, float] | None = spec("vec2", default=None, doc="(x, z) centre, m")
    size: tuple[float, float] | None = spec("vec2", default=None, min=0.0, exclusive_min=True, max=100.0,
                                            doc="footprint along its local x and z, m")
    radius: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=100.0, doc="m")
    height: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=50.0, doc="top, m")
    heights: tuple[float, float] | None = spec("vec2", default=None, min=0.0, max=50.0, doc="ramp: low and high end, m")
    angle: float | None = spec("float", default=None, min=-360.0, max=360.0, doc="turn about y, degrees (0)")
    side: str | None = spec("enum", default=None, choices=SIDES, doc="ledge: the wall it hangs on")
    width: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=100.0,
                               doc="ledge: depth from the wall, m")
    span: tuple[float, float] | None = spec("vec2", default=None, min=0.0, max=100.0,
                                            doc="ledge: from and to along the wall, m (whole side)")
    start: tuple[float, float] | None = spec("vec2", default=None, doc="wall: one end (x, z), m")
    end: tuple[float, float] | None = spec("vec2", default=None, doc="wall: other end (x, z), m")
    thickness: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=100.0,
                                   doc="wall: m (0.1)")

    def check(self) -> list[Problem]:
        out = _kind_keys(self, self.kind, _OBSTACLE_KEYS)
        out += _span_rises(self.span)
        if self.start is not None and self.start == self.end:
            out.append(("end", "must differ from start"))
        return out

    @property
    def top(self) -> float:
        """Highest point of the obstacle, m."""
        return max(self.heights) if self.kind == "ramp" and self.heights else float(self.height or 0.0)


# -- wave makers -------------------------------------------------------------------------------------
_WAVE_KEYS = {
    "paddle": (("side", "stroke"), ("width", "span")),
    "source": (("position", "rate"), ("radius",)),
}


@dataclass(frozen=True, slots=True)
class WaveMakerSpec:
    """Something that makes waves with a period.

    paddle: a piston along one side moving `stroke` m back and forth, steering the water within
    `width` of that side (it moves water but adds none: volume is conserved). source: a spring at `position` that
    breathes in and out, peak `rate` m^3/s, so over each period it adds and removes the same volume.
    """
    kind: str = spec("enum", choices=tuple(_WAVE_KEYS), doc="paddle | source")
    period: float = spec("float", default=1.5, min=0.05, max=600.0, doc="s")
    ramp: float = spec("float", default=1.0, min=0.0, max=600.0, doc="soft start: seconds to full strength")
    phase: float = spec("float", default=0.0, min=-360.0, max=360.0, doc="degrees")
    side: str | None = spec("enum", default=None, choices=SIDES, doc="paddle: the side it stands on")
    stroke: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=10.0,
                                doc="paddle: peak-to-peak travel, m")
    width: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=100.0,
                               doc="paddle: depth of the pushed zone, m (0.3)")
    span: tuple[float, float] | None = spec("vec2", default=None, min=0.0, max=100.0,
                                            doc="paddle: from and to along its side, m (whole side)")
    position: tuple[float, float] | None = spec("vec2", default=None, doc="source: (x, z), m")
    rate: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=100.0,
                              doc="source: peak volume rate, m^3/s")
    radius: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=100.0,
                                doc="source: m (0.15)")

    def check(self) -> list[Problem]:
        out = _kind_keys(self, self.kind, _WAVE_KEYS)
        out += _span_rises(self.span)
        return out


# -- materials, objects, throwables ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MaterialSpec:
    """What a body is made of. restitution and friction of -1 use the [physics] defaults."""
    density: float = spec("float", min=1.0, max=25000.0, doc="kg/m^3")
    restitution: float = spec("float", default=-1.0, min=-1.0, max=1.0, doc="bounce, 0..1 (-1: [physics])")
    friction: float = spec("float", default=-1.0, min=-1.0, max=5.0, doc="Coulomb coefficient (-1: [physics])")


MATERIALS: Mapping[str, MaterialSpec] = MappingProxyType({
    "cork": MaterialSpec(240.0, 0.5, 0.6),
    "wood": MaterialSpec(600.0, 0.3, 0.6),
    "plastic": MaterialSpec(950.0, 0.4, 0.4),
    "ice": MaterialSpec(917.0, 0.1, 0.05),
    "rubber": MaterialSpec(1100.0, 0.8, 1.0),
    "glass": MaterialSpec(2500.0, 0.35, 0.5),
    "stone": MaterialSpec(2600.0, 0.2, 0.7),
    "steel": MaterialSpec(7850.0, 0.4, 0.4),
})


def materials_table(v: Any, path: str, problems: list[Problem]) -> Mapping[str, MaterialSpec] | None:
    """Check `[materials.NAME]` tables: each a MaterialSpec."""
    if not isinstance(v, dict):
        problems.append((path, f"must be a table of [{path}.NAME] sections (got {v!r})"))
        return None
    out = {}
    for name, table in v.items():
        if not isinstance(table, dict):
            problems.append((f"{path}.{name}", "must be a table: density = ..., restitution = ..., friction = ..."))
            continue
        out[name] = build(MaterialSpec, table, f"{path}.{name}", problems)
    return MappingProxyType(out)


def _body_keys(obj: Any) -> list[Problem]:
    """Keys shared by objects and object throwables: shape sizes and density or material."""
    out: list[Problem] = []
    if obj.size is not None and obj.model != "box":
        out.append(("size", f'only the built-in "box" has a size (model is "{obj.model}"); use scale'))
    if obj.radius is not None and obj.model != "sphere":
        out.append(("radius", f'only the built-in "sphere" has a radius (model is "{obj.model}"); use scale'))
    if obj.density is None and obj.material is None:
        out.append(("density", f"give a density (kg/m^3) or a material ({', '.join(MATERIALS)}, or one of [materials])"))
    return out


@dataclass(frozen=True, slots=True)
class ObjectSpec:
    """A rigid body placed at t = 0: an OBJ model from content/models/ (or a path relative to the
    level), or a built-in "box" or "sphere", with a density or a material."""
    model: str = spec("str", doc='name in the level\'s models/ folder or content/models/ ("crate"), a path ending in .obj '
                            '(relative to the level file and inside its folder), or "box" / "sphere"')
    position: tuple[float, float, float] = spec("vec3", doc="centre of mass (x, y, z), m")
    density: float | None = spec("float", default=None, min=1.0, max=25000.0, doc="kg/m^3 (overrides material)")
    material: str | None = spec("str", default=None, doc="a built-in material or one from [materials]")
    velocity: tuple[float, float, float] = spec("vec3", default=(0.0, 0.0, 0.0), min=-200, max=200, doc="m/s")
    angular_velocity: tuple[float, float, float] = spec("vec3", default=(0.0, 0.0, 0.0), min=-500, max=500,
                                                        doc="rad/s, world frame")
    orientation: tuple[float, float, float, float] = spec("quat", default=(1.0, 0.0, 0.0, 0.0),
                                                          doc="quaternion (w, x, y, z); normalised on load")
    scale: float = spec("float", default=1.0, min=0.0, exclusive_min=True, max=100.0, doc="uniform scale")
    size: tuple[float, float, float] | None = spec("vec3", default=None, min=0.0, exclusive_min=True, max=50.0,
                                                   doc='"box": edge lengths, m (0.3 each)')
    radius: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=50.0,
                                doc='"sphere": m (0.1)')
    drag: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=10.0,
                              doc="C_D for flow from any side, replacing the one from its shape (engine/drag.py)")

    def check(self) -> list[Problem]:
        return _body_keys(self)


MAX_THROWABLES = 9   # a level offers at most this many: the game picks them with keys 1-9


@dataclass(frozen=True, slots=True)
class ThrowableSpec:
    """Something the player can pick and throw: a bottle (fill, sealed) or an object (model, density)."""
    name: str = spec("str", doc="shown in the game's picker")
    kind: str = spec("enum", default="bottle", choices=("bottle", "object"), doc="bottle | object")
    model: str | None = spec("str", default=None, doc='bottle: its model ("bottle"); object: as in [[object]]')
    fill: float | None = spec("float", default=None, min=0.0, max=1.0, doc="bottle: water fraction (0)")
    sealed: bool | None = spec("bool", default=None, doc="bottle: corked (true)")
    density: float | None = spec("float", default=None, min=1.0, max=25000.0, doc="object: kg/m^3")
    material: str | None = spec("str", default=None, doc="object: a material name")
    scale: float = spec("float", default=1.0, min=0.0, exclusive_min=True, max=100.0, doc="uniform scale")
    size: tuple[float, float, float] | None = spec("vec3", default=None, min=0.0, exclusive_min=True, max=50.0,
                                                   doc='"box": edge lengths, m')
    radius: float | None = spec("float", default=None, min=0.0, exclusive_min=True, max=50.0, doc='"sphere": m')

    def check(self) -> list[Problem]:
        if self.kind == "bottle":
            return [(k, f'only an object throwable has a {k} (this one is a bottle)')
                    for k in ("density", "material", "size", "radius") if getattr(self, k) is not None]
        out = [(k, f'only a bottle throwable has "{k}" (this one is an object)')
               for k in ("fill", "sealed") if getattr(self, k) is not None]
        if self.model is None:
            return out + [("model", 'an object throwable needs a model ("box", "sphere" or an OBJ name)')]
        return out + _body_keys(self)

    @property
    def model_name(self) -> str:
        return self.model if self.model is not None else "bottle"


def unknown_material(name: str, level_materials: Mapping[str, MaterialSpec]) -> str | None:
    """A message if `name` is neither built in nor declared by the level, else None."""
    known = list(MATERIALS) + list(level_materials)
    if name in known:
        return None
    hint = difflib.get_close_matches(name, known, n=1)
    extra = f' (did you mean "{hint[0]}"?)' if hint else ""
    return f'unknown material "{name}"{extra}; built in: {", ".join(MATERIALS)}, or declare [materials.{name}]'
