"""`bottles record` refuses, before anything is drawn, what it cannot honour: an unknown throw kind,
a throw starting outside the pool, a clip longer than it can hold, an --out in a missing folder."""
from __future__ import annotations

import pytest

from engine.levels import load_level
from game import record as rec
from game.cli import main


@pytest.fixture
def no_drawing(monkeypatch):
    """Make any attempt to open a GL context fail the test: the input is refused before it."""
    def refuse(*args, **kwargs):
        raise AssertionError("a GL context was opened for input that should have been refused")
    monkeypatch.setattr("engine.render.context.create_context", refuse)


def _refused(capsys, argv: list[str]) -> str:
    """Run `bottles record ARGV`, expect the usage exit code and one line on stderr; return it."""
    assert main(["record", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bottles record: ") and "Traceback" not in err[0], err
    return err[0]


def test_an_unknown_throw_kind_is_a_usage_error_naming_the_kinds(tmp_path, capsys, no_drawing):
    out = tmp_path / "x.png"
    line = _refused(capsys, ["calm_pool", "--seconds", "0.1", "--throw", "0:1,1,1:0,0,0:rock", "--out", str(out)])
    assert "'0:1,1,1:0,0,0:rock'" in line and "unknown kind 'rock'" in line
    for kind in ("bottle", "box", "sphere", "cylinder", "ball", "crate", ".obj"):
        assert kind in line
    assert "bottle_fragments" not in line
    assert '(did you mean "crate"?)' in _refused(capsys, ["calm_pool", "--throw", "0:1,1,1:0,0,0:crat",
                                                          "--out", str(out)])
    script = tmp_path / "throws.toml"
    script.write_text('[[throw]]\nt = 0.5\nposition = [1, 1, 1]\nkind = "rock"\n')
    line = _refused(capsys, ["calm_pool", "--script", str(script), "--out", str(out)])
    assert f"{script}: throw[0]: unknown kind 'rock'" in line
    broken = tmp_path / "open.obj"
    broken.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\n")   # one face short
    assert "cannot throw model" in _refused(capsys, ["calm_pool", "--throw", f"0:1,1,1:0,0,0:{broken}",
                                                      "--out", str(out)])
    assert not out.exists()


def test_every_kind_the_message_names_can_be_thrown(tmp_path):
    from engine.world import Simulation
    level = load_level("calm_pool")
    cube = tmp_path / "cube.obj"
    cube.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
                    "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n")
    throws = [rec.Throw(0.0, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), kind) for kind in [*rec.throw_kinds(), str(cube)]]
    rec.check_throws(throws, level)
    sim = Simulation(level)
    try:
        for th in throws:
            rec.apply_throw(sim, th)
    finally:
        sim.close()


def test_a_throw_must_start_inside_the_walls_or_over_the_deck(tmp_path, capsys, no_drawing):
    level = load_level("calm_pool")
    sx, sz = level.pool.size
    top = level.pool.wall_height
    out = str(tmp_path / "x.png")
    line = _refused(capsys, ["calm_pool", "--throw", "0:96,1,1:0,0,0", "--out", out])
    assert "start (96, 1, 1) m is outside the pool" in line
    assert f"x 0 to {sx:g}, z 0 to {sz:g} m" in line and f"x -6 to {sx + 6:g}, z -6 to {sz + 6:g} m" in line
    assert "outside the pool" in _refused(capsys, ["calm_pool", "--throw", "0:1,-0.1,1:0,0,0", "--out", out])
    assert "outside the pool" in _refused(capsys, ["calm_pool", "--throw", f"0:-1,{top - 0.1},1:0,0,0",
                                                   "--out", out])
    assert "finite" in _refused(capsys, ["calm_pool", "--throw", "nan:1,1,1:0,0,0", "--out", out])
    assert "velocity" in _refused(capsys, ["calm_pool", "--throw", "0:1,1,1:0,inf,0", "--out", out])
    rec.check_throws([rec.Throw(0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),                 # a corner of the floor
                      rec.Throw(0.0, (sx / 2, 0.5, sz / 2), (0.0, 0.0, 0.0), "box"),
                      rec.Throw(0.0, (-6.0, top, sz + 6.0), (1.0, 0.0, 0.0), "ball")], level)   # the deck's corner


