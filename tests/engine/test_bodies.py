"""The BodyStore and the body API of Simulation: spawning, views, removal, models."""
from __future__ import annotations

import numpy as np
import pytest

from engine import Simulation, events
from engine.bodies import KINDS, glass_properties
from engine.levels import Level
from engine.levels.schema import WaterSpec
from engine.meshes import load_bottle_set, mass_properties
from engine.paths import MODELS


@pytest.fixture
def sim():
    s = Simulation(Level(water=WaterSpec(level=0.0)))
    s.remove_system("CoupleWater")
    return s


def test_held_water_adds_mass_and_lowers_the_centre_of_mass(sim):
    bs = load_bottle_set()
    glass = glass_properties(bs, 2500.0)
    empty = sim.body(sim.spawn_bottle((0.5, 0.5, 0.5)))
    full = sim.body(sim.spawn_bottle((1.5, 0.5, 0.5), fill=0.5))
    assert empty.mass == pytest.approx(glass.mass, rel=1e-12)
    assert full.mass == pytest.approx(glass.mass + 1000.0 * 0.5 * bs.inner_volume, rel=1e-9)
    assert full.held_water == pytest.approx(0.5 * bs.inner_volume)
    assert full.model.offset[1] < empty.model.offset[1] - 0.02       # COM (model frame) moves down
    assert sim.total_water() == pytest.approx(sim.water.volume() + full.held_water)
    # the outer surface encloses glass + cavity
    assert empty.volume == pytest.approx(glass.volume + bs.inner_volume, rel=1e-10)
    assert full.kind == "bottle"


def test_spawn_body_shapes_and_models_get_their_own_density(sim):
    box = sim.body(sim.spawn_body("box", 600.0, (0.5, 0.5, 0.5), size=(0.2, 0.1, 0.3)))
    ball = sim.body(sim.spawn_body("sphere", 200.0, (1.0, 0.5, 0.5), radius=0.1))
    crate = sim.body(sim.spawn_body("crate", 300.0, (1.5, 0.5, 0.5)))
    assert box.mass == pytest.approx(600.0 * 0.2 * 0.1 * 0.3, rel=1e-12)
    assert ball.mass == pytest.approx(200.0 * 4 / 3 * np.pi * 0.1**3, rel=1e-12)   # the ball, exactly
    v, t = crate.model.vertices, crate.model.triangles
    assert crate.mass == pytest.approx(300.0 * mass_properties(v, t).volume, rel=1e-12)
    assert box.kind == ball.kind == crate.kind == "prop"
    # body frame is centred on the centre of mass
    assert np.allclose(mass_properties(v, t).com, 0.0, atol=1e-12)
    assert (MODELS / "crate.obj").exists() and (MODELS / "ball.obj").exists()


def test_mesh_world_applies_position_and_orientation(sim):
    c, s = np.cos(np.pi / 4), np.sin(np.pi / 4)
    e = sim.spawn_body("box", 500.0, (1.0, 0.4, 0.5), orientation=(c, 0.0, 0.0, s), size=(0.4, 0.1, 0.2))
    v, t = sim.body(e).mesh_world()
    assert t.shape[1] == 3 and v.shape[1] == 3
    assert np.allclose(v.mean(axis=0), (1.0, 0.4, 0.5))
    # 90 degrees about z: the 0.4 m x extent now lies along y
    assert np.ptp(v[:, 1]) == pytest.approx(0.4) and np.ptp(v[:, 0]) == pytest.approx(0.1)


def test_bodies_lists_by_kind_and_remove_frees_the_slot(sim):
    a = sim.spawn_bottle((0.5, 0.5, 0.5))
    b = sim.spawn_body("sphere", 500.0, (1.0, 0.5, 0.5), radius=0.05)
    assert sim.bodies() == sorted([a, b])
    assert sim.bodies("bottle") == [a] and sim.bodies("prop") == [b] and sim.bodies("shard") == []
    slot = sim.body(a).slot
    sim.remove_body(a)
    assert sim.bodies() == [b]
    assert not sim.body_store.alive[slot]
    with pytest.raises(KeyError, match="not a body"):
        sim.body(a)
    c = sim.spawn_body("box", 500.0, (0.5, 0.5, 0.5))
    assert sim.body(c).slot == slot                     # holes are reused


def test_store_arrays_follow_the_contract(sim):
    sim.spawn_bottle((0.5, 0.5, 0.5), fill=0.2)
    sim.spawn_body("crate", 300.0, (1.5, 0.5, 0.5))
    st = sim.body_store
    n = st.n
    assert st.pos.shape[1] == 3 and st.quat.shape[1] == 4 and st.angvel.shape[1] == 3
    assert st.kind.dtype == np.int8 and KINDS[st.kind[0]] == "bottle"
    for name in ("force", "torque", "submerged", "held_water", "inner_volume", "mass", "volume", "alive", "model_id"):
        assert len(getattr(st, name)) >= n
    m = st.models[int(st.model_id[1])]
    assert m.vertices.shape[1] == 3 and m.triangles.dtype == np.int32
    assert st.inner_volume[0] == pytest.approx(load_bottle_set().inner_volume)


def test_spawn_emits_spawned_and_rejects_bad_input(sim):
    seen = []
    sim.on(events.Spawned, seen.append)
    e = sim.spawn_body("sphere", 900.0, (1.0, 0.5, 0.5), radius=0.05)
    sim.step(1)
    assert seen and seen[-1].entity == e and seen[-1].kind == "prop"
    with pytest.raises(ValueError, match="fill"):
        sim.spawn_bottle((1.0, 0.5, 0.5), fill=1.5)
    with pytest.raises(ValueError, match="density"):
        sim.spawn_body("box", -1.0, (1.0, 0.5, 0.5))
    with pytest.raises(FileNotFoundError, match="no model 'teapot'"):
        sim.spawn_body("teapot", 500.0, (1.0, 0.5, 0.5))
