"""Compiles CUDA kernels for the H200 (compute capability 9.0) with numba.cuda.compile_ptx, which
needs no GPU, in this interpreter without the simulator: the docs' pair (docs/python.md's
my_pairs.py) and twinbench.bench's own kernels (the L2 flush, the gate, the bandwidth ceilings),
from wherever twinbench.bench is imported. The simulator never compiles, so this is what fails
when the installed NumPy breaks numba-cuda's first compile. Prints one JSON object
{kernel: {"ok": bool, "error": str}} and the versions that compiled them.

A kernel that calls a device function makes Numba ask the current device for its compute
capability (compile_ptx does not pass its cc down), which fails without a GPU; the device lookup
is stubbed with the target's cc for that reason only.
"""

from __future__ import annotations

import json
import re
import sys
import types
from importlib.metadata import version
from pathlib import Path

import numba.cuda.dispatcher as dispatcher
import numpy as np
from numba import cuda, float32, float64, int64, uint64

from twinbench.bench import ceilings, timing

CC = (9, 0)
PAGE = Path(__file__).resolve().parents[2] / "docs" / "python.md"


class _Target:
    compute_capability = CC


dispatcher.get_current_device = lambda: _Target()


def docs_pair() -> types.ModuleType:
    """docs/python.md's first python block (my_pairs.py), as a module."""
    blocks = re.findall(r"^```python\n(.*?)^```$", PAGE.read_text(), re.M | re.S)
    module = types.ModuleType("my_pairs")
    exec(compile(blocks[0], "my_pairs.py", "exec"), module.__dict__)
    return module


def kernels():
    f32 = float32[::1]
    yield "docs/add_gpu", docs_pair().add_gpu, (f32, f32, f32)
    yield "harness/l2_flush", timing._l2_flush_kernel, (uint64[::1], uint64[::1])
    yield "harness/gate", timing._gate_kernel, (int64, int64)
    for name, k in ceilings._gpu_kernels().items():   # float64 streams, as gpu() runs them
        yield f"ceilings/{name}", k, (float64[::1],) * 3


def main() -> None:
    out = {}
    for name, kernel, signature in kernels():
        try:
            ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=CC)
            out[name] = {"ok": ".target sm_90" in ptx, "error": ""}
        except Exception as exc:  # noqa: BLE001 - reported to the test
            out[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:2000]}
    print(json.dumps({"kernels": out, "numpy": np.__version__,
                      "numba_cuda": version("numba-cuda"), "python": sys.version.split()[0]}))


if __name__ == "__main__":
    main()
