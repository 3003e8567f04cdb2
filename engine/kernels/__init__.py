"""Numba kernels: pure functions over arrays (coupling, rigid, contacts; the water's are in `engine.water`).

Kernels see only arrays and scalars. `engine.kernels.reference` holds the water step in plain numpy,
which the tests check the water kernels against; `engine.kernels.jit` announces compiles
(importing this package starts it).

Importing this package also starts numba's threading layer (it runs no thread until a parallel loop
does). A cached kernel that calls a parallel one (`engine.water.fast.advance` calls its phases) and has more
than one compiled version on disk crashed the process (SIGSEGV) when it loaded the second version
from the cache before the layer was up: seen with numba 0.68 after `advance` had been called once
with a float32 argument, on every later run; numba issue 8578 describes the same missing set-up.
With the layer started first, the cached version loads and runs.
"""
import numba as _numba

from engine.kernels import jit as _jit

_jit.watch()
_numba.get_num_threads()   # starts the threading layer: see above
