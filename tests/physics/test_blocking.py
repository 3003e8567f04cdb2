"""Bodies that block the flow (Kellomaki 2014): solid columns, volume moved aside, never lost."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import Simulation
from engine.blocking import SolidColumns
from engine.kernels import blocking as kb
from engine.levels import load_level, parse_level

LEVELS = Path(__file__).resolve().parents[2] / "content" / "levels"


def still_pool(extra: str = "") -> Simulation:
    return Simulation(parse_level("[pool]\nsize = [1.5, 1.0]\ncell = 0.05\nwall_height = 0.8\n"
                                  f"[water]\nlevel = 0.2\ndamping = 0.0\n{extra}"))


def test_set_columns_moves_the_covered_water_to_the_nearest_free_wet_columns():
    """sum h is unchanged; the covered columns keep only the water above their new bed; the moved
    water lands on the ring of free wet columns nearest each covered one."""
    rng = np.random.default_rng(4)
    h = rng.uniform(0.05, 0.1, (12, 14))
    h[:, 0] = 0.0                                        # a dry strip: wet columns are preferred
    terrain = np.zeros_like(h)
    bed = terrain.copy()
    u, w = np.zeros((12, 15), np.float32), np.zeros((13, 14), np.float32)
    tops = np.full_like(h, -np.inf)
    tops[5:7, 1:4] = 0.08                                # a low block: water above 0.08 stays on it
    before = h.copy()
    moved = kb.set_columns(h, bed, u, w, terrain, tops, 14)
    assert h.sum() == pytest.approx(before.sum(), rel=1e-14)
    covered = tops > terrain
    assert np.array_equal(bed[covered], tops[covered]) and not bed[~covered].any()
    assert np.allclose(h[covered], np.maximum(0.0, before[covered] - 0.08))
    assert moved == pytest.approx((before - h)[covered].sum(), rel=1e-12)
    gained = (h - before) * ~covered
    assert gained[:, 0].sum() == 0.0                    # the dry strip took nothing
    assert set(zip(*np.nonzero(gained))) <= {(k, i) for k in range(4, 8) for i in range(0, 5)}


def test_a_heavy_block_dropped_in_a_pool_stands_as_solid_columns_and_moves_its_volume_aside():
    """A 0.3 m concrete cube (65 kg > block_mass, sinks) resting on the floor: its columns' bed is
    its top, there is no water and no flow in them, and the water outside rose by its
    submerged volume over the free area: d eta = V_sub / A_free. Total water is exact."""
    sim = still_pool()
    w0 = sim.total_water()
    eta0 = float(sim.water.eta.mean())
    e = sim.spawn_body("box", density=2400.0, position=(0.75, 0.4, 0.5), size=(0.3, 0.3, 0.3))
    worst = 0.0
    for _ in range(int(4.0 / sim.dt)):
        sim.step()
        worst = max(worst, abs(sim.total_water() - w0))
    assert worst < 1e-12 * w0
    b = sim.body(e)
    assert b.position[1] == pytest.approx(0.15, abs=0.01)   # resting on the floor
    cols = sim.get_system("CoupleWater").blockers.columns
    blocked = cols.blocked
    dx = sim.water.dx
    assert blocked.sum() == pytest.approx((0.3 / dx) ** 2, rel=0.3)
    bed, h = sim.water.read("bed"), sim.water.read("h")
    assert np.allclose(bed[blocked], 0.3, atol=0.01) and h[blocked].max() < 1e-3   # at most a film
    free = ~blocked
    rise = float((bed + h)[free].mean()) - eta0
    v_sub = blocked.sum() * dx * dx * 0.2               # the blocked columns' share below the old level
    assert rise == pytest.approx(v_sub / (free.sum() * dx * dx), rel=0.1)


def test_a_light_or_unmarked_body_does_not_block_and_a_marked_one_does():
    """block_mass is the rule: a 10 kg stone block sinks but does not block; marked, it does;
    marked False, a heavy one does not."""
    sim = still_pool()
    light = sim.spawn_body("box", density=2400.0, position=(0.4, 0.2, 0.5), size=(0.16, 0.16, 0.16))
    heavy = sim.spawn_body("box", density=2400.0, position=(1.1, 0.2, 0.5), size=(0.3, 0.3, 0.3))
    blockers = sim.get_system("CoupleWater").blockers
    blockers.mark(heavy, False)
    sim.step(int(1.5 / sim.dt))
    assert not blockers.columns.blocked.any()
    blockers.mark(light)
    blockers.mark(heavy, None)
    sim.step(5)
    blocked = blockers.columns.blocked
    dx = sim.water.dx
    assert blocked[int(0.5 / dx), int(0.4 / dx)] and blocked[int(0.5 / dx), int(1.1 / dx)]


def test_a_blocker_taken_away_gives_the_terrain_back_and_the_water_flows_in():
    """Take a standing block away: its columns get the terrain bed back, water flows into the
    hole and total water stays exact."""
    sim = still_pool()
    e = sim.spawn_body("box", density=2400.0, position=(0.75, 0.16, 0.5), size=(0.3, 0.3, 0.3))
    sim.step(int(1.0 / sim.dt))
    cols = sim.get_system("CoupleWater").blockers.columns
    assert cols.blocked.any()
    w0 = sim.total_water()
    sim.remove_body(e)                                  # a hand takes it away
    sim.step(int(1.5 / sim.dt))
    assert not cols.blocked.any()
    assert np.array_equal(sim.water.read("bed"), cols.terrain)
    h = sim.water.read("h")
    assert h[int(0.5 / sim.water.dx), int(0.75 / sim.water.dx)] > 0.1   # the hole filled
    assert sim.total_water() == pytest.approx(w0, rel=1e-12)


def test_barriers_drawn_on_the_columns_hold_water_back():
    """A wall drawn across a pool with a mound of water on one side: the side without the mound
    stays at its level (no flow through the wall); total water exact."""
    sim = Simulation(parse_level("[pool]\nsize = [1.5, 1.0]\ncell = 0.05\nwall_height = 0.8\n"
                                 "[water]\nlevel = 0.2\ndamping = 0.0\n"
                                 "[[water.bump]]\ncenter = [0.3, 0.5]\nradius = 0.3\nheight = 0.1\n"))
    cols = sim.get_system("CoupleWater").blockers.columns
    assert isinstance(cols, SolidColumns)
    walls = cols.free_tops()
    i = int(0.75 / sim.water.dx)
    walls[:, i:i + 2] = 0.5
    w0 = sim.total_water()
    cols.set_barriers(sim.water, walls)
    right0 = sim.water.read("h")[:, i + 2:].sum()
    sim.step(int(2.0 / sim.dt))
    assert sim.water.read("h")[:, i + 2:].sum() == pytest.approx(right0, rel=1e-9)
    assert sim.total_water() == pytest.approx(w0, rel=1e-12)


def test_the_river_dam_raises_the_water_behind_it_while_a_bottle_floats_down_onto_it():
    """The river level's line of concrete blocks stands as solid columns: after 12 s the surface
    upstream of the dam is at least 3 cm above the surface downstream of it (without the dam the
    river falls a few mm over that reach), no water runs through the blocks, a floating bottle
    drifts downstream towards the dam, and total water (less the inflow and outflow) is exact."""
    level = load_level(LEVELS / "river.toml")
    sim = Simulation(level)
    dx = sim.water.dx
    w0 = sim.total_water() - sim.water.source_volume
    bottle = sim.bodies("bottle")[0]
    x0 = float(sim.body(bottle).position[0])
    sim.step(int(12.0 / sim.dt))
    cols = sim.get_system("CoupleWater").blockers.columns
    assert cols.blocked.sum() >= 5 * 12                 # five blocks, each about 4 x 6 columns
    eta = sim.water.eta
    up, down = eta[:, int(2.3 / dx)].mean(), eta[:, int(3.3 / dx)].mean()
    assert up - down > 0.03
    assert sim.water.read("h")[cols.blocked].max() < 1e-3  # no water through the blocks (a film at most)
    b = sim.body(bottle)
    assert b.position[0] > x0 + 0.3 and b.submerged_volume > 0.0
    assert sim.total_water() - sim.water.source_volume == pytest.approx(w0, abs=1e-9)


@pytest.mark.parametrize("size, density, x", [(0.25, 7800.0, 0.75), (0.35, 1500.0, 0.75), (0.3, 2400.0, 0.725)])
def test_a_block_off_the_grid_moves_its_own_volume_aside(size, density, x):
    """A cube resting on the floor with its sides between cell centres (5 cm cells): the water
    outside it rises by its true volume below the old level over the free area,
    d eta = s^2 H / (A - s^2), within 10%, however its footprint falls on the cells."""
    sim = still_pool()
    eta0 = float(sim.water.eta.mean())
    level = eta0
    sim.spawn_body("box", density=density, position=(x, size / 2 + 0.1, 0.5), size=(size, size, size))
    sim.step(int(4.0 / sim.dt))
    blocked = sim.get_system("CoupleWater").blockers.columns.blocked
    assert blocked.any()
    bed, h = sim.water.read("bed"), sim.water.read("h")
    area = sim.water.shape[0] * sim.water.shape[1] * sim.water.dx ** 2
    rise = float((bed + h)[~blocked].mean()) - eta0
    assert rise == pytest.approx(size * size * level / (area - size * size), rel=0.1)
