"""Sound: procedurally made clips for impacts, splashes, breaking glass and pouring, played
through pyglet.media in a window, silent headless and in CI.

Every clip is synthesised here with numpy (nothing is downloaded or shipped): a glass clink is a
few inharmonic decaying partials (a free-free cylinder's modes, f_n proportional to (2n+1)^2 over
the first), a thud is a low decaying sine under a noise burst, a splash is low-passed noise whose
length and pitch fall with size, breaking glass is many short clinks scattered in time over a
noise crash, pouring is gurgling band-passed noise. `SoundEvents` listens to the simulation's
events and asks a player for the right clip; tests pass a fake player and check what was asked.
"""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from engine.world import Simulation

RATE = 22050                  # samples per second (mono, 16 bit)
SPLASH_SIZES = ("splash_small", "splash_medium", "splash_big")
SPLASH_SPEEDS = (1.5, 4.0)    # m/s: entry speeds dividing small / medium / big splashes
MIN_IMPACT = 0.05             # N s: quieter contacts make no sound
LOUD_IMPACT = 2.0             # N s: an impact this hard plays at full volume
POUR_EVERY = 0.25             # s between pouring sounds while any bottle pours
MAX_PER_STEP = 4              # clips started per step at most (a heap of shards would roar)


def _env(n: int, decay: float) -> NDArray[np.float64]:
    t = np.arange(n) / RATE
    return np.exp(-t / decay)


def clink(rng: np.random.Generator, base: float = 1800.0, seconds: float = 0.35) -> NDArray[np.float64]:
    """A glass tap: partials at base * ((2n+1)/3)^2, n = 1..4, each decaying, higher ones faster."""
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    out = np.zeros(n)
    for k in range(1, 5):
        f = base * ((2 * k + 1) / 3.0) ** 2 * (1.0 + 0.01 * rng.standard_normal())
        if f > RATE / 2.2:
            break
        out += np.sin(2 * math.pi * f * t + rng.random() * 6.28) * np.exp(-t * (6.0 + 5.0 * k)) / k
    attack = np.minimum(t / 0.001, 1.0)
    return out * attack


def thud(rng: np.random.Generator, seconds: float = 0.25) -> NDArray[np.float64]:
    """A dull knock: a falling 120 -> 70 Hz sine under a short noise burst."""
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    f = 70.0 + 50.0 * np.exp(-t / 0.03)
    body = np.sin(2 * math.pi * np.cumsum(f) / RATE) * _env(n, 0.07)
    burst = _lowpass(rng.standard_normal(n), 0.2) * _env(n, 0.01)
    return body + 0.5 * burst


def _lowpass(x: NDArray[np.float64], a: float) -> NDArray[np.float64]:
    """One-pole low pass y[i] = y[i-1] + a (x[i] - y[i-1]) (a in (0, 1]: smaller is darker), as
    its impulse response a (1 - a)^k convolved with x, cut where it falls below 1e-6 of a."""
    taps = int(math.ceil(math.log(1e-6) / math.log(1.0 - a))) + 1 if a < 1.0 else 1
    h = a * (1.0 - a) ** np.arange(taps)
    return np.convolve(x, h)[: len(x)]


def splash(rng: np.random.Generator, size: int) -> NDArray[np.float64]:
    """Water hit by a body: a noise burst, longer and darker the bigger (size 0, 1, 2)."""
    seconds = (0.25, 0.5, 0.9)[size]
    n = int(seconds * RATE)
    noise = _lowpass(rng.standard_normal(n), (0.35, 0.18, 0.08)[size])
    t = np.arange(n) / RATE
    env = np.minimum(t / 0.005, 1.0) * np.exp(-t / (0.3 * seconds))
    bubbles = np.zeros(n)
    for _ in range(3 + 3 * size):          # a few rising bubble chirps (Minnaert resonance)
        t0 = rng.random() * 0.6 * seconds
        f0 = rng.uniform(400.0, 1200.0) / (1 + size)
        m = t >= t0
        tt = t[m] - t0
        bubbles[m] += np.sin(2 * math.pi * f0 * (tt + 2.0 * tt * tt)) * np.exp(-tt / 0.04) * 0.3
    return noise * env * 3.0 + bubbles


