"""The sim.water API other systems rely on: live arrays, sources, velocity probe, forces, errors."""
from __future__ import annotations

import numba
import numpy as np
import pytest

from engine.errors import SimulationError
from engine.kernels import jit
from engine.levels.schema import Boundary, BumpSpec, Level, PoolSpec, SideSpec, WaterSpec
from engine.water import WaterGrid
from engine.world import Simulation

DT = 1.0 / 120.0


def _level(**water) -> Level:
    return Level(pool=PoolSpec(size=(1.0, 0.6), cell=0.05, wall_height=0.5), water=WaterSpec(level=0.2, **water))


def test_from_level_builds_a_staggered_grid_filled_to_the_level():
    grid = WaterGrid.from_level(_level(bumps=(BumpSpec(center=(0.5, 0.3), radius=0.1, height=0.02),)))
    assert grid.shape == (12, 20)
    assert grid.u.shape == (12, 21) and grid.w.shape == (13, 20)
    assert grid.ax.shape == grid.u.shape and grid.az.shape == grid.w.shape
    assert grid.h.dtype == np.float64 and grid.h.flags.writeable
    assert 0.21 < grid.eta.max() <= 0.22                 # the bump's peak falls between cell centres
    assert grid.eta.min() == pytest.approx(0.2)
    assert grid.volume() == pytest.approx(float(grid.h.sum()) * 0.05 ** 2)


def test_h_is_live_between_steps_and_keeps_its_identity():
    grid = WaterGrid.from_level(_level())
    h = grid.h
    h[3, 4] += 0.01
    for _ in range(5):
        grid.step(DT)
    assert grid.h is h
    assert abs(grid.u).max() > 0.0        # the poke made waves


def test_arrays_are_live_and_read_gives_read_only_views():
    grid = WaterGrid.from_level(_level())
    view = grid.read("h")
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 1.0
    grid.ax[2, 3] = 1.0
    grid.step(DT)
    assert grid.read("u")[2, 3] > 0.0
    with pytest.raises(KeyError, match="its arrays are h, bed, u, w, ax, az"):
        grid.read("eta")


def test_damp_scales_the_velocities_as_numpy_would():
    grid = WaterGrid.from_level(_level(bumps=(BumpSpec(center=(0.5, 0.3), radius=0.1, height=0.02),)))
    for _ in range(10):
        grid.step(DT)
    u, w = grid.read("u").copy(), grid.read("w").copy()
    grid.damp(0.75)
    np.testing.assert_array_equal(grid.read("u"), u * np.float32(0.75))
    np.testing.assert_array_equal(grid.read("w"), w * np.float32(0.75))
    with pytest.raises(ValueError, match="factor in"):
        grid.damp(1.5)


def test_add_volume_spreads_water_and_counts_it():
    grid = WaterGrid.from_level(_level())
    v0 = grid.volume()
    moved = grid.add_volume(0.5, 0.3, 1e-4, radius=0.1)
    assert moved == pytest.approx(1e-4)
    assert grid.volume() == pytest.approx(v0 + 1e-4)
    assert grid.source_volume == pytest.approx(1e-4)
    # removal stops where the cells run dry
    moved = grid.add_volume(0.5, 0.3, -1.0, radius=0.1)
    assert -1.0 < moved < 0.0
    assert (grid.h >= 0.0).all()


def test_sources_pour_until_removed_and_drains_stop_when_dry():
    grid = WaterGrid.from_level(_level())
    v0 = grid.volume()
    handle = grid.add_source(0.5, 0.3, 0.1, 2e-3)
    for _ in range(60):
        grid.step(DT)
    assert grid.volume() == pytest.approx(v0 + 60 * DT * 2e-3, rel=1e-9)
    grid.remove_source(handle)
    with pytest.raises(KeyError, match="no water source"):
        grid.remove_source(handle)
    v1 = grid.volume()
    grid.step(DT)
    assert grid.volume() == pytest.approx(v1, rel=1e-12)
    drain = grid.add_source(0.5, 0.3, 0.2, -1.0)    # far more than the pool holds per step
    for _ in range(240):
        grid.step(DT)
    assert (grid.h >= 0.0).all()
    assert grid.volume() == pytest.approx(v0 + grid.source_volume, rel=1e-6)
    grid.remove_source(drain)


