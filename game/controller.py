"""The game: its state, levels, saves and the fixed-step loop, with no window and no GL.

Split by concern: game/input.py receives the input events, game/throwing.py aims and throws,
game/tools.py holds the mouse tools (push, rain, dye, grab); `Game` combines them.

`Game` receives pyglet-style input events (the window in game/app.py only forwards them, and tests
call them directly with synthetic events) and `update(frame_dt)` once per frame. Physics runs at the
level's fixed dt through an accumulator: a frame may take 0, 1 or several steps, at most
`MAX_STEPS_PER_FRAME`; when frames are too slow the simulation falls behind real time rather than
taking a larger step, so slow frames never change the physics.
"""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from engine.bodies import KINDS
from engine.errors import SimulationError
from engine.levels import Level, LevelError
from engine.paths import DEFAULT_LEVEL, LEVELS
from engine.render.camera import OrbitCamera
from engine.text import printable
from engine.world import Simulation
from game import camera as cam
from game import savegame
from game.controls import key_actions, mouse_actions
from game.input import DEBUG_VIEWS, SPEEDS, Input
from game.throwing import (CHARGE_TIME, MAX_SPEED, MIN_SPEED, SPAWN_AHEAD, SPIN, Throwable,  # noqa: F401
                           Throwing, launch, quat_from_to, spin_for, throwables_for, trajectory)
from game.tools import (GRAB_MAX_SPEED, GRAB_TAU, MAX_CURSOR_SPEED, PUSH_RADIUS, PUSH_RATE, RAIN_DEPTH,  # noqa: F401
                        RAIN_DROPS, Tools)


SLOWMO_SECONDS = 0.6     # real seconds of slow motion after a bottle breaks
SLOWMO_FACTOR = 0.3      # simulated seconds per real second meanwhile
NUDGE = 0.03             # m: the camera shake of a break 1 m away (less further off, at most this)
NUDGE_SECONDS = 0.25     # s the shake takes to die out

MAX_STEPS_PER_FRAME = 8
MESSAGE_SECONDS = 4.0


class Game(Throwing, Tools, Input):
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
        self.sim.on(ev.FellOff, self._on_fell_off)
        self.thrown_names = {}
        self.throwables = throwables_for(self.sim)
        wet = self.sim.water.read("h") > 1e-6
        eta = self.sim.water.eta
        self.surface_y = float(eta[wet].mean()) if wet.any() else float(self.sim.level.water.level)
        self.rng = np.random.default_rng(self.sim.level.seed + 1)   # the game's own: rain positions
        # the water at the level's start: what is here less what declared sources and outflows have
        # added since (source_volume, restored with a save), so F9 keeps counting from the start
        self.start_volume = self.sim.total_water() - self.sim.water.source_volume
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

    def _on_fell_off(self, event: Any) -> None:
        """Say so when a bottle or a prop goes over the deck's edge (shards go quietly)."""
        name = self.thrown_names.pop(event.entity, None)
        if event.kind == "shard":
            return
        if name is None:       # a level's body: its model's name ("crate"; a sphere's model is "sphere 0.06")
            name = "bottle" if event.kind == "bottle" else event.model.split(" ")[0].replace("_", " ")
        self.notice(f"the {name} fell off the edge of the deck" + (" with its water" if event.lost_volume > 0 else ""))

    def _on_shattered(self, event: Any) -> None:
        """A break plays in slow motion for a moment (real time; the physics step is unchanged)
        and nudges the camera, more the nearer it is."""
        self.thrown_names.pop(event.entity, None)
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

