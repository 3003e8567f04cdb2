"""What the Game's parts (game/throwing.py, game/tools.py, game/input.py) use of the Game they are part of.

`Game` (game/controller.py) is `Game(Throwing, Tools, Input)`; each part reads and sets the Game's
state and calls the other parts' methods. `GameHost` is their common base: it declares that state
(set in Game.__init__ and Game._after_open) and those methods, so the type checker checks every
use in the parts against one declaration, and each definition (in Game or a part) against it.

It adds nothing at run time: the attributes are annotations only, and the methods are declared
only for the type checker (a real definition in Game or a part is always found first: GameHost
comes after all the parts in Game's method resolution order).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from engine.render.camera import OrbitCamera
    from engine.world import Simulation
    from game.aim import Target
    from game.barriers import Barriers
    from game.goals import GoalTracker
    from game.sound import SoundEvents
    from game.throwing import Throwable


class GameHost:
    """The Game's state and methods its parts use (see the module docstring)."""

    # the world and the view
    sim: Simulation
    camera: OrbitCamera
    width: int
    height: int
    surface_y: float                     # m: the mean water surface, where the cursor meets the water
    rng: np.random.Generator             # the game's own generator (rain positions)
    barriers: Barriers
    goal: GoalTracker
    sound: SoundEvents
    # time
    paused: bool
    speed_index: int
    accumulator: float
    pending_steps: int
    # input state
    _keys: dict[int, str]
    _mouse: dict[tuple[int, bool], str]
    cursor: tuple[float, float]
    held: set[str]
    drag_action: str | None
    selected: int
    throwables: list[Throwable]
    charging: bool
    charge_time: float
    last_throw: int | None
    thrown_names: dict[int, str]                                     # entity -> what was thrown ("stone ball")
    # tools
    tool: str
    rain_left: int
    _grab: tuple[int, float] | None                                  # (entity, height of its drag plane)
    _barrier_last: tuple[float, float] | None
    _push_last: NDArray[np.float64] | None
    _push_disp: NDArray[np.float64]
    _push_time: float
    _push: tuple[NDArray[np.float64], NDArray[np.float64]] | None    # ((x, z), (vx, vz)) this step
    # display
    show_help: bool
    show_dev: bool
    debug_index: int
    quit_requested: bool

    if TYPE_CHECKING:
        # Game (game/controller.py)
        @property
        def speed(self) -> float: ...
        @property
        def debug_view(self) -> str | None: ...
        def notice(self, text: str) -> None: ...
        def reset(self) -> None: ...
        def next_level(self) -> None: ...
        def save(self) -> None: ...
        def load(self) -> None: ...
        def home(self) -> None: ...

        # Throwing (game/throwing.py)
        def aim(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
        def aim_target(self) -> Target | None: ...
        def throw(self) -> int | None: ...

        # Tools (game/tools.py)
        def cursor_on_water(self, x: float, y: float) -> NDArray[np.float64] | None: ...
        def rain(self) -> None: ...
        def drop_dye(self, x: float, y: float) -> bool: ...
        def _floor_point(self, x: float, y: float) -> tuple[float, float] | None: ...
