"""lucas: L(0..n) in int64 by the articles' naive recursion, one index per thread
(cpu/lucas.hpp): exponential work per index, where a GPU thread per index does not help.

The reference is the iteration in Python integers; every variant must match it exactly. Items
are the recursion's additions, F(i+1) - 1 for L(i) (the suite's model). On the GPU the
recursion is a recursive device function, which Numba compiles to real calls (the C++ port
walks the call tree with a register stack instead): each call is a stack frame in local memory,
n deep, so the per-thread stack limit is raised for it (STACK_BYTES).
"""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import numpy as np
import numba
from numba import cuda, int64, prange

from twinbench.bench import Tolerance, compare_exact
from twinbench.bench import SIMULATOR, CpuCase, GpuCase, check_block, parse_block
from twinbench.bench import Work
from twinbench.bench import Buffers, poison
from .common import cpu_jit

TOLERANCE = Tolerance(0.0)
MAX_N = 90
# Bytes of stack per GPU thread for the recursion: a frame per level, n <= 40 levels.
STACK_BYTES = 16 * 1024


@cuda.jit(device=True)
def lucas_device(k):
    if k == 0:
        return int64(2)
    if k == 1:
        return int64(1)
    return lucas_device(k - 1) + lucas_device(k - 2)


@cuda.jit
def lucas_kernel(out, n):
    i = cuda.grid(1)
    if i <= n:
        out[i] = lucas_device(i)


@cpu_jit
def lucas(k):
    if k == 0:
        return 2
    if k == 1:
        return 1
    return lucas(k - 1) + lucas(k - 2)


@cpu_jit
def lucas_serial(out):
    for i in range(out.size):
        out[i] = lucas(i)


@cpu_jit(parallel=True)
def lucas_parallel(out):
    # Largest index first: L(n) alone is ~38% of the calls; with chunks of one index (the
    # runner sets Numba's chunk size) the threads take the indices in that order.
    n = out.size - 1
    for j in prange(out.size):
        out[n - j] = lucas(n - j)


def size(row) -> int:
    return min(int(row.arg("n")), MAX_N)


def fibonacci(k: int) -> int:
    a, b = 0, 1
    for _ in range(k):
        a, b = b, a + b
    return a


def recursive_adds_upto(n: int) -> int:
    return sum(fibonacci(i + 1) - 1 for i in range(n + 1))


def work(row) -> Work:
    n = size(row)
    return Work(read_bytes=0.0, written_bytes=8.0 * (n + 1), flops=0.0,
                items=float(recursive_adds_upto(n)))


def data_key(row):
    return size(row)


def host_bytes(row) -> float:
    return 24.0 * (size(row) + 1)


def device_bytes(row) -> float:
    return 8.0 * (size(row) + 1)


def reference(n: int) -> np.ndarray:
    values = [2, 1]
    while len(values) < n + 1:
        values.append(values[-1] + values[-2])
    return np.array(values[:n + 1], dtype=np.int64)


def make_data(row):
    n = size(row)
    return SimpleNamespace(ref=reference(n), out=np.empty(n + 1, dtype=np.int64))


def make_device(row, data):
    return Buffers({}, {"out": (data.out.shape, np.int64)})


def cpu_case(row, data) -> CpuCase:
    fn = lucas_serial if row.peer.serial else lucas_parallel

    def run():
        fn(data.out)

    def validate():
        poison(data.out)
        run()
        return compare_exact(data.out, data.ref)

    return CpuCase(run, validate, TOLERANCE,
                   around=None if row.peer.serial else chunks_of_one)


def chunks_of_one():
    return numba.parallel_chunksize(1)


def raise_stack_limit(nbytes: int) -> None:
    """The CUDA context's per-thread stack, at least `nbytes` (recursion needs a frame a level;
    the default, 1 KiB, is not enough for L(40))."""
    if SIMULATOR:
        return
    from numba.cuda.cudadrv.driver import binding, driver
    limit = binding.CUlimit.CU_LIMIT_STACK_SIZE
    with contextlib.suppress(Exception):
        current = driver.cuCtxGetLimit(limit)
        if int(current) >= nbytes:
            return
    cuda.current_context()   # the context must exist before its limit is set
    driver.cuCtxSetLimit(limit, nbytes)


def gpu_case(row, data, dev: Buffers, gpu) -> GpuCase:
    (block,) = parse_block(row.arg("block"))
    check_block(block, gpu.max_threads_per_block)
    n = size(row)
    grid = (n + block) // block   # n + 1 indices
    raise_stack_limit(STACK_BYTES)

    def pageable():
        d_out = cuda.device_array(n + 1, dtype=np.int64)
        lucas_kernel[grid, block](d_out, n)
        return d_out.copy_to_host()

    return GpuCase(dev.poison, dev.upload, lambda: lucas_kernel[grid, block](dev.d["out"], n),
                   dev.download, lambda: compare_exact(dev.h["out"], data.ref), TOLERANCE,
                   pageable, kernel=lucas_kernel, block=block, grid_blocks=grid)
