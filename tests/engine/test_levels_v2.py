"""Levels v2: terrain, obstacles, wave makers, objects, throwables and materials.

Every problem class is reported with its line, bad images and missing models included; the bed is
what the level describes; wave makers move water as their docstrings say.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from engine import LevelError, Simulation
from engine.levels import parse_level
from engine.levels.setup import body_arguments, material_of, spawn_objects
from engine.terrain import build_bed, cell_centres

POOL = "[pool]\nsize = [2.0, 1.0]\ncell = 0.05\nwall_height = 1.0\n[water]\nlevel = 0.3\n"


def problems(text: str, path: str = "lvl.toml") -> list[tuple[int, str, str]]:
    with pytest.raises(LevelError) as info:
        parse_level(text, path)
    return [(line, key, msg) for _, line, key, msg in info.value.problems]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# -- problems, each with its line ----------------------------------------------------------------------
def test_kind_specific_keys():
    text = POOL + ('[terrain]\nkind = "slope"\nheights = [0.0, 0.2]\nimage = "x.png"\n'
                   '[[obstacle]]\nkind = "pillar"\ncenter = [1.0, 0.5]\nheight = 0.5\nsize = [1, 1]\n'
                   '[[wave_maker]]\nkind = "paddle"\nside = "x_min"\n')
    got = problems(text)
    assert (line_of(text, "image ="), "terrain.image", 'is not used by kind "slope" (only by heightmap); remove it') in got
    assert (line_of(text, "size = [1"), "obstacle[0].size", 'is not used by kind "pillar" (only by box, ramp); remove it') in got
    assert (line_of(text, 'kind = "pillar"') - 1, "obstacle[0].radius", 'is required for kind "pillar"') in got
    assert (line_of(text, "[[wave_maker]]"), "wave_maker[0].stroke", 'is required for kind "paddle"') in got
    assert len(got) == 4


def test_bad_values_and_enums():
    text = POOL + ('[[obstacle]]\nkind = "pilar"\n'
                   '[[wave_maker]]\nkind = "paddle"\nside = "north"\nstroke = 0.05\nperiod = 0\n'
                   '[materials.oak]\ndensity = -3\n')
    got = problems(text)
    assert any(l == line_of(text, '"pilar"') and k == "obstacle[0].kind" and 'did you mean "pillar"' in m for l, k, m in got)
    assert any(l == line_of(text, '"north"') and k == "wave_maker[0].side" for l, k, m in got)
    assert (line_of(text, "period"), "wave_maker[0].period", "must be between 0.05 and 600 (got 0)") in got
    assert (line_of(text, "density = -3"), "materials.oak.density", "must be between 1 and 25000 (got -3)") in got


def test_things_outside_the_pool_or_too_small():
    text = POOL + ('[terrain]\nkind = "slope"\nspan = [0.5, 2.5]\nheights = [0.0, 0.2]\n'
                   '[[obstacle]]\nkind = "box"\ncenter = [2.5, 0.5]\nsize = [0.2, 0.2]\nheight = 0.5\n'
                   '[[obstacle]]\nkind = "pillar"\ncenter = [1.0, 0.5]\nradius = 0.01\nheight = 0.5\n'
                   '[[wave_maker]]\nkind = "source"\nposition = [1.0, 3.0]\nrate = 0.001\n'
                   '[[object]]\nmodel = "box"\ndensity = 500\nposition = [1.0, 0.5, -1.0]\n')
    got = problems(text)
    assert (line_of(text, "span ="), "terrain.span", "ends at 2.5 m, beyond the pool (2 m along x)") in got
    assert (line_of(text, "[2.5, 0.5]"), "obstacle[0].center",
            "(2.5, 0.5) is outside the pool (x in [0, 2], z in [0, 1])") in got
    assert (line_of(text, "radius = 0.01") - 3, "obstacle[1]",
            "covers no water cell (cell = 0.05 m): make it larger or the cell smaller") in got
    assert (line_of(text, "[1.0, 3.0]"), "wave_maker[0].position", "(1, 3) is outside the pool") in got
    assert any(l == line_of(text, "[1.0, 0.5, -1.0]") and k == "object[0].position" for l, k, m in got)
    assert len(got) == 5


def test_bodies_inside_obstacles_materials_and_throwable_names():
    text = POOL + ('[[obstacle]]\nkind = "ledge"\nside = "z_max"\nwidth = 0.3\nheight = 0.6\n'
                   '[[bottle]]\nposition = [1.0, 0.5, 0.9]\n'
                   '[[object]]\nmodel = "sphere"\nmaterial = "wod"\nposition = [1.0, 0.5, 0.3]\n'
                   '[[object]]\nmodel = "sphere"\nposition = [1.0, 0.5, 0.3]\n'
                   '[[throwable]]\nname = "rock"\nkind = "object"\nmodel = "sphere"\nmaterial = "stone"\n'
                   '[[throwable]]\nname = "rock"\nfill = 0.5\ndensity = 3\n')
    got = problems(text)
    assert (line_of(text, "[1.0, 0.5, 0.9]"), "bottle[0].position",
            "is inside obstacle[0] (ledge with its top at 0.6 m): raise y above it") in got
    assert any(k == "object[1].density" and "give a density" in m for l, k, m in got)
    assert any(k == "throwable[1].density" and "only an object throwable" in m for l, k, m in got)
    text = text.replace("density = 3\n", "").replace('[[object]]\nmodel = "sphere"\nposition', '[[object]]\nmodel = "sphere"\ndensity = 80\nposition')
    got = problems(text)
    assert any(l == line_of(text, '"wod"') and k == "object[0].material" and 'did you mean "wood"' in m for l, k, m in got)
    second = [i for i, line in enumerate(text.splitlines(), 1) if line == 'name = "rock"'][1]
    assert (second, "throwable[1].name", '"rock" is already throwable[0]; names must differ') in got


def test_missing_and_broken_models(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "barrel2.obj").write_text(   # a closed tetrahedron (an open surface is refused)
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    (tmp_path / "models" / "empty.obj").write_text("# nothing\n")
    text = POOL + ('[[object]]\nmodel = "barrel3"\ndensity = 500\nposition = [1.0, 0.5, 0.5]\n'
                   '[[object]]\nmodel = "empty"\ndensity = 500\nposition = [1.0, 0.5, 0.5]\n'
                   '[[object]]\nmodel = "barrel2"\ndensity = 500\nposition = [1.0, 0.5, 0.5]\n'
                   '[[throwable]]\nname = "duck"\nkind = "object"\nmodel = "ducks/duck.obj"\ndensity = 300\n')
    got = problems(text, str(tmp_path / "lvl.toml"))
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines, 1) if line.startswith("model =")]
    assert [(l, k) for l, k, _ in got] == [(at[0], "object[0].model"), (at[1], "object[1].model"),
                                           (at[3], "throwable[0].model")]
    assert 'no model "barrel3" (did you mean "barrel2"?)' in got[0][2] and "built-in shapes: box, sphere" in got[0][2]
    assert "has 0 vertices and 0 faces" in got[1][2]
    assert "ducks/duck.obj" in got[2][2]


@pytest.mark.parametrize("case", ["missing", "not_an_image", "too_small"])
def test_bad_heightmap_images(tmp_path, case):
    if case == "not_an_image":
        (tmp_path / "hm.png").write_text("this is not a PNG")
    elif case == "too_small":
        Image.new("L", (1, 1)).save(tmp_path / "hm.png")
    text = POOL + '[terrain]\nkind = "heightmap"\nimage = "hm.png"\nheights = [0.0, 0.2]\n'
    got = problems(text, str(tmp_path / "lvl.toml"))
    expect = {"missing": "no such image", "not_an_image": "is not an image Pillow can read",
              "too_small": "is 1 x 1 pixels; a heightmap needs at least 2 x 2"}[case]
    assert len(got) == 1 and got[0][:2] == (line_of(text, "image ="), "terrain.image") and expect in got[0][2]


def test_file_problems_come_with_the_others(tmp_path):
    text = POOL.replace("level = 0.3", "level = 7") + ('[[object]]\nmodel = "nope"\ndensity = 5\n'
                                                      'position = [1.0, 0.5, 0.5]\n')
    got = problems(text, str(tmp_path / "lvl.toml"))
    assert {k for _, k, _ in got} == {"water.level", "object[0].model"}


# -- the bed -------------------------------------------------------------------------------------------
def test_slope_bumps_and_obstacles_rasterise_into_the_bed():
    level = parse_level(POOL + '[terrain]\nkind = "slope"\nspan = [1.0, 2.0]\nheights = [0.0, 0.4]\n'
                        '[[terrain.bump]]\ncenter = [0.5, 0.5]\nradius = 0.2\nheight = 0.1\n'
                        '[[obstacle]]\nkind = "pillar"\ncenter = [0.5, 0.2]\nradius = 0.08\nheight = 0.5\n'
                        '[[obstacle]]\nkind = "ramp"\ncenter = [0.25, 0.75]\nsize = [0.4, 0.2]\nheights = [0.1, 0.3]\n'
                        '[[obstacle]]\nkind = "wall"\nstart = [0.8, 0.0]\nend = [0.8, 1.0]\nthickness = 0.1\nheight = 0.05\n'
                        '[[obstacle]]\nkind = "ledge"\nside = "x_max"\nwidth = 0.1\nheight = 0.9\nspan = [0.0, 0.5]\n')
    bed = build_bed(level)
    X, Z = cell_centres(level)
    dx = 0.05

    def at(x: float, z: float) -> float:
        return float(bed[int(z / dx), int(x / dx)])

    # slope: linear from 0 at x = 1 to 0.4 at x = 2 (cell centre x = 1.525 -> 0.21)
    assert at(1.525, 0.975) == pytest.approx(0.4 * 0.525)
    assert at(1.975, 0.975) == pytest.approx(0.4 * 0.975)
    assert at(0.525, 0.525) == pytest.approx(0.1 * 0.5 * (1 + math.cos(math.pi * math.hypot(0.025, 0.025) / 0.2)))
    assert at(0.525, 0.225) == 0.5                       # pillar
    assert at(0.075, 0.725) == pytest.approx(0.1 + 0.2 * (0.075 - 0.05) / 0.4)  # ramp rises along +x
    assert at(0.825, 0.475) == 0.05                      # wall
    assert at(1.975, 0.225) == 0.9 and at(1.975, 0.775) < 0.9  # ledge over half the side
    assert (bed >= 0).all() and bed.shape == (20, 40)


def test_heightmap_image_sets_the_bed(tmp_path):
    img = np.zeros((4, 8), np.uint8)
    img[:, 4:] = 255                                     # white on the right half
    Image.fromarray(img, "L").save(tmp_path / "hm.png")
    level = parse_level(POOL + '[terrain]\nkind = "heightmap"\nimage = "hm.png"\nheights = [0.05, 0.25]\n',
                        tmp_path / "lvl.toml")
    bed = build_bed(level)
    assert bed[:, :15] == pytest.approx(0.05) and bed[:, -15:] == pytest.approx(0.25)


def test_the_simulation_starts_on_the_bed_with_a_dry_shore():
    level = parse_level(POOL + '[terrain]\nkind = "slope"\nspan = [1.0, 2.0]\nheights = [0.0, 0.5]\n'
                        '[[obstacle]]\nkind = "box"\ncenter = [0.5, 0.5]\nsize = [0.2, 0.2]\nheight = 0.6\n')
    sim = Simulation(level)
    w = sim.water
    assert np.array_equal(w.bed, build_bed(level))
    assert (w.h[:, -7:] == 0.0).all() and (w.h[:, 20:-9] > 0).all()  # bed above the 0.3 m water: dry
    assert w.h[10, 10] == 0.0                            # inside the box
    wet = w.h > 0
    assert np.allclose(w.eta[wet], 0.3)                  # still water at the level everywhere else


# -- wave makers ----------------------------------------------------------------------------------------
def test_paddle_makes_waves_without_adding_water():
    sim = Simulation(parse_level(POOL + '[[wave_maker]]\nkind = "paddle"\nside = "x_min"\nstroke = 0.06\n'
                                 'period = 1.0\nramp = 0.2\n'))
    assert sim.system_names().index("WaveMakers") == sim.system_names().index("StepFluid") - 1
    v0 = sim.water.volume()
    sim.step(120)
    assert np.ptp(sim.water.eta) > 0.01
    assert sim.water.volume() == pytest.approx(v0, abs=1e-12)
    assert sim.water.source_volume == 0.0


def test_periodic_source_breathes_in_and_out():
    sim = Simulation(parse_level(POOL + '[[wave_maker]]\nkind = "source"\nposition = [1.0, 0.5]\nrate = 0.002\n'
                                 'period = 0.5\nramp = 0.0\n'))
    v0 = sim.water.volume()
    sim.step(15)                                         # a quarter period: volume in = R T / (2 pi) (1 - cos)
    added = 0.002 * 0.5 / (2 * math.pi) * (1 - math.cos(2 * math.pi * 15 * sim.dt / 0.5))
    assert sim.water.volume() - v0 == pytest.approx(added, rel=1e-3)
    sim.step(45)                                         # a whole period: back to where it started
    assert sim.water.volume() - v0 == pytest.approx(0.0, abs=1e-6)
    assert sim.water.volume() - v0 == pytest.approx(sim.water.source_volume, abs=1e-12)


# -- objects, materials ---------------------------------------------------------------------------------
def test_objects_resolve_material_and_spawn():
    level = parse_level(POOL + '[materials.foam]\ndensity = 50\n[physics]\nfriction = 0.3\n'
                        '[[object]]\nmodel = "box"\nsize = [0.2, 0.1, 0.1]\nscale = 2\nmaterial = "foam"\n'
                        'position = [1.0, 0.5, 0.5]\n'
                        '[[object]]\nmodel = "sphere"\nmaterial = "steel"\ndensity = 900\nposition = [0.5, 0.5, 0.5]\n')
    assert material_of(level, level.objects[0]).density == 50 and material_of(level, level.objects[0]).friction == 0.3
    kw = body_arguments(level, level.objects[0])
    assert kw["size"] == (0.4, 0.2, 0.2) and kw["density"] == 50
    steel = material_of(level, level.objects[1])
    assert steel.density == 900 and steel.restitution == 0.4          # density overrides, the rest from steel
    calls = []

    class Fake:
        def __init__(self) -> None:
            self.level, self.failures = level, []

        def spawn_body(self, model, density, position, velocity=(0, 0, 0), angular_velocity=(0, 0, 0),
                       orientation=(1, 0, 0, 0), *, size=None, radius=None, scale=1.0, restitution=None,
                       friction=None):
            calls.append((model, density, tuple(position), size, radius, restitution, friction))
            return len(calls)

    assert spawn_objects(Fake()) == [1, 2]  # type: ignore[arg-type]
    assert calls == [("box", 50.0, (1.0, 0.5, 0.5), (0.4, 0.2, 0.2), None, level.physics.restitution, 0.3),
                     ("sphere", 900.0, (0.5, 0.5, 0.5), None, 0.1, 0.4, steel.friction)]


def test_objects_spawn_in_the_simulation():
    sim = Simulation(parse_level(POOL + '[[object]]\nmodel = "box"\nsize = [0.2, 0.1, 0.2]\nmaterial = "wood"\n'
                                 'position = [1.0, 0.5, 0.5]\n'))
    (e,) = sim.bodies()
    assert sim.body(e).mass == pytest.approx(600 * 0.2 * 0.1 * 0.2, rel=1e-6)


def test_throwables_spawn_as_bottles_or_objects():
    from engine.levels.setup import spawn_throwable
    from engine.mods import throwables
    sim = Simulation(parse_level(POOL + '[[throwable]]\nname = "full"\nfill = 1.0\nsealed = false\n'
                                 '[[throwable]]\nname = "ball"\nkind = "object"\nmodel = "sphere"\nradius = 0.05\n'
                                 'material = "rubber"\n'))
    full, ball = throwables(sim)
    e = spawn_throwable(sim, full, (1.0, 0.8, 0.5), (1.0, 0.0, 0.0))
    assert sim.body(e).kind == "bottle" and sim.body(e).velocity[0] == 1.0
    if hasattr(sim, "spawn_body"):
        e = spawn_throwable(sim, ball, (0.5, 0.8, 0.5))
        assert sim.body(e).mass == pytest.approx(1100 * 4 / 3 * math.pi * 0.05 ** 3, rel=0.05)  # icosphere


TETRA = "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def test_a_level_reads_no_file_outside_its_own_folder(tmp_path):
    """A level is data a player may download: the model and image paths it names stay inside its
    folder (after following links). Absolute paths, ~, '..' out of the folder and links leading
    out are refused with the key's line, and nothing of the outside file is read or quoted."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.obj").write_text("v SECRET_TOKEN 0 0\n")
    Image.new("L", (4, 4)).save(outside / "hm.png")
    home = tmp_path / "level"
    (home / "models").mkdir(parents=True)
    (home / "models" / "tetra.obj").write_text(TETRA)
    (home / "models" / "link.obj").symlink_to(outside / "secret.obj")
    (home / "hm_link.png").symlink_to(outside / "hm.png")
    for model in (str(outside / "secret.obj"), "../outside/secret.obj", "models/../../outside/secret.obj",
                  "models/link.obj", "~/secret.obj", "/etc/passwd", "/proc/self/environ", "models/tetra.txt"):
        text = POOL + f'[[object]]\nmodel = "{model}"\ndensity = 500\nposition = [1.0, 0.5, 0.5]\n'
        got = problems(text, str(home / "lvl.toml"))
        assert [(l, k) for l, k, _ in got] == [(line_of(text, "model ="), "object[0].model")], (model, got)
        assert "SECRET_TOKEN" not in got[0][2] and "vertices" not in got[0][2]
        assert ("outside the level's folder" in got[0][2] or "not a path relative to the level's folder" in got[0][2]
                or "not to an .obj file" in got[0][2]), got[0][2]
    for image in (str(outside / "hm.png"), "../outside/hm.png", "hm_link.png", "/etc/passwd", "/dev/zero"):
        text = POOL + f'[terrain]\nkind = "heightmap"\nimage = "{image}"\nheights = [0.0, 0.2]\n'
        got = problems(text, str(home / "lvl.toml"))
        assert [(l, k) for l, k, _ in got] == [(line_of(text, "image ="), "terrain.image")], (image, got)
    # inside the folder, by a path or a name, both load
    for model in ("models/tetra.obj", "tetra", "./models/tetra.obj"):
        level = parse_level(POOL + f'[[object]]\nmodel = "{model}"\ndensity = 500\nposition = [1.0, 0.5, 0.5]\n',
                            str(home / "lvl.toml"))
        assert body_arguments(level, level.objects[0])["model"].endswith("tetra.obj")


