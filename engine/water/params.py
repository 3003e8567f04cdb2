"""Constants of the water step: side codes, status codes, and the layout of the parameter vector
that the traversals take (one float64 array, so a traversal's signature does not grow with them)."""
from __future__ import annotations

import numpy as np

# what a side of the pool does (the `sides` array holds one code per side, in SIDE order)
REFLECTIVE = 0      # zero normal velocity
OPEN = 1            # absorbing / outflow: characteristic condition against an outside surface
SIDE = ("x_min", "x_max", "z_min", "z_max")

# status codes returned by `advance`
OK, NOT_FINITE, RUNAWAY_STATUS = 0, 1, 2

# CFL: (sqrt(g h) + |v|) dt / dx per substep. Forward-backward gravity waves on the staggered
# 5-point stencil are stable for c dt / dx <= 1 / sqrt(2) in 2-D; the upwind depths and advection
# take some of that margin.
CFL = 0.65
# The substep count of a step falls below the last step's only where the speeds fit the lower count
# with this margin, cfl (1 - SLACK): each change of the count changes the (non-normal) step operator
# of the neutral 2-cell checker mode, and a count that follows a_max up and down within one wave
# period pumps that mode (products of one-substep and two-substep steps have spectral radius up to
# 1.3-1.8 at c dt / dx 0.5-0.65 though each alone has 1; docs/water.md, session 16). The margin
# is wider than a_max's swing in a decaying checker, so the count changes at most once on the way
# up and once on the way down.
SLACK = 0.06
MAX_SUBSTEPS = 1000   # more substeps than this in one step is a runaway
RUNAWAY = 1000.0      # m/s: a water speed above this is a runaway
BIG = 1e300           # anything not below this is treated as not finite

# indices into the parameter vector
I_G, I_DX, I_CFL, I_NU, I_DELTA, I_MANNING, I_EDDY, I_RUNAWAY, I_MAX_SUBSTEPS, I_LAST_SUBSTEPS = range(10)
NPARAM = 10


def parameters(g: float, dx: float, nu: float = 0.0, delta: float = 1.0, manning: float = 0.0,
               eddy: float = 0.0, cfl: float = CFL, runaway: float = RUNAWAY,
               max_substeps: int = MAX_SUBSTEPS, last_substeps: int = 0) -> np.ndarray:
    """The parameter vector: gravity m/s^2, cell m, molecular viscosity m^2/s and boundary-layer
    thickness m (laminar friction), Manning n s/m^(1/3), eddy viscosity m^2/s, CFL number, runaway
    speed m/s, most substeps a step, the substeps the grid's last step took (0: none; see SLACK)."""
    p = np.zeros(NPARAM)
    p[I_G], p[I_DX], p[I_CFL], p[I_NU], p[I_DELTA] = g, dx, cfl, nu, delta
    p[I_MANNING], p[I_EDDY], p[I_RUNAWAY], p[I_MAX_SUBSTEPS] = manning, eddy, runaway, max_substeps
    p[I_LAST_SUBSTEPS] = last_substeps
    return p
