"""`bottles record` output: the kind follows --out, unknown kinds are errors, files are kept without --force."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from game import record as rec
from game.cli import main


def test_out_extension_picks_the_kind_and_unknown_ones_are_errors(tmp_path, monkeypatch):
    assert rec.output_kind(tmp_path / "a.webp") == "webp"
    assert rec.output_kind(tmp_path / "a.GIF") == "gif"
    assert rec.output_kind(tmp_path / "a.png") == "png"
    assert rec.output_kind(f"{tmp_path}/frames/") == "dir"
    for bad in ("a.avi", "a.jpeg", "clip"):
        with pytest.raises(rec.RecordError, match="--out"):
            rec.output_kind(tmp_path / bad)
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(rec.RecordError, match="ffmpeg"):
        rec.output_kind(tmp_path / "a.mp4")


def test_an_existing_file_is_kept_without_force(tmp_path, capsys):
    out = tmp_path / "clip.webp"
    out.write_bytes(b"precious")
    assert main(["record", "calm_pool", "--out", str(out), "--seconds", "0.1"]) == 2
    assert "--force" in capsys.readouterr().err
    assert out.read_bytes() == b"precious"
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "frame_00000.png").write_bytes(b"x")
    with pytest.raises(rec.RecordError, match="--force"):
        rec.output_kind(f"{frames}/")
    assert rec.output_kind(f"{frames}/", force=True) == "dir"
    assert rec.output_kind(out, force=True) == "webp"


def test_an_unknown_extension_writes_nothing(tmp_path, capsys):
    out = tmp_path / "x.mp5"
    assert main(["record", "calm_pool", "--out", str(out), "--seconds", "0.1"]) == 2
    assert "unknown extension" in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_webp_clip_holds_every_frame_at_its_duration(tmp_path):
    y, x = np.mgrid[0:36, 0:64]
    base = np.dstack([4 * x, 7 * y, 128 + 100 * np.sin(x / 6.0) * np.cos(y / 5.0)]).clip(0, 255).astype(np.uint8)
    frames = [np.roll(base, 3 * j, axis=1) for j in range(5)]
    out = tmp_path / "c.webp"
    rec.write_clip(out, "webp", frames, fps=20.0)
    with Image.open(out) as im:
        assert im.format == "WEBP" and im.is_animated and im.n_frames == 5
        assert im.size == (64, 36)
        im.seek(2)
        got = np.asarray(im.convert("RGB"), float)       # decoding the frame fills in its duration
        assert im.info.get("duration") == 50          # 1000 ms / 20 fps
    # lossy, but the frame is the one given (mean error well below the image's own spread)
    assert np.abs(got - frames[2]).mean() < 0.25 * np.abs(frames[2] - frames[2].mean()).mean()