def test_a_mods_throwable_model_is_found_beside_the_mod_when_thrown(tmp_path):
    """A mod's add_throwable(model="parts/tetra.obj") names a file beside the mod (it is checked
    there); thrown in a level in another folder, the body is built from that same file."""
    from engine.mods import ModSet, mod_throwables
    mod = tmp_path / "moddir"
    (mod / "parts").mkdir(parents=True)
    (mod / "parts" / "tetra.obj").write_text(TETRA)
    (mod / "duck.py").write_text('def register(api):\n    api.add_throwable("duck", kind="object", '
                                 'model="parts/tetra.obj", density=300)\n')
    lvl = tmp_path / "elsewhere" / "lvl.toml"
    lvl.parent.mkdir()
    lvl.write_text(POOL)
    ms = ModSet.load([mod / "duck.py"], lvl, entry_points=False)
    assert not ms.failures, ms.failures
    level = parse_level(POOL, str(lvl))
    sim = Simulation(level)
    try:
        ms.attach(sim)
        (duck,) = mod_throwables(sim)
        kw = body_arguments(level, duck)
        assert kw["model"] == str((mod / "parts" / "tetra.obj").resolve())
        e = sim.spawn_body(**{**kw, "position": (1.0, 0.6, 0.5)})
        assert sim.body(e).mass == pytest.approx(300.0 * 0.1 ** 3 / 6.0, rel=1e-6)
    finally:
        ms.close()
        sim.close()


