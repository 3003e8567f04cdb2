"""Aiming: what the cursor points at, and the ballistic throw from the hand that lands there.

Pure numpy, no GL: the controller asks for a target under the cursor, solves the launch velocity
from the thrower's hand, and traces the drag-free arc to where it meets the scene (the landing
marker). Bodies fly drag-free through air in the engine, so the arc is the body's path:

    p(t) = p0 + v0 t - (0, g t^2 / 2, 0)

For a horizontal distance d and a rise h from hand to target, a launch speed v reaches the target
at the elevation angles

    tan(theta) = (v^2 -+ sqrt(v^4 - g (g d^2 + 2 h v^2))) / (g d)

which exist when v^2 >= v_min^2 = g (h + sqrt(h^2 + d^2)) (the lowest-energy throw). The throw's
power sets v between v_min (a lob) and MAX_SPEED (a fast, flat throw, the "-" root).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from engine.terrain import DECK, outside_walls

if TYPE_CHECKING:
    from engine.render.camera import OrbitCamera
    from engine.world import Simulation

MAX_SPEED = 14.0            # m/s, a full-power throw (a strong overarm throw of a 0.4 kg bottle)
HAND = (0.22, -0.22, 0.45)  # m: the hand relative to the eye, along (right, up, forward)
HAND_CLEARANCE = 0.15      # m: the hand stays this far above the scene under it
RAY_STEP = 0.01             # m between samples of the cursor ray and of the arc
RAY_REACH = 60.0            # m the cursor ray is followed
ARC_SECONDS = 4.0


@dataclass(frozen=True, slots=True)
class Target:
    """A point the cursor rests on: where, on what ("water", "bed", "wall", "body"), and the body id."""
    point: NDArray[np.float64]
    what: str
    entity: int = -1


def camera_axes(camera: "OrbitCamera") -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(right, up, forward) unit vectors of the camera."""
    f = np.asarray(camera.target, float) - camera.eye
    f /= np.linalg.norm(f)
    r = np.cross(f, (0.0, 1.0, 0.0))
    n = np.linalg.norm(r)
    r = r / n if n > 1e-9 else np.array([1.0, 0.0, 0.0])
    u = np.cross(r, f)
    return r, u, f


def hand(camera: "OrbitCamera", scene: "Scene | None" = None) -> NDArray[np.float64]:
    """World position of the thrower's hand: right of, below and ahead of the eye, and at least
    HAND_CLEARANCE above the deck or water under it (the thrower stands on the scene, not in it)."""
    r, u, f = camera_axes(camera)
    p = camera.eye + HAND[0] * r + HAND[1] * u + HAND[2] * f
    if scene is not None:
        floor = float(scene.height(p[None, 0], p[None, 2])[0]) + HAND_CLEARANCE
        p[1] = max(p[1], floor)
    return p


class Scene:
    """The solid the throws land on: water surface (or dry bed) inside the pool, walls and deck
    outside it up to the wall height, and body bounding spheres. Snapshot of one moment."""

    def __init__(self, sim: "Simulation") -> None:
        water = sim.water
        self.dx = float(water.dx)
        self.top = (np.asarray(water.read("bed"), float) + np.asarray(water.read("h"), float))
        self.nz, self.nx = self.top.shape
        self.sx, self.sz = (float(v) for v in sim.level.pool.size)
        self.wall = float(sim.level.pool.wall_height)
        st = sim.body_store
        ents = sim.bodies()
        self.entities = np.array(ents, np.int64)
        if ents:
            slots = [_slot(sim, e) for e in ents]
            self.centres = st.pos[slots].astype(float)
            self.radii = st.radius[slots].astype(float)
        else:
            self.centres = np.zeros((0, 3))
            self.radii = np.zeros(0)

    def height(self, x: NDArray[np.float64], z: NDArray[np.float64]) -> NDArray[np.float64]:
        """Height of the solid/water top at (x, z): the water surface inside, the deck outside, out
        to its edge (engine.terrain.DECK); -inf beyond it, where there is no ground to land on."""
        inside = (x >= 0.0) & (x <= self.sx) & (z >= 0.0) & (z <= self.sz)
        on_deck = outside_walls(x, z, (self.sx, self.sz)) <= DECK
        i = np.clip((x / self.dx).astype(np.int64), 0, self.nx - 1)
        k = np.clip((z / self.dx).astype(np.int64), 0, self.nz - 1)
        return np.where(inside, self.top[k, i], np.where(on_deck, self.wall, -np.inf))

    def solid(self, pts: NDArray[np.float64], radius: float = 0.0) -> NDArray[np.bool_]:
        """Whether a body centred at each point (n, 3) meets the scene: its centre at or under the
        water or bed inside the pool (where a thrown body lands), or within `radius` (the body's
        bounding radius: a thrown body tumbles end over end) of the walls' and deck's solid, which
        fills the outside of the walls up to their top, out to the deck's edge."""
        x, y, z = pts[:, 0], pts[:, 1], pts[:, 2]
        hit = y <= self.height(x, z)
        if radius > 0.0:
            out = outside_walls(x, z, (self.sx, self.sz))
            up = np.maximum(y - self.wall, 0.0)
            # inside the walls: the nearest wall face, and its top edge when above it; outside, the deck's top
            gap = np.where(out <= 0.0, np.hypot(out, up), np.where(out <= DECK, up, np.inf))
            hit |= gap <= radius
        return hit

    def first_hit(self, pts: NDArray[np.float64], radius: float = 0.0) -> int:
        """Index of the first point of a polyline where a body of `radius` meets the scene (see
        `solid`), or -1. A body (radius > 0) may start within its radius of the deck under the
        hand: the contact it starts in does not count, only the next one."""
        hit = self.solid(pts, radius)
        start = int(np.argmin(hit)) if radius > 0.0 and hit[0] else 0
        idx = np.nonzero(hit[start:])[0]
        return int(idx[0]) + start if len(idx) else -1


