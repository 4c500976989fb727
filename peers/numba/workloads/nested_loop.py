"""nested_loop: results[i] = sum over j < n of i * j * 0.1 in float64, for i < n
(cpu/nested_loop.hpp): the articles' compute-heavy loop, written as they write it.

No inputs. The reference is the closed form: sum_j i j 0.1 = 0.1 (i n (n - 1) / 2), where
i n (n - 1) / 2 is an integer below 2^53 for every allowed n, so the reference is one rounding
from the exact sum of the loop's terms. The loop adds n positive terms (each one rounding from
exact), so it is within (n + 2) 2^-53 of it relative: 1.1e-12 at n = 10^4, 1.1e-11 at 10^5.
The suite's tolerance, 1e-10, holds; a lost or doubled term is at least 2 / n^2 relative.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from numba import cuda, prange

from twinbench.bench import Tolerance, compare
from twinbench.bench import CpuCase, GpuCase, Skip, blocks_for, check_block, parse_block
from twinbench.bench import Work
from twinbench.bench import Buffers, poison
from .common import cpu_jit

TOLERANCE = Tolerance(1e-10)
# As the suite: n^2 inner iterations above 1e10 (n > 100000) would take the serial row hours.
MAX_INNER_ITERATIONS = 1e10


@cuda.jit
def nested_loop_kernel(results, m):
    i = cuda.grid(1)
    if i < results.size:
        s = 0.0
        for j in range(m):
            s += i * j * 0.1
        results[i] = s


@cpu_jit
def nested_loop_serial(results, m):
    for i in range(results.size):
        s = 0.0
        for j in range(m):
            s += i * j * 0.1
        results[i] = s


@cpu_jit(parallel=True)
def nested_loop_parallel(results, m):
    for i in prange(results.size):
        s = 0.0
        for j in range(m):
            s += i * j * 0.1
        results[i] = s


def size(row) -> int:
    return int(row.arg("n"))


def within_cap(n: int) -> None:
    inner = float(n) * n
    if inner > MAX_INNER_ITERATIONS:
        raise Skip(f"n = {n} is {inner:.2g} inner iterations (N^2), above the cap of "
                   f"{MAX_INNER_ITERATIONS:.0g} (n <= {math.sqrt(MAX_INNER_ITERATIONS):.0f})")


def work(row) -> Work:
    n = float(size(row))
    return Work(read_bytes=0.0, written_bytes=8.0 * n, flops=2.0 * n * n, items=n * n)


def data_key(row):
    return size(row)


def host_bytes(row) -> float:
    return 8.0 * size(row) * (3 if row.side == "gpu" else 2)


def device_bytes(row) -> float:
    return 8.0 * size(row)


def reference(n: int) -> np.ndarray:
    pairs = n * (n - 1) // 2
    return np.array([float(i * pairs) * 0.1 for i in range(n)], dtype=np.float64)


def make_data(row):
    n = size(row)
    within_cap(n)
    return SimpleNamespace(ref=reference(n), out=np.empty(n, dtype=np.float64))


def make_device(row, data):
    return Buffers({}, {"results": (data.out.shape, np.float64)})


def cpu_case(row, data) -> CpuCase:
    n = size(row)
    fn = nested_loop_serial if row.peer.serial else nested_loop_parallel

    def run():
        fn(data.out, n)

    def validate():
        poison(data.out)
        run()
        return compare(data.out, data.ref)

    return CpuCase(run, validate, TOLERANCE)


def gpu_case(row, data, dev: Buffers, gpu) -> GpuCase:
    (block,) = parse_block(row.arg("block"))
    check_block(block, gpu.max_threads_per_block)
    n = size(row)
    grid = blocks_for(n, block)

    def pageable():   # nothing to send: launch, then copy the results back
        d_results = cuda.device_array(n, dtype=np.float64)
        nested_loop_kernel[grid, block](d_results, n)
        return d_results.copy_to_host()

    counters = {"blocks_per_sm": grid / gpu.sms} if gpu.sms else {}
    return GpuCase(dev.poison, dev.upload,
                   lambda: nested_loop_kernel[grid, block](dev.d["results"], n), dev.download,
                   lambda: compare(dev.h["results"], data.ref), TOLERANCE, pageable,
                   kernel=nested_loop_kernel, block=block, grid_blocks=grid, counters=counters)