def test_water_far_below_round_off_of_the_depth_keeps_its_volume():
    """Depths are float64 and move in flux form: a nanometre added everywhere is still there."""
    grid = WaterGrid.from_level(_level(bumps=(BumpSpec(center=(0.4, 0.3), radius=0.2, height=0.05),)))
    grid.step(DT)
    v0 = grid.volume()
    grid.h += 1e-9
    for _ in range(50):
        grid.step(DT)
    assert grid.volume() - v0 == pytest.approx(1e-9 * grid.h.size * grid.dx ** 2, rel=1e-4)


def test_filling_past_a_metre_keeps_the_volume():
    grid = WaterGrid.from_level(_level())
    v0 = grid.volume()
    tap = grid.add_source(0.5, 0.3, 0.2, 0.8)     # 0.8 m^3/s into a 1 m x 0.6 m pool
    for _ in range(120):
        grid.step(DT)
    grid.remove_source(tap)
    assert grid.h.max() > 1.0
    for _ in range(30):
        grid.step(DT)
    assert grid.volume() == pytest.approx(v0 + grid.source_volume, rel=1e-12)


def test_velocity_at_interpolates_the_faces():
    grid = WaterGrid.from_level(_level())
    grid.u[:] = 0.3
    grid.w[:] = -0.1
    assert grid.velocity_at(0.42, 0.31) == pytest.approx((0.3, -0.1))
    grid.u[:] = np.arange(grid.u.shape[1]) * grid.dx   # u = x on the faces
    assert grid.velocity_at(0.42, 0.31)[0] == pytest.approx(0.42)


def test_external_acceleration_tilts_the_surface_and_is_cleared_each_step():
    grid = WaterGrid.from_level(_level())
    for _ in range(120):
        grid.ax[:] = 1.0                                # a steady wind along +x
        grid.step(DT)
    assert not grid.ax.any() and not grid.az.any()
    eta = grid.eta
    assert eta[:, -1].mean() > eta[:, 0].mean() + 0.005  # water piles up downwind
    nz = grid.h.shape[0]
    grid.ax[2:4, 3:5] = 0.5                             # a poke in a few rows, and on the far wall row
    grid.az[nz, 1] = -0.5
    grid.ax[0, 0] = -0.0                                # a negative zero is cleared too
    grid.step(DT)
    assert not grid.ax.any() and not grid.az.any() and not np.signbit(grid.ax).any()


def test_inflow_side_pours_its_rate_and_outflow_drains_to_its_level():
    inflow = Boundary(x_min=SideSpec("inflow", rate=1e-3))
    grid = WaterGrid.from_level(_level(boundary=inflow))
    v0 = grid.volume()
    for _ in range(120):
        grid.step(DT)
    assert grid.source_volume == pytest.approx(1e-3)
    assert grid.volume() == pytest.approx(v0 + 1e-3, rel=1e-9)

    outflow = Boundary(x_max=SideSpec("outflow", level=0.15))
    grid = WaterGrid.from_level(_level(boundary=outflow))
    for _ in range(1200):
        grid.step(DT)
    assert grid.eta.mean() == pytest.approx(0.15, abs=0.01)
    assert grid.source_volume < 0.0


def test_non_finite_water_stops_with_the_cell_and_time():
    sim = Simulation(_level())
    sim.step(3)
    sim.water.h[4, 7] = np.nan
    with pytest.raises(SimulationError, match=r"NaN or infinite at cell \(k=4, i=7\), x=0\.375 m, z=0\.225 m, t=0\.025"):
        sim.step()


def test_runaway_flow_stops_with_a_clear_error():
    grid = WaterGrid.from_level(_level())
    with pytest.raises(SimulationError, match=r"ran away at cell \(k=\d+, i=\d+\)"):
        for _ in range(50):
            grid.ax[:] = 1e9
            grid.step(DT)


def test_deep_fast_water_takes_cfl_substeps_instead_of_blowing_up():
    level = Level(pool=PoolSpec(size=(1.0, 1.0), cell=0.02, wall_height=10.0),
                  water=WaterSpec(level=5.0, bumps=(BumpSpec(center=(0.5, 0.5), radius=0.2, height=1.0),)))
    grid = WaterGrid.from_level(level)
    v0 = grid.volume()
    for _ in range(60):
        grid.step(DT)
    # sqrt(g h) >= 7 m/s on 2 cm cells: CFL 0.6 allows under 1.8 ms, so a 1/120 s step takes >= 5 substeps
    assert grid.substeps >= 5
    assert np.isfinite(grid.h).all() and grid.volume() == pytest.approx(v0, rel=1e-9)


