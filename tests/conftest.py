"""Shared fixtures. esper keeps its state in module globals: every test starts from a clean slate."""
from __future__ import annotations

import os

os.environ.setdefault("PYGLET_HEADLESS", "true")

import esper
import pytest

from engine.paths import LEVELS, ROOT


# The slowest physics cases (several seconds each even on a quiet host). They carry the `slow`
# mark: a local `make test` leaves them out, CI (`make test` with CI=true, and `make test-all`)
# runs every one. A name here whose test function no longer exists is an error, so a renamed test
# cannot quietly drop out of this list; a name without [params] marks every case of that test.
SLOW = (
    "tests/physics/test_floating.py::test_held_water_pours_past_the_pour_angle[90-1.0-True]",
    "tests/physics/test_floating.py::test_held_water_pours_past_the_pour_angle[180-0.3-True]",
    "tests/physics/test_floating.py::test_held_water_pours_past_the_pour_angle[120-0.5-True]",
    "tests/physics/test_floating.py::test_sealed_empty_bottle_floats_at_the_archimedes_draft_and_settles",
    "tests/physics/test_floating.py::test_an_open_bottle_pushed_under_fills_and_sinks",
    "tests/physics/test_floating.py::test_water_bookkeeping_through_drop_float_pour_and_shatter",
    "tests/physics/test_floating.py::test_floating_is_stable_at_any_level_dt[0.004166666666666667]",
    "tests/physics/test_floating.py::test_the_surface_rises_by_the_submerged_volume_over_the_pool_area",
    "tests/physics/test_floating.py::test_a_half_density_sphere_floats_half_submerged",
    "tests/physics/test_floating.py::test_drag_pulls_a_floating_body_up_to_the_current",
    "tests/physics/test_hydrostatics.py::test_a_floating_body_takes_the_hydrostatic_pose_and_draft",
    "tests/physics/test_hydrostatics.py::test_the_flat_box_floats_level_and_the_plank_lies_flat",
    "tests/physics/test_vorticity.py::test_eddies_behind_the_pillars_stay_alive",
    "tests/physics/test_coupling_kernels.py::test_buoyancy_is_archimedes[0.02]",
    "tests/physics/test_radial_dam_break.py::test_wet_bed_radial_dam_break_matches_the_1d_radial_solution",
    "tests/physics/test_blocking.py::test_the_river_dam_raises_the_water_behind_it_while_a_bottle_floats_down_onto_it",
    "tests/engine/test_session.py::test_a_short_session_keeps_caps_exact_water_and_flat_memory",
    "tests/engine/kernels/test_cache.py::"
    "test_a_second_cached_version_of_a_kernel_calling_a_parallel_one_loads_after_importing_the_kernels",
)


@pytest.hookimpl(tryfirst=True)   # before -m picks by mark
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the SLOW cases `slow`; fail on a SLOW name whose test function is gone."""
    wanted = {name: name.split("[", 1)[0] for name in SLOW}
    for item in items:
        base = item.nodeid.split("[", 1)[0]
        if any(item.nodeid == name or (base == name and name == stem) for name, stem in wanted.items()):
            item.add_marker(pytest.mark.slow)
    modules = {item.nodeid.split("::", 1)[0]: getattr(item, "module", None) for item in items}
    gone = [name for name, stem in wanted.items()
            if stem.split("::")[0] in modules and not hasattr(modules[stem.split("::")[0]], stem.split("::")[1])]
    if gone:
        raise pytest.UsageError(f"tests/conftest.py SLOW names tests that do not exist: {', '.join(gone)}")


@pytest.fixture(autouse=True)
def _fresh_esper():
    """Leave esper on its default world with nothing in it, before and after each test."""
    esper.switch_world("default")
    for name in list(esper.list_worlds()):
        if name != "default":
            esper.delete_world(name)
    esper.clear_database()
    yield
    esper.switch_world("default")


def _gl_window(width: int, height: int):
    """A hidden window whose GL context is current, for tests that draw. Where GL is missing the
    test is skipped with the reason, but not in CI (CI set), which must render frames headless."""
    from engine.render.context import ContextError, create_context
    try:
        return create_context(width, height, headless=os.environ.get("PYGLET_HEADLESS", "true").lower() != "false")
    except ContextError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must render frames headless: {exc}")
        pytest.skip(f"no OpenGL here: {exc}")


@pytest.fixture(scope="session")
def gl_window():
    """make(width, height): a hidden window with a current GL context, or the test skipped (failed
    in CI) where there is no OpenGL."""
    return _gl_window


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def levels_dir():
    return LEVELS


TIDE_MOD = '''from dataclasses import dataclass

from engine.levels.fields import spec
from engine.systems.base import System


@dataclass(frozen=True)
class TideSpec:
    height: float = spec("float", default=0.1, min=0.0, max=1.0)


class Tide(System):
    def process(self, dt):
        pass


def register(api):
    api.add_level_section("tide", TideSpec)
    api.add_system(Tide(), after="StepFluid")
'''


@pytest.fixture
def tide_mod():
    """A mod's source that adds a [tide] level section (height, 0-1) and a Tide system after
    StepFluid; more lines of its register(api) may be appended, indented by four spaces."""
    return TIDE_MOD
