"""The pool's water: a shallow-water solver on a staggered grid.

    formulas.py   the scheme, pointwise: fluxes, advection, momentum, friction, open sides
    plain.py      the plain traversal: one loop nest per phase; the readable specification
    fast.py       the same phases over row blocks on threads, equal to plain bit for bit
    schedule.py   which traversal a grid's step takes: the stepping side's Scheduler times them
    params.py     side and status codes, the parameter vector
    records.py    the named structures the traversals take: State, Scratch, Sides, Faces
    grid.py       WaterGrid, the component: state arrays, sources, sides, the public API
    stages.py     the whole water step of a grid: its stages around WaterGrid.step
    dispersion.py the dispersive surface waves' numerics (Jeschke & Wojtan 2023)
    surface.py    SurfaceWaves, the dispersive stage: split before the step, merge after it
    vortices.py   vorticity confinement, a stage before the step
"""
from __future__ import annotations

from engine.water.grid import WaterGrid
from engine.water.schedule import PARALLEL_MIN_CELLS

__all__ = ["WaterGrid", "PARALLEL_MIN_CELLS"]
