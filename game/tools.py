"""Tools: what the mouse does to the world besides throwing: push the water, rain, dye, grab.

`Tools` is a part of game.controller.Game (a mixin over the Game's sim, camera and input state).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from game import aim
from game.host import GameHost

# pushing the water: faces under the cursor relax towards the cursor's velocity
PUSH_RATE = 12.0         # 1/s, how fast the water near the cursor takes up the cursor's velocity
PUSH_RADIUS = 0.12       # m, Gaussian radius of the push (at least 3 cells)
MAX_CURSOR_SPEED = 4.0   # m/s, the fastest the cursor drags the water

RAIN_DROPS = 60          # drops per press of the rain key, one per step
RAIN_DEPTH = 0.01        # m, height of the little mound each drop makes

GRAB_TAU = 0.08          # s: a grabbed body closes the gap to the cursor with this time constant
GRAB_MAX_SPEED = 6.0     # m/s: the fastest a grabbed body is dragged


class Tools(GameHost):
    """Game methods for the in-game tools and the water under the cursor."""

    def cursor_on_water(self, x: float, y: float) -> NDArray[np.float64] | None:
        """Where the ray through pixel (x, y) meets the mean water surface, as (x, z); None if it misses."""
        _, d = self.camera.ray(x, self.height - y, self.width, self.height)
        o = np.asarray(self.camera.eye, float)
        if d[1] > -1e-6:
            return None
        t = (self.surface_y - o[1]) / d[1]
        if t <= 0.0:
            return None
        p = o + t * d
        return np.array([p[0], p[2]])

    def rain(self) -> None:
        self.rain_left += RAIN_DROPS
        self.notice("rain")

    def drop_dye(self, x: float, y: float) -> bool:
        """Drop a blob of tracers where the cursor at pixel (x, y) meets the water."""
        p = self.cursor_on_water(x, y)
        if p is None:
            return False
        self.sim.get_system("Tracers").drop(float(p[0]), float(p[1]), self.rng)  # type: ignore[attr-defined]
        return True

    def _floor_point(self, x: float, y: float) -> tuple[float, float] | None:
        """(x, z) under pixel (x, y) on the mean water surface (the barriers' own tops ignored),
        inside the pool, or None."""
        p = self.cursor_on_water(x, y)
        if p is None:
            return None
        sx, sz = self.sim.level.pool.size
        if not (0.0 <= p[0] <= sx and 0.0 <= p[1] <= sz):
            return None
        return float(p[0]), float(p[1])

    def aim_at(self, x: float, y: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        _, d = self.camera.ray(x, self.height - y, self.width, self.height)
        return np.asarray(self.camera.eye, float), d

    def _grab_plane_point(self) -> NDArray[np.float64] | None:
        """Where the cursor ray meets the horizontal plane the grabbed body is dragged in."""
        if self._grab is None:
            return None
        eye, d = self.aim()
        y = self._grab[1]
        if abs(d[1]) < 1e-6:
            return None
        t = (y - eye[1]) / d[1]
        if t <= 0.0:
            return None
        p = eye + t * d
        sx, sz = self.sim.level.pool.size
        p[0] = min(max(p[0], 0.05), sx - 0.05)
        p[2] = min(max(p[2], 0.05), sz - 0.05)
        return p

    def _apply_grab(self) -> None:
        """Pull the grabbed body towards the cursor point: velocity (target - x) / GRAB_TAU, capped."""
        if self._grab is None:
            return
        e = self._grab[0]
        try:
            body = self.sim.body(e)
        except KeyError:
            self._grab = None
            return
        target = self._grab_plane_point()
        if target is None:
            return
        v = (target - np.asarray(body.position, float)) / GRAB_TAU
        s = float(np.linalg.norm(v))
        if s > GRAB_MAX_SPEED:
            v *= GRAB_MAX_SPEED / s
        body.velocity[:] = v
        body.angular_velocity[:] *= 0.9
        self._wake(e)

    def _wake(self, e: int) -> None:
        """A dragged body must not sleep: sleep[slot] = 0 wakes it (engine/bodies.py)."""
        self.sim.body_store.sleep[aim._slot(self.sim, e)] = 0.0

    def _apply_push(self) -> None:
        if self._push is None:
            return
        (cx, cz), (vx, vz) = self._push
        water = self.sim.water
        dx = water.dx
        r = max(PUSH_RADIUS, 3.0 * dx)
        nz, nx = water.shape
        reach = 3.0 * r
        # x faces sit at (i dx, (k + 1/2) dx), z faces at ((i + 1/2) dx, k dx)
        faces = ((water.ax, water.read("u"), vx, 0.0, 0.5), (water.az, water.read("w"), vz, 0.5, 0.0))
        for arr, vel, v, ox, oz in faces:
            nk, ni = arr.shape
            i0, i1 = max(0, int((cx - reach) / dx - ox)), min(ni, int((cx + reach) / dx - ox) + 2)
            k0, k1 = max(0, int((cz - reach) / dx - oz)), min(nk, int((cz + reach) / dx - oz) + 2)
            if i0 >= i1 or k0 >= k1:
                continue
            xs = (np.arange(i0, i1) + ox) * dx
            zs = (np.arange(k0, k1) + oz) * dx
            wgt = np.exp(-((xs[None, :] - cx) ** 2 + (zs[:, None] - cz) ** 2) / (r * r))
            arr[k0:k1, i0:i1] += PUSH_RATE * (v - vel[k0:k1, i0:i1]) * wgt

    def _drop_rain(self) -> None:
        if self.rain_left <= 0:
            return
        self.rain_left -= 1
        water = self.sim.water
        nz, nx = water.shape
        wet = np.argwhere(water.read("h") > 1e-3)
        if not len(wet):
            return
        k, i = wet[self.rng.integers(len(wet))]
        jitter = self.rng.random(2)
        x, z = (i + jitter[0]) * water.dx, (k + jitter[1]) * water.dx
        r = 1.5 * water.dx
        # a cone of height RAIN_DEPTH and radius r holds pi r^2 RAIN_DEPTH / 3
        water.add_volume(x, z, math.pi * r * r * RAIN_DEPTH / 3.0, radius=r)
