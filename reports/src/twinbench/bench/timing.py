"""How a peer row is validated and timed: the suite's method (common/gpu_timing.hpp,
common/sampler.cpp), with Numba's API.

Kernel-only rows: CUDA events around the launch; before each sample, with cold caches (the
suite's default), a kernel reads a buffer twice the device's L2 outside the events (as
gpu/l2_flush.cu). The suite queues a timed launch behind a "gate" kernel so that the host's
launch latency is not inside the events; a Numba launch costs tens of microseconds of Python,
more than many of these kernels, so the peers gate too: a one-thread kernel sleeps on the GPU
(cuda.nanosleep) while the host enqueues the start event, the launch and the stop event, and a
sample counts only if the start event was still pending once everything was enqueued (else the
gate is doubled and the sample taken again). launch_included_us is what one launch on an idle
GPU costs, Python included, as the suite records it.
End-to-end rows: wall clock around copy in, kernel, copy out (copy_to_host waits for the GPU).
CPU rows: wall clock, after a first call that compiles.
"""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numba import cuda, uint32, uint64

from .checks import ErrorStats, Tolerance, describe, passes
from .sampler import (Interrupted, SampleStats, StoppingRule, collect_samples,
                      measure_cpu)

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


class Skip(Exception):
    """The row cannot run here (a block size, memory); its message says why. Not a failure."""


# ---------------------------------------------------------------- the cases a workload gives

@dataclass
class CpuCase:
    run: Callable[[], object]               # the timed call
    validate: Callable[[], ErrorStats]      # poison the output, run, compare
    tolerance: Tolerance
    around: Callable[[], object] | None = None   # a context manager for every call (chunk size)
    counters: dict = field(default_factory=dict)


@dataclass
class GpuCase:
    poison: Callable[[], None]              # NaN into the device and host outputs
    upload: Callable[[], None]              # pinned host inputs -> device buffers
    compute: Callable[[], None]             # the kernel launch(es), asynchronous
    download: Callable[[], None]            # device outputs -> pinned host (waits for the GPU)
    check: Callable[[], ErrorStats]         # the downloaded outputs against the reference
    tolerance: Tolerance
    pageable: Callable[[], object] | None = None   # the articles' e2e from NumPy arrays
    kernel: object = None                   # the dispatcher, for its registers
    block: int = 0
    grid_blocks: int = 0
    counters: dict = field(default_factory=dict)
    # Validating runs: 2 where an output's type has no NaN (poisoned with 0xFF, then 0x55
    # bytes); set_pass(p) tells poison() which.
    passes: int = 1
    set_pass: Callable[[int], None] | None = None
    occupancy: bool = False                 # also record the theoretical occupancy


@dataclass
class TransferCase:
    transfer: Callable[[], None]            # one copy (synchronous, on the default stream)
    validate: Callable[[], ErrorStats]
    tolerance: Tolerance
    counters: dict = field(default_factory=dict)


@dataclass
class ProgressCase:
    instrumented: Callable[[], None]        # the kernel counting into the device counter
    baseline: Callable[[], None]            # the same kernel without the counter
    read: Callable[[], int]                 # the counter, by copy_to_host (the article's poll)
    per_launch: int                         # what one instrumented launch adds to the counter
    validate: Callable[[], ErrorStats]      # zeroed counter, one launch, output and final count
    tolerance: Tolerance
    kernel: object = None
    block: int = 0
    grid_blocks: int = 0
    counters: dict = field(default_factory=dict)
    # Zeroes the count before each timed pair (slots that hold one launch's running counts);
    # None: the count accumulates over launches (the article's counter).
    reset_each: Callable[[], None] | None = None
    poll_s: float = 1e-3                    # the host's pause between two reads


# ---------------------------------------------------------------- the device

@dataclass
class GpuInfo:
    available: bool
    status: str            # "available" or why not (one line)
    name: str = ""
    cc: tuple[int, int] = (0, 0)
    sms: int = 0
    l2_bytes: int = 0
    max_threads_per_block: int = 1024


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip(" :")


def gpu_info() -> GpuInfo:
    """Whether Numba sees a CUDA device, and which; the reason when it does not."""
    try:
        if not cuda.is_available():
            why = ""
            try:
                from numba.cuda.cudadrv.driver import driver
                why = driver.initialization_error or ""
            except Exception:  # noqa: BLE001 - the reason is best effort
                pass
            return GpuInfo(False, _one_line(why) or "numba.cuda.is_available() is false")
        if SIMULATOR:
            return GpuInfo(True, "available (Numba's CUDA simulator)", "CUDA simulator", (0, 0),
                           1, 0)
        dev = cuda.get_current_device()
        name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        return GpuInfo(True, "available", name, tuple(dev.compute_capability),
                       int(dev.MULTIPROCESSOR_COUNT), int(dev.L2_CACHE_SIZE),
                       int(dev.MAX_THREADS_PER_BLOCK))
    except Exception as exc:  # noqa: BLE001 - any failure to reach the driver means no GPU
        return GpuInfo(False, _one_line(f"{type(exc).__name__}: {exc}"))