def shatter(rng: np.random.Generator) -> NDArray[np.float64]:
    """Breaking glass: a bright noise crash and many short clinks over 0.8 s."""
    n = int(0.9 * RATE)
    t = np.arange(n) / RATE
    hiss = rng.standard_normal(n)
    hiss = hiss - _lowpass(hiss, 0.3)                       # high-passed: glassy
    out = hiss * np.exp(-t / 0.12) * 0.8
    for _ in range(24):
        t0 = rng.exponential(0.12)
        k = int(t0 * RATE)
        if k >= n:
            continue
        c = clink(rng, base=rng.uniform(1500.0, 4000.0), seconds=0.2)[: n - k]
        out[k:k + len(c)] += c * rng.uniform(0.2, 0.7)
    return out


def pour(rng: np.random.Generator) -> NDArray[np.float64]:
    """Water pouring from a neck: band-passed noise with a slow gurgle (amplitude at ~9 Hz)."""
    n = int(0.3 * RATE)
    t = np.arange(n) / RATE
    x = rng.standard_normal(n)
    band = _lowpass(x, 0.25) - _lowpass(x, 0.03)
    gurgle = 0.6 + 0.4 * np.sin(2 * math.pi * 9.0 * t + rng.random() * 6.28)
    fade = np.minimum(np.minimum(t / 0.03, (t[-1] - t) / 0.03), 1.0)
    return band * gurgle * fade * 2.0


def make_bank(seed: int = 0) -> dict[str, NDArray[np.int16]]:
    """Every clip the game plays, as 16-bit mono PCM at RATE, each normalised to a peak of 0.8."""
    rng = np.random.default_rng(seed)
    raw = {"clink": clink(rng), "thud": thud(rng), "shatter": shatter(rng), "pour": pour(rng)}
    for k, name in enumerate(SPLASH_SIZES):
        raw[name] = splash(rng, k)
    out = {}
    for name, x in raw.items():
        peak = float(np.max(np.abs(x))) or 1.0
        out[name] = np.round(x / peak * 0.8 * 32767).astype(np.int16)
    return out


class Player(Protocol):
    """Plays a named clip at a volume in [0, 1]."""

    def play(self, name: str, volume: float) -> None: ...


class Silent:
    """The player headless, in CI, or without an audio device: records nothing, plays nothing.
    `reason` says why, for the player who presses M."""

    def __init__(self, reason: str = "") -> None:
        self.reason = reason

    def play(self, name: str, volume: float) -> None:
        pass


class PygletPlayer:
    """Play the bank through pyglet.media (one StaticMemorySource per clip)."""

    def __init__(self, bank: dict[str, NDArray[np.int16]]) -> None:
        import pyglet
        from pyglet.media.codecs.base import AudioFormat, StaticSource

        class Clip(StaticSource):
            """A StaticSource over PCM bytes already in memory (pyglet's own one decodes a file)."""

            def __init__(self, data: bytes, fmt: AudioFormat) -> None:   # noqa: D401 - no super(): nothing to decode
                # pyglet's StaticSource declares these None until its own decoder fills them
                self._data = data  # type: ignore[assignment]
                self.audio_format = fmt  # type: ignore[assignment]
                self.video_format = None
                self._duration = len(data) / float(fmt.bytes_per_second)  # type: ignore[assignment]

        self._media = pyglet.media
        fmt = AudioFormat(channels=1, sample_size=16, sample_rate=RATE)
        self.sources = {name: Clip(pcm.tobytes(), fmt) for name, pcm in bank.items()}
        self.failed: str | None = None

    def play(self, name: str, volume: float) -> None:
        src = self.sources.get(name)
        if src is None or self.failed is not None:
            return
        try:
            p = self._media.Player()
            p.volume = float(min(max(volume, 0.0), 1.0))
            p.queue(src)
            p.play()
        except Exception as exc:   # noqa: BLE001 - a broken audio device silences the game, nothing more
            self.failed = f"{type(exc).__name__}: {exc}"


