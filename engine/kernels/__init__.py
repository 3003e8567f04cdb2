"""Numba kernels: pure functions over arrays (shallow_water, coupling, ...).

Kernels see only arrays and scalars. `engine.kernels.reference` holds plain numpy versions that the
tests and `bottles bench` check the fast kernels against; `engine.kernels.jit` announces compiles
(importing this package starts it).
"""
from engine.kernels import jit as _jit

_jit.watch()
