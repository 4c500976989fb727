"""The suite's seeded inputs (common/random.cpp) in NumPy, bit for bit.

Element i of a seeded array is a function of (seed, i) alone: r = mix64(mix64(seed) + i), the
SplitMix64 finaliser of a counter. NumPy's uint64 array arithmetic wraps modulo 2^64 as the
C++ does, so the same operations give the same bits; the conversions to float and int are
written out in the C++'s order, each rounding where the C++ rounds. No numba here: the runner's
skip path and the tests import this module on machines without it.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MUL1 = 0xBF58476D1CE4E5B9
_MUL2 = 0x94D049BB133111EB

# Elements per chunk: the hash needs a few uint64 temporaries per element, so a 256M-element
# input is made in pieces of 32 MiB temporaries rather than several 2 GiB ones. NumPy releases
# the GIL inside its loops, so the chunks of one array are made on several threads (the C++
# fills in parallel too).
CHUNK = 1 << 22
_MAX_THREADS = 16


def mix64_scalar(x: int) -> int:
    """SplitMix64's finaliser on a Python int (the seed's hash)."""
    x = (x + _GOLDEN) & _MASK
    x = ((x ^ (x >> 30)) * _MUL1) & _MASK
    x = ((x ^ (x >> 27)) * _MUL2) & _MASK
    return x ^ (x >> 31)


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on a uint64 array (wrapping, as the C++'s unsigned arithmetic)."""
    x = x + np.uint64(_GOLDEN)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(_MUL1)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(_MUL2)
    return x ^ (x >> np.uint64(31))


def hashes(seed: int, start: int, stop: int) -> np.ndarray:
    """r_i = mix64(mix64(seed) + i) for start <= i < stop."""
    index = np.arange(start, stop, dtype=np.uint64)
    return mix64(index + np.uint64(mix64_scalar(seed & _MASK)))


def _filled(n: int, dtype, fill_chunk) -> np.ndarray:
    out = np.empty(n, dtype=dtype)
    starts = range(0, n, CHUNK)
    workers = max(1, min(_MAX_THREADS, os.cpu_count() or 1, len(starts)))
    if workers == 1:
        for start in starts:
            fill_chunk(out, start, min(n, start + CHUNK))
        return out
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda s: fill_chunk(out, s, min(n, s + CHUNK)), starts))
    return out


def fill_uniform(n: int, seed: int, lo, hi, dtype=np.float32) -> np.ndarray:
    """n values uniform in [lo, hi) of `dtype` (float32, float64 or int32), exact zeros
    replaced (a zero input hides an unwritten output): tb::fill_uniform."""
    dtype = np.dtype(dtype)
    if dtype == np.int32:
        return _fill_int32(n, seed, int(lo), int(hi))
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"fill_uniform: {dtype} is not float32, float64 or int32")
    t = dtype.type
    lo_t = t(lo)
    span = t(t(hi) - lo_t)                       # T span = hi - lo, rounded in T
    tiny = t(span * t(1.0 / (1 << 26)))          # span * T(2^-26)
    span_d = np.float64(span)

    def chunk(out, start, stop):
        r = hashes(seed, start, stop)
        u = (r >> np.uint64(11)).astype(np.float64) * 2.0**-53   # [0, 1), exact
        v = lo_t + (u * span_d).astype(dtype)     # the product rounds to T, then the add in T
        v[v == 0] = tiny
        out[start:stop] = v

    return _filled(n, dtype, chunk)


def _fill_int32(n: int, seed: int, lo: int, hi: int) -> np.ndarray:
    span = np.uint64((hi - lo) & _MASK)   # uint64(int64(hi) - lo)
    if span == 0:
        raise ValueError("fill_uniform: empty int32 range")

    def chunk(out, start, stop):
        r = hashes(seed, start, stop)
        wide = np.int64(lo) + (r % span).astype(np.int64)
        v = wide.astype(np.int32)          # static_cast<int32_t>: modulo 2^32
        v[v == 0] = 1
        out[start:stop] = v

    return _filled(n, np.int32, chunk)


POISON_BYTE = 0xFF


def fill_bytes(n: int, seed: int) -> np.ndarray:
    """Seeded bytes, never 0xFF (the poison a missed byte keeps): transfers::fill_bytes."""

    def chunk(out, start, stop):
        v = (hashes(seed, start, stop) >> np.uint64(56)).astype(np.uint8)
        v[v == POISON_BYTE] = 0x7F
        out[start:stop] = v

    return _filled(n, np.uint8, chunk)