def test_a_real_compile_is_announced_and_a_cached_call_is_not(capsys):
    """numba broadcasts "numba:compile" only on a real compile; the listener turns a burst of
    them into one opening and one closing line."""
    announcer = jit.watch()
    assert jit.watch() is announcer                     # registered once per process
    announcer.flush()
    capsys.readouterr()

    @numba.njit(cache=False)
    def fresh(x):                                       # defined here: never compiled before
        return x + 1

    assert fresh(1) == 2 and fresh(2) == 3              # compiles once, then runs compiled
    announcer.flush()                                   # the closing line now, not QUIET s later
    err = capsys.readouterr().err
    assert err.count("compiling physics kernels") == 1 and err.count("compiled physics kernels in") == 1
    fresh(3)
    announcer.flush()
    assert capsys.readouterr().err == ""                # already compiled: nothing to say


def test_compiles_close_together_are_one_announcement(capsys):
    announcer = jit.CompileAnnouncer(quiet=60.0)
    for _ in range(3):                                  # three kernels, one compiling another inside it
        announcer.on_start(None)
        announcer.on_start(None)
        announcer.on_end(None)
        announcer.on_end(None)
    announcer.flush()
    err = capsys.readouterr().err
    assert err.count("compiling physics kernels") == 1 and err.count("compiled physics kernels in") == 1


def test_thread_count_does_not_change_a_single_bit(monkeypatch):
    import numba

    from engine.water import schedule

    monkeypatch.setattr(schedule, "PARALLEL_MIN_CELLS", 0)    # let even this small grid take the fast traversal
    results = []
    threads = numba.get_num_threads()
    for n in sorted({1, 2, threads}):
        if n > numba.config.NUMBA_NUM_THREADS:
            continue
        numba.set_num_threads(n)
        try:
            for scheduler in (schedule.Scheduler(), None):   # the scheduler's choice, or plain without one
                grid = WaterGrid.from_level(_level(bumps=(BumpSpec(center=(0.3, 0.3), radius=0.2, height=0.05),)))
                for _ in range(30):
                    grid.ax[2:6, 3:9] = 2.0
                    grid.step(DT, 0.0, scheduler)
                results.append((grid.h.tobytes(), grid.u.tobytes(), grid.w.tobytes()))
                if scheduler is not None:   # the timings live in the stepping side's scheduler
                    assert scheduler.steps == 30
                    assert (len(scheduler.pace[True]) > 0) == (n > 1)
        finally:
            numba.set_num_threads(threads)
    assert all(r == results[0] for r in results)


def test_small_grids_step_on_one_thread_and_large_ones_on_threads():
    from engine.water import schedule

    assert not schedule.parallel(128 * 96)          # every shipped level: the plain traversal
    assert schedule.parallel(512 * 512) == (numba.get_num_threads() > 1)


def test_large_grids_keep_whichever_traversal_was_timed_faster():
    """On a machine whose cores are all busy a threaded sweep waits for its workers: the schedule
    times both traversals and keeps the faster, re-timing the other now and then (the bits are the
    same either way, see tests/engine/kernels/test_shallow_water.py)."""
    from engine.water import schedule

    s = schedule.Scheduler()
    assert s._choose() is True                  # the threaded one is timed first ...
    s.pace[True] = [1.5e-3] * schedule.PROBE_STEPS
    assert s._choose() is False                 # ... then the plain one
    s.pace[False] = [1e-3] * schedule.PROBE_STEPS       # plain faster (a busy machine)
    s.steps = schedule.PROBE_STEPS + 1
    assert s._choose() is False
    s.steps = schedule.PROBE_EVERY                      # now and then the other is re-timed
    assert s._choose() is True
    s.pace[True] = [9e-3] * schedule.PROBE_STEPS        # far slower: re-timed PROBE_SPARSE times less often
    assert s._choose() is False
    s.steps = schedule.PROBE_EVERY * schedule.PROBE_SPARSE
    assert s._choose() is True
