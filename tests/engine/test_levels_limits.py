"""Limits checked before work, one `file:line` LevelError for every broken level, and everything
`validate` accepts plays: a seeded fuzz of the bundled levels, and hostile files of each kind."""
from __future__ import annotations

import random
import re
import time
from pathlib import Path

import numpy as np
import pytest

from engine.errors import SimulationError
from engine.levels import LevelError, load_level
from engine.levels import resources
from engine.paths import LEVELS
from engine.world import Simulation

VALUES = ["0", "-1", "1e308", "-1e308", "1e-300", "nan", "inf", "-inf", "1" + "0" * 400, "123456789012345678901",
          '"x"', '"\\u001b[2J"', "[]", "true", "[1e308, 1e308, 1e308]", "[0.0, 0.0, 0.0]", "[nan, 0, 0]",
          "{}", "[[[[[[1]]]]]]", "0.0", "1e6", "-1e6", "2.5"]
_ASSIGN = re.compile(r"^(\s*[A-Za-z0-9_.\"']+\s*=\s*)(.+)$")


def _mutants(rng: random.Random, n: int) -> list[tuple[str, str]]:
    texts = {p.stem: p.read_text() for p in sorted(LEVELS.glob("*.toml"))}
    out = []
    for _ in range(n):
        name = rng.choice(sorted(texts))
        lines = texts[name].splitlines()
        for _ in range(rng.randint(1, 3)):
            spots = [i for i, ln in enumerate(lines) if _ASSIGN.match(ln)]
            i = rng.choice(spots)
            r = rng.random()
            if r < 0.45:      # a plausible change: numbers scaled, as a level author might
                factor = rng.choice([0.0, 0.5, 0.9, 1.5, 3.0, -1.0])
                lines[i] = re.sub(r"(?<![\w.])(\d+\.\d*|\d+)(?![\w.])",
                                  lambda m: repr(float(m.group()) * factor), lines[i]) if "=" in lines[i] else lines[i]
            elif r < 0.8:
                lines[i] = _ASSIGN.sub(lambda m: m.group(1) + rng.choice(VALUES), lines[i])
            elif r < 0.92:
                del lines[i]
            else:
                lines.insert(i, '"\x1b[31mkey\x1b[0m" = 1')
        out.append((name, "\n".join(lines) + "\n"))
    return out


def _clean_lines(exc: LevelError) -> None:
    for line in exc.lines():
        assert "\x1b" not in line and re.match(r"^.+:\d+: ", line), line


def test_a_level_fuzz_raises_only_level_errors_and_every_accepted_case_plays(tmp_path):
    rng = random.Random(23)
    accepted = rejected = 0
    for j, (name, text) in enumerate(_mutants(rng, 120)):
        path = tmp_path / f"{name}_{j}.toml"
        path.write_text(text)
        try:
            level = load_level(path)
        except LevelError as exc:
            rejected += 1
            _clean_lines(exc)
            continue
        accepted += 1
        sim = Simulation(level)
        try:
            sim.step(3)                       # what validate accepts plays
        except SimulationError as exc:
            pytest.fail(f"{path.name} validated but its simulation failed: {exc}\n{text}")
        finally:
            sim.close()
    assert accepted >= 15 and rejected >= 40, (accepted, rejected)


def _level(tmp_path: Path, extra: str, base: str = "calm_pool") -> Path:
    p = tmp_path / "l.toml"
    p.write_text((LEVELS / f"{base}.toml").read_text() + extra)
    return p


def _problem(path: Path, pattern: str) -> None:
    with pytest.raises(LevelError) as info:
        load_level(path)
    _clean_lines(info.value)
    assert any(re.search(pattern, line) for line in info.value.lines()), info.value.lines()


def test_deep_nesting_and_huge_numbers_are_level_errors(tmp_path):
    _problem(_level(tmp_path, "deep = " + "[" * 5000 + "]" * 5000 + "\n"), r"l\.toml:1: nested too deeply")
    _problem(_level(tmp_path, "\n[water.tide]\nx = " + "9" * 5000 + "\n"), r"l\.toml:1: cannot be read")
    p = tmp_path / "big.toml"
    p.write_text((LEVELS / "calm_pool.toml").read_text().replace("seed = ", "seed = 1" + "0" * 400 + " #"))
    _problem(p, r"big\.toml:\d+: seed: is far out of range \(a 401-digit number\)")


def test_escape_sequences_in_keys_and_values_never_reach_the_screen(tmp_path):
    _problem(_level(tmp_path, '\n["\\u001b]0;pwned\\u0007\\u001b[2J"]\nx = "\\u001b[31m"\n'), r"\\x1b")