def _slot(sim: "Simulation", entity: int) -> int:
    import esper
    from engine.components import BodyRef
    with sim._context():
        return esper.component_for_entity(entity, BodyRef).slot


def _refine(scene: Scene, a: NDArray[np.float64], b: NDArray[np.float64], radius: float = 0.0
            ) -> NDArray[np.float64]:
    """Bisect the segment a (clear of the scene) .. b (meeting it) to where contact begins."""
    for _ in range(30):
        m = 0.5 * (a + b)
        if scene.solid(m[None], radius)[0]:
            b = m
        else:
            a = m
    return 0.5 * (a + b)


def target_under(scene: Scene, origin: NDArray[np.float64], direction: NDArray[np.float64],
                 skip: int = -1, skip_bodies: bool = False) -> Target | None:
    """The first thing the ray from `origin` along unit `direction` meets, or None.

    Bodies count as their bounding spheres, and the aim point on a body is its centre (a throw
    through the centre hits it, wherever the sphere's edge is).
    """
    o = np.asarray(origin, float)
    d = np.asarray(direction, float)
    t = np.arange(0.0, RAY_REACH, RAY_STEP)
    pts = o + t[:, None] * d
    k = scene.first_hit(pts)
    t_ground = t[k] if k > 0 else (0.0 if k == 0 else math.inf)
    best: Target | None = None
    if k > 0:
        best = Target(_refine(scene, pts[k - 1], pts[k]), "surface")
    # bodies: nearest ray-sphere entry in front of the eye and before the ground
    if len(scene.entities) and not skip_bodies:
        oc = scene.centres - o
        tc = oc @ d
        miss2 = np.einsum("ij,ij->i", oc, oc) - tc * tc
        hit = (tc > 0.0) & (miss2 <= scene.radii ** 2) & (scene.entities != skip)
        if hit.any():
            t_in = np.where(hit, tc - np.sqrt(np.maximum(scene.radii ** 2 - miss2, 0.0)), math.inf)
            j = int(np.argmin(t_in))
            if t_in[j] < t_ground:
                return Target(scene.centres[j].copy(), "body", int(scene.entities[j]))
    if best is not None:
        p = best.point
        inside = 0.0 <= p[0] <= scene.sx and 0.0 <= p[2] <= scene.sz
        return Target(p, "surface" if inside else "wall")
    return None


def min_speed(p0: NDArray[np.float64], p1: NDArray[np.float64], g: float) -> float:
    """The lowest launch speed that reaches p1 from p0: v^2 = g (h + sqrt(h^2 + d^2))."""
    delta = np.asarray(p1, float) - np.asarray(p0, float)
    d = math.hypot(delta[0], delta[2])
    h = float(delta[1])
    return math.sqrt(max(g * (h + math.hypot(h, d)), 1e-12))


def solve(p0: NDArray[np.float64], p1: NDArray[np.float64], g: float, power: float,
          max_speed: float = MAX_SPEED) -> NDArray[np.float64]:
    """Launch velocity from p0 that passes through p1, at a speed set by `power` in [0, 1].

    power 0: the lowest-energy throw (v_min); power 1: max(max_speed, v_min) on the flat root.
    Beyond reach (v_min > max_speed) the throw is the 45-degree-ish lowest-energy one anyway, so it
    still lands on the line to the target, as near as the speed allows: callers show where.
    """
    p0 = np.asarray(p0, float)
    delta = np.asarray(p1, float) - p0
    d = math.hypot(delta[0], delta[2])
    h = float(delta[1])
    c = min(max(float(power), 0.0), 1.0)
    vmin = min_speed(p0, p1, g)
    v = vmin + c * max(max_speed - vmin, 0.0)
    if d < 1e-6:                      # straight up or down
        return np.array([0.0, v if h > 0 else -v * c, 0.0])
    disc = max(v ** 4 - g * (g * d * d + 2.0 * h * v * v), 0.0)
    theta = math.atan2(v * v - math.sqrt(disc), g * d)
    horiz = np.array([delta[0], 0.0, delta[2]]) / d
    return v * math.cos(theta) * horiz + np.array([0.0, v * math.sin(theta), 0.0])


def arc(p0: NDArray[np.float64], v0: NDArray[np.float64], g: float, seconds: float = ARC_SECONDS,
        n: int = 400) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(times, points) of the drag-free arc from p0 with velocity v0."""
    t = np.linspace(0.0, seconds, n)
    p = np.asarray(p0, float) + np.outer(t, v0)
    p[:, 1] -= 0.5 * g * t * t
    return t, p


def landing(scene: Scene, p0: NDArray[np.float64], v0: NDArray[np.float64], g: float, radius: float = 0.0
            ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """The arc of a body's centre up to where the body (bounding `radius`) meets the scene, and
    that point (None if it never does in time)."""
    _, pts = arc(p0, v0, g)
    k = scene.first_hit(pts, radius)
    if k <= 0:
        return pts, None
    hit = _refine(scene, pts[k - 1], pts[k], radius)
    return np.vstack([pts[:k], hit]), hit
