"""`bottles bench` section "session": ten simulated minutes of scripted random play on the default level.

Every few tenths of a second something happens, drawn from one seeded generator: a throw of every
kind the game offers (empty sealed, full and open bottles, the level's objects, boxes and balls;
lobbed into the pool or hurled down at up to 14 m/s), a poke that drags the water, a shower of rain,
a bottle shattered on purpose. Bottles, props and shards are held to the level's caps (engine/retire.py,
Shatter). Reported: physics steps per wall second over the whole session (real time at dt = 1/120
needs 120) and per CPU second of this process (the same less the time spent waiting for a core on a
shared host), the most bodies alive, resident memory at the start and the end of the second half,
the drift of the water total (all water, less what sources and full-bottle spawns brought in), and
per tenth of the session ("windows") its steps/s, ms per step of each system and the mean awake
bodies, which is what the step's cost follows once the caps are reached.
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

MAX_THROW = 14.0      # m/s, the game's fully charged throw
RAIN_DEPTH = 0.01     # m, the mound one drop makes (as the game's rain)
# A few fixed shapes, as the game's throwables are: every distinct size is one more body model,
# and models are kept for the whole session (engine/bodies.py), so random sizes would grow memory.
BOXES = ((0.1, 0.1, 0.1), (0.25, 0.12, 0.18), (0.3, 0.3, 0.3))
BALLS = (0.05, 0.08, 0.12)


def rss_bytes() -> int:
    """Resident memory of this process, bytes (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


@dataclass
class SessionLog:
    """What a session did and saw."""
    steps: int = 0
    wall: float = 0.0
    cpu: float = 0.0      # s of CPU this process used (all its threads): what the play cost, less the waits
    throws: dict[str, int] = field(default_factory=dict)
    pokes: int = 0
    rain: int = 0
    shatters: int = 0
    most: dict[str, int] = field(default_factory=dict)   # per kind; "kept shard": shards not fading out
    longest_fade: float = 0.0     # s, the longest a shard past the cap has been fading (Shatter removes it at FADE_SECONDS)
    rss: list[tuple[float, int]] = field(default_factory=list)        # (simulated s, bytes)
    water: list[tuple[float, float]] = field(default_factory=list)    # (simulated s, conserved total, m^3)
    ms_per_system: dict[str, float] = field(default_factory=dict)     # wall ms per step, each system
    # one row per sample window: its end (simulated s), steps/s, ms per step of each system, mean
    # awake bodies and live bodies over the window: how the cost moves as the session goes on
    windows: list[dict[str, Any]] = field(default_factory=list)


class Player:
    """Scripted random play on one simulation: `act()` once per step does what is due."""

    def __init__(self, sim: Any, seed: int = 23) -> None:
        self.sim = sim
        self.rng = np.random.default_rng(seed)
        self.log = SessionLog()
        self.brought = 0.0                # m^3 of water spawned inside full bottles
        self.next = {"throw": 0.2, "poke": 0.5, "rain": 3.0, "shatter": 2.0}
        self.rain_left = 0
        self.poking: tuple[float, float, float, float, int] | None = None
        from engine.mods import mod_throwables
        self.objects = [t for t in list(sim.level.throwables) + mod_throwables(sim) if t.kind == "object"]

    # -- what a player does ------------------------------------------------------------------------
    def _aim(self, hard: bool) -> tuple[tuple[float, ...], tuple[float, ...]]:
        sim, rng = self.sim, self.rng
        sx, sz = sim.level.pool.size
        target = np.array([rng.uniform(0.15, 0.85) * sx, float(sim.level.water.level), rng.uniform(0.15, 0.85) * sz])
        if hard:      # straight down into the water at the full throw
            start = target + np.array([0.0, 1.2, 0.0])
            return tuple(start), (0.0, -MAX_THROW, 0.0)
        side = rng.integers(4)
        start = target.copy()
        start[0 if side < 2 else 2] = (0.05 if side % 2 == 0 else 0.95) * (sx if side < 2 else sz)
        start[1] += 1.0
        t = rng.uniform(0.35, 0.8)       # flight time of the lob
        v = (target - start) / t
        v[1] += 0.5 * sim.gravity * t
        speed = float(np.linalg.norm(v))
        if speed > MAX_THROW:
            v *= MAX_THROW / speed
        return tuple(start), tuple(v)

    def throw(self) -> None:
        sim, rng = self.sim, self.rng
        kinds = ["empty bottle", "full bottle", "open bottle", "box", "ball"] + [t.name for t in self.objects]
        kind = kinds[int(rng.integers(len(kinds)))]
        pos, vel = self._aim(hard=rng.random() < 0.25)
        spin = tuple(rng.normal(0.0, 4.0, 3))
        if kind.endswith("bottle"):
            fill = 1.0 if kind == "full bottle" else float(rng.choice([0.0, 0.3]))
            e = sim.spawn_bottle(pos, vel, spin, fill=fill, sealed=kind != "open bottle")
            self.brought += sim.body(e).held_water
        elif kind == "box":
            sim.spawn_body("box", 600.0, pos, vel, spin, size=BOXES[int(rng.integers(len(BOXES)))])
        elif kind == "ball":
            sim.spawn_body("sphere", 300.0, pos, vel, spin, radius=BALLS[int(rng.integers(len(BALLS)))])
        else:
            t = next(o for o in self.objects if o.name == kind)
            from engine.levels.setup import material_of
            mat = material_of(sim.level, t)
            sim.spawn_body(t.model or "box", mat.density, pos, vel, spin, size=t.size, radius=t.radius,
                           scale=t.scale, restitution=mat.restitution, friction=mat.friction)
        self.log.throws[kind] = self.log.throws.get(kind, 0) + 1

    def poke(self) -> None:
        sx, sz = self.sim.level.pool.size
        rng = self.rng
        x, z = rng.uniform(0.1, 0.9) * sx, rng.uniform(0.1, 0.9) * sz
        a = rng.uniform(0, 2 * math.pi)
        self.poking = (x, z, 1.5 * math.cos(a), 1.5 * math.sin(a), 30)   # a drag lasting 30 steps
        self.log.pokes += 1

    def _drag(self) -> None:
        if self.poking is None:
            return
        x, z, vx, vz, left = self.poking
        w = self.sim.water
        dx = float(w.dx)
        r = 0.15
        for name, vel, v in (("ax", "u", vx), ("az", "w", vz)):   # as the game's drag: relax towards v
            arr = getattr(w, name)
            nk, ni = arr.shape
            i0, i1 = max(0, int((x - r) / dx)), min(ni, int((x + r) / dx) + 1)
            k0, k1 = max(0, int((z - r) / dx)), min(nk, int((z + r) / dx) + 1)
            if i0 < i1 and k0 < k1:
                arr[k0:k1, i0:i1] += 12.0 * (v - w.read(vel)[k0:k1, i0:i1])
        self.poking = (x, z, vx, vz, left - 1) if left > 1 else None

    def _drop(self) -> None:
        if self.rain_left <= 0:
            return
        self.rain_left -= 1
        w = self.sim.water
        sx, sz = self.sim.level.pool.size
        x, z = self.rng.uniform(0.05, 0.95) * sx, self.rng.uniform(0.05, 0.95) * sz
        r = 1.5 * float(w.dx)
        w.add_volume(x, z, math.pi * r * r * RAIN_DEPTH / 3.0, radius=r)

    def shatter(self) -> None:
        bottles = self.sim.bodies("bottle")
        if bottles:
            self.sim.shatter(bottles[int(self.rng.integers(len(bottles)))])
            self.log.shatters += 1

    # -- the clock ---------------------------------------------------------------------------------
    def act(self) -> None:
        """Do what is due at the simulation's time, then the per-step parts (a drag, a drop)."""
        t = self.sim.time
        gaps = {"throw": (0.25, 0.9), "poke": (0.5, 2.0), "rain": (6.0, 14.0), "shatter": (1.0, 4.0)}
        for what, (lo, hi) in gaps.items():
            if t >= self.next[what]:
                self.next[what] = t + float(self.rng.uniform(lo, hi))
                if what == "rain":
                    self.rain_left += 60
                    self.log.rain += 1
                else:
                    getattr(self, what)()
        self._drag()
        self._drop()

    def conserved(self) -> float:
        """All the water, less what sources and full-bottle spawns brought in: constant, m^3."""
        sim = self.sim
        return sim.total_water() - sim.water.source_volume - self.brought


def play(sim: Any, seconds: float, seed: int = 23, every: float = 10.0,
         on_sample: Callable[[Player], None] | None = None) -> SessionLog:
    """Play `seconds` of simulated time; sample memory, body counts and the water every `every` s."""
    from engine.retire import counts
    p = Player(sim, seed)
    steps = int(round(seconds / sim.dt))
    sample = max(1, int(round(every / sim.dt)))
    log = p.log
    log.water.append((sim.time, p.conserved()))
    log.rss.append((sim.time, rss_bytes()))
    spent: dict[str, float] = {}
    sim.timings = spent                    # the simulation times each system, as in the scene bench
    shatter = next((s for s in sim.systems if s.name == "Shatter"), None)
    t0 = time.perf_counter()
    c0 = time.process_time()
    mark: tuple[float, dict[str, float], int, float] = (t0, {}, 0, c0)   # window start: clock, timings, step, CPU
    awake_sum = 0.0
    st = sim.body_store
    for j in range(steps):
        p.act()
        sim.step()
        now = counts(sim)
        n = st.n
        awake_sum += float(np.count_nonzero(st.alive[:n] & (st.sleep[:n] < st.sleep_after)))
        for k, c in now.items():
            log.most[k] = max(log.most.get(k, 0), c)
        fading = getattr(shatter, "fading", None) or {}
        if fading:    # shards past the cap fade out: the cap holds for the shards that are not fading
            live = set(sim.bodies("shard"))
            going = [t0 for e, t0 in fading.items() if e in live]
            kept = now.get("shard", 0) - len(going)
            log.longest_fade = max([log.longest_fade] + [sim.time - t0 for t0 in going])
        else:
            kept = now.get("shard", 0)
        log.most["kept shard"] = max(log.most.get("kept shard", 0), kept)
        if (j + 1) % sample == 0:
            clock, cpu = time.perf_counter(), time.process_time()
            ks = j + 1 - mark[2]
            log.windows.append({"t": round(sim.time, 1), "steps_per_s": round(ks / max(clock - mark[0], 1e-9), 1),
                                "steps_per_cpu_s": round(ks / max(cpu - mark[3], 1e-9), 1),
                                "ms": {name: round(1e3 * (v - mark[1].get(name, 0.0)) / ks, 2) for name, v in spent.items()},
                                "awake": round(awake_sum / ks), "bodies": sum(now.values())})
            mark = (clock, dict(spent), j + 1, cpu)
            awake_sum = 0.0
            log.water.append((sim.time, p.conserved()))
            log.rss.append((sim.time, rss_bytes()))
            if on_sample is not None:
                on_sample(p)
    log.wall = time.perf_counter() - t0
    log.cpu = time.process_time() - c0
    log.steps = steps
    sim.timings = None
    log.ms_per_system = {k: round(1e3 * v / max(steps, 1), 2) for k, v in spent.items()}
    return log


def run(quick: bool) -> dict[str, Any]:
    """The session on the default level: 600 simulated seconds (60 with --quick)."""
    from engine.paths import DEFAULT_LEVEL
    from engine.world import Simulation
    seconds = 60.0 if quick else 600.0
    sim = Simulation.from_level(DEFAULT_LEVEL)
    sim.step(2)                                # compile or load the kernels before the clock starts
    log = play(sim, seconds, every=6.0 if quick else 60.0)
    half = [b for t, b in log.rss if t >= seconds / 2]
    w0 = log.water[0][1]
    drift = max(abs(v - w0) for _, v in log.water)
    sps = log.steps / log.wall
    row = {"level": DEFAULT_LEVEL.stem, "simulated_s": seconds, "steps": log.steps, "wall_s": round(log.wall, 1),
           "steps_per_s": round(sps, 1), "real_time_x": round(sps * sim.dt, 2),
           # on a shared host the wall figure counts the time spent waiting for a core; this one does not
           "steps_per_cpu_s": round(log.steps / max(log.cpu, 1e-9), 1),
           "throws": sum(log.throws.values()), "shatters": log.shatters, "pokes": log.pokes, "rain": log.rain,
           "most_bottles": log.most.get("bottle", 0), "most_props": log.most.get("prop", 0),
           "most_shards": log.most.get("shard", 0), "most_kept_shards": log.most.get("kept shard", 0),
           "rss_mid_mb": round(half[0] / 2**20, 1) if half else 0.0,
           "rss_end_mb": round(log.rss[-1][1] / 2**20, 1), "water_drift_m3": drift}
    sim.close()
    return {"rows": [row], "ms_per_step": log.ms_per_system, "windows": log.windows,
            "host_load_1min": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
