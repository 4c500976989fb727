"""vector_add: c = a + b, float32 (cpu/vector_add.hpp), the articles' first example, declared as
a user of twinbench.bench declares a pair (docs/python.md); the functions below hand the plan's
rows (the C++ rows' sizes and blocks) to the declaration.

Inputs as bench/vector_add.cpp: a and b uniform in [-1, 1) from seeds 0x5eed0001 and +1. Every
element is one correctly rounded float add, so the result must equal NumPy's a + b; the
suite's tolerance (1e-6 relative) only allows for an intermediate kept in higher precision.
"""

from __future__ import annotations

from numba import cuda, prange

import twinbench.bench as tb
from .common import cpu_jit

SEED = 0x5EED0001


@cuda.jit
def vector_add_kernel(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cpu_jit(parallel=True)
def vector_add_parallel(a, b, c):
    for i in prange(c.size):
        c[i] = a[i] + b[i]


WORKLOAD = tb.Workload(
    "vector_add",
    reference=lambda a, b: a + b,
    inputs=lambda n, seed: (tb.uniform(n, seed), tb.uniform(n, seed + 1)),
    cpu=[tb.Cpu(vector_add_parallel, impl_name="numba_cpu")],
    gpu=[tb.Kernel(vector_add_kernel, impl_name="numba_cuda")],
    seed=SEED, tolerance=1e-6, bytes=lambda n: (8 * n, 4 * n), flops=lambda n: n,
)


def _row(row):
    return WORKLOAD.row(row.base_impl, row.args, row.pageable)


def size(row) -> int:
    return int(row.arg("n"))


def work(row) -> tb.Work:
    return WORKLOAD.work(_row(row))


def data_key(row):
    return size(row)


def host_bytes(row) -> float:   # a, b, ref, out; pinned a, b, c for GPU rows
    return 4.0 * size(row) * (4 + (3 if row.side == "gpu" else 0))


def device_bytes(row) -> float:
    return 12.0 * size(row)


def make_data(row):
    return WORKLOAD.make_data(_row(row))


def make_device(row, data):
    return WORKLOAD.make_device(_row(row), data)


def cpu_case(row, data) -> tb.CpuCase:
    return WORKLOAD.cpu_case(_row(row), data)


def gpu_case(row, data, dev, gpu) -> tb.GpuCase:
    case = WORKLOAD.gpu_case(_row(row), data, dev, gpu)
    case.occupancy = False   # the rows as the committed runs have them
    return case
