"""The orbit camera: view and projection matrices, and world <-> screen mappings (pure numpy).

Matrices are row-major numpy arrays acting on column vectors (clip = P @ V @ world); the shader
helper uploads them transposed. Screen pixels have x to the right and y down from the top-left,
as in an image read back from the renderer.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from engine.levels.schema import Level
from engine.meshes import vec3


def look_at(eye: ArrayLike, target: ArrayLike, up: ArrayLike = (0.0, 1.0, 0.0)) -> NDArray[np.float64]:
    """Return the view matrix of a camera at `eye` looking at `target`."""
    e, t, u = (np.asarray(a, float) for a in (eye, target, up))
    f = t - e
    f /= np.linalg.norm(f)
    s = np.cross(f, u)
    if np.linalg.norm(s) < 1e-9:
        s = np.cross(f, (0.0, 0.0, 1.0))
    s /= np.linalg.norm(s)
    uu = np.cross(s, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = s, uu, -f
    m[:3, 3] = -m[:3, :3] @ e
    return m


def perspective(fov_y_deg: float, aspect: float, near: float, far: float) -> NDArray[np.float64]:
    """Return an OpenGL perspective matrix (depth -1..1)."""
    f = 1.0 / math.tan(math.radians(fov_y_deg) / 2.0)
    m = np.zeros((4, 4))
    m[0, 0] = f / aspect
    m[1, 1] = f
    m[2, 2] = (far + near) / (near - far)
    m[2, 3] = 2.0 * far * near / (near - far)
    m[3, 2] = -1.0
    return m


@dataclass(slots=True)
class OrbitCamera:
    """A camera orbiting `target` at `distance`, `yaw` (degrees about +y) and `pitch` (degrees up)."""
    target: tuple[float, float, float] = (0.0, 0.0, 0.0)
    distance: float = 5.0
    yaw: float = -30.0
    pitch: float = 35.0
    fov: float = 50.0
    near: float = 0.05
    far: float = 200.0

    @classmethod
    def from_level(cls, level: Level, aspect: float = 16 / 9) -> "OrbitCamera":
        """Place the camera as the level's [camera] table says (fitting the pool when distance is -1)."""
        c = level.camera
        sx, sz = level.pool.size
        target = c.target if c.target is not None else (sx / 2.0, level.water.level, sz / 2.0)
        dist = c.distance
        if dist <= 0.0:
            # fit the pool's diagonal (plus the deck) in the smaller of the two fields of view
            half = 0.5 * math.hypot(sx, sz) + 0.3
            fov_min = min(c.fov, math.degrees(2 * math.atan(math.tan(math.radians(c.fov) / 2) * aspect)))
            dist = half / math.tan(math.radians(fov_min) / 2.0) * 0.72   # the diagonal is foreshortened
        return cls(vec3(target), float(dist), float(c.yaw), float(c.pitch), float(c.fov))

    @property
    def eye(self) -> NDArray[np.float64]:
        """World position of the camera."""
        y, p = math.radians(self.yaw), math.radians(self.pitch)
        d = np.array([math.cos(p) * math.sin(y), math.sin(p), math.cos(p) * math.cos(y)])
        return np.asarray(self.target, float) + self.distance * d

    def view(self) -> NDArray[np.float64]:
        return look_at(self.eye, self.target)

    def projection(self, aspect: float) -> NDArray[np.float64]:
        return perspective(self.fov, aspect, self.near, self.far)

    def view_projection(self, aspect: float) -> NDArray[np.float64]:
        return self.projection(aspect) @ self.view()

    def project(self, points: ArrayLike, width: int, height: int) -> NDArray[np.float64]:
        """Map world points (..., 3) to screen pixels (..., 3): x right, y down, and NDC depth.

        Points behind the camera get NaN pixel coordinates.
        """
        p = np.asarray(points, float)
        flat = p.reshape(-1, 3)
        clip = np.c_[flat, np.ones(len(flat))] @ self.view_projection(width / height).T
        w = clip[:, 3:4]
        ndc = np.where(w > 1e-9, clip[:, :3] / np.where(w > 1e-9, w, 1.0), np.nan)
        out = np.empty_like(ndc)
        out[:, 0] = (ndc[:, 0] * 0.5 + 0.5) * width
        out[:, 1] = (0.5 - ndc[:, 1] * 0.5) * height
        out[:, 2] = ndc[:, 2]
        return out.reshape(p.shape)

    def ray(self, x: float, y: float, width: int, height: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Return (origin, unit direction) of the world ray through screen pixel (x, y)."""
        inv = np.linalg.inv(self.view_projection(width / height))
        nx, ny = 2.0 * x / width - 1.0, 1.0 - 2.0 * y / height
        a = inv @ np.array([nx, ny, -1.0, 1.0])
        b = inv @ np.array([nx, ny, 1.0, 1.0])
        a, b = a[:3] / a[3], b[:3] / b[3]
        d = b - a
        return a, d / np.linalg.norm(d)

    def orbit(self, dyaw: float, dpitch: float) -> None:
        """Turn about the target (degrees); pitch stays within (-89, 89)."""
        self.yaw = (self.yaw + dyaw) % 360.0
        self.pitch = float(np.clip(self.pitch + dpitch, -89.0, 89.0))

    def zoom(self, factor: float) -> None:
        """Scale the distance to the target (factor < 1 moves closer)."""
        self.distance = float(np.clip(self.distance * factor, 0.2, 150.0))
