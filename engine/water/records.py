"""Named structures at the boundary of the water traversals (plain.py, fast.py, schedule.py).

Each is a `collections.namedtuple` of arrays: numba types it as a NamedTuple in nopython mode,
caches kernels that take it (`cache=True`) and reads its fields by name at no cost inside a
kernel. `advance` takes three of these, the row functions a few, instead of 15 positional arrays.

Invariant: every field keeps the dtype and number of dimensions below (C-contiguous), as the
kernels were compiled for; the builders (`state`, `scratch`, `sides`) make them so. Index [k, i]
<-> (z, x) on an nz x nx grid, SI units.

State         the water, stepped in place
  h, bed      (nz, nx)      float64   depth and bed height at cell centres, m
  u           (nz, nx + 1)  float32   x-face velocity; u[k, i] between cells (k, i - 1) and (k, i), m/s
  w           (nz + 1, nx)  float32   z-face velocity; w[k, i] between cells (k - 1, i) and (k, i), m/s
  ax, az      as u, w       float32   external acceleration on the faces over the step, m/s^2
                                      (cleared by the step)
Faces         a pair of face-velocity arrays, shaped as State.u, State.w: the velocities a substep
  u, w                                reads, or the ones it writes (the traversal swaps the two
                                      pairs, State's and Scratch's, each substep)
Scratch       per grid, allocated once; nothing in it outlives a step
  u, w        as State.u, w float32   the other pair of velocity arrays
  qx          (nz, nx + 1)  float64   x-face discharges of the substep, m^2/s
  qz          (nz + 1, nx)  float64   z-face discharges, m^2/s
  rates       (nz, 2)       int64     per row, the bit patterns of its largest depth and |v|
Sides         what the four sides of the pool do, in params.SIDE order (x_min, x_max, z_min, z_max)
  kind        (4,)          int64     params.REFLECTIVE or params.OPEN
  eta         (4,)          float64   outside surface height of an open side, m
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numpy.typing import NDArray

State = namedtuple("State", ["h", "bed", "u", "w", "ax", "az"])
Faces = namedtuple("Faces", ["u", "w"])
Scratch = namedtuple("Scratch", ["u", "w", "qx", "qz", "rates"])
Sides = namedtuple("Sides", ["kind", "eta"])


def state(h: NDArray, bed: NDArray, u: NDArray, w: NDArray, ax: NDArray, az: NDArray) -> State:
    """A State of the given arrays (not copied: the step writes into them); checks the dtypes."""
    for name, a, dtype in (("h", h, np.float64), ("bed", bed, np.float64), ("u", u, np.float32),
                           ("w", w, np.float32), ("ax", ax, np.float32), ("az", az, np.float32)):
        if a.dtype != dtype or a.ndim != 2 or not a.flags.c_contiguous:
            raise TypeError(f"water State.{name} must be a C-contiguous 2-D {np.dtype(dtype).name} array "
                            f"(got {a.dtype}, {a.ndim}-D)")
    return State(h, bed, u, w, ax, az)


def scratch(nz: int, nx: int) -> Scratch:
    """The step's scratch arrays for an nz x nx grid."""
    return Scratch(np.zeros((nz, nx + 1), np.float32), np.zeros((nz + 1, nx), np.float32),
                   np.zeros((nz, nx + 1)), np.zeros((nz + 1, nx)), np.zeros((nz, 2), np.int64))


def sides(kind: NDArray | list | tuple, eta: NDArray | list | tuple) -> Sides:
    """Sides from four side codes and four outside surface heights (as int64 / float64 arrays)."""
    return Sides(np.ascontiguousarray(kind, dtype=np.int64), np.ascontiguousarray(eta, dtype=np.float64))
