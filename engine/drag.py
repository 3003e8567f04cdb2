"""Pressure-drag coefficients from a body's shape (the water's F_D, engine/kernels/water_forces.py).

Each model carries C = (C_x, C_y, C_z), its drag coefficient for flow along each of its own (body
frame) axes, on the frontal area the kernel sums for that flow. For a flow direction u^ given in
the body frame the coefficient is the quadratic blend

    C_D(u^) = C_x u_x^2 + C_y u_y^2 + C_z u_z^2

so a body of revolution about y (a bottle, C_x = C_z = C_cross, C_y = C_ax) gets
C_D = C_ax (a.u^)^2 + C_cross (1 - (a.u^)^2), a the axis; a box gets its face-on values along its
axes and their blend edge- or corner-on (its larger frontal area there the kernel already counts).

Sources (Hoerner, Fluid-Dynamic Drag, 1965; subcritical Reynolds numbers, 1e4-1e5, which a
bottle or a prop in a pool sees: Re = U L / nu ~ 1 m/s * 0.1 m / 1e-6 = 1e5):
  sphere                        0.47                          (3-8; [physics] drag_coefficient)
  blunt cylinder, axial flow    L/D 0 (a disk) 1.17, 0.5 1.15, 1 0.90, 2 0.85, 4 0.87, 8 0.99  (3-12, 3-17)
  finite cylinder, cross flow   L/D 1 0.63, 2 0.68, 5 0.74, 10 0.82, 20 0.90, 40 0.98, inf 1.20  (3-15, 3-16)
  square plate 1.17, cube face-on 1.05                                                           (3-16, 3-17)
A box face-on with length L along the flow and face side D = sqrt(face area) takes the plate's
1.17 at L/D = 0 to the cube's 1.05 at L/D = 1, linear between, and the cube's 1.05 beyond (the
sharp front edge sets a blunt box's drag; no longer square prism is tabulated there).
"""
from __future__ import annotations

import numpy as np

SPHERE = 0.47
# (L/D, C_D) tables, linear between the points, the end values beyond them
AXIAL_CYLINDER = ((0.0, 1.17), (0.5, 1.15), (1.0, 0.90), (2.0, 0.85), (4.0, 0.87), (8.0, 0.99))
CROSS_CYLINDER = ((1.0, 0.63), (2.0, 0.68), (5.0, 0.74), (10.0, 0.82), (20.0, 0.90), (40.0, 0.98), (1e6, 1.20))
BOX_FACE = ((0.0, 1.17), (1.0, 1.05))


def _table(points: tuple[tuple[float, float], ...], x: float) -> float:
    xs, ys = zip(*points)
    return float(np.interp(x, xs, ys))


def cylinder_axial(l_over_d: float) -> float:
    """C_D of a blunt (flat-ended) cylinder in flow along its axis, on its end's area pi D^2 / 4."""
    return _table(AXIAL_CYLINDER, l_over_d)


def cylinder_cross(l_over_d: float) -> float:
    """C_D of a finite cylinder in flow across its axis, on its side's projected area L D."""
    return _table(CROSS_CYLINDER, l_over_d)


def box_face(l_over_d: float) -> float:
    """C_D of a rectangular block face-on, L along the flow, D = sqrt(area of the face met)."""
    return _table(BOX_FACE, l_over_d)


def sphere(cd: float = SPHERE) -> tuple[float, float, float]:
    return (cd, cd, cd)


def revolution(length: float, diameter: float) -> tuple[float, float, float]:
    """A body of revolution about its y axis (a bottle: a flat base, a cylinder, a neck) of overall
    length L and largest diameter D: the blunt cylinder's axial and cross-flow C_D at its L/D."""
    ld = length / max(diameter, 1e-12)
    cross = cylinder_cross(ld)
    return (cross, cylinder_axial(ld), cross)


def box(size) -> tuple[float, float, float]:
    """A rectangular block of extents (sx, sy, sz) along its axes: each axis its face-on C_D."""
    s = [max(float(x), 1e-12) for x in size]
    out = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        out.append(box_face(s[i] / np.sqrt(s[j] * s[k])))
    return (out[0], out[1], out[2])


def of_vertices(vertices) -> tuple[float, float, float]:
    """A mesh of no stated shape (an OBJ prop, a glass shard): the block of its extents along its
    own axes (box)."""
    v = np.asarray(vertices, float).reshape(-1, 3)
    return box(v.max(axis=0) - v.min(axis=0))


def bottle(vertices) -> tuple[float, float, float]:
    """A bottle model (lathed about y): revolution() at its height and its largest diameter."""
    v = np.asarray(vertices, float).reshape(-1, 3)
    ext = v.max(axis=0) - v.min(axis=0)
    return revolution(float(ext[1]), float(max(ext[0], ext[2])))


def blend(cd, direction) -> float:
    """C_D(u^) = sum_i C_i u_i^2 for a body-frame flow direction (module docstring)."""
    u = np.asarray(direction, float)
    u = u / np.linalg.norm(u)
    return float(np.dot(np.asarray(cd, float), u * u))