BOTTLE = '[[bottle]]\nposition = [1.0, 0.5, 0.5]\n'


@pytest.mark.parametrize("goal, key, words", [
    ('kind = "break"', "goal.kind", "places no bottle to break"),
    ('kind = "break"\ncount = 3\n' + "#B", "goal.count", "3 bottles to break, but the level places 1"),
    ('kind = "smash"', "goal.count", "a count of 1 or more"),
    ('kind = "ring"\nthrows = 5', "goal.count", "a count of 1 or more"),
    ('kind = "ring"\ncount = 2\ncenter = [5.0, 0.5]', "goal.center", "outside the pool"),
    ('kind = "none"\ntime = 30.0', "goal.time", 'is not used by kind "none"'),
    ('kind = "smash"\ncount = 2\ncenter = [1.0, 0.5]', "goal.center", "only by ring"),
])
def test_a_goal_the_game_could_never_decide_is_refused(goal, key, words):
    """A [goal] that can never be won (nothing to break, a count of 0 that 'done >= count > 0'
    never meets, a ring off the pool) or whose keys its kind ignores is a problem on its line."""
    body = goal.replace("#B", "")
    text = POOL + ("" if "#B" not in goal else BOTTLE) + "[goal]\n" + body + "\n"
    got = problems(text)
    assert [(k, words in m) for _, k, m in got] == [(key, True)], got


