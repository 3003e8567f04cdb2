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
from engine.levels import Level, LevelError, load_level
from engine.levels.features import ThrowableSpec
from engine.paths import DEFAULT_LEVEL, LEVELS
from engine.render.camera import OrbitCamera
from engine.systems.base import System
from engine.world import Simulation
from game import camera as cam
from game import savegame
from game.controls import MOD_SHIFT, key_actions, mouse_actions

# Throwing: launch speed grows linearly with the time the left button is held.
MIN_SPEED = 2.0          # m/s, a tap
MAX_SPEED = 14.0         # m/s, fully charged
CHARGE_TIME = 1.2        # s of holding for full power
SPIN = (2.0, 8.0)        # rad/s end-over-end spin, at no charge and at full charge
SPAWN_AHEAD = 0.5        # m in front of the camera where a thrown body appears

# Pushing the water: faces under the cursor relax towards the cursor's velocity.
PUSH_RATE = 12.0         # 1/s, how fast the water near the cursor takes up the cursor's velocity
PUSH_RADIUS = 0.12       # m, Gaussian radius of the push (at least 3 cells)
MAX_CURSOR_SPEED = 4.0   # m/s, the fastest the cursor drags the water

RAIN_DROPS = 60          # drops per press of the rain key, one per step
RAIN_DEPTH = 0.01        # m, height of the little mound each drop makes

MAX_STEPS_PER_FRAME = 8
SPEEDS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0)
DEBUG_VIEWS: tuple[str | None, ...] = (None, "depth", "velocity", "bounds")
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
    try:
        from engine.mods import throwables
        specs = throwables(sim)
    except ImportError:
        specs = list(sim.level.throwables)
    objects = [t for t in specs if t.kind == "object"]
    if objects:
        heavy = objects[0]
    return [Throwable("empty sealed bottle", 0.0, True), Throwable("full bottle", 1.0, True),
            Throwable("open bottle", 0.0, False), Throwable(heavy.name, obj=heavy)]


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


class FadeShards(System):
    """Past `physics.max_shards`, fade the oldest shards out over FADE_SECONDS, then remove them.

    Entity ids grow with creation, so the oldest shards are those with the smallest ids.
    Reads: BodyRef, BodyStore.kind. Writes: entities (removes shards). Emits: nothing.
    """

    FADE_SECONDS = 0.5

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        self.fading: dict[int, float] = {}   # entity -> simulated time its fade began
        self._shard = KINDS.index("shard") if "shard" in KINDS else -1

    def process(self, dt: float) -> None:
        sim = self.sim
        limit = sim.level.physics.max_shards
        store = sim.body_store
        n = store.n
        count = int(np.count_nonzero((store.kind[:n] == self._shard) & store.alive[:n]))
        if count <= limit and not self.fading:
            return
        shards = sim.bodies("shard")
        live = set(shards)
        self.fading = {e: t for e, t in self.fading.items() if e in live}
        over = len(shards) - limit - len(self.fading)
        for e in shards:
            if over <= 0:
                break
            if e not in self.fading:
                self.fading[e] = sim.time
                over -= 1
        for e, t0 in list(self.fading.items()):
            if sim.time - t0 >= self.FADE_SECONDS - 1e-12:
                sim.remove_body(e)
                del self.fading[e]

    def alpha(self, entity: int) -> float:
        """Opacity of a body for drawing: 1, falling to 0 while it fades out."""
        t0 = self.fading.get(entity)
        if t0 is None:
            return 1.0
        return max(0.0, 1.0 - (self.sim.time - t0) / self.FADE_SECONDS)

    def state(self) -> dict[str, NDArray]:
        ids = sorted(self.fading)
        return {"entities": np.array(ids, np.int64), "started": np.array([self.fading[e] for e in ids], np.float64)}

    def set_state(self, state: dict[str, NDArray]) -> None:
        self.fading = {int(e): float(t) for e, t in zip(state["entities"], state["started"])}


