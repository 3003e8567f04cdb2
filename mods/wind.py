"""Wind: a breeze with travelling gusts drags the water surface and pushes bodies above the water.

Load it with `bottles play --mod mods/wind.py`. A level may tune it (every key optional):

    [wind]
    speed = 8.0              # m/s
    direction = [1.0, 0.3]   # (x, z), normalised
    gust = 0.4               # gusts vary the speed by this fraction
    gust_length = 1.5        # m between gust fronts; they travel at gust_speed
    gust_speed = 1.5         # m/s
    stress_scale = 40.0      # exaggerates the air-water drag so a pool a few metres long shows it

Physics. The wind's shear stress on the water is tau = rho_air C_s |U| U (C_s ~ 1.3e-3, the bulk
drag coefficient of a water surface); spread over a column of depth h it accelerates the water by
a = tau / (rho_w h), added to WaterGrid.ax / .az each step. Bodies whose centre is above the
surface feel the drag F = 1/2 rho_air C_d A |U - v| (U - v), with A = volume^(2/3) and C_d = 1,
through BodyStore.force when the body engine has that array, else as a velocity change F dt / m.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.levels.fields import spec
from engine.systems import System

RHO_AIR = 1.2       # kg/m^3
C_SURFACE = 1.3e-3  # bulk drag coefficient of a water surface (open sea, 10 m wind)
C_BODY = 1.0        # drag coefficient of a bluff body
H_MIN = 0.02        # m: thinner films are not accelerated more than this depth allows


@dataclass(frozen=True, slots=True)
class WindSpec:
    """The [wind] level section."""
    speed: float = spec("float", default=8.0, min=0.0, max=60.0, doc="m/s")
    direction: tuple[float, float] = spec("vec2", default=(1.0, 0.3), min=-1.0, max=1.0, doc="(x, z)")
    gust: float = spec("float", default=0.4, min=0.0, max=1.0, doc="fractional speed variation")
    gust_length: float = spec("float", default=1.5, min=0.05, max=100.0, doc="m")
    gust_speed: float = spec("float", default=1.5, min=0.0, max=60.0, doc="m/s")
    stress_scale: float = spec("float", default=40.0, min=0.0, max=1e4, doc="exaggeration of the surface drag")

    def check(self) -> list[tuple[str, str]]:
        if math.hypot(*self.direction) < 1e-6:
            return [("direction", "must not be zero")]
        return []


class Wind(System):
    """Blow on the water and on the bodies above it. Runs before IntegrateBodies.

    Reads: [wind], WaterGrid h, bed; BodyStore. Writes: WaterGrid ax, az; BodyStore force.
    """

    READS = ("WaterGrid.h", "WaterGrid.bed", "WaterGrid.u", "WaterGrid.w", "BodyStore.slots", "BodyStore.alive",
             "BodyStore.pos", "BodyStore.vel", "BodyStore.volume")
    WRITES = ("WaterGrid.ax", "WaterGrid.az", "BodyStore.force")
    EMITS = ()

    def bind(self, sim) -> None:  # type: ignore[no-untyped-def]
        super().bind(sim)
        self.cfg: WindSpec = sim.level.extra.get("wind", WindSpec())
        d = np.asarray(self.cfg.direction, float)
        self.dir = d / np.linalg.norm(d)
        w = sim.water
        nz, nx = w.h.shape
        dx = float(w.dx)
        # distance along the wind of the x faces and of the z faces (for the travelling gusts)
        self.s_u = self.dir[0] * (np.arange(nx + 1) * dx)[None, :] + self.dir[1] * ((np.arange(nz) + 0.5) * dx)[:, None]
        self.s_w = self.dir[0] * ((np.arange(nx) + 0.5) * dx)[None, :] + self.dir[1] * (np.arange(nz + 1) * dx)[:, None]

    def state(self) -> dict:
        """Nothing of its own to save: the wind is a function of the level section and the clock."""
        return {}

    def set_state(self, state: dict) -> None:
        """Nothing to restore (see state())."""

    def speed(self, s: np.ndarray | float, t: float) -> np.ndarray | float:
        """Wind speed at distance s along the wind at time t, m/s."""
        c = self.cfg
        k = 2.0 * math.pi / c.gust_length
        return c.speed * (1.0 + c.gust * np.sin(k * (s - c.gust_speed * t)))

    def process(self, dt: float) -> None:
        sim, c = self.sim, self.cfg
        t = sim.time
        w = sim.water
        h = np.asarray(w.h, dtype=np.float64)
        # depth on the faces: the mean of the two cells, zero at walls and dry faces
        hu = np.zeros(w.u.shape)
        hu[:, 1:-1] = 0.5 * (h[:, 1:] + h[:, :-1])
        hw = np.zeros(w.w.shape)
        hw[1:-1, :] = 0.5 * (h[1:, :] + h[:-1, :])
        for depth, s, arr, comp in ((hu, self.s_u, w.ax, 0), (hw, self.s_w, w.az, 1)):
            U = self.speed(s, t)
            tau = RHO_AIR * C_SURFACE * U * U * c.stress_scale       # Pa, along the wind
            wet = depth > 1e-4
            arr[wet] += (tau[wet] / (1000.0 * np.maximum(depth[wet], H_MIN))) * self.dir[comp]
        self._push_bodies(dt, t)

    def _push_bodies(self, dt: float, t: float) -> None:
        sim = self.sim
        st = sim.body_store
        n = int(getattr(st, "n", 0))
        if n == 0:
            return
        alive = np.asarray(st.alive[:n], bool)
        pos, vel = st.pos[:n], st.vel[:n]
        w = sim.water
        nz, nx = w.h.shape
        i = np.clip((pos[:, 0] / w.dx).astype(int), 0, nx - 1)
        k = np.clip((pos[:, 2] / w.dx).astype(int), 0, nz - 1)
        eta = np.asarray(w.bed, float)[k, i] + np.asarray(w.h, float)[k, i]
        above = alive & (pos[:, 1] > eta)
        if not above.any():
            return
        s = self.dir[0] * pos[:, 0] + self.dir[1] * pos[:, 2]
        U = self.speed(s, t)
        air = np.zeros((n, 3))
        air[:, 0], air[:, 2] = U * self.dir[0], U * self.dir[1]
        rel = air - vel
        area = np.cbrt(np.maximum(st.volume[:n], 0.0)) ** 2
        force = 0.5 * RHO_AIR * C_BODY * area[:, None] * np.linalg.norm(rel, axis=1)[:, None] * rel
        force[~above] = 0.0
        if getattr(st, "force", None) is not None:
            st.force[:n] += force
        else:
            vel += force * (dt / np.maximum(st.mass[:n], 1e-9))[:, None]


def register(api) -> None:  # type: ignore[no-untyped-def]
    """Add the [wind] section, the Wind system and a HUD line."""
    api.add_level_section("wind", WindSpec)
    api.add_system(Wind(), before="IntegrateBodies")

    def hud(sim) -> str:  # type: ignore[no-untyped-def]
        c = sim.level.extra.get("wind", WindSpec())
        bearing = math.degrees(math.atan2(c.direction[1], c.direction[0]))
        return f"wind {c.speed:.0f} m/s towards {bearing:.0f} deg (gusts +-{c.gust * 100:.0f}%)"

    api.add_hud_line(hud)
