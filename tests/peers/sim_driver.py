"""Every peer's validation, at small sizes, with its own kernel and with a broken one (an
element or a block dropped, a term lost, a biased sampler). Prints one JSON object:
{case: {"ok": verdict, "broken": verdict}}, a verdict being {"passed": bool, "detail": str}.

    sim_driver.py --side gpu [case ...]   under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1,
                                          set by the caller before numba is imported)
    sim_driver.py --side cpu [case ...]   without it: the CPU cases are Numba's real @njit
                                          code (under the simulator, numba.cuda.random's
                                          functions fall back to object mode)

The simulator runs each CUDA thread as a Python thread (a few milliseconds each), so the GPU
cases launch at most a few hundred threads.
"""

from __future__ import annotations

import json
import math
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(1, str(Path(__file__).resolve().parents[2] / "reports" / "src"))

import numpy as np  # noqa: E402
from numba import cuda, float32, float64, prange, uint64  # noqa: E402
from numba.cuda.random import xoroshiro128p_uniform_float64  # noqa: E402

from peers.numba import plan  # noqa: E402
from twinbench.bench import timing as harness  # noqa: E402
from peers.numba.workloads import (black_scholes, conv2d, dot, grayscale, lucas,  # noqa: E402
                                   module, nested_loop, poisson, progress, sgemm, transfers,
                                   transpose, vector_add)
from peers.numba.workloads.common import cpu_jit  # noqa: E402
from peers.numba.workloads.progress import kp  # noqa: E402

GPU = harness.gpu_info()


def make_row(workload: str, impl: str, **args) -> plan.PlannedRow:
    peer = next(p for p in plan.PEERS if p.workload == workload and p.impl == impl)
    return plan.PlannedRow(peer, impl, tuple((k, str(v)) for k, v in args.items()), "test")


def verdict_of(row, case) -> dict:
    if isinstance(case, harness.GpuCase):
        stats = harness.validate_gpu(case)
    else:
        stats = case.validate()
    v = harness.verdict(stats, case.tolerance, row.base)
    return {"passed": v.passed, "detail": v.detail}


def run_case(row) -> dict:
    mod = module(row.workload)
    data = mod.make_data(row)
    if row.side == "cpu":
        return verdict_of(row, mod.cpu_case(row, data))
    dev = mod.make_device(row, data)
    return verdict_of(row, mod.gpu_case(row, data, dev, GPU))


def with_patch(target, attr: str, replacement, fn):
    saved = getattr(target, attr)
    setattr(target, attr, replacement)
    try:
        return fn()
    finally:
        setattr(target, attr, saved)


# ---------------------------------------------------------------- broken kernels (GPU)

@cuda.jit
def vector_add_drops_last(a, b, c):
    i = cuda.grid(1)
    if i < c.size - 1:
        c[i] = a[i] + b[i]


def dot_drops_last_block(block):
    pow2 = 1 << (block - 1).bit_length()

    @cuda.jit
    def kernel(a, b, result):
        partial = cuda.shared.array(block, float64)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        s = 0.0
        while i < a.size:
            s += float64(a[i]) * float64(b[i])
            i += stride
        partial[tid] = s
        cuda.syncthreads()
        half = pow2 // 2
        while half > 0:
            if tid < half and tid + half < block:
                partial[tid] += partial[tid + half]
            cuda.syncthreads()
            half //= 2
        if tid == 0 and cuda.blockIdx.x != cuda.gridDim.x - 1:
            cuda.atomic.add(result, 0, partial[0])

    return kernel


@cuda.jit
def grayscale_drops_one(rgb, gray):
    row, col = cuda.grid(2)
    if row < gray.shape[0] and col < gray.shape[1] and not (row == 3 and col == 5):
        gray[row, col] = (0.299 * rgb[row, col, 0] + 0.587 * rgb[row, col, 1]
                          + 0.114 * rgb[row, col, 2])


@cuda.jit
def grayscale_coalesced_wrong_weight(rgb, gray):
    col, row = cuda.grid(2)
    if row < gray.shape[0] and col < gray.shape[1]:
        gray[row, col] = (0.299 * rgb[row, col, 0] + 0.587 * rgb[row, col, 1]
                          + 0.115 * rgb[row, col, 2])


