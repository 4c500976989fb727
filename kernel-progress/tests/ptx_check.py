"""Compiles the example's kernels for an H200 (compute capability 9.0) and a T4 (7.5, the
oldest this NVVM targets) with numba.cuda.compile_ptx, which needs no GPU, and prints what the
tests check, as JSON: whether
the slot stores are volatile (system-visible) global stores, whether the time is %globaltimer,
and that the reporting adds no global atomic and no fence.

A kernel that calls a device function makes Numba ask the current device for its compute
capability (compile_ptx does not pass its cc down), which fails without a GPU: the lookup is
stubbed with the target's cc for that reason only."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import numba.cuda.dispatcher as dispatcher  # noqa: E402
from numba import cuda, float64, int32, uint64  # noqa: E402
from numba.cuda.random import xoroshiro128p_type  # noqa: E402

import poisson_progress  # noqa: E402

SIG = (xoroshiro128p_type[::1], int32[::1], float64, uint64[::1], uint64)


def compile_for(kernel, cc):
    class Target:
        compute_capability = cc

    dispatcher.get_current_device = lambda: Target()
    ptx, _ = cuda.compile_ptx(kernel.py_func, SIG, cc=cc)
    return {
        "target": f".target sm_{cc[0]}{cc[1]}" in ptx,
        "volatile_stores": ptx.count("st.volatile.global.u64"),
        "globaltimer": "%globaltimer" in ptx,
        "global_atomics": ptx.count("atom.global") + ptx.count("red.global"),
        "fences": ptx.count("membar") + ptx.count("fence."),
    }


def main() -> None:
    out = {}
    for name in ("poisson_per_block", "poisson_per_warp"):
        for cc in ((9, 0), (7, 5)):
            out[f"{name}/sm_{cc[0]}{cc[1]}"] = compile_for(getattr(poisson_progress, name), cc)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