def test_seconds_and_fps_are_bounded_by_what_a_recording_holds(tmp_path, capsys, no_drawing):
    out = str(tmp_path / "x.webp")
    assert f"at most {rec.MAX_SECONDS:g} s" in _refused(capsys, ["calm_pool", "--seconds", "1e9", "--out", out])
    assert "--seconds" in _refused(capsys, ["calm_pool", "--seconds", "nan", "--out", out])
    assert "--seconds" in _refused(capsys, ["calm_pool", "--seconds", "0", "--out", out])
    assert f"at most {rec.MAX_FPS:g}" in _refused(capsys, ["calm_pool", "--fps", "1e9", "--out", out])
    line = _refused(capsys, ["calm_pool", "--seconds", "120", "--size", "1920x1080", "--out", out])
    assert "GiB of memory" in line and "folder/ of PNGs" in line
    rec.check_length(120, 30, 1920, 1080, "dir")           # a folder of PNGs holds one frame at a time
    rec.check_length(rec.MAX_SECONDS, 30, 640, 360, "png")
    with pytest.raises(SystemExit):
        main(["record", "--help"])
    assert f"at most {rec.MAX_SECONDS:g}: every frame is simulated" in " ".join(capsys.readouterr().out.split())


def test_out_in_a_missing_folder_is_refused_and_no_folder_is_made(tmp_path, capsys, no_drawing):
    missing = tmp_path / "no" / "such"
    line = _refused(capsys, ["calm_pool", "--out", str(missing / "o.png")])
    assert f"there is no folder {str(missing)!r}" in line and "create it first" in line
    line = _refused(capsys, ["calm_pool", "--out", f"{missing}/frames/"])
    assert f"there is no folder {str(missing)!r}" in line
    afile = tmp_path / "afile"
    afile.write_text("")
    assert "is not a folder" in _refused(capsys, ["calm_pool", "--out", str(afile / "o.webp")])
    assert list(tmp_path.iterdir()) == [afile]
    assert rec.output_kind(f"{tmp_path}/frames/") == "dir"      # the frames folder itself is made, when asked


def test_a_throw_at_or_after_the_clips_end_is_refused(tmp_path, capsys, no_drawing):
    """A throw is spawned before the step that starts at its time; the last step of a clip of S
    seconds starts before S, so a throw at t >= S would silently never happen."""
    out = tmp_path / "x.webp"
    line = _refused(capsys, ["calm_pool", "--seconds", "2", "--throw", "2:1,1,1:0,0,0", "--out", str(out)])
    assert "'2:1,1,1:0,0,0'" in line and "--seconds 2" in line and "never be seen" in line
    script = tmp_path / "throws.toml"
    script.write_text('[[throw]]\nt = 0.5\nposition = [1, 1, 1]\n\n[[throw]]\nt = 7.5\nposition = [1, 1, 1]\n')
    line = _refused(capsys, ["calm_pool", "--seconds", "3", "--script", str(script), "--out", str(out)])
    assert f"{script}: throw[1]: time 7.5 s" in line
    level = load_level("calm_pool")
    rec.check_throws([rec.Throw(1.99, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0))], level, 2.0)   # just inside
    assert not out.exists()


def test_out_in_a_folder_that_cannot_be_written_is_refused_before_drawing(capsys, no_drawing):
    """/proc is a folder no one can create files in, root included: the probe file fails there,
    before a frame is simulated, not after the whole clip is drawn."""
    line = _refused(capsys, ["calm_pool", "--seconds", "0.1", "--out", "/proc/clip.webp"])
    assert "cannot write in '/proc'" in line and "choose a folder you can write to" in line
    line = _refused(capsys, ["calm_pool", "--seconds", "0.1", "--out", "/proc/self/"])
    assert "cannot write in" in line


def test_a_throw_may_name_one_of_the_levels_throwables(tmp_path):
    """`--throw ...:NAME` throws the level's [[throwable]] of that name as its key does in the game:
    harbour's "full bottle" holds its water, "open bottle" is unsealed; a name that is neither a
    throwable of the level nor a kind is refused and the level's names are offered."""
    from engine.world import Simulation
    level = load_level("harbour")
    throws = [rec.Throw(0.0, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), name) for name in ("full bottle", "open bottle")]
    rec.check_throws(throws, level)
    sim = Simulation(level)
    try:
        import esper
        from engine.components import Bottle
        full, opened = (rec.apply_throw(sim, th) for th in throws)
        slot = sim.body(full).slot
        assert sim.body_store.held_water[slot] == pytest.approx(sim.body_store.inner_volume[slot])
        with sim._context():
            assert esper.component_for_entity(full, Bottle).sealed
            assert not esper.component_for_entity(opened, Bottle).sealed
    finally:
        sim.close()
    with pytest.raises(rec.RecordError, match='"full bottle"'):
        rec.check_throws([rec.Throw(0.0, (1.0, 1.0, 1.0), (0.0, 0.0, 0.0), "ful bottle")], level)
