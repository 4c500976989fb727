"""progress (target poisson): the article's live progress counter on its Poisson kernel
(bench/progress.cpp, impl cuda_article): every sample adds one to a counter in device memory
with cuda.atomic.add, and the host polls it with copy_to_host while the kernel runs.

On the legacy default stream (Numba's default, the article's) the copy waits for the kernel, so
the host sees only final values: distinct_updates is expected to be 1 per launch, as the C++
port measures. Each sample times the kernel with the counter and the same kernel without it
(poisson.poisson_kernel), back to back in alternating order, and the row's time is the counting
kernel's; overhead_pct compares the two (the suite's measure_pair).
"""

from __future__ import annotations

import math

import numpy as np
from numba import cuda, uint64

from ..checks import ErrorStats
from ..harness import ProgressCase, blocks_for, check_block, parse_block
from . import poisson
from .common import Buffers
from .poisson import MAX_K, RATE, SEED, STREAMS, streams_for
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float64


# The article's counting kernel as it writes it: poisson.poisson_kernel's walk with the atomic
# added, copied rather than shared through a device function, so that each peer is the
# article's text (the overhead measured is then that of the article's own change).
@cuda.jit
def poisson_progress_kernel(states, out, rate, progress):
    t = cuda.grid(1)
    streams = states.shape[0]
    if t >= streams:
        return
    for i in range(t, out.shape[0], streams):
        u = xoroshiro128p_uniform_float64(states, t)
        k = 0
        cdf = 0.0
        while k < MAX_K:
            cdf += math.exp(-rate) * rate ** k / math.gamma(k + 1.0)
            if u < cdf:
                break
            k += 1
        out[i] = k
        cuda.atomic.add(progress, 0, uint64(1))


size = poisson.size
work = poisson.work
data_key = poisson.data_key


def host_bytes(row) -> float:
    return 4.0 * size(row) + 16.0 * STREAMS


def device_bytes(row) -> float:
    return 4.0 * size(row) + 16.0 * STREAMS + 8


def make_data(row):
    return None


def make_device(row, data):
    n = size(row)
    dev = Buffers({}, {"out": ((n,), np.int32)})
    dev.d["states"] = create_xoroshiro128p_states(streams_for(n), seed=SEED)
    dev.d["progress"] = cuda.to_device(np.zeros(1, dtype=np.uint64))
    return dev


def gpu_case(row, data, dev: Buffers, gpu) -> ProgressCase:
    (block,) = parse_block(row.arg("block"))
    check_block(block, gpu.max_threads_per_block)
    n = size(row)
    grid = blocks_for(streams_for(n), block)
    d = dev.d

    def instrumented():
        poisson_progress_kernel[grid, block](d["states"], d["out"], RATE, d["progress"])

    def baseline():
        poisson.poisson_kernel[grid, block](d["states"], d["out"], RATE)

    def read() -> int:
        return int(d["progress"].copy_to_host()[0])

    def validate() -> ErrorStats:
        d["progress"].copy_to_device(np.zeros(1, dtype=np.uint64))
        dev.poison()
        instrumented()
        dev.download()
        e = poisson.check(dev.h["out"])
        count = read()
        if count != n:
            e.max_rel = 1e30
            e.max_abs = float(abs(count - n))
            e.note += f"; the counter ended at {count}, expected {n}"
        return e

    return ProgressCase(instrumented, baseline, read, n, validate, poisson.TOLERANCE,
                        kernel=poisson_progress_kernel, block=block, grid_blocks=grid)