def check_block(threads: int, limit: int = 1024) -> None:
    """The suite's rule: a block the device cannot run, or one that leaves a warp part-empty,
    is a skip with the reason."""
    if threads <= 0 or threads > limit:
        raise Skip(f"block size {threads} is outside the device limit of 1..{limit} threads per "
                   "block")
    if threads % 32:
        raise Skip(f"block size {threads} is not a multiple of the warp size (32): the last warp "
                   "would run part-empty")


def parse_block(text: str) -> tuple[int, ...]:
    """"256" -> (256,), "16x16" -> (16, 16)."""
    try:
        dims = tuple(int(p) for p in text.split("x"))
    except ValueError as exc:
        raise Skip(f"block '{text}' is not a block size") from exc
    if not dims or any(d <= 0 for d in dims):
        raise Skip(f"block '{text}' is not a block size")
    return dims


def blocks_for(extent: int, per_block: int) -> int:
    return (extent + per_block - 1) // per_block


# ---------------------------------------------------------------- memory

GIB = float(1 << 30)
HOST_HEADROOM = 512.0 * (1 << 20)
DEVICE_HEADROOM = 256.0 * (1 << 20)


def host_memory_available() -> float:
    """MemAvailable, bounded by the cgroup's limit where one is set (what the OOM killer
    enforces); 0 when unknown."""
    avail = 0.0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = float(line.split()[1]) * 1024
                    break
    except OSError:
        return 0.0
    try:
        limit = open("/sys/fs/cgroup/memory.max").read().strip()
        current = float(open("/sys/fs/cgroup/memory.current").read())
        if limit != "max":
            avail = min(avail, float(limit) - current)
    except (OSError, ValueError):
        pass
    return avail


def require_memory(host_bytes: float, device_bytes: float, gpu: bool) -> None:
    """Skips with the numbers ("needs X GiB of host memory, Y GiB available") rather than be
    killed: Linux overcommits, so a too-large allocation succeeds and the process dies later."""
    if host_bytes > 0:
        avail = host_memory_available()
        if avail > 0 and host_bytes + HOST_HEADROOM > avail:
            raise Skip(f"needs {host_bytes / GIB:.2f} GiB of host memory, {avail / GIB:.2f} GiB "
                       "available")
    if gpu and device_bytes > 0 and not SIMULATOR:
        free, _ = cuda.current_context().get_memory_info()
        if device_bytes + DEVICE_HEADROOM > free:
            raise Skip(f"needs {device_bytes / GIB:.2f} GiB of GPU memory, {free / GIB:.2f} GiB "
                       "available")


def release_device_memory() -> None:
    """Frees the device arrays dropped so far now (Numba defers deallocation)."""
    if SIMULATOR:
        return
    try:
        cuda.current_context().deallocations.clear()
    except Exception:  # noqa: BLE001 - only an earlier release
        pass


# ---------------------------------------------------------------- validation

INJECT_ENV = "NUMBA_PEERS_INJECT_VALIDATION_FAILURE"


def fault_injected(name: str) -> bool:
    """Tests of the failure path set NUMBA_PEERS_INJECT_VALIDATION_FAILURE to a regex: matching
    rows fail validation as if their output were wrong (TWINBENCH_INJECT_VALIDATION_FAILURE's
    twin)."""
    pattern = os.environ.get(INJECT_ENV)
    return bool(pattern) and re.search(pattern, name) is not None


@dataclass
class Verdict:
    stats: ErrorStats
    passed: bool
    detail: str


def verdict(stats: ErrorStats, tol: Tolerance, name: str) -> Verdict:
    if fault_injected(name):
        stats.max_rel = math.inf
    return Verdict(stats, passes(stats, tol), describe(stats, tol))


def validate_gpu(case: GpuCase) -> ErrorStats:
    """Every stage from poisoned outputs: the kernel and both e2e rows share this verdict. Where
    the case asks for two passes (outputs without NaN), the first failing one is the verdict."""
    stats = ErrorStats()
    for p in range(max(1, case.passes)):
        if case.set_pass is not None:
            case.set_pass(p)
        case.poison()
        case.upload()
        case.compute()
        case.download()
        cuda.synchronize()
        s = case.check()
        if not (s.size_matches and s.finite) or s.max_rel >= stats.max_rel:
            stats = s
        if not (s.size_matches and s.finite):
            break
    return stats


# ---------------------------------------------------------------- GPU timing

