"""Water held in open bottles: it pours out through the neck when the bottle tips, and an open
bottle whose mouth is under the surface fills up.

The cavity (a lathe of the bottle's `cavity_profile`) is sampled once into small volume elements.
For the bottle's current orientation the held water's free surface is the height h_in below which
the elements hold `held` m^3. Through the mouth (inner radius r_n, area A = pi r_n^2) water flows
at the orifice rate

    Q = C A sqrt(2 g H)       C = 0.35 (a discharge coefficient of ~0.6 halved for the glugging
                              of air coming back in through the same neck)

with H the head between the two sides: inside, h_in (when it is above the mouth); outside, the
water surface at the mouth when the mouth is under it, else the mouth itself. This module is the
orifice's arithmetic only; the HeldWater system (engine/systems/held_water.py) moves the water: out
of a mouth in the air into a falling parcel, under the surface to or from the pool at the mouth.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from engine.kernels.cavity import level_of, weight_at_or_below
from engine.meshes import BottleSet, load_bottle_set

DISCHARGE = 0.35     # orifice coefficient including the glug of air going the other way
REMODEL_STEPS = 24   # the mass model follows the held water in steps of inner_volume / 24


@dataclass(frozen=True, slots=True)
class Cavity:
    """Volume elements of a bottle's cavity in its model frame."""
    points: NDArray[np.float64]      # (n, 3)
    weights: NDArray[np.float64]     # (n,) m^3, summing to the inner volume
    mouth: NDArray[np.float64]       # model frame
    axis: NDArray[np.float64]        # out of the mouth
    mouth_area: float


@lru_cache(maxsize=16)
def cavity(model: str) -> Cavity:
    """Sample a bottle model's cavity into ~3000 volume elements (cached per model)."""
    bs: BottleSet = load_bottle_set(model)
    prof = np.asarray(bs.cavity_profile, float)          # (r, y) from the base centre to the mouth
    ys = np.linspace(prof[:, 1].min(), prof[:, 1].max(), 61)
    yc = 0.5 * (ys[1:] + ys[:-1])
    dy = np.diff(ys)
    order = np.argsort(prof[:, 1], kind="stable")
    radius = np.interp(yc, prof[order, 1], prof[order, 0])
    pts, wts = [], []
    n_r, n_a = 4, 12
    for y, h, r in zip(yc, dy, radius):
        if r <= 0.0:
            continue
        edges = r * np.sqrt(np.linspace(0.0, 1.0, n_r + 1))        # rings of equal area
        for j in range(n_r):
            rr = 0.5 * (edges[j] + edges[j + 1])
            area = np.pi * (edges[j + 1] ** 2 - edges[j] ** 2) / n_a
            for a in range(n_a):
                ang = 2 * np.pi * (a + 0.5 * (j % 2)) / n_a
                pts.append((rr * np.cos(ang), y, rr * np.sin(ang)))
                wts.append(area * h)
    w = np.array(wts)
    w *= bs.inner_volume / w.sum()                    # exact total: the sampling only shapes it
    r_mouth = _mouth_radius(prof)    # the widest inner radius within 2 cm of the mouth
    return Cavity(np.array(pts), w, np.asarray(bs.neck, float), np.asarray(bs.neck_axis, float),
                  float(np.pi * r_mouth ** 2))


def _mouth_radius(prof: NDArray) -> float:
    top = prof[np.argmax(prof[:, 1])]
    near = prof[prof[:, 1] > top[1] - 0.02]
    return float(max(near[:, 0].max(), 0.005))


def inner_level(cav: Cavity, rot: NDArray, held: float) -> float:
    """World height (relative to the model origin) of the held water's free surface: the lowest
    element height below which the elements hold `held` (engine/kernels/cavity.level_of)."""
    if held <= 0.0:
        return -np.inf
    return float(level_of(cav.points, cav.weights, np.ascontiguousarray(rot[1], dtype=np.float64), float(held)))


def _level_at_or_below(cav: Cavity, rot: NDArray, held: float, mouth_rel: float) -> bool:
    """True if the held water's surface (inner_level) is surely at or below the mouth, found
    without sorting: the elements at or below the mouth hold more than `held` (the sorted
    cumulative sum reaches `held` within them). The margins (1e-12 m in height, 1e-9 of `held`)
    cover the rounding of the heights and of the summation order, so the answer is never True
    where inner_level would put the surface above the mouth."""
    up = np.ascontiguousarray(rot[1], dtype=np.float64)
    return weight_at_or_below(cav.points, cav.weights, up, float(mouth_rel) - 1e-12) > held * (1.0 + 1e-9)


def exchange(cav: Cavity, rot: NDArray, origin: NDArray, held: float, outside: float, g: float,
             dt: float) -> float:
    """Volume (m^3, + out of the bottle, - into it) crossing the mouth in dt.

    `origin`: world position of the model-frame origin; `outside`: water surface height over the
    mouth (-inf where there is no water below it).
    """
    mouth_rel = rot[1] @ cav.mouth
    mouth_y = float(origin[1] + mouth_rel)
    inner_volume = float(cav.weights.sum())
    if held > 0.0 and _level_at_or_below(cav, rot, held, mouth_rel):
        h_in = mouth_y      # the same flow as the exact level: neither branch below needs h_in under the mouth
    else:
        h_in = float(origin[1]) + inner_level(cav, rot, held)
    submerged = outside > mouth_y
    out_level = outside if submerged else mouth_y
    if held > 0.0 and h_in > mouth_y and h_in > out_level:
        head = h_in - out_level
        return min(held, DISCHARGE * cav.mouth_area * np.sqrt(2.0 * g * head) * dt)
    if submerged and held < inner_volume:
        head = outside - max(h_in, mouth_y)
        if head > 0.0:
            return -min(inner_volume - held, DISCHARGE * cav.mouth_area * np.sqrt(2.0 * g * head) * dt)
    return 0.0
