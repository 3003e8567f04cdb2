"""The game: input handling and the fixed-step loop, with no window and no GL.

`Game` receives pyglet-style input events (the window in game/app.py only forwards them, and tests
call them directly with synthetic events) and `update(frame_dt)` once per frame. Physics runs at the
level's fixed dt through an accumulator: a frame may take 0, 1 or several steps, at most
`MAX_STEPS_PER_FRAME`; when frames are too slow the simulation falls behind real time rather than
taking a larger step, so slow frames never change the physics.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from engine.bodies import KINDS
from engine.errors import SimulationError
from engine.levels import Level, LevelError
from engine.levels.features import ThrowableSpec
from engine.paths import DEFAULT_LEVEL, LEVELS
from engine.render.camera import OrbitCamera
from engine.text import printable
from engine.world import Simulation
from game import aim
from game.aim import Target
from game import camera as cam
from game import savegame
from game.controls import MOD_SHIFT, key_actions, mouse_actions

# Throwing: launch speed grows linearly with the time the left button is held.
MIN_SPEED = 2.0          # m/s, a tap
MAX_SPEED = 14.0         # m/s, fully charged (game/aim.py's MAX_SPEED)
CHARGE_TIME = 1.2        # s of holding for full power
SPIN = (2.0, 8.0)        # rad/s end-over-end spin, at no charge and at full charge
SPAWN_AHEAD = 0.5        # m in front of the camera where a thrown body appears

# Pushing the water: faces under the cursor relax towards the cursor's velocity.
PUSH_RATE = 12.0         # 1/s, how fast the water near the cursor takes up the cursor's velocity
PUSH_RADIUS = 0.12       # m, Gaussian radius of the push (at least 3 cells)
MAX_CURSOR_SPEED = 4.0   # m/s, the fastest the cursor drags the water

RAIN_DROPS = 60          # drops per press of the rain key, one per step
RAIN_DEPTH = 0.01        # m, height of the little mound each drop makes

GRAB_TAU = 0.08          # s: a grabbed body closes the gap to the cursor with this time constant
GRAB_MAX_SPEED = 6.0     # m/s: the fastest a grabbed body is dragged

SLOWMO_SECONDS = 0.6     # real seconds of slow motion after a bottle breaks
SLOWMO_FACTOR = 0.3      # simulated seconds per real second meanwhile
NUDGE = 0.03             # m: the camera shake of a break 1 m away (less further off, at most this)
NUDGE_SECONDS = 0.25     # s the shake takes to die out

MAX_STEPS_PER_FRAME = 8
SPEEDS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0)
DEBUG_VIEWS: tuple[str | None, ...] = (None, "depth", "velocity", "divergence", "vorticity", "bounds")
MESSAGE_SECONDS = 4.0


@dataclass(frozen=True, slots=True)
class Throwable:
    """One of the four things keys 1-4 pick."""
    name: str
    fill: float = 0.0
    sealed: bool = True
    obj: ThrowableSpec | None = None   # a rigid object instead of a bottle


HEAVY_DEFAULT = ThrowableSpec(name="stone ball", kind="object", model="sphere", density=2600.0, radius=0.06)


def throwables_for(sim: Simulation) -> list[Throwable]:
    """Empty sealed bottle, full bottle, open bottle, and the level's (or a mod's) heavy object."""
    heavy = HEAVY_DEFAULT
    from engine.mods import throwables
    specs = throwables(sim)
    objects = [t for t in specs if t.kind == "object"]
    if objects:
        heavy = objects[0]
    return [Throwable("empty sealed bottle", 0.0, True), Throwable("full bottle", 1.0, True),
            Throwable("open bottle", 0.0, False), Throwable(heavy.name, obj=heavy)]


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


class Game:
    """The sandbox's state and input handling. Coordinates are pyglet's: pixels, y up from the bottom."""

    def __init__(self, level: str | Path | Level | None = None, *, mod_paths: tuple[str, ...] | list[str] = (),
                 width: int = 1280, height: int = 720, save_path: str | Path | None = None,
                 levels: list[Path] | None = None, entry_points: bool = True,
                 clock: Callable[[], float] = time.perf_counter, sound_player: Any = None,
                 level_mods: bool = False) -> None:
        self.mod_paths = list(mod_paths)
        self.level_mods = bool(level_mods)   # run the mods/ folder beside a level (the player asked: --mods)
        self.entry_points = entry_points
        self.width, self.height = int(width), int(height)
        self.save_path = Path(save_path) if save_path is not None else savegame.default_path()
        self.levels = levels if levels is not None else sorted(LEVELS.glob("*.toml"))
        self.clock = clock
        self._keys = key_actions()
        self._mouse = mouse_actions()
        self.level_source: str | Path | Level = level if level is not None else DEFAULT_LEVEL
        from game.sound import Silent, SoundEvents
        self.sound = SoundEvents(sound_player if sound_player is not None else Silent())
        self.sim = self._open(self.level_source)
        self.camera = OrbitCamera.from_level(self.sim.level, self.width / self.height)
        # time
        self.paused = False
        self.speed_index = SPEEDS.index(1.0)
        self.accumulator = 0.0
        self.pending_steps = 0
        self.lagging = False
        self.error: str | None = None
        # input state
        self.selected = 0
        self.charging = False
        self.charge_time = 0.0
        self.cursor = (self.width / 2.0, self.height / 2.0)
        self.held: set[str] = set()        # fly directions whose keys are down
        self.drag_action: str | None = None
        self._push_last: NDArray[np.float64] | None = None
        self._push_disp = np.zeros(2)
        self._push_time = 0.0
        self._push: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
        self.rain_left = 0
        self.last_throw: int | None = None
        # display state
        self.show_help = False
        self.show_dev = False
        self.debug_index = 0
        # tools: what the left button does, and their state
        self.tool = "throw"
        self._grab: tuple[int, float] | None = None         # (entity, height of its drag plane)
        self._barrier_last: tuple[float, float] | None = None
        self.messages: list[tuple[str, float]] = []
        self.fps = 0.0
        self.quit_requested = False
        self._failures_seen = 0
        self._after_open()

    # -- opening levels ----------------------------------------------------------------------
    def _open(self, source: str | Path | Level) -> Simulation:
        """Start a simulation of a level file (re-read from disk) or a Level, with the mods."""
        if isinstance(source, Level):
            sim = Simulation(source)
            if self.mod_paths:
                from engine.mods import load_mods
                load_mods(sim, self.mod_paths, source.path, entry_points=self.entry_points,
                          level_mods=self.level_mods)
        else:
            from engine.mods import open_level
            sim = open_level(source, self.mod_paths, entry_points=self.entry_points, level_mods=self.level_mods)
        if "Tracers" not in sim.system_names():
            from game.tracers import Tracers
            sim.add_system(Tracers())
        return sim

    def _after_open(self) -> None:
        from game.barriers import Barriers
        from game.goals import GoalTracker
        from game.hud import SystemTimes
        self.times = SystemTimes()
        self.times.attach(self.sim)
        self.sound.attach(self.sim)
        self.barriers = Barriers(self.sim)
        self.goal = GoalTracker(self.sim, self.clock)
        self._grab = None
        self.slowmo_left = 0.0
        from engine import events as ev
        self.sim.on(ev.Shattered, self._on_shattered)
        self.throwables = throwables_for(self.sim)
        wet = self.sim.water.read("h") > 1e-6
        eta = self.sim.water.eta
        self.surface_y = float(eta[wet].mean()) if wet.any() else float(self.sim.level.water.level)
        self.rng = np.random.default_rng(self.sim.level.seed + 1)   # the game's own: rain positions
        self.start_volume = self.sim.total_water()
        self.accumulator = 0.0
        self.pending_steps = 0
        self.error = None
        self.rain_left = 0
        self._failures_seen = 0
        self._report_failures()
        self._mention_level_mods()

    def _mention_level_mods(self) -> None:
        """A level that comes with mods it did not run says so: they are code, run only when asked."""
        if self.level_mods or self.sim.level.path is None:
            return
        from engine.mods import level_mods_of
        from engine.text import printable
        found = level_mods_of(self.sim.level.path)
        if found:
            names = ", ".join(printable(p.stem) for p in found[:5])
            self.notice(f"this level comes with mods ({names}) that were NOT run: they are code; "
                        "to run them, start it with `bottles play LEVEL --mods`")

    def _replace(self, sim: Simulation) -> None:
        old = self.sim
        self.sim = sim
        if old is not sim:
            old.close()
        self._after_open()

    def reset(self) -> None:
        """Start the current level again from its file (a broken file keeps the running level)."""
        try:
            sim = self._open(self.level_source)
        except LevelError as exc:
            self.notice(exc.lines()[0] if exc.lines() else str(exc))
            return
        self._replace(sim)
        self.home()
        self.notice(f"reset: {self.sim.level.name}")

    def next_level(self) -> None:
        """Open the next bundled level (skipping broken ones, with a message)."""
        if not self.levels:
            self.notice("no bundled levels found")
            return
        current = Path(self.level_source).resolve() if not isinstance(self.level_source, Level) else None
        paths = [Path(p).resolve() for p in self.levels]
        start = paths.index(current) if current in paths else -1
        skipped: list[str] = []
        for k in range(1, len(paths) + 1):
            path = paths[(start + k) % len(paths)]
            try:
                sim = self._open(path)
            except LevelError as exc:
                skipped.append(exc.lines()[0] if exc.lines() else str(exc))
                self.notice(skipped[-1])
                continue
            self.level_source = path
            self._replace(sim)
            self.home()
            note = f" (skipped a broken level: {skipped[0]})" if skipped else ""
            self.notice(f"level: {self.sim.level.name} ({path.name}){note}")
            return

    # -- messages ----------------------------------------------------------------------------------
    def notice(self, text: str) -> None:
        """Show a one-line message in the HUD for a few seconds; a new one replaces the last."""
        self.messages = [(text, self.clock() + MESSAGE_SECONDS)]

    def current_messages(self) -> list[str]:
        now = self.clock()
        self.messages = [(t, until) for t, until in self.messages if until > now]
        return [t for t, _ in self.messages]

    def _report_failures(self) -> None:
        """Report new mod failures: the terminal and the mod log get the traceback, the HUD a notice
        naming the log (and a lasting "mods off" line, see game/hud.py)."""
        fails = self.sim.failures
        new = fails[self._failures_seen:]
        self._failures_seen = len(fails)
        if not new:
            return
        from game import modlog
        for msg in new:
            modlog.report(msg, self.mod_log)
            self.notice(f"{msg} (traceback in {self.mod_log})")

    @property
    def mod_log(self) -> Path:
        from game import modlog
        return modlog.log_path(self.save_path)

    def mods_off(self) -> list[str]:
        """Names of the mods that failed and are switched off."""
        from engine.mods import mods_of
        ms = mods_of(self.sim)
        return [] if ms is None else [m.name for m in ms.mods if m.failed is not None]

    # -- derived values -----------------------------------------------------------------------------
    @property
    def speed(self) -> float:
        return SPEEDS[self.speed_index]

    @property
    def debug_view(self) -> str | None:
        return DEBUG_VIEWS[self.debug_index]

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
        pts, _ = aim.landing(aim.Scene(self.sim), p, v, self.sim.gravity)
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
        _, hit = aim.landing(aim.Scene(self.sim), p, v, self.sim.gravity)
        return hit

    def cursor_on_water(self, x: float, y: float) -> NDArray[np.float64] | None:
        """Where the ray through pixel (x, y) meets the mean water surface, as (x, z); None if it misses."""
        _, d = self.camera.ray(x, self.height - y, self.width, self.height)
        o = np.asarray(self.camera.eye, float)
        if d[1] > -1e-6:
            return None
        t = (self.surface_y - o[1]) / d[1]
        if t <= 0.0:
            return None
        p = o + t * d
        return np.array([p[0], p[2]])

    # -- actions -----------------------------------------------------------------------------------
    def throw(self) -> int | None:
        """Throw the selected body from the hand to the point under the cursor; return its entity id."""
        if not self.goal.can_throw():
            self.notice("no bottles left: R tries again")
            return None
        p, v, w = self.throw_preview()
        d = v / max(float(np.linalg.norm(v)), 1e-12)
        item = self.throwables[self.selected]
        sim = self.sim
        if item.obj is None:
            q = quat_from_to(np.array([0.0, 1.0, 0.0]), d)   # neck first
            e = sim.spawn_bottle(p, v, w, q, fill=item.fill, sealed=item.sealed)
        else:
            from engine.levels.setup import body_arguments
            kw = body_arguments(sim.level, item.obj)
            kw.update(position=tuple(p), velocity=tuple(v), angular_velocity=tuple(w),
                      orientation=(1.0, 0.0, 0.0, 0.0))
            e = sim.spawn_body(**kw)
        self.last_throw = e
        self.goal.threw(e)
        return e

    def rain(self) -> None:
        self.rain_left += RAIN_DROPS
        self.notice("rain")

    def save(self) -> None:
        try:
            path, warnings = savegame.save(self.sim, self.save_path, extra={"camera": cam.to_dict(self.camera)})
        except savegame.SaveError as exc:
            self.notice(f"save failed: {exc}")
            return
        self.notice(f"saved to {path}")
        for w in warnings[:3]:
            self.notice(f"not saved: {w}")

    def _saved_level(self, tree: dict[str, Any]) -> str | Path | Level:
        """The level to load a save onto: the save's own level when it is one of this game's level
        list (the levels TAB opens, with the running mods), else the running level. A path a save
        names that is not in the list is never opened (a downloaded save runs and reads nothing)."""
        level = tree.get("level")
        saved = level.get("path") if isinstance(level, dict) else None
        if not isinstance(saved, str) or not saved or len(saved) > 4096 or "\x00" in saved:
            return self.level_source
        for p in self.levels:
            if saved in (str(p), str(Path(p).resolve())):
                return p
        return self.level_source

    def load(self) -> None:
        """Load the quick save into a fresh simulation of its level (see `_saved_level`) with the
        running mods; a file that does not load changes nothing."""
        sim = None
        try:
            tree, extra = savegame.split(savegame.read(self.save_path))
            source = self._saved_level(tree)
            sim = self._open(source)
            sim.set_state(tree)
        except (savegame.SaveError, LevelError, OSError) as exc:
            if sim is not None:
                sim.close()
            msg = exc.lines()[0] if isinstance(exc, LevelError) else str(exc)
            self.notice(f"load failed: {printable(msg, 300)}")
            return
        self.level_source = source
        self._replace(sim)
        self._failures_seen = len(self.sim.failures)
        saved_cam = extra.get("camera")
        if isinstance(saved_cam, dict) and cam.from_dict(self.camera, saved_cam):
            cam.keep_in_reach(self.camera, self.sim.level)   # a saved camera is data: keep the pool in view
        else:
            self.home()                     # a save without a camera: the level's view, never the old level's
        self.notice(f"loaded {self.save_path} (t = {self.sim.time:.2f} s)")

    def _on_shattered(self, event: Any) -> None:
        """A break plays in slow motion for a moment (real time; the physics step is unchanged)
        and nudges the camera, more the nearer it is."""
        self.slowmo_left = SLOWMO_SECONDS
        d = float(np.linalg.norm(np.asarray(event.position, float) - self.camera.eye))
        self._shake = (self.clock(), min(NUDGE / max(d, 0.5), NUDGE))

    def camera_nudge(self) -> NDArray[np.float64]:
        """Offset (m) to draw the camera's target with now: a decaying shake after a break."""
        shake = getattr(self, "_shake", None)
        if shake is None:
            return np.zeros(3)
        t = self.clock() - shake[0]
        if t >= NUDGE_SECONDS or t < 0.0:
            return np.zeros(3)
        a = shake[1] * (1.0 - t / NUDGE_SECONDS)
        return a * np.array([math.sin(2 * math.pi * 23.0 * t), math.sin(2 * math.pi * 17.0 * t + 1.0), 0.0])

    def home(self) -> None:
        """Put the camera where the level's [camera] table puts it."""
        self.camera = OrbitCamera.from_level(self.sim.level, self.width / self.height)

    def drop_dye(self, x: float, y: float) -> bool:
        """Drop a blob of tracers where the cursor at pixel (x, y) meets the water."""
        p = self.cursor_on_water(x, y)
        if p is None:
            return False
        self.sim.get_system("Tracers").drop(float(p[0]), float(p[1]), self.rng)  # type: ignore[attr-defined]
        return True

    def _floor_point(self, x: float, y: float) -> tuple[float, float] | None:
        """(x, z) under pixel (x, y) on the mean water surface (the barriers' own tops ignored),
        inside the pool, or None."""
        p = self.cursor_on_water(x, y)
        if p is None:
            return None
        sx, sz = self.sim.level.pool.size
        if not (0.0 <= p[0] <= sx and 0.0 <= p[1] <= sz):
            return None
        return float(p[0]), float(p[1])

    def aim_at(self, x: float, y: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        _, d = self.camera.ray(x, self.height - y, self.width, self.height)
        return np.asarray(self.camera.eye, float), d

    def _grab_plane_point(self) -> NDArray[np.float64] | None:
        """Where the cursor ray meets the horizontal plane the grabbed body is dragged in."""
        if self._grab is None:
            return None
        eye, d = self.aim()
        y = self._grab[1]
        if abs(d[1]) < 1e-6:
            return None
        t = (y - eye[1]) / d[1]
        if t <= 0.0:
            return None
        p = eye + t * d
        sx, sz = self.sim.level.pool.size
        p[0] = min(max(p[0], 0.05), sx - 0.05)
        p[2] = min(max(p[2], 0.05), sz - 0.05)
        return p

    def _apply_grab(self) -> None:
        """Pull the grabbed body towards the cursor point: velocity (target - x) / GRAB_TAU, capped."""
        if self._grab is None:
            return
        e = self._grab[0]
        try:
            body = self.sim.body(e)
        except KeyError:
            self._grab = None
            return
        target = self._grab_plane_point()
        if target is None:
            return
        v = (target - np.asarray(body.position, float)) / GRAB_TAU
        s = float(np.linalg.norm(v))
        if s > GRAB_MAX_SPEED:
            v *= GRAB_MAX_SPEED / s
        body.velocity[:] = v
        body.angular_velocity[:] *= 0.9
        self._wake(e)

    def _wake(self, e: int) -> None:
        """A dragged body must not sleep: sleep[slot] = 0 wakes it (engine/bodies.py)."""
        self.sim.body_store.sleep[aim._slot(self.sim, e)] = 0.0

    def do(self, action: str) -> None:
        """Perform a key action by name (see game/controls.py)."""
        if action.startswith("pick:"):
            self.selected = int(action[5:]) % len(self.throwables)
            self.notice(f"throwing: {self.throwables[self.selected].name}")
        elif action == "pause":
            self.paused = not self.paused
            self.accumulator = 0.0
        elif action == "step":
            self.paused = True
            self.pending_steps += 1
        elif action == "slower":
            self.speed_index = max(0, self.speed_index - 1)
            self.notice(f"speed {self.speed:g}x")
        elif action == "faster":
            self.speed_index = min(len(SPEEDS) - 1, self.speed_index + 1)
            self.notice(f"speed {self.speed:g}x")
        elif action == "reset":
            self.reset()
        elif action == "next_level":
            self.next_level()
        elif action == "rain":
            self.rain()
        elif action == "save":
            self.save()
        elif action == "load":
            self.load()
        elif action == "help":
            self.show_help = not self.show_help
        elif action == "debug":
            self.debug_index = (self.debug_index + 1) % len(DEBUG_VIEWS)
            self.notice(f"debug view: {self.debug_view or 'off'}")
        elif action == "dev":
            self.show_dev = not self.show_dev
        elif action == "mute":
            self.sound.muted = not self.sound.muted
            self.notice("sound off (M turns it on)" if self.sound.muted else "sound on")
        elif action == "home":
            self.home()
            self.notice("camera: home")
        elif action.startswith("tool:"):
            tool = action[5:]
            self.tool = "throw" if self.tool == tool else tool      # the HUD's tool line says which
        elif action == "clear_barriers":
            self.barriers.clear()
            self.notice("barriers removed")
        elif action == "dye":
            self.drop_dye(*self.cursor)
        elif action == "quit":
            self.quit_requested = True

    # -- input events (pyglet signatures) --------------------------------------------------------------
    def on_key_press(self, symbol: int, modifiers: int) -> None:
        action = self._keys.get(symbol)
        if action is None:
            return
        if action.startswith("fly:"):
            self.held.add(action[4:])
        else:
            self.do(action)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        action = self._keys.get(symbol)
        if action is not None and action.startswith("fly:"):
            self.held.discard(action[4:])

    def on_mouse_motion(self, x: float, y: float, dx: float, dy: float) -> None:
        self.cursor = (x, y)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.cursor = (x, y)
        action = self._mouse.get((button, bool(modifiers & MOD_SHIFT))) or self._mouse.get((button, False))
        if self.drag_action is not None or action is None:
            return
        if action == "throw" and self.tool != "throw":
            action = self.tool
        self.drag_action = action
        if action == "throw":
            self.charging = True
            self.charge_time = 0.0
        elif action == "barrier":
            self._barrier_last = self._floor_point(x, y)
            if self._barrier_last is not None:
                self.barriers.draw_segment(self._barrier_last, self._barrier_last)
        elif action == "grab":
            t = self.aim_target()
            if t is not None and t.what == "body":
                y_plane = max(float(t.point[1]), self.surface_y + 0.15)
                self._grab = (t.entity, y_plane)
                self.notice("grabbed: drag it, release to let go")
        elif action == "push":
            self._push_last = self.cursor_on_water(x, y)
            self._push_disp[:] = 0.0
            self._push_time = 0.0

    def on_mouse_drag(self, x: float, y: float, dx: float, dy: float, buttons: int, modifiers: int) -> None:
        self.cursor = (x, y)
        if self.drag_action == "orbit":
            cam.orbit_by_drag(self.camera, dx, dy)
        elif self.drag_action == "barrier":
            p = self._floor_point(x, y)
            if p is not None:
                self.barriers.draw_segment(self._barrier_last or p, p)
            self._barrier_last = p
        elif self.drag_action == "push":
            q = self.cursor_on_water(x, y)
            if q is not None and self._push_last is not None:
                self._push_disp += q - self._push_last
            self._push_last = q

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.cursor = (x, y)
        action = self.drag_action
        if action is None:
            return
        # the button that started the drag ends it, whatever the modifiers are now
        started = [b for (b, _), a in self._mouse.items() if a == (action if action not in ("barrier", "grab") else "throw")]
        if button not in started:
            return
        self.drag_action = None
        if action == "throw" and self.charging:
            self.throw()
            self.charging = False
            self.charge_time = 0.0
        elif action == "push":
            self._push_last = None
        elif action == "barrier":
            self._barrier_last = None
        elif action == "grab":
            self._grab = None

    def on_mouse_scroll(self, x: float, y: float, scroll_x: float, scroll_y: float) -> None:
        cam.zoom_by_wheel(self.camera, scroll_y)
        cam.keep_in_reach(self.camera, self.sim.level)

    def on_resize(self, width: int, height: int) -> None:
        self.width, self.height = max(int(width), 1), max(int(height), 1)

    # -- the loop ----------------------------------------------------------------------------------
    def update(self, frame_dt: float) -> int:
        """Advance one frame of `frame_dt` real seconds; return the number of physics steps taken."""
        frame_dt = max(float(frame_dt), 0.0)
        if frame_dt > 0.0:
            self.fps = 1.0 / frame_dt if self.fps == 0.0 else 0.9 * self.fps + 0.1 / frame_dt
        if self.held:
            cam.fly(self.camera, self.held, frame_dt)
            cam.keep_in_reach(self.camera, self.sim.level)
        if self.charging:
            self.charge_time += frame_dt
        self._push_time += frame_dt
        if self.error is not None:
            return 0
        dt = self.sim.dt
        if self.paused:
            n, self.pending_steps = self.pending_steps, 0
            self.accumulator = 0.0
            self.lagging = False
        else:
            slow = SLOWMO_FACTOR if self.slowmo_left > 0.0 else 1.0
            self.slowmo_left = max(self.slowmo_left - frame_dt, 0.0)
            self.accumulator += frame_dt * self.speed * slow
            n = int(math.floor(self.accumulator / dt + 1e-9))
            self.lagging = n > MAX_STEPS_PER_FRAME
            if self.lagging:
                n = MAX_STEPS_PER_FRAME
                self.accumulator = 0.0      # let the simulation fall behind, never a larger step
            else:
                self.accumulator = max(self.accumulator - n * dt, 0.0)
        if n > 0:
            if self._push_last is not None and np.any(self._push_disp != 0.0):
                v = self._push_disp / max(self._push_time, 1e-3)   # the cursor's speed over the water
                s = float(np.linalg.norm(v))
                if s > MAX_CURSOR_SPEED:
                    v *= MAX_CURSOR_SPEED / s
                self._push = (self._push_last.copy(), v)
            self._push_disp[:] = 0.0
            self._push_time = 0.0
        taken = self._advance(n)
        self._push = None
        if taken:
            self.sound.poll_pouring()
            self.goal.update()
        self._report_failures()
        return taken

    def _advance(self, n: int) -> int:
        sim = self.sim
        for k in range(n):
            self.times.attach(sim)
            self._apply_push()
            self._apply_grab()
            self._drop_rain()
            try:
                sim.step(1)
            except SimulationError as exc:
                self._stop(f"simulation stopped: {exc} (R resets, F9 loads the quick save)")
                return k
            except Exception as exc:  # an engine bug must not kill the game either
                self._stop(f"simulation stopped: {type(exc).__name__}: {exc} (R resets, F9 loads)")
                return k
            self.times.end_step()
        return n

    def _stop(self, msg: str) -> None:
        self.paused = True
        self.error = msg
        self.pending_steps = 0

    def _apply_push(self) -> None:
        if self._push is None:
            return
        (cx, cz), (vx, vz) = self._push
        water = self.sim.water
        dx = water.dx
        r = max(PUSH_RADIUS, 3.0 * dx)
        nz, nx = water.shape
        reach = 3.0 * r
        # x faces sit at (i dx, (k + 1/2) dx), z faces at ((i + 1/2) dx, k dx)
        faces = ((water.ax, water.read("u"), vx, 0.0, 0.5), (water.az, water.read("w"), vz, 0.5, 0.0))
        for arr, vel, v, ox, oz in faces:
            nk, ni = arr.shape
            i0, i1 = max(0, int((cx - reach) / dx - ox)), min(ni, int((cx + reach) / dx - ox) + 2)
            k0, k1 = max(0, int((cz - reach) / dx - oz)), min(nk, int((cz + reach) / dx - oz) + 2)
            if i0 >= i1 or k0 >= k1:
                continue
            xs = (np.arange(i0, i1) + ox) * dx
            zs = (np.arange(k0, k1) + oz) * dx
            wgt = np.exp(-((xs[None, :] - cx) ** 2 + (zs[:, None] - cz) ** 2) / (r * r))
            arr[k0:k1, i0:i1] += PUSH_RATE * (v - vel[k0:k1, i0:i1]) * wgt

    def _drop_rain(self) -> None:
        if self.rain_left <= 0:
            return
        self.rain_left -= 1
        water = self.sim.water
        nz, nx = water.shape
        wet = np.argwhere(water.read("h") > 1e-3)
        if not len(wet):
            return
        k, i = wet[self.rng.integers(len(wet))]
        jitter = self.rng.random(2)
        x, z = (i + jitter[0]) * water.dx, (k + jitter[1]) * water.dx
        r = 1.5 * water.dx
        # a cone of height RAIN_DEPTH and radius r holds pi r^2 RAIN_DEPTH / 3
        water.add_volume(x, z, math.pi * r * r * RAIN_DEPTH / 3.0, radius=r)

    # -- views for the HUD and the renderer ------------------------------------------------------------
    def counts(self) -> dict[str, int]:
        """Live bodies by kind."""
        store = self.sim.body_store
        n = store.n
        kinds = store.kind[:n][store.alive[:n]]
        return {k: int(np.count_nonzero(kinds == i)) for i, k in enumerate(KINDS)}

    def body_alpha(self, entity: int) -> float:
        """Opacity of a body: shards past the level's max_shards fade out (engine Shatter's one cap)."""
        try:
            return self.sim.get_system("Shatter").alpha(entity)  # type: ignore[attr-defined]
        except (KeyError, AttributeError):
            return 1.0