def wait_event(event, deadline: float, what: str) -> None:
    """Waits for `event` by querying it (deadline: a time.perf_counter() value), so that a
    signal can still stop the run and a kernel that never ends is an error after the deadline
    instead of a hang in cuEventSynchronize."""
    query = getattr(event, "query", None)
    if query is None:   # the simulator runs kernels synchronously
        return
    while not query():
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{what} did not end in time (the GPU is still busy)")
        time.sleep(50e-6)


def wait_gpu(deadline: float, what: str) -> None:
    """wait_event on an event recorded now on the default stream."""
    event = cuda.event(timing=False) if not SIMULATOR else cuda.event()
    event.record()
    wait_event(event, deadline, what)


@cuda.jit
def _l2_flush_kernel(words, sink):
    # Reads every word; the xor is stored only when it equals a value it cannot take (the buffer
    # is zeros), which keeps the loads without writing anything (gpu/l2_flush.cu).
    acc = uint64(0)
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < words.size:
        acc ^= words[i]
        i += stride
    if acc == uint64(0xDEADBEEF):
        sink[0] = acc


@cuda.jit
def _gate_kernel(steps, ns):
    # Keeps the GPU busy for about steps x ns while the host enqueues the timed work behind it.
    for _ in range(steps):
        cuda.nanosleep(uint32(ns))


GATE_STEP_NS = 1000
MIN_GATE_S = 100e-6
# Above this, work is timed without the gate (common/gpu_timing.hpp kGateWorthItSeconds).
GATE_WORTH_IT_S = 0.01
GATE_RETRIES = 4
# Warm rows batch short kernels between one pair of events, as the suite does (at most 128
# launches, about 0.5 ms of GPU work a sample).
BATCH_SECONDS = 0.5e-3
MAX_BATCH = 128
INLINE_RUNS = 5


def simulated(rule: StoppingRule) -> StoppingRule:
    """Under the simulator a launch of a thousand threads takes about 0.4 s of Python and its
    time says nothing of a GPU: two samples, so that every path runs and the rows have the
    suite's fields, not a sampling that would take minutes."""
    return StoppingRule(max_rel_stdev=rule.max_rel_stdev, min_samples=min(2, rule.min_samples),
                        min_time_s=0.0, max_time_s=0.0)


class GateFailed(Exception):
    pass


class GpuTimer:
    """Flush buffer, gate and events, made once per run."""

    def __init__(self, info: GpuInfo, cold: bool):
        self.info = info
        self.cold = cold and not SIMULATOR and info.l2_bytes > 0
        self._flush_words = None
        self._sink = None
        self.flush_bytes = 2 * info.l2_bytes

    def flush(self) -> None:
        if self._flush_words is None:
            words = self.flush_bytes // 8
            self._flush_words = cuda.to_device(np.zeros(words, dtype=np.uint64))
            self._sink = cuda.device_array(1, dtype=np.uint64)
        _l2_flush_kernel[max(1, self.info.sms) * 8, 256](self._flush_words, self._sink)

    def _inline_median_us(self, launch: Callable[[], None]) -> float:
        start, stop = cuda.event(), cuda.event()
        times = []
        for _ in range(INLINE_RUNS):
            if self.cold:
                self.flush()
            start.record()
            launch()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) * 1e3)
        return float(np.median(times))

    def kernel(self, launch: Callable[[], None], rule: StoppingRule,
               interrupted: Callable[[], bool]) -> tuple[SampleStats, dict]:
        """Samples of `launch` (which only enqueues), gated, cold unless --warm. The first
        launch warms up (and tells how long the host takes to enqueue one)."""
        if interrupted():
            raise Interrupted()
        if SIMULATOR:   # no events, no timing worth the name: wall clock, for the tests' sake
            def wall():
                t1 = time.perf_counter()
                launch()
                cuda.synchronize()
                return time.perf_counter() - t1
            return (collect_samples(simulated(rule), wall, interrupted=interrupted),
                    {"launch_gated": 0, "batch": 1, "l2_flushed": 0})
        start, stop = cuda.event(), cuda.event()
        if self.cold:
            self.flush()
        start.record()
        t0 = time.perf_counter()
        launch()
        enqueue_s = time.perf_counter() - t0
        stop.record()
        stop.synchronize()
        warm_up_s = start.elapsed_time(stop) * 1e-3
        if warm_up_s >= GATE_WORTH_IT_S:
            # The warm-up was a plain cold launch: it is the first sample (the GPU recursion
            # at n = 40 takes about a minute a launch).
            return self._inline(launch, rule, interrupted, start, stop, first=warm_up_s)
        gate = {"steps": max(1, int(max(MIN_GATE_S, 4 * enqueue_s) * 1e9 / GATE_STEP_NS))}

        def gated(batch: int) -> float:
            for _ in range(GATE_RETRIES):
                if self.cold:
                    self.flush()
                _gate_kernel[1, 1](gate["steps"] * batch, GATE_STEP_NS)
                start.record()
                for _ in range(batch):
                    launch()
                stop.record()
                held = not start.query()
                stop.synchronize()
                if held:
                    return start.elapsed_time(stop) * 1e-3 / batch
                gate["steps"] *= 2   # the host was slower than the gate: longer, and again
            raise GateFailed(f"the launch gate did not hold after {GATE_RETRIES} tries "
                             f"({gate['steps'] * GATE_STEP_NS / 1e6:.1f} ms)")

        batch = 1
        if not self.cold:
            once = gated(1)
            batch = int(min(MAX_BATCH, max(1, math.ceil(BATCH_SECONDS / max(once, 1e-9)))))
        stats = collect_samples(rule, lambda: gated(batch), interrupted=interrupted)
        counters = {"launch_gated": 1, "batch": batch, "l2_flushed": 1 if self.cold else 0,
                    "launch_included_us": self._inline_median_us(launch),
                    "gate_us": gate["steps"] * batch * GATE_STEP_NS * 1e-3}
        return stats, counters

    def _inline(self, launch, rule, interrupted, start, stop,
                first: float) -> tuple[SampleStats, dict]:
        """Work of 10 ms or more (the GPU recursion takes seconds): a launch's latency is under
        0.1% of it, so events around a plain launch, one a sample (the suite's rule)."""
        pending = [first]

        def sample():
            if pending:
                return pending.pop()
            if self.cold:
                self.flush()
            start.record()
            launch()
            stop.record()
            stop.synchronize()
            return start.elapsed_time(stop) * 1e-3

        return (collect_samples(rule, sample, interrupted=interrupted),
                {"launch_gated": 0, "batch": 1, "l2_flushed": 1 if self.cold else 0})