def test_goals_that_can_be_decided_load():
    for goal in ('kind = "break"', 'kind = "break"\ncount = 1', 'kind = "smash"\ncount = 3',
                 'kind = "ring"\ncount = 2\ncenter = [1.5, 0.5]\nthrows = 4\ntime = 60.0'):
        parse_level(POOL + BOTTLE + "[goal]\n" + goal + "\n")


def _box(x: float, y: float, z: float, s: float = 0.2, turn: float = 0.0) -> str:
    """An [[object]] box of edge s at (x, y, z), turned `turn` radians about y."""
    q = (math.cos(turn / 2), 0.0, math.sin(turn / 2), 0.0)
    return (f'[[object]]\nmodel = "box"\nsize = [{s}, {s}, {s}]\ndensity = 500\nposition = [{x}, {y}, {z}]\n'
            f'orientation = [{q[0]}, {q[1]}, {q[2]}, {q[3]}]\n')


@pytest.mark.parametrize("text, key, depth_mm, words", [
    (_box(1.0, 0.07, 0.5), "object[0].position", 30, "into the pool's bed"),              # bottom at y - s/2
    ('[terrain]\nkind = "flat"\nheight = 0.25\n' + _box(1.0, 0.3, 0.5), "object[0].position", 50, "into the pool's bed"),
    (_box(0.06, 0.5, 0.5), "object[0].position", 40, "into a wall"),                      # x - s/2 = -0.04
    (_box(1.0, 0.5, 0.5) + _box(1.15, 0.5, 0.5), "object[1].position", 50, "into object[0]"),
    # a box turned 45 degrees reaches s / sqrt(2) from its centre along x
    (_box(1.0, 0.5, 0.5) + _box(1.0 + 0.1 + 0.2 / math.sqrt(2) - 0.02, 0.5, 0.5, turn=math.pi / 4),
     "object[1].position", 20, "into object[0]"),
])
def test_bodies_placed_into_the_bed_a_wall_or_each_other_are_refused(text, key, depth_mm, words):
    """A body placed at t = 0 reaching more than 5 mm into the bed, a wall or another body would be
    flung out by the first step: its position is a problem naming how deep (the box's half edge s/2
    and, turned by 45 degrees, its half diagonal s/sqrt(2), give the depth)."""
    got = problems(POOL + text)
    assert len(got) == 1 and got[0][1] == key and words in got[0][2], got
    assert f"{depth_mm} mm" in got[0][2], got