def test_table_counts_are_checked_before_the_tables_and_in_linear_time(tmp_path):
    """10,000 [[light]] tables: refused at once (the line of the first one past the cap); 1,000
    [[bottle]] tables past physics.max_bottles: refused, and checking 20,000 tables stays cheap."""
    many = "".join(f"\n[[light]]\nposition = [1.0, 1.0, {i % 3}.0]\n" for i in range(10_000))
    t0 = time.perf_counter()
    _problem(_level(tmp_path, many), r"l\.toml:\d+: light: 10000 \[\[light\]\] tables; a level holds at most 1000")
    assert time.perf_counter() - t0 < 20.0     # a generous bound against the quadratic scan (it took > 30 s)
    bottles = "".join("\n[[bottle]]\nposition = [2.0, 1.0, 1.5]\n" for _ in range(200))
    _problem(_level(tmp_path, bottles), r"bottle\[40\]: 20\d \[\[bottle\]\] tables; physics.max_bottles is 40")


def test_images_are_refused_by_their_pixel_count_before_decoding(tmp_path):
    from PIL import Image
    img = tmp_path / "huge.png"
    Image.new("1", (5000, 5000)).save(img)
    assert img.stat().st_size < 200_000
    with pytest.raises(resources.ResourceError, match="5000 x 5000 pixels"):
        resources.read_heightmap(img)
    thin = tmp_path / "thin.png"                 # fewer pixels than 2048 x 2048, but one side past 2048
    Image.new("1", (60000, 2)).save(thin)
    with pytest.raises(resources.ResourceError, match="60000 x 2 pixels; a heightmap is at most 2048 x 2048"):
        resources.read_heightmap(thin)


@pytest.mark.parametrize("body, pattern", [
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n", "encloses no volume"),              # one open triangle
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 9\n", "vertex 9 does not exist"),
    ("v 0 0 nan\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n", "3 finite numbers"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\n", "encloses no volume"),  # a hole? no: 3 of 4 faces
    ("v 0 0 0\nv 0 0 0\nv 0 0 0\nv 0 0 0\nf 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n", "encloses no volume"),
    ("hello\n", "0 vertices"),
])
def test_broken_models_are_level_errors(tmp_path, body, pattern):
    (tmp_path / "thing.obj").write_text(body)
    extra = '\n[[object]]\nmodel = "thing.obj"\nposition = [2.0, 1.0, 1.5]\ndensity = 500.0\n'
    _problem(_level(tmp_path, extra), rf"object\[\d+\]\.model: .*{pattern}")


def test_a_model_is_refused_by_its_size_and_triangle_count_before_it_is_read(tmp_path, monkeypatch):
    big = tmp_path / "big.obj"
    big.write_text("v 0 0 0\n" * 10)
    monkeypatch.setattr(resources, "MAX_MODEL_BYTES", 40)
    with pytest.raises(resources.ResourceError, match="MiB; a model is at most"):
        resources.check_obj(big)
    monkeypatch.setattr(resources, "MAX_MODEL_BYTES", 2**20)
    monkeypatch.setattr(resources, "MAX_TRIANGLES", 4)
    many = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n" + "f 1 2 3 4\n" * 3
    big.write_text(many)
    with pytest.raises(resources.ResourceError, match="more than 4 triangles"):
        resources.check_obj(big)


def test_a_bottle_model_is_checked_when_the_level_loads(tmp_path):
    extra = '\n[[bottle]]\nposition = [2.0, 1.0, 1.5]\nmodel = "no_such_bottle"\n'
    _problem(_level(tmp_path, extra), r"bottle\[\d+\]\.model: no bottle model \"no_such_bottle\": the bottle models are bottle")
    extra = '\n[[bottle]]\nposition = [2.0, 1.0, 1.5]\nmodel = "../../etc/passwd"\n'
    _problem(_level(tmp_path, extra), r"is not a bottle model name")


def test_a_level_file_is_refused_by_its_size_and_kind(tmp_path, monkeypatch):
    from engine.levels import loader
    monkeypatch.setattr(loader, "MAX_LEVEL_BYTES", 100)
    _problem(_level(tmp_path, ""), r"MiB; a level file is at most")
    monkeypatch.undo()
    with pytest.raises(LevelError, match="not a regular file"):
        load_level(tmp_path)
    assert np.isfinite(1.0)


@pytest.mark.parametrize("extra, pattern", [
    ('model = "crate"\nscale = 1e-300\n', r"object\[0\]\.scale: makes the model enclose 0 m\^3"),
    ('model = "box"\nsize = [1e-300, 1e-300, 1e-300]\n', r"object\[0\]\.size: makes a body of 0 m\^3"),
    ('model = "sphere"\nradius = 1e-300\n', r"object\[0\]\.radius: makes a body of 0 m\^3"),
    ('model = "box"\nscale = 1e-4\n', r"object\[0\]\.size: makes a body of"),
])
def test_bodies_too_small_to_have_a_mass_are_level_errors(tmp_path, extra, pattern):
    """A zero-volume body validated once and then failed in its first step; now it is a problem
    (volume below 1 cm^3: V = s^3 V_model, a s^3 for a box, 4/3 pi (r s)^3 for a sphere)."""
    text = (LEVELS / "calm_pool.toml").read_text().split("[[object]]")[0]
    p = tmp_path / "l.toml"
    p.write_text(text + "\n[[object]]\nposition = [2.0, 1.0, 1.5]\ndensity = 500.0\n" + extra)
    _problem(p, pattern)
