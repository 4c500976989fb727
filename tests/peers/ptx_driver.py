"""Compiles every CUDA kernel of the peers for the H200 (compute capability 9.0) with
numba.cuda.compile_ptx, which needs no GPU: the simulator runs kernels but never compiles them,
so this is what catches a kernel that would not build on the real device. Prints one JSON
object {kernel: {"ok": bool, "error": str, "shared": bool, "calls": bool}}.

A kernel that calls a @cuda.jit(device=True) function makes Numba ask the current device for
its compute capability (compile_ptx does not pass its cc down), which fails without a GPU; the
device lookup is stubbed with the target's cc for that reason only.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(1, str(Path(__file__).resolve().parents[2] / "reports" / "src"))

from peers.numba.workloads import (black_scholes, conv2d, dot, grayscale, lucas,  # noqa: E402
                                   nested_loop, poisson, progress, sgemm, transpose,
                                   vector_add)
from twinbench.bench import timing as harness  # noqa: E402
from numba import cuda, float32, float64, int32, int64, uint64  # noqa: E402
from numba.cuda.random import xoroshiro128p_type  # noqa: E402
import numba.cuda.dispatcher as dispatcher  # noqa: E402

CC = (9, 0)


class _Target:
    compute_capability = CC


dispatcher.get_current_device = lambda: _Target()

f32_1, f32_2, f32_3 = float32[::1], float32[:, ::1], float32[:, :, ::1]
states = xoroshiro128p_type[::1]


def kernels():
    yield "vector_add", vector_add.vector_add_kernel, (f32_1, f32_1, f32_1)
    yield "dot/zero", dot.zero_kernel, (float64[::1],)
    for block in (64, 96, 256, 1024):
        yield f"dot/block:{block}", dot.make_dot_kernel(block), (f32_1, f32_1, float64[::1])
    yield "grayscale", grayscale.grayscale_kernel, (f32_3, f32_2)
    yield "grayscale/coalesced", grayscale.grayscale_coalesced_kernel, (f32_3, f32_2)
    yield "sgemm/naive", sgemm.matmul_kernel, (f32_2, f32_2, f32_2)
    for tpb in (8, 16, 32):
        yield f"sgemm/shared:{tpb}", sgemm.make_fast_matmul(tpb), (f32_2, f32_2, f32_2)
    yield "conv2d", conv2d.conv2d_kernel, (f32_2, f32_2, f32_2)
    yield ("black_scholes", black_scholes.black_scholes_kernel,
           (f32_1, f32_1, f32_1, f32_1, f32_1, float64, float64))
    yield "nested_loop", nested_loop.nested_loop_kernel, (float64[::1], int64)
    yield "lucas", lucas.lucas_kernel, (int64[::1], int64)
    yield "poisson", poisson.poisson_kernel, (states, int32[::1], float64)
    yield ("progress", progress.poisson_progress_kernel,
           (states, int32[::1], float64, uint64[::1]))
    live = (states, int32[::1], float64, uint64[::1], uint64)
    yield "progress/live_block", progress.poisson_live_block_kernel, live
    yield "progress/live_warp", progress.poisson_live_warp_kernel, live
    yield "progress/tally", progress.poisson_tally_kernel, (int32[::1], int64[::1], int64[::1])
    yield "progress/poison", progress.poison_kernel, (int32[::1], int64)
    yield "transpose/slow", transpose.transpose_slow_kernel, (f32_2, f32_2)
    yield "transpose/fast", transpose.transpose_fast_kernel, (f32_2, f32_2)
    yield "harness/l2_flush", harness._l2_flush_kernel, (uint64[::1], uint64[::1])
    yield "harness/gate", harness._gate_kernel, (int64, int64)


def main() -> None:
    out = {}
    for name, kernel, signature in kernels():
        try:
            ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=CC)
            out[name] = {"ok": ".target sm_90" in ptx, "error": "",
                         "shared": ".shared" in ptx,
                         "calls": re.search(r"\bcall(\.uni)?\b", ptx) is not None}
        except Exception as exc:  # noqa: BLE001 - reported to the test
            out[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:2000],
                         "shared": False, "calls": False}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