class Game:
    """The sandbox's state and input handling. Coordinates are pyglet's: pixels, y up from the bottom."""

    def __init__(self, level: str | Path | Level | None = None, *, mod_paths: tuple[str, ...] | list[str] = (),
                 width: int = 1280, height: int = 720, save_path: str | Path | None = None,
                 levels: list[Path] | None = None, entry_points: bool = True,
                 clock: Callable[[], float] = time.perf_counter, level_mods: bool = False) -> None:
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
        self.debug_index = 0
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
            try:
                from engine.mods import open_level
            except ImportError:  # an engine without mods
                sim = Simulation.from_level(source)
            else:
                sim = open_level(source, self.mod_paths, entry_points=self.entry_points,
                                 level_mods=self.level_mods)
        if "FadeShards" not in sim.system_names():
            after = "Shatter" if "Shatter" in sim.system_names() else None
            sim.add_system(FadeShards(), after=after)
        return sim

    def _after_open(self) -> None:
        from game.hud import SystemTimes
        self.times = SystemTimes()
        self.times.attach(self.sim)
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
        self.notice(f"reset: {self.sim.level.name}")

    def next_level(self) -> None:
        """Open the next bundled level (skipping broken ones, with a message)."""
        if not self.levels:
            self.notice("no bundled levels found")
            return
        current = Path(self.level_source).resolve() if not isinstance(self.level_source, Level) else None
        paths = [Path(p).resolve() for p in self.levels]
        start = paths.index(current) if current in paths else -1
        for k in range(1, len(paths) + 1):
            path = paths[(start + k) % len(paths)]
            try:
                sim = self._open(path)
            except LevelError as exc:
                self.notice(exc.lines()[0] if exc.lines() else str(exc))
                continue
            self.level_source = path
            self._replace(sim)
            self.camera = OrbitCamera.from_level(self.sim.level, self.width / self.height)
            self.notice(f"level: {self.sim.level.name} ({path.name})")
            return

    # -- messages ----------------------------------------------------------------------------------
    def notice(self, text: str) -> None:
        """Show a one-line message in the HUD for a few seconds."""
        self.messages.append((text, self.clock() + MESSAGE_SECONDS))
        del self.messages[:-6]

    def current_messages(self) -> list[str]:
        now = self.clock()
        self.messages = [(t, until) for t, until in self.messages if until > now]
        return [t for t, _ in self.messages]

    def _report_failures(self) -> None:
        fails = self.sim.failures
        for msg in fails[self._failures_seen:]:
            self.notice(msg)
        self._failures_seen = len(fails)

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

    def throw_preview(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Spawn point, velocity and angular velocity a throw released now would have."""
        eye, d = self.aim()
        v, w = launch(d, self.charge)
        return eye + SPAWN_AHEAD * d, v, w

    def predicted_arc(self) -> NDArray[np.float64]:
        """World points of the predicted flight of the current throw (no drag), to the water."""
        p, v, _ = self.throw_preview()
        return trajectory(p, v, self.sim.gravity, self.surface_y)

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
        """Throw the selected body along the aim with the current charge; return its entity id."""
        p, v, w = self.throw_preview()
        _, d = self.aim()
        item = self.throwables[self.selected]
        sim = self.sim
        if item.obj is None:
            q = quat_from_to(np.array([0.0, 1.0, 0.0]), d)   # neck first
            e = sim.spawn_bottle(p, v, w, q, fill=item.fill, sealed=item.sealed)
        else:
            if not hasattr(sim, "spawn_body"):
                self.notice("this engine build cannot spawn objects yet (no Simulation.spawn_body)")
                return None
            from engine.levels.setup import body_arguments, call_spawn_body
            kw = body_arguments(sim.level, item.obj)
            kw.update(position=tuple(p), velocity=tuple(v), angular_velocity=tuple(w),
                      orientation=(1.0, 0.0, 0.0, 0.0))
            e = call_spawn_body(sim, **kw)
        self.last_throw = e
        return e

    def rain(self) -> None:
        self.rain_left += RAIN_DROPS
        self.notice("rain")

    def save(self) -> None:
        try:
            path, warnings = savegame.save(self.sim, self.save_path)
        except savegame.SaveError as exc:
            self.notice(f"save failed: {exc}")
            return
        self.notice(f"saved to {path}")
        for w in warnings[:3]:
            self.notice(f"not saved: {w}")

    def load(self) -> None:
        """Load the quick save into a fresh simulation of the running level with the running mods
        (never the save's own level path or mods); a file that does not load changes nothing."""
        sim = None
        try:
            tree = savegame.read(self.save_path)
            sim = self._open(self.level_source)
            sim.set_state(tree)
        except (savegame.SaveError, LevelError, OSError) as exc:
            if sim is not None:
                sim.close()
            msg = exc.lines()[0] if isinstance(exc, LevelError) else str(exc)
            self.notice(f"load failed: {msg}")
            return
        self._replace(sim)
        self._failures_seen = len(self.sim.failures)
        self.notice(f"loaded {self.save_path} (t = {self.sim.time:.2f} s)")

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
        self.drag_action = action
        if action == "throw":
            self.charging = True
            self.charge_time = 0.0
        elif action == "push":
            self._push_last = self.cursor_on_water(x, y)
            self._push_disp[:] = 0.0
            self._push_time = 0.0

    def on_mouse_drag(self, x: float, y: float, dx: float, dy: float, buttons: int, modifiers: int) -> None:
        self.cursor = (x, y)
        if self.drag_action == "orbit":
            cam.orbit_by_drag(self.camera, dx, dy)
        elif self.drag_action == "push":
            p = self.cursor_on_water(x, y)
            if p is not None and self._push_last is not None:
                self._push_disp += p - self._push_last
            self._push_last = p

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> None:
        self.cursor = (x, y)
        action = self.drag_action
        if action is None:
            return
        # the button that started the drag ends it, whatever the modifiers are now
        started = [b for (b, _), a in self._mouse.items() if a == action]
        if button not in started:
            return
        self.drag_action = None
        if action == "throw" and self.charging:
            self.throw()
            self.charging = False
            self.charge_time = 0.0
        elif action == "push":
            self._push_last = None

    def on_mouse_scroll(self, x: float, y: float, scroll_x: float, scroll_y: float) -> None:
        cam.zoom_by_wheel(self.camera, scroll_y)

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
            self.accumulator += frame_dt * self.speed
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
        self._report_failures()
        return taken

    def _advance(self, n: int) -> int:
        sim = self.sim
        for k in range(n):
            self.times.attach(sim)
            self._apply_push()
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
        try:
            return self.sim.get_system("FadeShards").alpha(entity)  # type: ignore[attr-defined]
        except KeyError:
            return 1.0

    def state_summary(self) -> dict[str, Any]:
        return {"time": self.sim.time, "steps": self.sim.steps, "paused": self.paused, "speed": self.speed}