def test_bodies_resting_on_the_bed_and_on_each_other_load():
    """Touching is not overlapping: a box on the floor (y = s/2), one on top of it (y = 3 s/2),
    one against a wall (x = s/2), one on a flat terrain at 0.25 m, a sphere on the floor (y = r)."""
    parse_level(POOL + _box(1.0, 0.1, 0.5) + _box(1.0, 0.3, 0.5) + _box(0.1, 0.1, 0.5)
                + '[[object]]\nmodel = "sphere"\nradius = 0.1\ndensity = 500\nposition = [1.6, 0.1, 0.5]\n')
    parse_level(POOL + '[terrain]\nkind = "flat"\nheight = 0.25\n' + _box(1.0, 0.35, 0.5))


@pytest.mark.parametrize("camera, key, words", [
    ("distance = -0.5", "camera.distance", "at least 0.1 m, or -1"),
    ("distance = 0.0", "camera.distance", "at least 0.1 m, or -1"),
    ("target = [100.0, 0.3, 100.0]", "camera.target", "away from the pool"),
    # eye = target + d (cos p sin yaw, sin p, cos p cos yaw): 0.3 - 3 sin 30 = -1.2 m, under the floor
    ("target = [1.0, 0.3, 0.5]\ndistance = 3.0\npitch = -30.0", "camera.pitch", "under the pool's floor"),
    # yaw 0: the eye at z = 0.5 + 2 cos 5 = 2.49 m, outside the walls (z 0-1) at 0.3 + 2 sin 5 = 0.47 m < 1 m
    ("target = [1.0, 0.3, 0.5]\ndistance = 2.0\npitch = 5.0\nyaw = 0.0", "camera.pitch", "under the deck"),
    # straight down the pool's length from its middle, 0.2 m under the surface at 0.3 m
    ("target = [1.0, 0.2, 0.5]\ndistance = 0.2\npitch = -30.0\nyaw = 90.0", "camera.pitch", "under the water"),
])
def test_a_start_view_that_would_show_nothing_is_refused(camera, key, words):
    got = problems(POOL + "[camera]\n" + camera + "\n")
    assert len(got) == 1 and got[0][1] == key and words in got[0][2], got


