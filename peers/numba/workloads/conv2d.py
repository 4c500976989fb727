"""conv2d: an (h, w) float32 image filtered by an f x f kernel, borders clamped to the edge
(cpu/conv2d.hpp), one thread per pixel.

The image is bench/conv2d.cpp's (seed 0x5eed0601, uniform in [0, 1)) and so is the filter:
f^2 weights uniform in [0.05, 1) from seed 0x5eed0601 + 100 + f, divided by their sum (a float64
sum in order, each quotient rounded to float32: conv2d::random_filter). The reference is the
same correlation in float64. Every weight is positive and they sum to 1, so sum |k in| <= 1 and
a float32 sum of at most 49 products is within ~3e-6 of it: the suite's tolerance, 1e-5
relative to max(|ref|, 1), holds whatever the order of the taps.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numba import cuda, float32, prange

from twinbench.bench import Tolerance, compare
from twinbench.bench import CpuCase, GpuCase, Skip, blocks_for, check_block, parse_block
from twinbench.bench import fill_uniform
from twinbench.bench import Work
from twinbench.bench import Buffers, poison
from .common import cpu_jit

SEED = 0x5EED0601
TOLERANCE = Tolerance(1e-5, 1.0)
MAX_GRID_Y = 65535


def random_filter(f: int, seed: int) -> np.ndarray:
    k = fill_uniform(f * f, seed, 0.05, 1.0)
    total = 0.0
    for v in k.tolist():   # std::accumulate: one float64 add at a time, in order
        total += v
    return (k.astype(np.float64) / total).astype(np.float32).reshape(f, f)


@cuda.jit
def conv2d_kernel(img, filt, out):
    x, y = cuda.grid(2)
    h = img.shape[0]
    w = img.shape[1]
    if y < h and x < w:
        f = filt.shape[0]
        r = f // 2
        acc = float32(0.)
        for dy in range(f):
            yy = min(max(y + dy - r, 0), h - 1)
            for dx in range(f):
                xx = min(max(x + dx - r, 0), w - 1)
                acc += filt[dy, dx] * img[yy, xx]
        out[y, x] = acc


@cpu_jit(parallel=True)
def conv2d_parallel(img, filt, out):
    h, w = img.shape
    f = filt.shape[0]
    r = f // 2
    for y in prange(h):
        for x in range(w):
            acc = np.float32(0.0)
            for dy in range(f):
                yy = min(max(y + dy - r, 0), h - 1)
                for dx in range(f):
                    xx = min(max(x + dx - r, 0), w - 1)
                    acc += filt[dy, dx] * img[yy, xx]
            out[y, x] = acc


def dims(row) -> tuple[int, int, int]:
    w, h = (int(v) for v in row.arg("image").split("x"))
    return w, h, int(row.arg("filter"))


def work(row) -> Work:
    w, h, f = dims(row)
    px = float(w) * h
    return Work(read_bytes=4.0 * px, written_bytes=4.0 * px, flops=2.0 * f * f * px, items=px)


def data_key(row):
    return dims(row)


def host_bytes(row) -> float:   # image, out (float32), reference (float64 and its padding)
    w, h, f = dims(row)
    return float(w) * h * (8 + 24 + (8 if row.side == "gpu" else 0))


def device_bytes(row) -> float:
    w, h, f = dims(row)
    return 8.0 * w * h + 4.0 * f * f


def reference(img: np.ndarray, filt: np.ndarray) -> np.ndarray:
    h, w = img.shape
    f = filt.shape[0]
    r = f // 2
    padded = np.pad(img.astype(np.float64), r, mode="edge")   # clamp-to-edge borders
    ref = np.zeros((h, w), dtype=np.float64)
    for dy in range(f):
        for dx in range(f):
            ref += float(filt[dy, dx]) * padded[dy:dy + h, dx:dx + w]
    return ref


def make_data(row):
    w, h, f = dims(row)
    img = fill_uniform(w * h, SEED, 0.0, 1.0).reshape(h, w)
    filt = random_filter(f, SEED + 100 + f)
    return SimpleNamespace(img=img, filt=filt, ref=reference(img, filt),
                           out=np.empty((h, w), dtype=np.float32))


def make_device(row, data):
    dev = Buffers({"img": data.img}, {"out": (data.out.shape, np.float32)})
    dev.d["filt"] = cuda.to_device(data.filt)   # uploaded once, outside every timed region
    return dev


def cpu_case(row, data) -> CpuCase:
    def run():
        conv2d_parallel(data.img, data.filt, data.out)

    def validate():
        poison(data.out)
        run()
        return compare(data.out, data.ref, TOLERANCE.scale_floor)

    return CpuCase(run, validate, TOLERANCE)


def gpu_case(row, data, dev: Buffers, gpu) -> GpuCase:
    bx, by = parse_block(row.arg("block"))
    check_block(bx * by, gpu.max_threads_per_block)
    w, h, f = dims(row)
    grid = (blocks_for(w, bx), blocks_for(h, by))
    if grid[1] > MAX_GRID_Y:
        raise Skip(f"a grid of {grid[1]} blocks in y is above CUDA's limit of {MAX_GRID_Y}")

    def compute():
        conv2d_kernel[grid, (bx, by)](dev.d["img"], dev.d["filt"], dev.d["out"])

    def pageable():
        d_img = cuda.to_device(data.img)
        d_filt = cuda.to_device(data.filt)
        d_out = cuda.device_array((h, w), dtype=np.float32)
        conv2d_kernel[grid, (bx, by)](d_img, d_filt, d_out)
        return d_out.copy_to_host()

    return GpuCase(dev.poison, dev.upload, compute, dev.download,
                   lambda: compare(dev.h["out"], data.ref, TOLERANCE.scale_floor), TOLERANCE,
                   pageable, kernel=conv2d_kernel, block=bx * by, grid_blocks=grid[0] * grid[1])
