"""Put a level's contents into a fresh Simulation: its bed, bottles, objects and wave makers."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from engine.levels.features import MATERIALS, MaterialSpec

if TYPE_CHECKING:
    from engine.levels.schema import Level
    from engine.meshes import Model
    from engine.world import Simulation


def apply_level(sim: "Simulation") -> None:
    """Shape the bed, then spawn what the level places at t = 0 and start its wave makers."""
    level = sim.level
    apply_terrain(sim)
    for spec in level.bottles:
        sim.spawn_bottle(spec.position, spec.velocity, spec.angular_velocity, spec.orientation,
                         fill=spec.fill, sealed=spec.sealed, model=spec.model, drag=spec.drag)
    spawn_objects(sim)
    if level.wave_makers:
        from engine.systems.wave_maker import WaveMakers
        sim.add_system(WaveMakers(level.wave_makers), before="StepFluid")


def apply_terrain(sim: "Simulation") -> None:
    """Give the water the level's bed (terrain and obstacles), keeping the initial surface.

    A no-op when the water grid already built the same bed. Where the bed rises above the initial
    surface the cell is dry (a shore, an island, a ledge standing out of the water).
    """
    from engine.terrain import build_bed
    w = sim.water
    bed = build_bed(sim.level)
    if bed.shape != w.bed.shape:
        raise ValueError(f"terrain grid {bed.shape} does not match the water grid {w.bed.shape}")
    if np.allclose(bed, w.bed, rtol=0.0, atol=1e-7):
        return
    eta = w.bed + w.h
    w.bed[...] = bed
    w.h[...] = np.maximum(eta - bed, 0.0)


def material_of(level: "Level", spec: Any) -> MaterialSpec:
    """The material of an object or throwable: its density, restitution and friction, resolved."""
    named = (level.materials or {}).get(spec.material) or MATERIALS.get(spec.material or "")
    density = spec.density if spec.density is not None else (named.density if named else 1000.0)
    physics = level.physics
    restitution = named.restitution if named and named.restitution >= 0.0 else physics.restitution
    friction = named.friction if named and named.friction >= 0.0 else physics.friction
    return MaterialSpec(density, restitution, friction)


def body_arguments(level: "Level", spec: Any) -> dict[str, Any]:
    """Keyword arguments for sim.spawn_body describing one [[object]] or object [[throwable]]."""
    mat = material_of(level, spec)
    kw: dict[str, Any] = dict(model=spec.model, density=mat.density, restitution=mat.restitution,
                              friction=mat.friction, scale=spec.scale)
    if getattr(spec, "drag", None) is not None:
        kw["drag"] = spec.drag
    if spec.model == "box":
        kw["size"] = tuple(s * spec.scale for s in (spec.size or (0.3, 0.3, 0.3)))
    if spec.model == "sphere":
        kw["radius"] = (spec.radius or 0.1) * spec.scale
    if spec.model not in ("box", "sphere"):
        from engine.levels.resources import find_model
        # confine=False: the level's own paths were held to its folder when it loaded (checks), and
        # a mod's throwable carries the absolute path add_throwable found beside the mod
        path = find_model(spec.model, level.path, confine=False)
        kw["model"] = str(path) if path is not None else spec.model
    return kw


def bottle_shape(level: "Level", model: str, fill: float) -> "Model":
    """The body model (body frame: centre of mass at the origin) a bottle of `model` holding
    `fill` of its inner volume gets in `level`, as Simulation.spawn_bottle builds it."""
    from engine import bodies as bd
    from engine.meshes import load_bottle_set
    store = bd.BodyStore(capacity=1)
    bs = load_bottle_set(model)
    mid, _, _ = bd.bottle_model(store, bs, float(fill) * bs.inner_volume, level.physics.glass_density,
                                level.physics.water_density)
    return store.models[mid]


def object_shape(level: "Level", spec: Any) -> "Model":
    """The body model an [[object]] or object [[throwable]] gets in `level`, as spawn_body builds it."""
    from engine import bodies as bd
    store = bd.BodyStore(capacity=1)
    kw = body_arguments(level, spec)
    mid, _ = bd.shape_model(store, kw["model"], 1.0, size=kw.get("size"), radius=kw.get("radius"),
                            scale=kw.get("scale", 1.0))
    return store.models[mid]


def spawn_objects(sim: "Simulation") -> list[int]:
    """Spawn the level's [[object]] bodies."""
    level = sim.level
    if not level.objects:
        return []
    out = []
    for spec in level.objects:
        kw = body_arguments(level, spec)
        kw.update(position=spec.position, velocity=spec.velocity, angular_velocity=spec.angular_velocity,
                  orientation=spec.orientation)
        out.append(sim.spawn_body(**kw))
    return out


def spawn_throwable(sim: "Simulation", spec: Any, position: Any, velocity: Any = (0.0, 0.0, 0.0),
                    angular_velocity: Any = (0.0, 0.0, 0.0)) -> int:
    """Throw one of `engine.mods.throwables(sim)`: a bottle, or an object through sim.spawn_body."""
    if spec.kind == "bottle":
        return sim.spawn_bottle(position, velocity, angular_velocity, fill=spec.fill or 0.0,
                                sealed=True if spec.sealed is None else spec.sealed, model=spec.model_name)
    kw = body_arguments(sim.level, spec)
    kw.update(position=tuple(position), velocity=tuple(velocity), angular_velocity=tuple(angular_velocity))
    return sim.spawn_body(**kw)
