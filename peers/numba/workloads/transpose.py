"""transpose: out = in^T for a rows x cols float32 matrix (cpu/transpose.hpp), the article's two
kernels: the first puts the input column on threadIdx.x (reads coalesced, each warp's writes
land in 32 output rows), the second the input row (writes coalesced, reads strided).

Input as bench/transpose.cpp (seed 0x5eed0301, uniform in [-1, 1)); a transpose moves bits, so
every variant must reproduce it exactly. Kernel rows only, as the suite's (the input is
uploaded once).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import cuda, prange

from twinbench.bench import Tolerance, compare_exact
from twinbench.bench import CpuCase, GpuCase, Skip, blocks_for, check_block, parse_block
from twinbench.bench import fill_uniform
from twinbench.bench import Work
from twinbench.bench import Buffers, poison
from .common import cpu_jit

SEED = 0x5EED0301
TOLERANCE = Tolerance(0.0)
CPU_TILE = 64
MAX_GRID_Y = 65535


@cuda.jit
def transpose_slow_kernel(a, out):
    c, r = cuda.grid(2)
    if r < a.shape[0] and c < a.shape[1]:
        out[c, r] = a[r, c]


@cuda.jit
def transpose_fast_kernel(a, out):
    r, c = cuda.grid(2)
    if r < a.shape[0] and c < a.shape[1]:
        out[c, r] = a[r, c]


@cpu_jit(parallel=True)
def transpose_parallel(a, out):
    rows, cols = a.shape
    tiles_r = (rows + CPU_TILE - 1) // CPU_TILE
    tiles_c = (cols + CPU_TILE - 1) // CPU_TILE
    for t in prange(tiles_r * tiles_c):
        r0 = (t // tiles_c) * CPU_TILE
        c0 = (t % tiles_c) * CPU_TILE
        for r in range(r0, min(r0 + CPU_TILE, rows)):
            for c in range(c0, min(c0 + CPU_TILE, cols)):
                out[c, r] = a[r, c]


def shape(row) -> tuple[int, int]:
    return int(row.arg("rows")), int(row.arg("cols"))


def work(row) -> Work:
    r, c = shape(row)
    n = float(r) * c
    return Work(read_bytes=4.0 * n, written_bytes=4.0 * n, flops=0.0, items=n)


def data_key(row):
    return shape(row)


def host_bytes(row) -> float:   # in, out (+ a contiguous reference while checking); pinned
    r, c = shape(row)
    return 4.0 * r * c * (3 + (2 if row.side == "gpu" else 0))


def device_bytes(row) -> float:
    r, c = shape(row)
    return 8.0 * r * c


def make_data(row):
    rows, cols = shape(row)
    a = fill_uniform(rows * cols, SEED, -1.0, 1.0).reshape(rows, cols)
    return SimpleNamespace(a=a, out=np.empty((cols, rows), dtype=np.float32))


def check(got, data):
    return compare_exact(got, np.ascontiguousarray(data.a.T))


def make_device(row, data):
    return Buffers({"a": data.a}, {"out": (data.out.shape, np.float32)})


def cpu_case(row, data) -> CpuCase:
    def run():
        transpose_parallel(data.a, data.out)

    def validate():
        poison(data.out)
        run()
        return check(data.out, data)

    return CpuCase(run, validate, TOLERANCE)


def gpu_case(row, data, dev: Buffers, gpu) -> GpuCase:
    bx, by = parse_block(row.arg("block"))
    check_block(bx * by, gpu.max_threads_per_block)
    rows, cols = shape(row)
    fast = row.peer.impl == "numba_cuda_fast"
    grid = ((blocks_for(rows, bx), blocks_for(cols, by)) if fast
            else (blocks_for(cols, bx), blocks_for(rows, by)))
    if grid[1] > MAX_GRID_Y:
        raise Skip(f"a grid of {grid[1]} blocks in y is above CUDA's limit of {MAX_GRID_Y}")

    def compute():
        kernel = transpose_fast_kernel if fast else transpose_slow_kernel
        kernel[grid, (bx, by)](dev.d["a"], dev.d["out"])

    return GpuCase(dev.poison, lambda: None, compute, dev.download,
                   lambda: check(dev.h["out"], data), TOLERANCE, None,
                   kernel=transpose_fast_kernel if fast else transpose_slow_kernel,
                   block=bx * by, grid_blocks=grid[0] * grid[1])
