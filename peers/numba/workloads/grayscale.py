"""grayscale: an (h, w, 3) float32 RGB image to (h, w) gray = 0.299 r + 0.587 g + 0.114 b
(cpu/grayscale.hpp).

The image is bench/grayscale.cpp's: 3 w h values uniform in [0, 1) from seed 0x5eed0003, pixel
by pixel (r, g, b interleaved, rows in order), which is NumPy's (h, w, 3) layout. The reference
is computed in float64 with the suite's float32 weights; the kernels write the article's
Python-float weights (float64 arithmetic, one rounding to float32), within a few 1e-8 of it.
Tolerance as the suite's: 1e-5 relative to max(|ref|, 1e-3).
Declared as a twinbench.bench.Workload (docs/python.md): the article's kernel and the coalesced
one are two GPU variants of one declaration, each with its grid.

The article's kernel takes `row, col = cuda.grid(2)`: the row from threadIdx.x, so a warp's 32
threads touch 32 rows (strided by a whole row); the coalesced kernel swaps the two.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, prange

import twinbench.bench as tb
from .common import cpu_jit

SEED = 0x5EED0003
TOLERANCE = tb.Tolerance(1e-5, 1e-3)
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


def _grid(rows_on_x: bool):
    """The launch's grid for a (bx, by) block: x over rows (the article's row, col = grid(2))
    or over columns (the coalesced kernel); a y extent above CUDA's limit is a skip."""
    def grid(size, block):
        bx, by = block
        w, h = size["w"], size["h"]
        g = ((tb.blocks_for(h, bx), tb.blocks_for(w, by)) if rows_on_x
             else (tb.blocks_for(w, bx), tb.blocks_for(h, by)))
        if g[1] > MAX_GRID_Y:
            raise tb.Skip(f"a grid of {g[1]} blocks in y is above CUDA's limit of {MAX_GRID_Y}")
        return g
    return grid


def _pixels(size) -> float:
    return float(size["w"]) * size["h"]


WORKLOAD = tb.Workload(
    "grayscale",
    reference=lambda rgb: rgb.astype(np.float64) @ WEIGHTS,
    inputs=lambda s, seed: tb.uniform((s["h"], s["w"], 3), seed, 0.0, 1.0),
    outputs=np.float32,
    cpu=[tb.Cpu(grayscale_parallel, impl_name="numba_cpu")],
    gpu=[tb.Kernel(grayscale_kernel, grid=_grid(True), impl_name="numba_cuda"),
         tb.Kernel(grayscale_coalesced_kernel, grid=_grid(False),
                   impl_name="numba_cuda_coalesced")],
    seed=SEED, tolerance=TOLERANCE,
    bytes=lambda s: (12.0 * _pixels(s), 4.0 * _pixels(s)), flops=lambda s: 5.0 * _pixels(s),
)


def _row(row):
    return WORKLOAD.row(row.base_impl, row.args, row.pageable)


def work(row) -> tb.Work:
    return WORKLOAD.work(_row(row))


def data_key(row):
    return dims(row)


def host_bytes(row) -> float:   # rgb, out (float32), ref (float64); pinned rgb, gray
    w, h = dims(row)
    return float(w) * h * (4 * 4 + 8 + (16 if row.side == "gpu" else 0))


def device_bytes(row) -> float:
    w, h = dims(row)
    return 16.0 * w * h


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