@cuda.jit
def matmul_drops_a_term(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.
        for k in range(A.shape[1] - 1):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


def fast_matmul_drops_last_tile(tpb):
    @cuda.jit
    def kernel(A, B, C):
        sA = cuda.shared.array(shape=(tpb, tpb), dtype=float32)
        sB = cuda.shared.array(shape=(tpb, tpb), dtype=float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x
        tmp = float32(0.)
        for i in range(bpg - 1):
            sA[ty, tx] = 0
            sB[ty, tx] = 0
            if y < A.shape[0] and (tx + i * tpb) < A.shape[1]:
                sA[ty, tx] = A[y, tx + i * tpb]
            if x < B.shape[1] and (ty + i * tpb) < B.shape[0]:
                sB[ty, tx] = B[ty + i * tpb, x]
            cuda.syncthreads()
            for j in range(tpb):
                tmp += sA[ty, j] * sB[j, tx]
            cuda.syncthreads()
        if y < C.shape[0] and x < C.shape[1]:
            C[y, x] = tmp

    return kernel


@cuda.jit
def conv2d_drops_one(img, filt, out):
    x, y = cuda.grid(2)
    h = img.shape[0]
    w = img.shape[1]
    if y < h and x < w and not (x == w - 1 and y == h - 1):
        f = filt.shape[0]
        r = f // 2
        acc = 0.0
        for dy in range(f):
            yy = min(max(y + dy - r, 0), h - 1)
            for dx in range(f):
                xx = min(max(x + dx - r, 0), w - 1)
                acc += filt[dy, dx] * img[yy, xx]
        out[y, x] = acc


@cuda.jit
def black_scholes_drops_last(callResult, putResult, S, X, T, R, V):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= S.shape[0] - 1:
        return
    sqrtT = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    cndd1 = black_scholes.cnd_cuda(d1)
    cndd2 = black_scholes.cnd_cuda(d2)
    expRT = math.exp((-1. * R) * T[i])
    callResult[i] = (S[i] * cndd1 - X[i] * expRT * cndd2)
    putResult[i] = (X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1))


@cuda.jit
def nested_loop_drops_a_term(results, m):
    i = cuda.grid(1)
    if i < results.size:
        s = 0.0
        for j in range(m - 1):
            s += i * j * 0.1
        results[i] = s


@cuda.jit
def lucas_drops_last(out, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = lucas.lucas_device(i)


class _AtTwiceTheRate:
    """The article's kernel itself, launched at twice the rate: only the statistics can tell."""

    def __init__(self, kernel):
        self.kernel = kernel

    def __getitem__(self, config):
        launch = self.kernel[config]
        return lambda states, out, rate: launch(states, out, 2.0 * rate)


poisson_biased = _AtTwiceTheRate(poisson.poisson_kernel)


@cuda.jit
def progress_miscounts(states, out, rate, counter):
    # Right samples, a counter that misses the first sample of every thread.
    t = cuda.grid(1)
    streams = states.shape[0]
    if t >= streams:
        return
    i = t
    while i < out.shape[0]:
        u = xoroshiro128p_uniform_float64(states, t)
        k = 0
        cdf = 0.0
        while k < 100:
            cdf += math.exp(-rate) * rate ** k / math.gamma(k + 1.0)
            if u < cdf:
                break
            k += 1
        out[i] = k
        if i != t:
            cuda.atomic.add(counter, 0, uint64(1))
        i += streams


@cuda.jit
def live_block_misses_one(states, out, rate, slots, period_ns):
    # Right samples; each block's final count one short.
    done = cuda.shared.array(1, uint64)
    if cuda.threadIdx.x == 0:
        done[0] = 0
    cuda.syncthreads()
    t = cuda.grid(1)
    streams = states.shape[0]
    if t < streams:
        for i in range(t, out.shape[0], streams):
            u = xoroshiro128p_uniform_float64(states, t)
            k = 0
            cdf = 0.0
            while k < 100:
                cdf += math.exp(-rate) * rate ** k / math.gamma(k + 1.0)
                if u < cdf:
                    break
                k += 1
            out[i] = k
            cuda.atomic.add(done, 0, uint64(1))
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        kp.finish(slots, cuda.blockIdx.x, done[0] - uint64(1))


@cuda.jit
def live_warp_skips_lane0(states, out, rate, slots, period_ns):
    # Right samples; lane 0's are not counted.
    done = cuda.shared.array(32, uint64)
    warp = cuda.threadIdx.x // 32
    lane = cuda.threadIdx.x % 32
    if lane == 0:
        done[warp] = 0
    kp.syncwarp()
    t = cuda.grid(1)
    streams = states.shape[0]
    if t < streams:
        for i in range(t, out.shape[0], streams):
            u = xoroshiro128p_uniform_float64(states, t)
            k = 0
            cdf = 0.0
            while k < 100:
                cdf += math.exp(-rate) * rate ** k / math.gamma(k + 1.0)
                if u < cdf:
                    break
                k += 1
            out[i] = k
            if lane != 0:
                cuda.atomic.add(done, warp, uint64(1))
    kp.syncwarp()
    if lane == 0:
        kp.finish(slots, cuda.blockIdx.x * (cuda.blockDim.x // 32) + warp, done[warp])


@cuda.jit
def transpose_drops_one(a, out):
    c, r = cuda.grid(2)
    if r < a.shape[0] and c < a.shape[1] and not (r == 0 and c == 0):
        out[c, r] = a[r, c]


@cuda.jit
def transpose_fast_swapped(a, out):
    r, c = cuda.grid(2)
    if r < a.shape[0] and c < a.shape[1] and r < out.shape[0] and c < out.shape[1]:
        out[r, c] = a[r, c]   # a copy, not a transpose (square corner only)


class NoCopy:
    """A device array whose copies do nothing: the transfer the validation must catch."""

    def __init__(self, real):
        self.real = real

    def copy_to_device(self, host):
        pass

    def copy_to_host(self, host=None):
        return self.real.copy_to_host() if host is None else host


# ---------------------------------------------------------------- broken CPU functions

@cpu_jit
def vector_add_skips_first(a, b, c):
    for i in prange(1, c.size):
        c[i] = a[i] + b[i]


@cpu_jit
def dot_skips_first(a, b):
    s = 0.0
    for i in prange(1, a.size):
        s += np.float64(a[i]) * np.float64(b[i])
    return s


@cpu_jit
def grayscale_skips_row(rgb, gray):
    for row in prange(1, gray.shape[0]):
        for col in range(gray.shape[1]):
            gray[row, col] = (0.299 * rgb[row, col, 0] + 0.587 * rgb[row, col, 1]
                              + 0.114 * rgb[row, col, 2])


@cpu_jit
def matmul_skips_a_term(A, B, C):
    n, m = A.shape
    p = B.shape[1]
    for i in prange(n):
        for j in range(p):
            C[i, j] = 0.0
        for k in range(1, m):
            a = A[i, k]
            for j in range(p):
                C[i, j] += a * B[k, j]


@cpu_jit
def conv2d_skips_tap(img, filt, out):
    h, w = img.shape
    f = filt.shape[0]
    r = f // 2
    for y in prange(h):
        for x in range(w):
            acc = np.float32(0.0)
            for dy in range(f):
                yy = min(max(y + dy - r, 0), h - 1)
                for dx in range(1, f):
                    xx = min(max(x + dx - r, 0), w - 1)
                    acc += filt[dy, dx] * img[yy, xx]
            out[y, x] = acc


@cpu_jit
def black_scholes_swaps(callResult, putResult, S, X, T, R, V):
    for i in prange(S.shape[0]):
        sqrtT = math.sqrt(T[i])
        d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
        d2 = d1 - V * sqrtT
        cndd1 = black_scholes.cnd(d1)
        cndd2 = black_scholes.cnd(d2)
        expRT = math.exp((-1. * R) * T[i])
        putResult[i] = (S[i] * cndd1 - X[i] * expRT * cndd2)
        callResult[i] = (X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1))


@cpu_jit
def nested_loop_serial_skips(results, m):
    for i in range(results.size):
        s = 0.0
        for j in range(m - 1):
            s += i * j * 0.1
        results[i] = s


@cpu_jit
def nested_loop_parallel_skips(results, m):
    for i in prange(results.size):
        s = 0.0
        for j in range(m - 1):
            s += i * j * 0.1
        results[i] = s


@cpu_jit
def lucas_serial_wrong(out):
    for i in range(out.size):
        out[i] = lucas.lucas(i) + (1 if i == out.size - 1 else 0)


@cpu_jit
def lucas_parallel_skips(out):
    n = out.size - 1
    for j in prange(n):
        out[n - j] = lucas.lucas(n - j)


@cpu_jit
def poisson_parallel_biased(states, out, rate):
    streams = states.shape[0]
    r = rate * 1.1   # 10% off: at n = 100000 the mean is 22 standard errors away
    for t in prange(streams):
        for i in range(t, out.shape[0], streams):
            u = xoroshiro128p_uniform_float64(states, t)
            k = 0
            cdf = 0.0
            while k < 100:
                cdf += math.exp(-r) * r ** k / math.gamma(k + 1.0)
                if u < cdf:
                    break
                k += 1
            out[i] = k


@cpu_jit
def transpose_skips_tile(a, out):
    rows, cols = a.shape
    tiles_r = (rows + 63) // 64
    tiles_c = (cols + 63) // 64
    for t in prange(1, tiles_r * tiles_c):
        r0 = (t // tiles_c) * 64
        c0 = (t % tiles_c) * 64
        for r in range(r0, min(r0 + 64, rows)):
            for c in range(c0, min(c0 + 64, cols)):
                out[c, r] = a[r, c]


# ---------------------------------------------------------------- the cases

def cases():
    """(name, row, module attribute to replace, the broken replacement)."""
    yield ("vector_add/numba_cuda", make_row("vector_add", "numba_cuda", n=100, block=32,
                                             mode="kernel"),
           (vector_add.WORKLOAD.gpu_variants[0], "fn", vector_add_drops_last))
    yield ("vector_add/numba_cpu", make_row("vector_add", "numba_cpu", n=1000, threads=2),
           (vector_add.WORKLOAD.cpu_variants[0], "fn", vector_add_skips_first))
    broken_dot = dot_drops_last_block(32)
    yield ("dot/numba_cuda", make_row("dot", "numba_cuda", n=200, block=32, mode="kernel"),
           (dot, "dot_kernel_for", lambda block: broken_dot))
    yield ("dot/numba_cpu", make_row("dot", "numba_cpu", n=5000, threads=2),
           (dot, "dot_parallel", dot_skips_first))
    yield ("grayscale/numba_cuda", make_row("grayscale", "numba_cuda", w=12, h=10, block="8x8",
                                            mode="kernel"),
           (grayscale.WORKLOAD.gpu_variants[0], "fn", grayscale_drops_one))
    yield ("grayscale/numba_cuda_coalesced",
           make_row("grayscale", "numba_cuda_coalesced", w=12, h=10, block="8x8", mode="kernel"),
           (grayscale.WORKLOAD.gpu_variants[1], "fn", grayscale_coalesced_wrong_weight))
    yield ("grayscale/numba_cpu", make_row("grayscale", "numba_cpu", w=40, h=24, threads=2),
           (grayscale.WORKLOAD.cpu_variants[0], "fn", grayscale_skips_row))
    yield ("sgemm/numba_cuda", make_row("sgemm", "numba_cuda", n=16, block="8x8", mode="kernel"),
           (sgemm, "matmul_kernel", matmul_drops_a_term))
    broken_tile = fast_matmul_drops_last_tile(8)
    yield ("sgemm/numba_cuda_shared",
           make_row("sgemm", "numba_cuda_shared", n=16, block="8x8", mode="kernel"),
           (sgemm, "fast_matmul_for", lambda tpb: broken_tile))
    yield ("sgemm/numba_cpu", make_row("sgemm", "numba_cpu", n=32, threads=2),
           (sgemm, "matmul_parallel", matmul_skips_a_term))
    yield ("conv2d/numba_cuda", make_row("conv2d", "numba_cuda", image="12x10", filter=3,
                                         block="8x8", mode="kernel"),
           (conv2d, "conv2d_kernel", conv2d_drops_one))
    yield ("conv2d/numba_cpu", make_row("conv2d", "numba_cpu", image="24x16", filter=5,
                                        threads=2),
           (conv2d, "conv2d_parallel", conv2d_skips_tap))
    yield ("black_scholes/numba_cuda",
           make_row("black_scholes", "numba_cuda", n=100, block=32, mode="kernel"),
           (black_scholes, "black_scholes_kernel", black_scholes_drops_last))
    yield ("black_scholes/numba_cpu", make_row("black_scholes", "numba_cpu", n=500, threads=2),
           (black_scholes, "black_scholes_parallel", black_scholes_swaps))
    yield ("nested_loop/numba_cuda",
           make_row("nested_loop", "numba_cuda", n=100, block=32, mode="kernel"),
           (nested_loop, "nested_loop_kernel", nested_loop_drops_a_term))
    yield ("nested_loop/numba_cpu", make_row("nested_loop", "numba_cpu", n=300, threads=2),
           (nested_loop, "nested_loop_parallel", nested_loop_parallel_skips))
    yield ("nested_loop/numba_cpu_serial", make_row("nested_loop", "numba_cpu_serial", n=300),
           (nested_loop, "nested_loop_serial", nested_loop_serial_skips))
    yield ("lucas/numba_cuda", make_row("lucas", "numba_cuda", n=12, block=32, mode="kernel"),
           (lucas, "lucas_kernel", lucas_drops_last))
    yield ("lucas/numba_cpu", make_row("lucas", "numba_cpu", n=20, threads=2),
           (lucas, "lucas_parallel", lucas_parallel_skips))
    yield ("lucas/numba_cpu_serial", make_row("lucas", "numba_cpu_serial", n=20),
           (lucas, "lucas_serial", lucas_serial_wrong))
    yield ("poisson/numba_cuda", make_row("poisson", "numba_cuda", n=64, block=32,
                                          mode="kernel"),
           (poisson, "poisson_kernel", poisson_biased))
    yield ("poisson/numba_cpu", make_row("poisson", "numba_cpu", n=100000, threads=2),
           (poisson, "poisson_parallel", poisson_parallel_biased))
    yield ("progress/numba_cuda",
           make_row("progress", "numba_cuda", target="poisson", strategy="per_thread",
                    counter="device", n=64, block=32),
           (progress, "poisson_progress_kernel", progress_miscounts))
    yield ("progress/numba_cuda/none",
           make_row("progress", "numba_cuda", target="poisson", strategy="none",
                    counter="device", n=64, block=32),
           (poisson, "poisson_kernel", poisson_biased))
    yield ("progress/numba_cuda/live_block",
           make_row("progress", "numba_cuda", target="poisson", strategy="live_block",
                    counter="slots8", n=64, block=32),
           (progress, "poisson_live_block_kernel", live_block_misses_one))
    yield ("progress/numba_cuda/live_warp",
           make_row("progress", "numba_cuda", target="poisson", strategy="live_warp",
                    counter="slots8", n=64, block=64),
           (progress, "poisson_live_warp_kernel", live_warp_skips_lane0))
    yield ("progress/numba_cuda/managed",
           make_row("progress", "numba_cuda", target="poisson", strategy="per_thread",
                    counter="managed", n=64, block=32),
           (progress, "poisson_progress_kernel", progress_miscounts))
    yield ("transpose/numba_cuda_slow",
           make_row("transpose", "numba_cuda_slow", rows=10, cols=12, block="8x8"),
           (transpose, "transpose_slow_kernel", transpose_drops_one))
    yield ("transpose/numba_cuda_fast",
           make_row("transpose", "numba_cuda_fast", rows=10, cols=12, block="8x8"),
           (transpose, "transpose_fast_kernel", transpose_fast_swapped))
    yield ("transpose/numba_cpu", make_row("transpose", "numba_cpu", rows=100, cols=130,
                                           threads=2),
           (transpose, "transpose_parallel", transpose_skips_tile))
    for impl in ("numba_cuda_pageable", "numba_cuda_pinned"):
        for direction in ("h2d", "d2h"):
            yield (f"transfers/{impl}/{direction}",
                   make_row("transfers", impl, dir=direction, bytes=4096),
                   "no-copy")


def run_broken(row, broken):
    if broken == "no-copy":
        real = transfers.make_device

        def make_device(row_, data):
            dev = real(row_, data)
            dev.dev = NoCopy(dev.dev)
            return dev

        return with_patch(transfers, "make_device", make_device, lambda: run_case(row))
    target, attr, replacement = broken
    return with_patch(target, attr, replacement, lambda: run_case(row))


def main(argv: list[str]) -> None:
    side = None
    if argv[:1] == ["--side"]:
        side, argv = argv[1], argv[2:]
    out = {}
    for name, row, broken in cases():
        if (argv and name not in argv) or (side and row.side != side):
            continue
        entry = {}
        for key, fn in (("ok", lambda: run_case(row)), ("broken", lambda: run_broken(row, broken))):
            try:
                entry[key] = fn()
            except Exception as exc:  # noqa: BLE001 - reported to the test
                entry[key] = {"passed": None, "detail": "".join(
                    traceback.format_exception_only(type(exc), exc)).strip()}
        out[name] = entry
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
