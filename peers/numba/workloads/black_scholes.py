"""black_scholes: call and put prices of n European options (cpu/black_scholes.hpp), as Numba's
own Black-Scholes example writes them: the polynomial normal CDF cnd (Abramowitz and Stegun
26.2.17, absolute error < 7.5e-8) in float64 arithmetic, float32 arrays in and out.

Inputs as bench/black_scholes.cpp: spot in [5, 30), strike in [1, 100), years in [0.25, 10)
from seeds 0x5eed0b50, +1, +2; the suite's risk-free rate 0.02f and volatility 0.30f (their
float32 values). The reference is the suite's: float64 throughout, both tails from erfc. The
CDF's error moves a price by at most (spot + strike) x 7.5e-8 < 1e-5 and the float32 output
rounding by ~1e-5 of $100; the suite's tolerance, 1e-4 relative to max(|price|, $1), holds.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from numba import cuda, prange

from twinbench.bench import Tolerance, compare
from twinbench.bench import CpuCase, GpuCase, blocks_for, check_block, parse_block
from twinbench.bench import fill_uniform
from twinbench.bench import Work
from twinbench.bench import Buffers, poison
from .common import cpu_jit

SEED = 0x5EED0B50
TOLERANCE = Tolerance(1e-4, 1.0)
RISKFREE = float(np.float32(0.02))
VOLATILITY = float(np.float32(0.30))
FLOP_PER_OPTION = 25.0

A1 = 0.31938153
A2 = -0.356563782
A3 = 1.781477937
A4 = -1.821255978
A5 = 1.330274429
RSQRT2PI = 0.39894228040143267793994605993438


@cuda.jit(device=True)
def cnd_cuda(d):
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = (RSQRT2PI * math.exp(-0.5 * d * d) *
               (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


@cuda.jit
def black_scholes_kernel(callResult, putResult, S, X, T, R, V):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= S.shape[0]:
        return
    sqrtT = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    cndd1 = cnd_cuda(d1)
    cndd2 = cnd_cuda(d2)
    expRT = math.exp((-1. * R) * T[i])
    callResult[i] = (S[i] * cndd1 - X[i] * expRT * cndd2)
    putResult[i] = (X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1))


@cpu_jit
def cnd(d):
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = (RSQRT2PI * math.exp(-0.5 * d * d) *
               (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


@cpu_jit(parallel=True)
def black_scholes_parallel(callResult, putResult, S, X, T, R, V):
    for i in prange(S.shape[0]):
        sqrtT = math.sqrt(T[i])
        d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
        d2 = d1 - V * sqrtT
        cndd1 = cnd(d1)
        cndd2 = cnd(d2)
        expRT = math.exp((-1. * R) * T[i])
        callResult[i] = (S[i] * cndd1 - X[i] * expRT * cndd2)
        putResult[i] = (X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1))


@cpu_jit
def black_scholes_reference(S, X, T, call, put, r, v):
    """black_scholes::serial: float64 throughout, both tails from erfc."""
    rsqrt2 = 0.70710678118654752440
    for i in range(S.shape[0]):
        s = np.float64(S[i])
        x = np.float64(X[i])
        t = np.float64(T[i])
        v_sqrt_t = v * math.sqrt(t)
        d1 = (math.log(s / x) + (r + 0.5 * v * v) * t) / v_sqrt_t
        d2 = d1 - v_sqrt_t
        discounted = x * math.exp(-r * t)
        call[i] = (s * 0.5 * math.erfc(-d1 * rsqrt2)
                   - discounted * 0.5 * math.erfc(-d2 * rsqrt2))
        put[i] = (discounted * 0.5 * math.erfc(d2 * rsqrt2)
                  - s * 0.5 * math.erfc(d1 * rsqrt2))


def size(row) -> int:
    return int(row.arg("n"))


def work(row) -> Work:
    n = size(row)
    return Work(read_bytes=12.0 * n, written_bytes=8.0 * n, flops=FLOP_PER_OPTION * n,
                items=1.0 * n)


def data_key(row):
    return size(row)


def host_bytes(row) -> float:   # 5 float32 arrays, 2 float64 references; 5 pinned for GPU rows
    return float(size(row)) * (20 + 16 + (20 if row.side == "gpu" else 0))


def device_bytes(row) -> float:
    return 20.0 * size(row)


def make_data(row):
    n = size(row)
    spot = fill_uniform(n, SEED, 5.0, 30.0)
    strike = fill_uniform(n, SEED + 1, 1.0, 100.0)
    years = fill_uniform(n, SEED + 2, 0.25, 10.0)
    ref_call = np.empty(n, dtype=np.float64)
    ref_put = np.empty(n, dtype=np.float64)
    black_scholes_reference(spot, strike, years, ref_call, ref_put, RISKFREE, VOLATILITY)
    return SimpleNamespace(spot=spot, strike=strike, years=years, ref_call=ref_call,
                           ref_put=ref_put, call=np.empty(n, dtype=np.float32),
                           put=np.empty(n, dtype=np.float32))


def check(call, put, data):
    """The worse of the two outputs (black_scholes::compare_prices)."""
    c = compare(call, data.ref_call, TOLERANCE.scale_floor)
    p = compare(put, data.ref_put, TOLERANCE.scale_floor)
    if not (c.finite and c.size_matches):
        return c
    if not (p.finite and p.size_matches):
        return p
    worst = c if c.max_rel >= p.max_rel else p
    worst.max_abs = max(c.max_abs, p.max_abs)
    return worst


def make_device(row, data):
    n = size(row)
    return Buffers({"spot": data.spot, "strike": data.strike, "years": data.years},
                   {"call": ((n,), np.float32), "put": ((n,), np.float32)})


def cpu_case(row, data) -> CpuCase:
    def run():
        black_scholes_parallel(data.call, data.put, data.spot, data.strike, data.years,
                               RISKFREE, VOLATILITY)

    def validate():
        poison(data.call)
        poison(data.put)
        run()
        return check(data.call, data.put, data)

    return CpuCase(run, validate, TOLERANCE)


def gpu_case(row, data, dev: Buffers, gpu) -> GpuCase:
    (block,) = parse_block(row.arg("block"))
    check_block(block, gpu.max_threads_per_block)
    n = size(row)
    grid = blocks_for(n, block)

    def compute():
        d = dev.d
        black_scholes_kernel[grid, block](d["call"], d["put"], d["spot"], d["strike"],
                                          d["years"], RISKFREE, VOLATILITY)

    def pageable():
        d_s, d_x, d_t = (cuda.to_device(a) for a in (data.spot, data.strike, data.years))
        d_call = cuda.device_array(n, dtype=np.float32)
        d_put = cuda.device_array(n, dtype=np.float32)
        black_scholes_kernel[grid, block](d_call, d_put, d_s, d_x, d_t, RISKFREE, VOLATILITY)
        return d_call.copy_to_host(), d_put.copy_to_host()

    return GpuCase(dev.poison, dev.upload, compute, dev.download,
                   lambda: check(dev.h["call"], dev.h["put"], data), TOLERANCE, pageable,
                   kernel=black_scholes_kernel, block=block, grid_blocks=grid)
