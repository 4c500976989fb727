"""The article's Poisson kernel with a live progress bar.

    python examples/poisson_progress.py [--n N] [--per-warp] [--display auto|tqdm|bar|lines]

The kernel is the article's: one xoroshiro128+ generator per thread (2^18 of them), each thread
drawing samples t, t + 2^18, ... by the inverse transform that recomputes
exp(-rate) * rate**k / gamma(k + 1) until u falls under the running CDF. Added for the bar: a
count of the block's (or the warp's) finished samples in shared memory, and one writer that
publishes it with kernel_progress.report / finish.

The article's own counter (cuda.atomic.add on a device array read with copy_to_host) shows
nothing until the end: copy_to_host on the default stream waits for the kernel. Here the host
copies the slots on a stream of its own that does not wait for the kernel.

Exits 0 when the final count is exactly n and the samples' mean is near the rate; 1 otherwise.
Under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) it runs with a small n, for the tests.
"""

from __future__ import annotations

import argparse
import faulthandler
import math
import sys
import time

import numpy as np
from numba import cuda, uint64
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float64

import kernel_progress as kp

RATE = 5.0
MAX_K = 100
STREAMS = 1 << 18
BLOCK = 256
SEED = 0x5EED0007


@cuda.jit
def poisson_per_block(states, out, rate, slots, period_ns):
    done = cuda.shared.array(1, uint64)          # the block's finished samples
    if cuda.threadIdx.x == 0:
        done[0] = 0
    cuda.syncthreads()
    last = kp.now()                              # the writer's last store (thread 0's)
    t = cuda.grid(1)
    streams = states.shape[0]
    if t < streams:                              # no early return: every thread reaches the end
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
            d = cuda.atomic.add(done, 0, uint64(1)) + uint64(1)
            if cuda.threadIdx.x == 0:
                last = kp.report(slots, cuda.blockIdx.x, d, last, period_ns)
    cuda.syncthreads()                           # every sample of the block is counted
    if cuda.threadIdx.x == 0:
        kp.finish(slots, cuda.blockIdx.x, done[0])


@cuda.jit
def poisson_per_warp(states, out, rate, slots, period_ns):
    done = cuda.shared.array(32, uint64)         # each warp's finished samples
    warp = cuda.threadIdx.x // 32
    lane = cuda.threadIdx.x % 32
    slot = cuda.blockIdx.x * (cuda.blockDim.x // 32) + warp
    if lane == 0:
        done[warp] = 0
    kp.syncwarp()
    last = kp.now()
    t = cuda.grid(1)
    streams = states.shape[0]
    if t < streams:
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
            d = cuda.atomic.add(done, warp, uint64(1)) + uint64(1)
            if lane == 0:
                last = kp.report(slots, slot, d, last, period_ns)
    kp.syncwarp()                              # the warp's samples are all counted
    if lane == 0:
        kp.finish(slots, slot, done[warp])


def default_n() -> int:
    """About a second of kernel on an H200 (1e10 samples, 40 GB of output), less where the
    device has less memory; a small n under the simulator."""
    if kp.device.SIMULATOR:
        return 2000
    free, _ = cuda.current_context().get_memory_info()
    return int(min(10_000_000_000, 0.8 * free / 4))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=0, help="samples (default: about 1 s on an H200)")
    p.add_argument("--per-warp", action="store_true", help="a slot per warp, not per block")
    p.add_argument("--display", default="auto", help="auto, tqdm, bar, lines or quiet")
    p.add_argument("--streams", type=int, default=STREAMS, help="generators (threads)")
    p.add_argument("--block", type=int, default=BLOCK)
    p.add_argument("--timeout", type=float, default=300.0,
                   help="give up (exit 1, with a traceback) after this many seconds")
    args = p.parse_args(argv)
    # A kernel that never ends must not hang the job that started it.
    faulthandler.dump_traceback_later(args.timeout, exit=True)

    n = args.n or default_n()
    streams = min(n, args.streams)
    grid = (streams + args.block - 1) // args.block
    states = create_xoroshiro128p_states(streams, seed=SEED)
    out = cuda.device_array(n, dtype=np.int32)
    kernel = poisson_per_warp if args.per_warp else poisson_per_block
    make = (lambda **kw: kp.LiveProgress.per_warp(grid, args.block, **kw)) if args.per_warp \
        else (lambda **kw: kp.LiveProgress.per_block(grid, **kw))

    # Compile (and warm up) on a small launch, so that the bar shows the kernel, not Numba.
    warm = make(total=0, display="quiet")
    kernel[grid, args.block](states, out[:streams], RATE, warm.slots, warm.period_ns)
    warm.wait()

    # A read every 10 ms: about 120 during the 1.2 s kernel (the main thread only waits
    # meanwhile, so the reading thread delays no launch).
    live = make(total=n, label="poisson", display=args.display, interval=0.01)
    print(f"poisson: {n} samples, {grid} blocks of {args.block}, {live.writers} slots, a store "
          f"every {live.period_ns / 1e3:.0f} us at most per writer", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    with live:
        kernel[grid, args.block](states, out, RATE, live.slots, live.period_ns)
    seconds = time.perf_counter() - t0
    m = min(n, 10_000_000)
    mean = float(out[:m].copy_to_host().mean())
    ok = live.count == n and abs(mean - RATE) < 5 * math.sqrt(RATE / m)   # 5 standard errors
    print(f"poisson: done in {seconds:.2f} s; the slots sum to {live.count} of {n}; the host "
          f"saw {live.stats.distinct} distinct values; sample mean {mean:.4f} "
          f"({'ok' if ok else 'WRONG'})", file=sys.stderr, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
