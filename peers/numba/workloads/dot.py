"""dot: sum a_i b_i over float32 inputs with float64 products and sums (cpu/dot.hpp).

Inputs as bench/dot.cpp (seeds 0x5eed0002 and +1, uniform in [-1, 1)). A product of two floats
is exact in float64, so only the additions round: a sum whose tree puts at most k additions
between any product and the result is within gamma_k = k u / (1 - k u) of sum |a_i b_i| = S
(Higham 4.2, u = 2^-53). The reference sums the exact products pairwise (NumPy) in chunks of
2^22 and the chunks with math.fsum: within ~(log2(2^22) + 16) u S of the exact sum, so a
variant of depth k passes when |got - ref| <= (gamma_k + 64 u) S. Depths: the prange reduction
(Numba's scheduler gives each thread one contiguous chunk, then combines the chunks' partials)
ceil(n / threads) + threads + 64, as the suite's omp variant; the kernel
ceil(n / (block grid)) per thread, log2(block) tree levels, then one atomic per block in any
order: + grid + 16.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from numba import cuda, float64, prange

from twinbench.bench import Tolerance, compare_scalar
from twinbench.bench import CpuCase, GpuCase, blocks_for, check_block, parse_block
from twinbench.bench import fill_uniform
from twinbench.bench import Work
from twinbench.bench import Buffers
from .common import cpu_jit

SEED = 0x5EED0002
U = 2.0**-53
REFERENCE_ERROR_U = 64
_CHUNK = 1 << 22


def tolerance(depth: int) -> Tolerance:
    ku = depth * U
    return Tolerance(ku / (1.0 - ku) + REFERENCE_ERROR_U * U)


def depth_parallel(n: int, threads: int) -> int:
    t = max(1, threads)
    return -(-n // t) + t + 64


def depth_kernel(n: int, block: int, grid: int) -> int:
    return -(-n // (block * grid)) + max(1, (block - 1).bit_length()) + grid + 16


_KERNELS: dict[int, object] = {}


def make_dot_kernel(block: int):
    """The kernel for one block size (its shared array's length is a compile-time constant)."""
    pow2 = 1 << (block - 1).bit_length()

    @cuda.jit
    def dot_kernel(a, b, result):
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
        if tid == 0:
            cuda.atomic.add(result, 0, partial[0])

    return dot_kernel


def dot_kernel_for(block: int):
    if block not in _KERNELS:
        _KERNELS[block] = make_dot_kernel(block)
    return _KERNELS[block]


@cuda.jit
def zero_kernel(result):
    result[0] = 0.0


@cpu_jit(parallel=True)
def dot_parallel(a, b):
    s = 0.0
    for i in prange(a.size):
        s += np.float64(a[i]) * np.float64(b[i])
    return s


def size(row) -> int:
    return int(row.arg("n"))


def work(row) -> Work:
    n = size(row)
    return Work(read_bytes=8.0 * n, written_bytes=0.0, flops=2.0 * n, items=1.0 * n)


def data_key(row):
    return size(row)


def host_bytes(row) -> float:
    return 8.0 * size(row) * (2 if row.side == "gpu" else 1)


def device_bytes(row) -> float:
    return 8.0 * size(row) + 8


def reference(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(sum a_i b_i, sum |a_i b_i|), the products exact in float64."""
    partials, scale = [], 0.0
    for start in range(0, a.size, _CHUNK):
        p = a[start:start + _CHUNK].astype(np.float64) * b[start:start + _CHUNK]
        partials.append(float(p.sum()))
        scale += float(np.abs(p).sum())
    return math.fsum(partials), scale


def make_data(row):
    n = size(row)
    a = fill_uniform(n, SEED, -1.0, 1.0)
    b = fill_uniform(n, SEED + 1, -1.0, 1.0)
    value, scale = reference(a, b)
    return SimpleNamespace(a=a, b=b, value=value, scale=scale)


def make_device(row, data):
    return Buffers({"a": data.a, "b": data.b}, {"result": ((1,), np.float64)})


def cpu_case(row, data) -> CpuCase:
    threads = int(row.arg("threads", "1"))

    def run():
        return dot_parallel(data.a, data.b)

    return CpuCase(run, lambda: compare_scalar(run(), data.value, data.scale),
                   tolerance(depth_parallel(size(row), threads)))


def gpu_case(row, data, dev, gpu) -> GpuCase:
    (block,) = parse_block(row.arg("block"))
    check_block(block, gpu.max_threads_per_block)
    n = size(row)
    # A grid-stride loop over one resident wave of blocks (2048 threads an SM).
    grid = max(1, min(blocks_for(n, block), max(1, gpu.sms) * max(1, 2048 // block)))
    kernel = dot_kernel_for(block)

    def compute():
        # The result is zeroed on the GPU, inside the timed work, as the suite's launcher does.
        zero_kernel[1, 1](dev.d["result"])
        dot_kernel_for(block)[grid, block](dev.d["a"], dev.d["b"], dev.d["result"])

    def pageable():
        d_a = cuda.to_device(data.a)
        d_b = cuda.to_device(data.b)
        d_r = cuda.to_device(np.zeros(1, dtype=np.float64))
        dot_kernel_for(block)[grid, block](d_a, d_b, d_r)
        return d_r.copy_to_host()[0]

    return GpuCase(dev.poison, dev.upload, compute, dev.download,
                   lambda: compare_scalar(float(dev.h["result"][0]), data.value, data.scale),
                   tolerance(depth_kernel(n, block, grid)), pageable,
                   kernel=kernel, block=block, grid_blocks=grid)