def wall_clock(run: Callable[[], object], rule: StoppingRule,
               interrupted: Callable[[], bool]) -> SampleStats:
    """e2e rows: wall-clock samples of `run`, which ends with a copy to the host (so it waits
    for the GPU); a first call outside the samples."""
    run()
    cuda.synchronize()

    def sample():
        t0 = time.perf_counter()
        run()
        return time.perf_counter() - t0

    return collect_samples(simulated(rule) if SIMULATOR else rule, sample,
                           interrupted=interrupted)


def events(run: Callable[[], None], rule: StoppingRule,
           interrupted: Callable[[], bool]) -> SampleStats:
    """Transfers: events around one copy on the default stream, as the suite times its copies."""
    run()
    cuda.synchronize()
    if SIMULATOR:
        return wall_clock(run, rule, interrupted)
    start, stop = cuda.event(), cuda.event()

    def sample():
        start.record()
        run()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) * 1e-3

    return collect_samples(rule, sample, interrupted=interrupted)


def kernel_counters(case) -> dict:
    """The block, grid and (on a GPU) the registers and static shared memory Numba compiled."""
    out = {"block": case.block, "grid_blocks": case.grid_blocks}
    kernel = getattr(case, "kernel", None)
    if kernel is None or SIMULATOR:
        return out
    for key, method in (("regs_per_thread", "get_regs_per_thread"),
                        ("static_smem_bytes", "get_shared_mem_per_block")):
        try:
            value = getattr(kernel, method)()
            if isinstance(value, dict):
                value = next(iter(value.values()))
            out[key] = int(value)
        except Exception:  # noqa: BLE001 - informative counters only
            pass
    if getattr(case, "occupancy", False) and case.block > 0:
        out.update(occupancy(kernel, case.block))
    return out


def occupancy(kernel, block_threads: int) -> dict:
    """The theoretical occupancy of the kernel's compiled overload at this block, as the suite
    records it (cudaOccupancyMaxActiveBlocksPerMultiprocessor): resident blocks per SM and the
    share of the SM's thread slots they fill. Empty where the driver cannot say."""
    try:
        overload = next(iter(kernel.overloads.values()))
        cufunc = overload.library.get_cufunc()
        ctx = cuda.current_context()
        dev = ctx.device
        blocks = int(ctx.get_active_blocks_per_multiprocessor(cufunc, block_threads, 0))
        slots = int(dev.MAX_THREADS_PER_MULTI_PROCESSOR)
        return {"active_blocks_per_sm": blocks,
                "occupancy": blocks * block_threads / slots if slots else 0.0}
    except Exception:  # noqa: BLE001 - informative counters only
        return {}


def cpu_time(run: Callable[[], object], rule: StoppingRule,
             interrupted: Callable[[], bool]) -> tuple[SampleStats, int]:
    """Wall-clock samples of a CPU row. Its first call, the validating one, compiled it and
    started Numba's threads; measure_cpu's first call, which sizes the batch, warms the rest."""
    return measure_cpu(rule, run, interrupted)
