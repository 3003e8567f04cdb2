"""Sounds: events trigger the right clips (a fake player records them); silent headless; mute."""
from __future__ import annotations

import numpy as np

from engine import events as ev
from game import sound
from game.controls import KEY_SYMBOLS


class FakePlayer:
    def __init__(self) -> None:
        self.played: list[tuple[str, float]] = []

    def play(self, name: str, volume: float) -> None:
        self.played.append((name, volume))

    def names(self) -> list[str]:
        return [n for n, _ in self.played]


def _game(small_level, tmp_path, player):
    from game.controller import Game

    class Clock:
        t = 0.0

        def __call__(self) -> float:
            return self.t

    return Game(small_level, width=320, height=200, save_path=tmp_path / "q.npz", entry_points=False,
                levels=[], sound_player=player, clock=Clock())


def test_every_clip_is_made_here_as_16_bit_pcm():
    bank = sound.make_bank()
    assert set(bank) == {"clink", "thud", "shatter", "pour", *sound.SPLASH_SIZES}
    for name, pcm in bank.items():
        assert pcm.dtype == np.int16 and 0.05 * sound.RATE < len(pcm) < 2 * sound.RATE, name
        assert 0.7 * 32767 < np.abs(pcm.astype(int)).max() <= 0.81 * 32767, name
    # a bigger splash lasts longer
    assert len(bank["splash_small"]) < len(bank["splash_medium"]) < len(bank["splash_big"])


def test_splash_sizes_follow_the_entry_speed():
    assert sound.splash_name(0.5) == "splash_small"
    assert sound.splash_name(2.0) == "splash_medium"
    assert sound.splash_name(6.0) == "splash_big"


def test_a_shattering_bottle_plays_the_break_and_a_splash_plays_a_splash(small_level, tmp_path):
    fake = FakePlayer()
    game = _game(small_level, tmp_path, fake)
    sim = game.sim
    e = sim.bodies("bottle")[0]
    sim.shatter(e)
    game.update(0.02)
    assert "shatter" in fake.names()
    fake.played.clear()
    sim.emit(ev.Splash(-1, (0.5, 0.3, 0.4), 5.0, 0.0, sim.time))
    sim.step(1)
    assert fake.names() == ["splash_big"]
    game.sim.close()


def test_impacts_clink_for_glass_and_thud_for_stone_louder_when_harder(small_level, tmp_path):
    fake = FakePlayer()
    game = _game(small_level, tmp_path, fake)
    sim = game.sim
    bottle = sim.bodies("bottle")[0]
    stone = sim.spawn_body("sphere", 2600.0, (0.2, 0.5, 0.2), radius=0.04)
    sim.step(1)
    fake.played.clear()
    sim.emit(ev.Impact(bottle, -1, 0.3, (0.5, 0.3, 0.4), (0.0, 1.0, 0.0), sim.time))
    sim.emit(ev.Impact(stone, -1, 1.5, (0.2, 0.3, 0.2), (0.0, 1.0, 0.0), sim.time))
    sim.emit(ev.Impact(stone, -1, 0.01, (0.2, 0.3, 0.2), (0.0, 1.0, 0.0), sim.time))   # too soft to hear
    sim.step(1)
    assert fake.names() == ["clink", "thud"]
    assert fake.played[1][1] > fake.played[0][1]
    game.sim.close()


def test_a_real_throw_into_water_splashes_and_a_real_break_sounds(small_level, tmp_path):
    """No synthetic events: a bottle thrown down into the pool makes a splash sound; one thrown
    at the floor of a dry pool breaks with the break sound."""
    fake = FakePlayer()
    game = _game(small_level, tmp_path, fake)
    sim = game.sim
    sim.spawn_bottle((0.3, 0.6, 0.4), (0.0, -4.0, 0.0))
    for _ in range(20):
        game.update(0.02)
    assert any(n.startswith("splash") for n in fake.names())
    sim.water.h[:] = 0.0
    sim.spawn_bottle((0.7, 0.3, 0.4), (0.0, -6.0, 0.0))
    for _ in range(10):
        game.update(0.02)
    assert "shatter" in fake.names()
    game.sim.close()


def test_pouring_plays_while_an_open_bottle_loses_water(small_level, tmp_path):
    fake = FakePlayer()
    game = _game(small_level, tmp_path, fake)
    sim = game.sim
    # an open full bottle held upside down above the water pours
    sim.spawn_bottle((0.3, 0.5, 0.4), orientation=(0.0, 1.0, 0.0, 0.0), fill=1.0, sealed=False)
    for _ in range(8):
        game.update(0.02)
    assert "pour" in fake.names()
    game.sim.close()


def test_m_mutes_and_unmutes(small_level, tmp_path):
    fake = FakePlayer()
    game = _game(small_level, tmp_path, fake)
    game.on_key_press(KEY_SYMBOLS["M"], 0)
    game.sim.shatter(game.sim.bodies("bottle")[0])
    game.update(0.02)
    assert fake.played == []
    game.on_key_press(KEY_SYMBOLS["M"], 0)
    game.sim.emit(ev.Shattered(-1, (), 2.0, (0.5, 0.3, 0.4), 0.0, game.sim.time))
    game.sim.step(1)
    assert fake.names() == ["shatter"]
    game.sim.close()


def test_silent_headless_and_in_ci(monkeypatch):
    monkeypatch.setenv("PYGLET_HEADLESS", "true")
    assert isinstance(sound.default_player(), sound.Silent)
    monkeypatch.setenv("PYGLET_HEADLESS", "")
    monkeypatch.setenv("CI", "true")
    assert isinstance(sound.default_player(), sound.Silent)


def test_a_break_plays_in_slow_motion_and_nudges_the_camera_but_never_moves_it(small_level, tmp_path):
    from game.controller import SLOWMO_FACTOR
    game = _game(small_level, tmp_path, FakePlayer())
    target = game.camera.target
    game.sim.shatter(game.sim.bodies("bottle")[0])
    game.update(0.02)                                   # the Shattered event arrives after this step
    assert game.slowmo_left > 0.0 and np.linalg.norm(game.camera_nudge()) >= 0.0
    steps = game.sim.steps
    game.update(0.1)                                    # 0.1 s real in slow motion: 0.03 s simulated
    assert game.sim.steps - steps == int(0.1 * SLOWMO_FACTOR / game.sim.dt + 1e-9)
    game.clock.t += 0.1
    assert np.linalg.norm(game.camera_nudge()) > 0.0
    game.clock.t += 1.0
    assert np.linalg.norm(game.camera_nudge()) == 0.0 and game.camera.target == target
    game.sim.close()


def test_no_audio_device_is_silent_and_m_says_so(monkeypatch, small_level, tmp_path):
    """pyglet falls back to its SilentDriver when no audio device opens: the game treats that as
    silence (Silent, "no audio device"), and M says there is no sound rather than "sound on"."""
    import pyglet.media
    for name in ("PYGLET_HEADLESS", "CI", "BOTTLES_MUTE"):
        monkeypatch.setenv(name, "")

    class SilentDriver:
        pass
    monkeypatch.setattr(pyglet.media, "get_audio_driver", lambda: SilentDriver())
    player = sound.default_player()
    assert isinstance(player, sound.Silent) and player.reason == "no audio device"
    game = _game(small_level, tmp_path, player)
    game.on_key_press(KEY_SYMBOLS["M"], 0)
    said = " ".join(game.current_messages())
    assert "no sound here (no audio device)" in said and "sound on" not in said
    game.on_key_press(KEY_SYMBOLS["M"], 0)
    assert "sound on" not in " ".join(game.current_messages())
    game.sim.close()
