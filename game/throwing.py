"""Throwing: what the player throws, the throw solved from the hand to the cursor's point, and its launch.

`Throwing` is a part of game.controller.Game (a mixin: it reads the Game's sim, camera, cursor,
charge state and goal); the module functions need no Game.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.levels.features import MAX_THROWABLES, ThrowableSpec
from engine.world import Simulation
from game import aim
from game.aim import Target   # by name: in the class body below, `aim` is the method
from game.host import GameHost

# launch speed grows linearly with the time the left button is held
MIN_SPEED = 2.0          # m/s, a tap
MAX_SPEED = 14.0         # m/s, fully charged (game/aim.py's MAX_SPEED)
CHARGE_TIME = 1.2        # s of holding for full power
SPIN = (2.0, 8.0)        # rad/s end-over-end spin, at no charge and at full charge
SPAWN_AHEAD = 0.5        # m in front of the camera where a thrown body appears
CLEARANCE = 0.75         # of a thrown body's bounding radius: how near its arc may pass the walls


@dataclass(frozen=True, slots=True)
class Throwable:
    """One entry of the picker (keys 1-9): a bottle (fill, sealed, bottle model) or a rigid object."""
    name: str
    fill: float = 0.0
    sealed: bool = True
    obj: ThrowableSpec | None = None   # a rigid object instead of a bottle
    model: str = "bottle"


_RADII: dict[tuple, float] = {}


def bounding_radius(item: Throwable, sim: Simulation) -> float:
    """How far the thrown body reaches from its centre of mass (its model's bounding radius), m:
    what a throw's arc must clear, as the body tumbles end over end in flight."""
    from engine.levels.setup import bottle_shape, object_shape
    key: tuple = (item.model, item.fill) if item.obj is None else (repr(item.obj), str(sim.level.path))
    if key not in _RADII:
        model = bottle_shape(sim.level, item.model, item.fill) if item.obj is None else object_shape(sim.level, item.obj)
        _RADII[key] = float(model.radius)
    return _RADII[key]


def _entry(spec: ThrowableSpec) -> Throwable:
    if spec.kind == "object":
        return Throwable(spec.name, obj=spec)
    return Throwable(spec.name, spec.fill or 0.0, True if spec.sealed is None else spec.sealed, model=spec.model_name)


def throwables_for(sim: Simulation) -> list[Throwable]:
    """The picker: `engine.mods.throwables` (the level's [[throwable]] tables in their order, or
    the default four: empty sealed bottle, full bottle, open bottle, stone ball; then what its mods
    add), the first MAX_THROWABLES (keys 1-9; the level validator refuses more)."""
    from engine.mods import throwables
    return [_entry(t) for t in throwables(sim)][:MAX_THROWABLES]


def spin_for(velocity: NDArray[np.float64], charge: float) -> NDArray[np.float64]:
    """End-over-end spin about the horizontal axis across the throw, growing with the charge."""
    c = min(max(charge, 0.0), 1.0)
    axis = np.cross(np.asarray(velocity, float), (0.0, 1.0, 0.0))
    n = np.linalg.norm(axis)
    axis = axis / n if n > 1e-9 else np.array([1.0, 0.0, 0.0])
    return (SPIN[0] + c * (SPIN[1] - SPIN[0])) * axis


def launch(direction: NDArray[np.float64], charge: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Velocity and angular velocity of a throw along the unit `direction` at `charge` in [0, 1].

    The speed is MIN_SPEED + charge (MAX_SPEED - MIN_SPEED); the spin turns the body end over end
    about the horizontal axis across the throw.
    """
    c = min(max(charge, 0.0), 1.0)
    d = np.asarray(direction, float)
    speed = MIN_SPEED + c * (MAX_SPEED - MIN_SPEED)
    axis = np.cross(d, (0.0, 1.0, 0.0))
    n = np.linalg.norm(axis)
    axis = axis / n if n > 1e-9 else np.array([1.0, 0.0, 0.0])
    return speed * d, (SPIN[0] + c * (SPIN[1] - SPIN[0])) * axis


def trajectory(p0: NDArray[np.float64], v0: NDArray[np.float64], gravity: float, stop_y: float,
               seconds: float = 3.0, n: int = 60) -> NDArray[np.float64]:
    """Points of the drag-free ballistic arc from p0 with v0, until it falls below `stop_y`."""
    t = np.linspace(0.0, seconds, n)
    p = np.asarray(p0, float) + np.outer(t, v0)
    p[:, 1] -= 0.5 * gravity * t * t
    below = np.nonzero(p[:, 1] < stop_y)[0]
    if len(below) and below[0] > 0:
        return p[: below[0] + 1]
    return p


def quat_from_to(a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[float, float, float, float]:
    """The unit quaternion (w, x, y, z) turning unit vector a onto unit vector b."""
    a = np.asarray(a, float); b = np.asarray(b, float)
    c = float(np.dot(a, b))
    if c < -0.999999:
        axis = np.cross(a, (1.0, 0.0, 0.0))
        if np.linalg.norm(axis) < 1e-6:
            axis = np.cross(a, (0.0, 0.0, 1.0))
        axis /= np.linalg.norm(axis)
        return (0.0, float(axis[0]), float(axis[1]), float(axis[2]))
    v = np.cross(a, b)
    q = np.array([1.0 + c, v[0], v[1], v[2]])
    q /= np.linalg.norm(q)
    return tuple(float(x) for x in q)  # type: ignore[return-value]


class Throwing(GameHost):
    """Game methods for aiming and throwing (see game/aim.py for the ballistics)."""

    @property
    def charge(self) -> float:
        """Throw power in [0, 1] while the left button is held."""
        return min(self.charge_time / CHARGE_TIME, 1.0) if self.charging else 0.0

    def aim(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(origin, unit direction) of the ray from the camera through the cursor."""
        x, y = self.cursor
        _, d = self.camera.ray(x, self.height - y, self.width, self.height)
        return np.asarray(self.camera.eye, float), d

    def aim_target(self) -> Target | None:
        """What the cursor points at: the water, the bed, a wall or deck, or a body (its centre)."""
        eye, d = self.aim()
        return aim.target_under(aim.Scene(self.sim), eye, d)

    def throw_preview(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Release point (the hand), velocity and angular velocity a throw released now would have.

        The velocity is the ballistic solution from the hand to the point under the cursor at the
        current power (game/aim.py); with nothing under the cursor, a throw along the ray.
        """
        scene = aim.Scene(self.sim)
        p0 = aim.hand(self.camera, scene)
        eye, d = self.aim()
        target = aim.target_under(scene, eye, d)
        c = self.charge
        if target is not None:
            v = aim.solve(p0, target.point, self.sim.gravity, c)
        else:
            _, d = self.aim()
            v = (MIN_SPEED + c * (aim.MAX_SPEED - MIN_SPEED)) * d
        return p0, v, spin_for(v, c)

    def predicted_arc(self) -> NDArray[np.float64]:
        """World points of the predicted flight of the current throw (drag-free), to where it lands."""
        p, v, _ = self.throw_preview()
        pts, _ = aim.landing(aim.Scene(self.sim), p, v, self.sim.gravity, self.throw_radius())
        target = self.aim_target()
        if target is not None and target.what == "body":      # the arc ends in the aimed body
            k = int(np.argmin(np.linalg.norm(pts - target.point, axis=1)))
            pts = np.vstack([pts[:k], target.point])
        return pts

    def landing_marker(self) -> NDArray[np.float64] | None:
        """Where the current throw would land: the aimed body's centre, or where the arc meets the scene."""
        p, v, _ = self.throw_preview()
        target = self.aim_target()
        if target is not None and target.what == "body":
            return target.point
        _, hit = aim.landing(aim.Scene(self.sim), p, v, self.sim.gravity, self.throw_radius())
        return hit

    def throw_radius(self) -> float:
        """What the selected throwable's arc must clear, m: CLEARANCE of its bounding radius (a
        graze in the outer part hardly turns it: a ball passing 1.5 mm inside its radius of the
        rim's edge lands within 10 cm of where it would have)."""
        return CLEARANCE * bounding_radius(self.throwables[self.selected], self.sim)

    def throw(self) -> int | None:
        """Throw the selected body from the hand to the point under the cursor; return its entity id."""
        if not self.goal.can_throw():
            self.notice("no throws left: R tries again")
            return None
        p, v, w = self.throw_preview()
        d = v / max(float(np.linalg.norm(v)), 1e-12)
        item = self.throwables[self.selected]
        sim = self.sim
        if item.obj is None:
            q = quat_from_to(np.array([0.0, 1.0, 0.0]), d)   # neck first
            e = sim.spawn_bottle(p, v, w, q, fill=item.fill, sealed=item.sealed, model=item.model)
        else:
            from engine.levels.setup import body_arguments
            kw = body_arguments(sim.level, item.obj)
            kw.update(position=tuple(p), velocity=tuple(v), angular_velocity=tuple(w),
                      orientation=(1.0, 0.0, 0.0, 0.0))
            e = sim.spawn_body(**kw)
        self.last_throw = e
        self.thrown_names[e] = item.name
        self.goal.threw(e)
        return e
