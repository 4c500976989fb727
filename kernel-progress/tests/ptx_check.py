"""Compiles the examples' kernels for an H200 (compute capability 9.0) and a T4 (7.5, the
oldest this NVVM targets) with numba.cuda.compile_ptx, which needs no GPU, and prints what the
tests check, as JSON: the slot stores are volatile (system-visible) global stores, the time of
report/finish is %globaltimer, kp.tally sums a warp with votes (vote.sync.ballot), adds with one
global atomic and no barrier, no load or store of its own and no fence, report/finish add no
global atomic and no fence.

A kernel that calls a device function makes Numba ask the current device for its compute
capability (compile_ptx does not pass its cc down), which fails without a GPU: the lookup is
stubbed with the target's cc for that reason only."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import numba.cuda.dispatcher as dispatcher  # noqa: E402
from numba import cuda, float32, float64, int32, uint64  # noqa: E402
from numba.cuda.random import xoroshiro128p_type  # noqa: E402

import article_progress  # noqa: E402
import poisson_progress  # noqa: E402

import kernel_progress as kp  # noqa: E402

POISSON_SIG = (xoroshiro128p_type[::1], int32[::1], float64, uint64[::1], uint64)
ARTICLE_SIG = (xoroshiro128p_type[::1], int32[::1], float64, uint64[::1])


def grid_2d(out, slots):
    x, y = cuda.grid(2)
    inside = x < out.shape[0] and y < out.shape[1]
    if inside:
        out[x, y] = 1.0
    kp.tally(slots, inside)


def grid_stride(out, slots):
    for i in range(cuda.grid(1), kp.padded(out.size), cuda.gridsize(1)):
        if i < out.size:
            out[i] = 2.0 * i
        kp.tally(slots, i < out.size)


KERNELS = {
    "poisson_per_block": (poisson_progress.poisson_per_block.py_func, POISSON_SIG),
    "poisson_per_warp": (poisson_progress.poisson_per_warp.py_func, POISSON_SIG),
    "article_tally": (article_progress.generate_samples.py_func, ARTICLE_SIG),
    "grid_2d_tally": (grid_2d, (float32[:, ::1], uint64[::1])),
    "grid_stride_tally": (grid_stride, (float32[::1], uint64[::1])),
}


def compile_for(kernel, sig, cc):
    class Target:
        compute_capability = cc

    dispatcher.get_current_device = lambda: Target()
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc)
    return {
        "target": f".target sm_{cc[0]}{cc[1]}" in ptx,
        "volatile_stores": ptx.count("st.volatile.global.u64"),
        "volatile_loads": ptx.count("ld.volatile.global.u64"),
        "globaltimer": "%globaltimer" in ptx,
        "global_atomics": len(re.findall(r"\b(?:atom|red)\.global\b", ptx)),
        "atomics": len(re.findall(r"\batom\.|(?<!bar\.)\bred\.", ptx)),
        "fences": ptx.count("membar") + ptx.count("fence."),
        "counting_barriers": ptx.count("bar.red.popc"),
        "barriers": len(re.findall(r"\bbar(?:rier)?\.", ptx)),
        "ballots": ptx.count("vote.sync.ballot"),
        "global_adds": len(re.findall(r"\b(?:atom|red)\.global\.add\.u64\b", ptx)),
    }


def main() -> None:
    out = {}
    for name, (kernel, sig) in KERNELS.items():
        for cc in ((9, 0), (7, 5)):
            out[f"{name}/sm_{cc[0]}{cc[1]}"] = compile_for(kernel, sig, cc)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
