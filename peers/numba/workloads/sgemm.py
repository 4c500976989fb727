"""sgemm: C = A B for square float32 matrices (cpu/sgemm.hpp), as Numba's documentation writes
its matmul examples (the articles follow them).

Inputs as bench/sgemm.cpp: A and B uniform in [-1, 1) from seeds 0x5eed0501 and +1, row-major.
The reference is the float64 product and the error is measured against the scale
sum_k |a_ik b_kj| (|A| |B| in float64), as the suite does: cancellation can make |c_ij| tiny.
The tolerance is the suite's probabilistic bound for a chain of K + 1 float32 roundings (Higham
and Mary 2019, lambda = 10; see cpu/sgemm.hpp), 3.8e-5 of the scale at K = 4096. The
documentation's naive kernel accumulates in a Python float (float64), the shared-memory one in
float32; both, and the CPU's i-k-j loops, keep one chain per element.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from numba import cuda, float32, prange

from twinbench.bench import ErrorStats, Tolerance
from twinbench.bench import CpuCase, GpuCase, Skip, blocks_for, check_block, parse_block
from twinbench.bench import fill_uniform
from twinbench.bench import Work
from twinbench.bench import Buffers, poison
from .common import cpu_jit

SEED = 0x5EED0501


def tolerance(k: int) -> Tolerance:
    u, lam = 2.0**-24, 10.0
    depth = k + 1.0
    return Tolerance(math.expm1(lam * math.sqrt(depth) * u + depth * u * u / (1.0 - u)))


@cuda.jit
def matmul_kernel(A, B, C):
    """Perform square matrix multiplication of C = A * B (Numba's documentation)."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


_SHARED: dict[int, object] = {}


def make_fast_matmul(tpb: int):
    """The documentation's fast_matmul for TPB x TPB blocks (TPB is a compile-time constant of
    its shared arrays)."""

    @cuda.jit
    def fast_matmul(A, B, C):
        sA = cuda.shared.array(shape=(tpb, tpb), dtype=float32)
        sB = cuda.shared.array(shape=(tpb, tpb), dtype=float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x   # blocks per grid
        tmp = float32(0.)
        for i in range(bpg):
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

    return fast_matmul


def fast_matmul_for(tpb: int):
    if tpb not in _SHARED:
        _SHARED[tpb] = make_fast_matmul(tpb)
    return _SHARED[tpb]


@cpu_jit(parallel=True)
def matmul_parallel(A, B, C):
    n, m = A.shape
    p = B.shape[1]
    for i in prange(n):
        for j in range(p):
            C[i, j] = 0.0
        for k in range(m):
            a = A[i, k]
            for j in range(p):
                C[i, j] += a * B[k, j]


def size(row) -> int:
    return int(row.arg("n"))


def work(row) -> Work:
    n = float(size(row))
    return Work(read_bytes=8.0 * n * n, written_bytes=4.0 * n * n, flops=2.0 * n ** 3,
                items=n * n)


def data_key(row):
    return size(row)


def host_bytes(row) -> float:   # A, B, out (float32), the float64 product and scale
    n = float(size(row))
    return n * n * (12 + 16 + (12 if row.side == "gpu" else 0))


def device_bytes(row) -> float:
    return 12.0 * size(row) ** 2


def make_data(row):
    n = size(row)
    a = fill_uniform(n * n, SEED, -1.0, 1.0).reshape(n, n)
    b = fill_uniform(n * n, SEED + 1, -1.0, 1.0).reshape(n, n)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    c = a64 @ b64
    scale = np.abs(a64) @ np.abs(b64)
    return SimpleNamespace(a=a, b=b, c=c, scale=scale, out=np.empty((n, n), dtype=np.float32))


def check(got: np.ndarray, data) -> ErrorStats:
    """max_rel = max |got - c| / sum_k |a_ik b_kj| (cpu/sgemm.cpp check)."""
    s = ErrorStats()
    bad = ~np.isfinite(got)
    if bad.any():
        s.finite = False
        s.worst_index = int(np.argmax(bad.reshape(-1)))
        return s
    err = np.abs(got.astype(np.float64) - data.c)
    rel = (err / np.maximum(data.scale, 1e-300)).reshape(-1)
    s.max_abs = float(err.max())
    s.worst_index = int(np.argmax(rel))
    s.max_rel = float(rel[s.worst_index])
    return s


def make_device(row, data):
    return Buffers({"a": data.a, "b": data.b}, {"c": (data.out.shape, np.float32)})


def cpu_case(row, data) -> CpuCase:
    def run():
        matmul_parallel(data.a, data.b, data.out)

    def validate():
        poison(data.out)
        run()
        return check(data.out, data)

    return CpuCase(run, validate, tolerance(size(row)))


def gpu_case(row, data, dev: Buffers, gpu) -> GpuCase:
    bx, by = parse_block(row.arg("block"))
    n = size(row)
    shared = row.peer.impl == "numba_cuda_shared"
    if shared and bx != by:
        raise Skip(f"{row.impl} needs a square block (TPB x TPB threads, the documentation's "
                   "fast_matmul)")
    check_block(bx * by, gpu.max_threads_per_block)
    grid = (blocks_for(n, bx), blocks_for(n, by))

    def launch(a, b, c):
        kernel = fast_matmul_for(bx) if shared else matmul_kernel
        kernel[grid, (bx, by)](a, b, c)

    def pageable():
        d_a = cuda.to_device(data.a)
        d_b = cuda.to_device(data.b)
        d_c = cuda.device_array((n, n), dtype=np.float32)
        launch(d_a, d_b, d_c)
        return d_c.copy_to_host()

    return GpuCase(dev.poison, dev.upload, lambda: launch(dev.d["a"], dev.d["b"], dev.d["c"]),
                   dev.download, lambda: check(dev.h["c"], data), tolerance(n), pageable,
                   kernel=fast_matmul_for(bx) if shared else matmul_kernel, block=bx * by,
                   grid_blocks=grid[0] * grid[1])
