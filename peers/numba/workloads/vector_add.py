"""vector_add: c = a + b, float32 (cpu/vector_add.hpp), the articles' first example.

Inputs as bench/vector_add.cpp: a and b uniform in [-1, 1) from seeds 0x5eed0001 and +1. Every
element is one correctly rounded float add, so the result must equal NumPy's a + b; the
suite's tolerance (1e-6 relative) only allows for an intermediate kept in higher precision.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import cuda, prange

from twinbench.bench import Tolerance, compare
from twinbench.bench import CpuCase, GpuCase, blocks_for, check_block, parse_block
from twinbench.bench import fill_uniform
from twinbench.bench import Work
from twinbench.bench import Buffers, poison
from .common import cpu_jit

SEED = 0x5EED0001
TOLERANCE = Tolerance(1e-6)


@cuda.jit
def vector_add_kernel(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cpu_jit(parallel=True)
def vector_add_parallel(a, b, c):
    for i in prange(c.size):
        c[i] = a[i] + b[i]


def size(row) -> int:
    return int(row.arg("n"))


def work(row) -> Work:
    n = size(row)
    return Work(read_bytes=8.0 * n, written_bytes=4.0 * n, flops=1.0 * n, items=1.0 * n)


def data_key(row):
    return size(row)


def host_bytes(row) -> float:   # a, b, ref, out; pinned a, b, c for GPU rows
    return 4.0 * size(row) * (4 + (3 if row.side == "gpu" else 0))


def device_bytes(row) -> float:
    return 12.0 * size(row)


def make_data(row):
    n = size(row)
    a = fill_uniform(n, SEED, -1.0, 1.0)
    b = fill_uniform(n, SEED + 1, -1.0, 1.0)
    return SimpleNamespace(a=a, b=b, ref=a + b, out=np.empty_like(a))


def make_device(row, data):
    return Buffers({"a": data.a, "b": data.b}, {"c": (data.a.shape, np.float32)})


def cpu_case(row, data) -> CpuCase:
    def run():
        vector_add_parallel(data.a, data.b, data.out)

    def validate():
        poison(data.out)
        run()
        return compare(data.out, data.ref)

    return CpuCase(run, validate, TOLERANCE)


def gpu_case(row, data, dev: Buffers, gpu) -> GpuCase:
    (block,) = parse_block(row.arg("block"))
    check_block(block, gpu.max_threads_per_block)
    grid = blocks_for(size(row), block)

    def compute():
        vector_add_kernel[grid, block](dev.d["a"], dev.d["b"], dev.d["c"])

    def pageable():   # the article: NumPy arrays in, a NumPy array out
        d_a = cuda.to_device(data.a)
        d_b = cuda.to_device(data.b)
        d_c = cuda.device_array_like(data.a)
        vector_add_kernel[grid, block](d_a, d_b, d_c)
        return d_c.copy_to_host()

    return GpuCase(dev.poison, dev.upload, compute, dev.download,
                   lambda: compare(dev.h["c"], data.ref), TOLERANCE, pageable,
                   kernel=vector_add_kernel, block=block, grid_blocks=grid)
