"""progress (target poisson): live progress counting on the article's Poisson kernel, each way
timed against the kernel without it (poisson.poisson_kernel), in pairs (bench/progress.cpp).

The rows' strategy and counter arguments say which way:
  strategy:none/counter:device        (a) the plain kernel timed against itself: the pairs'
                                          noise floor
  strategy:per_thread/counter:device  (b) the article's: every sample adds one to a counter in
                                          device memory with cuda.atomic.add, and the host
                                          polls it with copy_to_host on the default stream
  strategy:live_block/counter:slots8  (c) kernel_progress (kernel-progress/): a slot per block
                                          in device memory, thread 0 the writer
  strategy:live_warp/counter:slots8   (d) the same with a slot per warp, lane 0 the writer
  strategy:per_thread/counter:managed (e) the Numba maintainers' demo: a counter in managed
                                          memory, an atomic per sample, the host reading it

(b) on the legacy default stream (Numba's default, the article's): the copy waits for the
kernel, so the host sees only final values (distinct_updates 1 per launch, as the C++ port).
(c) and (d) are read while the kernel runs with a copy on the helper's own non-blocking stream,
which does not wait for the kernel on the default stream. (e) needs atomics
that the GPU and the host can both perform on the managed word
(CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED) and host access to managed memory while a
kernel runs (CONCURRENT_MANAGED_ACCESS); without them the row is skipped with the reason (a GPU
on PCIe, such as the H200 of the measurements, has no host-native atomics).

The output is checked on the device (a tally of the samples, poisson_tally_kernel), so that a
kernel of over a second (10^10 samples, 40 GB) needs no copy of it on the host.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
from numba import cuda, int64, uint64

from twinbench.bench import CHI2_BINS, ErrorStats, poisson_stats_from_counts
from twinbench.bench import (SIMULATOR, ProgressCase, Skip, blocks_for, check_block, parse_block,
                       wait_gpu)
from . import poisson
from .poisson import MAX_K, RATE, SEED, STREAMS, streams_for
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float64

# The checkout's helper (kernel-progress/src, beside the peers), installed or not: the rows
# measure the code of this revision.
_HELPER = Path(__file__).resolve().parents[3] / "kernel-progress" / "src"
if _HELPER.is_dir() and str(_HELPER) not in sys.path:
    sys.path.insert(0, str(_HELPER))
import kernel_progress as kp  # noqa: E402


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


# The walk with kernel_progress, as its example (kernel-progress/examples/poisson_progress.py)
# writes it: the block's finished samples in shared memory, thread 0 publishing them.
@cuda.jit
def poisson_live_block_kernel(states, out, rate, slots, period_ns):
    done = cuda.shared.array(1, uint64)
    if cuda.threadIdx.x == 0:
        done[0] = 0
    cuda.syncthreads()
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
            d = cuda.atomic.add(done, 0, uint64(1)) + uint64(1)
            if cuda.threadIdx.x == 0:
                last = kp.report(slots, cuda.blockIdx.x, d, last, period_ns)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        kp.finish(slots, cuda.blockIdx.x, done[0])


# A slot per warp: each warp's finished samples in shared memory, lane 0 publishing them; no
# block barrier.
@cuda.jit
def poisson_live_warp_kernel(states, out, rate, slots, period_ns):
    done = cuda.shared.array(32, uint64)
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
    kp.syncwarp()
    if lane == 0:
        kp.finish(slots, slot, done[warp])


# The output's tally for the check: per thread in registers and local memory, then one atomic
# per bin and sum per thread (an atomic per sample would take seconds at 10^10 samples).
@cuda.jit
def poisson_tally_kernel(out, hist, sums):
    local = cuda.local.array(CHI2_BINS, int64)
    for b in range(CHI2_BINS):
        local[b] = 0
    negative = int64(0)
    total = int64(0)
    total_sq = int64(0)
    for i in range(cuda.grid(1), out.shape[0], cuda.gridsize(1)):
        k = int64(out[i])
        if k < 0:
            negative += 1
        else:
            total += k
            total_sq += k * k
            local[min(k, CHI2_BINS - 1)] += 1
    for b in range(CHI2_BINS):
        if local[b] != 0:
            cuda.atomic.add(hist, b, local[b])
    cuda.atomic.add(sums, 0, negative)
    cuda.atomic.add(sums, 1, total)
    cuda.atomic.add(sums, 2, total_sq)


@cuda.jit
def poison_kernel(out, value):
    for i in range(cuda.grid(1), out.shape[0], cuda.gridsize(1)):
        out[i] = value


size = poisson.size
work = poisson.work
data_key = poisson.data_key

POISON = np.iinfo(np.int32).min
# The long kernel's poll: every 200 us (the C++ live rows poll every 50 us; a Python sleep is
# about 60 us at least, and the polls run on the thread that waits for the pair, after both
# launches are enqueued, so no launch waits for the GIL).
LIVE_POLL_S = 200e-6
ARTICLE_POLL_S = 1e-3
# The validating launch (1.2 s at 10^10 samples on the H200) may take this long before the row
# is an error rather than a hang.
VALIDATE_DEADLINE_S = 60.0


def strategy(row) -> tuple[str, str]:
    return row.arg("strategy", "per_thread"), row.arg("counter", "device")


def host_bytes(row) -> float:   # the states made on the device; the slots
    return 16.0 * STREAMS + 8.0 * STREAMS


def device_bytes(row) -> float:
    return 4.0 * size(row) + 16.0 * STREAMS + 8 + 8 * (CHI2_BINS + 3)


def make_data(row):
    return None


class Device:
    """The output, the generators, the counters (made when a row first needs them)."""

    def __init__(self, n: int):
        self.n = n
        self.out = cuda.device_array(n, dtype=np.int32)
        self.states = create_xoroshiro128p_states(streams_for(n), seed=SEED)
        self.counter = cuda.to_device(np.zeros(1, dtype=np.uint64))
        self.managed = None
        self.boards: dict[str, object] = {}

    def poison(self) -> None:
        poison_kernel[256, 256](self.out, POISON)

    def check(self) -> ErrorStats:
        hist = cuda.to_device(np.zeros(CHI2_BINS, dtype=np.int64))
        sums = cuda.to_device(np.zeros(3, dtype=np.int64))
        poisson_tally_kernel[1024 if not SIMULATOR else 2, 256 if not SIMULATOR else 32](
            self.out, hist, sums)
        negative, total, total_sq = (int(v) for v in sums.copy_to_host())
        st = poisson_stats_from_counts(self.n, hist.copy_to_host(), negative, total, total_sq,
                                       RATE)
        return ErrorStats(max_abs=abs(st.mean - RATE), max_rel=st.score(), note=st.describe())


def make_device(row, data):
    return Device(size(row))


def device_attribute(name: str) -> int | None:
    """A CUDA device attribute by Numba's name for it; None when it cannot be read."""
    try:
        return int(getattr(cuda.get_current_device(), name))
    except Exception:  # noqa: BLE001 - an attribute this driver or Numba does not know
        return None


