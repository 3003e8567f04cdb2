"""Start-up: the warm-up reaches every kernel the game can reach; progress is reported per group."""
from __future__ import annotations

import importlib
import pkgutil

import numpy as np

from engine import warmup
from game.controls import KEY_SYMBOLS, MOUSE_BUTTONS


KERNEL_PACKAGES = ("engine.kernels", "engine.water")   # every module of the engine that holds @njit kernels


def _signatures() -> dict[str, set]:
    """Every numba dispatcher in the modules of KERNEL_PACKAGES with the type signatures it has
    compiled or loaded."""
    out: dict[str, set] = {}
    for package in KERNEL_PACKAGES:
        pkg = importlib.import_module(package)
        for info in pkgutil.iter_modules(pkg.__path__):
            mod = importlib.import_module(f"{package}.{info.name}")
            for name, obj in vars(mod).items():
                if hasattr(obj, "signatures") and hasattr(obj, "py_func"):
                    out[f"{mod.__name__}.{name}"] = set(obj.signatures)
    return out


def test_the_kernel_packages_hold_every_kernel():
    """No @njit kernel of engine/ or game/ (benches aside) lies outside KERNEL_PACKAGES, where the
    play test below would not see it compile."""
    from engine.paths import ROOT
    outside = []
    for path in sorted((ROOT / "engine").rglob("*.py")) + sorted((ROOT / "game").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        dotted = ".".join(rel.parts)
        if dotted.startswith(KERNEL_PACKAGES) or dotted.startswith("engine.bench"):
            continue
        if "@njit" in path.read_text() or "@jit" in path.read_text():
            outside.append(dotted)
    assert not outside, f"kernels outside {KERNEL_PACKAGES}: {outside}"


def test_after_the_warm_up_playing_compiles_nothing_new(tmp_path):
    """Warm, then play the shooting gallery: throw each of the four throwables, break a bottle,
    pour an open one, drop dye, draw a barrier (directly and with the tool), stand a heavy box on
    the bed (a blocker), rain, push the water, grab a body, quick save and load. No kernel gains a
    type signature (each new one would be a compile or a cache load in the middle of the game)."""
    warmup.warm(None)
    before = _signatures()
    from engine.paths import LEVELS
    from game.controller import Game
    game = Game(LEVELS / "shooting_gallery.toml", width=640, height=360, save_path=tmp_path / "q.npz",
                entry_points=False, levels=[])
    left = MOUSE_BUTTONS["LEFT"]
    for k, key in enumerate(("_1", "_2", "_3", "_4")):
        game.on_key_press(KEY_SYMBOLS[key], 0)
        game.on_mouse_press(250 + 40 * k, 200, left, 0)
        game.update(0.2)
        game.on_mouse_release(250 + 40 * k, 200, left, 0)
    game.sim.shatter(game.sim.bodies("bottle")[0])
    game.sim.spawn_bottle((2.0, 0.7, 1.0), orientation=(0.0, 1.0, 0.0, 0.0), fill=1.0, sealed=False)
    game.on_mouse_motion(320, 150, 0, 0)
    game.on_key_press(KEY_SYMBOLS["Y"], 0)
    game.barriers.draw_segment((1.0, 0.5), (1.5, 0.5))
    game.sim.spawn_body("box", 2600.0, (3.0, 0.1, 1.5), size=(0.3, 0.2, 0.3))   # 47 kg: stands solid
    for _ in range(20):
        game.update(0.03)
    right = MOUSE_BUTTONS["RIGHT"]
    game.on_key_press(KEY_SYMBOLS["T"], 0)                      # rain
    game.on_mouse_press(300, 150, right, 0)                     # push the water
    for k in range(4):
        game.on_mouse_drag(300 + 15 * k, 150, 15, 0, right, 0)
        game.update(0.03)
    game.on_mouse_release(360, 150, right, 0)
    game.on_key_press(KEY_SYMBOLS["B"], 0)                      # the barrier tool
    game.on_mouse_press(200, 120, left, 0)
    game.on_mouse_drag(260, 120, 60, 0, left, 0)
    game.on_mouse_release(260, 120, left, 0)
    game.on_key_press(KEY_SYMBOLS["G"], 0)                      # the grab tool, on the first body it meets
    for x in range(100, 600, 20):
        game.on_mouse_press(x, 200, left, 0)
        if game._grab is not None:
            break
        game.on_mouse_release(x, 200, left, 0)
    assert game._grab is not None, "no body under the cursor to grab"
    for k in range(4):
        game.on_mouse_drag(x + 10 * k, 200, 10, 0, left, 0)
        game.update(0.03)
    game.on_mouse_release(x + 30, 200, left, 0)
    assert game.sim.get_system("CoupleWater").blockers.blocking.any(), "the box does not stand solid"
    game.on_key_press(KEY_SYMBOLS["F5"], 0)                     # quick save, quick load
    game.on_key_press(KEY_SYMBOLS["F9"], 0)
    for _ in range(20):
        game.update(0.03)
    assert game.error is None, game.error                       # the play ran to the end
    after = _signatures()
    new = {k: after[k] - before.get(k, set()) for k in after if after[k] - before.get(k, set())}
    assert not new, f"kernels first reached in play: {new}"
    game.sim.close()


def test_preparation_reports_progress_and_keeps_going_past_a_failed_group():
    from game.loading import Preparation
    ran = []

    def ok() -> None:
        ran.append("ok")

    def bad() -> None:
        raise RuntimeError("no compiler")

    groups = (warmup.Group("first", ok), warmup.Group("broken", bad), warmup.Group("last", ok))
    clock = iter(np.arange(0.0, 100.0, 0.5))
    prep = Preparation(groups, clock=lambda: float(next(clock)))
    assert prep.fraction == 0.0 and "preparing physics" in prep.lines()[0] and "(1/3)" in prep.lines()[1]
    prep.run_inline()
    assert prep.finished and prep.fraction == 1.0 and ran == ["ok", "ok"]
    assert len(prep.errors) == 1 and "broken" in prep.errors[0] and "no compiler" in prep.errors[0]
    assert "ready" in prep.lines()[1]


def test_bottles_warm_prints_a_line_per_group(monkeypatch, capsys):
    from game.cli import main
    groups = (warmup.Group("alpha", lambda: None), warmup.Group("beta", lambda: None))
    monkeypatch.setattr(warmup, "GROUPS", groups)
    assert main(["warm"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any("[1/2] alpha" in line for line in out) and any("[2/2] beta" in line for line in out)
