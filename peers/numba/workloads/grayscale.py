"""grayscale: an (h, w, 3) float32 RGB image to (h, w) gray = 0.299 r + 0.587 g + 0.114 b
(cpu/grayscale.hpp).

The image is bench/grayscale.cpp's: 3 w h values uniform in [0, 1) from seed 0x5eed0003, pixel
by pixel (r, g, b interleaved, rows in order), which is NumPy's (h, w, 3) layout. The reference
is computed in float64 with the suite's float32 weights; the kernels write the article's
Python-float weights (float64 arithmetic, one rounding to float32), within a few 1e-8 of it.
Tolerance as the suite's: 1e-5 relative to max(|ref|, 1e-3).
The article's kernel takes `row, col = cuda.grid(2)`: the row from threadIdx.x, so a warp's 32
threads touch 32 rows (strided by a whole row); the coalesced kernel swaps the two.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import cuda, prange

from twinbench.bench import Tolerance, compare
from twinbench.bench import CpuCase, GpuCase, Skip, blocks_for, check_block, parse_block
from twinbench.bench import fill_uniform
from twinbench.bench import Work
from twinbench.bench import Buffers, poison
from .common import cpu_jit

SEED = 0x5EED0003
TOLERANCE = Tolerance(1e-5, 1e-3)
WEIGHTS = np.array([0.299, 0.587, 0.114], dtype=np.float32).astype(np.float64)
MAX_GRID_Y = 65535


@cuda.jit
def grayscale_kernel(rgb, gray):
    row, col = cuda.grid(2)
    if row < gray.shape[0] and col < gray.shape[1]:
        gray[row, col] = (0.299 * rgb[row, col, 0] + 0.587 * rgb[row, col, 1]
                          + 0.114 * rgb[row, col, 2])


@cuda.jit
def grayscale_coalesced_kernel(rgb, gray):
    col, row = cuda.grid(2)
    if row < gray.shape[0] and col < gray.shape[1]:
        gray[row, col] = (0.299 * rgb[row, col, 0] + 0.587 * rgb[row, col, 1]
                          + 0.114 * rgb[row, col, 2])


@cpu_jit(parallel=True)
def grayscale_parallel(rgb, gray):
    for row in prange(gray.shape[0]):
        for col in range(gray.shape[1]):
            gray[row, col] = (0.299 * rgb[row, col, 0] + 0.587 * rgb[row, col, 1]
                              + 0.114 * rgb[row, col, 2])


def dims(row) -> tuple[int, int]:
    return int(row.arg("w")), int(row.arg("h"))


def work(row) -> Work:
    w, h = dims(row)
    px = float(w) * h
    return Work(read_bytes=12.0 * px, written_bytes=4.0 * px, flops=5.0 * px, items=px)


def data_key(row):
    return dims(row)


def host_bytes(row) -> float:   # rgb, out (float32), ref (float64); pinned rgb, gray
    w, h = dims(row)
    return float(w) * h * (4 * 4 + 8 + (16 if row.side == "gpu" else 0))


def device_bytes(row) -> float:
    w, h = dims(row)
    return 16.0 * w * h


def make_data(row):
    w, h = dims(row)
    rgb = fill_uniform(3 * w * h, SEED, 0.0, 1.0).reshape(h, w, 3)
    ref = rgb.astype(np.float64) @ WEIGHTS
    return SimpleNamespace(rgb=rgb, ref=ref, out=np.empty((h, w), dtype=np.float32))


def make_device(row, data):
    return Buffers({"rgb": data.rgb}, {"gray": (data.out.shape, np.float32)})


def cpu_case(row, data) -> CpuCase:
    def run():
        grayscale_parallel(data.rgb, data.out)

    def validate():
        poison(data.out)
        run()
        return compare(data.out, data.ref, TOLERANCE.scale_floor)

    return CpuCase(run, validate, TOLERANCE)


def gpu_case(row, data, dev: Buffers, gpu) -> GpuCase:
    bx, by = parse_block(row.arg("block"))
    check_block(bx * by, gpu.max_threads_per_block)
    w, h = dims(row)
    coalesced = row.peer.impl == "numba_cuda_coalesced"
    grid = ((blocks_for(w, bx), blocks_for(h, by)) if coalesced
            else (blocks_for(h, bx), blocks_for(w, by)))
    if grid[1] > MAX_GRID_Y:
        raise Skip(f"a grid of {grid[1]} blocks in y is above CUDA's limit of {MAX_GRID_Y}")

    def launch(rgb, gray):
        kernel = grayscale_coalesced_kernel if coalesced else grayscale_kernel
        kernel[grid, (bx, by)](rgb, gray)

    def pageable():
        d_rgb = cuda.to_device(data.rgb)
        d_gray = cuda.device_array((h, w), dtype=np.float32)
        launch(d_rgb, d_gray)
        return d_gray.copy_to_host()

    return GpuCase(dev.poison, dev.upload, lambda: launch(dev.d["rgb"], dev.d["gray"]),
                   dev.download,
                   lambda: compare(dev.h["gray"], data.ref, TOLERANCE.scale_floor), TOLERANCE,
                   pageable,
                   kernel=grayscale_coalesced_kernel if coalesced else grayscale_kernel,
                   block=bx * by, grid_blocks=grid[0] * grid[1],
                   counters={"block_x": bx, "block_y": by})