def managed_skip_reason() -> str | None:
    """Why a managed counter with atomics cannot be watched from the host here, or None."""
    if SIMULATOR:
        return None
    native = device_attribute("HOST_NATIVE_ATOMIC_SUPPORTED")
    if not native:
        return ("the device has no host-native atomics (HOST_NATIVE_ATOMIC_SUPPORTED = "
                f"{native}): atomics on managed memory that the host reads while the kernel "
                "runs are not supported (a GPU on PCIe); the maintainers' demo needs NVLink-C2C "
                "or similar")
    if not device_attribute("CONCURRENT_MANAGED_ACCESS"):
        return ("the device cannot share managed memory with the host while a kernel runs "
                "(CONCURRENT_MANAGED_ACCESS = 0)")
    return None


def _count_check(e: ErrorStats, count: int, n: int, what: str) -> ErrorStats:
    if count != n:
        e.max_rel = 1e30
        e.max_abs = float(abs(count - n))
        e.note += f"; {what} ended at {count}, expected {n}"
    return e


def gpu_case(row, data, dev: Device, gpu) -> ProgressCase:
    (block,) = parse_block(row.arg("block"))
    check_block(block, gpu.max_threads_per_block)
    n = size(row)
    grid = blocks_for(streams_for(n), block)
    kind = strategy(row)

    def baseline():
        poisson.poisson_kernel[grid, block](dev.states, dev.out, RATE)

    if kind == ("none", "device"):
        return _case(dev, baseline, baseline, lambda: 0, 0, None, False, ARTICLE_POLL_S,
                     "nothing", poisson.poisson_kernel, block, grid)
    if kind in (("per_thread", "device"), ("per_thread", "managed")):
        if kind[1] == "managed":
            why = managed_skip_reason()
            if why:
                raise Skip(why)
            if dev.managed is None:
                # The simulator has no managed memory: its kernels share the host's anyway.
                managed = cuda.mapped_array if SIMULATOR else cuda.managed_array
                dev.managed = managed(1, dtype=np.uint64)
                dev.managed[0] = 0
            counter = dev.managed

            def read() -> int:
                return int(counter[0])

            def reset() -> None:
                counter[0] = 0
        else:
            counter = dev.counter

            def read() -> int:
                return int(counter.copy_to_host()[0])

            def reset() -> None:
                counter.copy_to_device(np.zeros(1, dtype=np.uint64))

        def article():
            poisson_progress_kernel[grid, block](dev.states, dev.out, RATE, counter)

        return _case(dev, article, baseline, read, n, reset, False,
                     ARTICLE_POLL_S if kind[1] == "device" else LIVE_POLL_S, "the counter",
                     poisson_progress_kernel, block, grid)
    if kind in (("live_block", "slots8"), ("live_warp", "slots8")):
        per_warp = kind[0] == "live_warp"
        if kind[0] not in dev.boards:
            dev.boards[kind[0]] = (kp.LiveProgress.per_warp(grid, block, display="quiet")
                                   if per_warp else kp.LiveProgress.per_block(grid,
                                                                              display="quiet"))
        board = dev.boards[kind[0]]
        kernel = poisson_live_warp_kernel if per_warp else poisson_live_block_kernel

        def live():
            kernel[grid, block](dev.states, dev.out, RATE, board.slots, board.period_ns)

        case = _case(dev, live, baseline, board.read, n, board.reset, True, LIVE_POLL_S,
                     "the slots", kernel, block, grid)
        case.counters.update({"slots": board.writers, "slot_bytes": 8,
                              "period_us": board.period_ns / 1e3})
        return case
    raise Skip(f"no Numba progress row for strategy:{kind[0]}/counter:{kind[1]}")


def _case(dev: Device, instrumented, baseline, read, per_launch: int, reset, each_launch: bool,
          poll_s: float, what: str, kernel, block: int, grid: int) -> ProgressCase:
    """reset: zeroes the count (validation; and before every timed pair when each_launch: the
    slots hold one launch's running counts, where the article's counter accumulates)."""
    def validate() -> ErrorStats:
        if reset is not None:
            reset()
        before = read()
        dev.poison()
        instrumented()
        wait_gpu(time.perf_counter() + VALIDATE_DEADLINE_S, "the validating launch")
        e = dev.check()
        return _count_check(e, read() - before, per_launch, what) if per_launch else e

    return ProgressCase(instrumented, baseline, read, per_launch, validate, poisson.TOLERANCE,
                        kernel=kernel, block=block, grid_blocks=grid,
                        reset_each=reset if each_launch else None, poll_s=poll_s)