def silent_reason() -> str | None:
    """Why the game must stay silent here (headless, CI, asked to), or None."""
    env = os.environ
    if env.get("PYGLET_HEADLESS", "").strip().lower() in ("1", "true", "yes", "on"):
        return "headless"
    if env.get("CI", "").strip().lower() in ("1", "true", "yes"):
        return "CI"
    if env.get("BOTTLES_MUTE", "").strip().lower() in ("1", "true", "yes", "on"):
        return "BOTTLES_MUTE is set"
    return None


def default_player() -> Player:
    """pyglet.media in a real session; Silent when headless, in CI, or when no audio driver works."""
    reason = silent_reason()
    if reason is not None:
        return Silent(reason)
    try:
        import pyglet.media
        driver = pyglet.media.get_audio_driver()
        # pyglet falls back to its SilentDriver when no audio device opens: it plays nothing
        if driver is None or type(driver).__name__ == "SilentDriver":
            return Silent("no audio device")
        return PygletPlayer(make_bank())
    except Exception as exc:     # noqa: BLE001 - no audio device is no reason to stop the game
        return Silent(f"the audio device failed: {type(exc).__name__}")


class SoundEvents:
    """Turn simulation events into sounds: Impact -> clink (glass) or thud, Splash -> splash by
    speed, Shattered -> shatter, an open bottle losing water -> pour. `muted` silences it all.

    Bound methods are subscribed (the event queue holds handlers strongly, but esper's own
    dispatch would not), so keep this object alive while the simulation runs.
    """

    def __init__(self, player: Player) -> None:
        self.player = player
        self.muted = False
        self.sim: Simulation | None = None
        self._started = 0
        self._step = -1
        self._pour_next = 0.0
        self._held: dict[int, float] = {}

    def attach(self, sim: "Simulation") -> None:
        from engine import events as ev
        if self.sim is not None and self.sim is not sim:
            for kind, fn in ((ev.Impact, self.on_impact), (ev.Splash, self.on_splash), (ev.Shattered, self.on_shatter)):
                try:
                    self.sim.off(kind, fn)
                except Exception:   # noqa: BLE001 - a closed simulation
                    pass
        self.sim = sim
        sim.on(ev.Impact, self.on_impact)
        sim.on(ev.Splash, self.on_splash)
        sim.on(ev.Shattered, self.on_shatter)
        self._held = {}
        self._pour_next = 0.0

    def _play(self, name: str, volume: float) -> None:
        if self.muted or self.sim is None:
            return
        if self.sim.steps != self._step:
            self._step, self._started = self.sim.steps, 0
        if self._started >= MAX_PER_STEP:
            return
        self._started += 1
        self.player.play(name, volume)

    def on_impact(self, e: Any) -> None:
        if e.impulse < MIN_IMPACT:
            return
        from engine.components import Bottle, Shard
        import esper
        glass = False
        with self.sim._context():  # type: ignore[union-attr]
            for ent in (e.entity, e.other):
                if ent >= 0 and esper.entity_exists(ent) and (esper.has_component(ent, Bottle)
                                                              or esper.has_component(ent, Shard)):
                    glass = True
        vol = min(1.0, 0.15 + 0.85 * e.impulse / LOUD_IMPACT)
        self._play("clink" if glass else "thud", vol)

    def on_splash(self, e: Any) -> None:
        self._play(splash_name(e.speed), min(1.0, 0.3 + e.speed / 8.0))

    def on_shatter(self, e: Any) -> None:
        self._play("shatter", 1.0)

    def poll_pouring(self) -> None:
        """Call once per frame: a pour sound every POUR_EVERY s while an open bottle loses water."""
        sim = self.sim
        if sim is None:
            return
        st = sim.body_store
        n = st.n
        held = {int(s): float(st.held_water[s]) for s in np.nonzero(st.alive[:n])[0]}
        pouring = any(held.get(s, 0.0) < v - 1e-7 for s, v in self._held.items())
        self._held = held
        if pouring and sim.time >= self._pour_next:
            self._pour_next = sim.time + POUR_EVERY
            self._play("pour", 0.6)


def splash_name(speed: float) -> str:
    """The splash clip for an entry speed (m/s): small below 1.5, medium below 4, big above."""
    k = sum(speed >= s for s in SPLASH_SPEEDS)
    return SPLASH_SIZES[k]
