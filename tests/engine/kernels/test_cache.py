"""Cached kernels load safely in a new process, whatever versions of them the cache holds.

A cached numba function that calls a parallel one, with a second compiled version on disk, crashed
the process (SIGSEGV) when a later run loaded that version from the cache before numba's threading
layer had started (numba 0.68; the kernels' `advance` calls the parallel `_stats` and `_sweep`).
Importing `engine.kernels` starts the layer. Without that line in `engine/kernels/__init__.py`, the
last run below died with exit status -11.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

KERNELS = textwrap.dedent("""
    import numpy as np
    from numba import njit, prange

    @njit(cache=True, parallel=True)
    def inner(a):
        b = np.zeros(a.shape[0])
        for i in prange(a.shape[0]):
            b[i] = a[i] + 1.0
        return b.sum()

    @njit(cache=True)
    def outer(a, x):
        return inner(a) + x
""")

CALL = textwrap.dedent("""
    import sys
    import numpy as np
    {prelude}
    sys.path.insert(0, {folder!r})
    import kmod
    x = np.float32(1.5) if {single} else 1.5
    print(kmod.outer(np.zeros(1000), x))
""")

ROOT = Path(__file__).resolve().parents[3]


def _run(folder: Path, single: bool, prelude: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CACHE_DIR", None)       # the cache next to kmod.py, in the test's own folder
    code = CALL.format(prelude=prelude, folder=str(folder), single=single)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


def test_a_second_cached_version_of_a_kernel_calling_a_parallel_one_loads_after_importing_the_kernels(tmp_path):
    (tmp_path / "kmod.py").write_text(KERNELS)
    first = _run(tmp_path, single=True)       # compiles and caches outer(float32)
    second = _run(tmp_path, single=False)     # compiles and caches outer(float64): the second version
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert len(list((tmp_path / "__pycache__").glob("kmod.outer-*.2.nbc"))) == 1
    loaded = _run(tmp_path, single=False, prelude="import engine.kernels")   # loads version 2
    assert loaded.returncode == 0, f"exit status {loaded.returncode}: {loaded.stderr}"
    assert float(loaded.stdout.split()[-1]) == 1001.5