def test_start_views_over_the_pool_load():
    for camera in ("", "distance = 4.0\npitch = 60.0", "target = [-2.0, 1.5, 0.5]\ndistance = 1.0\npitch = 10.0"):
        parse_level(POOL + "[camera]\n" + camera + "\n")


@pytest.mark.parametrize("text, key, words", [
    ('[terrain]\nkind = "flat"\nheight = 1.2\n', "terrain", "above the walls' top (1 m)"),
    ('[[obstacle]]\nkind = "ledge"\nside = "x_min"\nwidth = 2.5\nheight = 0.2\n', "obstacle[0].width",
     "reaches across the whole pool (2 m from side x_min)"),
    ('[[bottle]]\nposition = [1.0, 0.5, 0.5]\nmodel = "crate"\n', "bottle[0].model",
     '"crate" is a model for an [[object]]'),
    ('[[bottle]]\nposition = [1.0, 0.5, 0.5]\nfill = true\n', "bottle[0].fill", "(got true)"),
    ("[physics]\nmax_bottles = 200\n" + '[[bottle]]\nposition = [1.0, 0.5, 0.5]\n' * 201, "bottle[200]",
     "physics.max_bottles is 200: place at most 200"),
])
def test_level_geometry_and_messages_a_newcomer_can_act_on(text, key, words):
    got = problems(POOL + text)
    assert [k for _, k, _ in got] == [key] and words in got[0][2], got


def test_a_level_file_that_is_not_text_says_so_with_its_line(tmp_path):
    from engine.levels import load_level
    bad = tmp_path / "junk.toml"
    bad.write_bytes(b"[pool]\nsize = [2.0, 1.0]\n\xa4\xff\x00junk\n")
    with pytest.raises(LevelError) as info:
        load_level(bad)
    (_, line, _, msg), = info.value.problems
    assert line == 3 and "is not UTF-8 text" in msg and "save it as UTF-8" in msg
