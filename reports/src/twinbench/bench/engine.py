"""Runs planned rows (numba imported): validate each variant once into poisoned outputs, time it
with the suite's stopping rule, and give back the rows in the suite's JSON.

A row is any object with the attributes of `Row` below; what it computes comes from its `spec`,
which gives the harness the same functions for every workload:

  work(row) -> results.Work               bytes and FLOPs of one iteration
  data_key(row) -> hashable               rows with equal keys share their inputs
  host_bytes(row), device_bytes(row)      what the row's data takes, checked before allocating
  make_data(row)                          host inputs and the reference
  make_device(row, data)                  GPU buffers (shared by the rows of one device_key)
  cpu_case(row, data) -> CpuCase
  gpu_case(row, data, dev, gpu) -> GpuCase / TransferCase / ProgressCase

twinbench.bench.Workload is one such spec, made from a declaration; the articles' programs
(peers/numba) give one module per workload.
"""

from __future__ import annotations

import contextlib
import gc
import math
import importlib
import importlib.metadata
import os
import platform
import signal
import sys
import time
import warnings

import numba
import numpy as np
from numba import cuda

from . import timing as harness
from .checks import Tolerance
from .timing import GpuCase, ProgressCase, Skip, TransferCase
from .results import error_row, measured_row, next_family_index
from .sampler import Interrupted, collect_samples, rule_from_context
from .suite import ceiling_set

EXIT_OK, EXIT_VALIDATION, EXIT_NOT_WRITTEN = 0, 1, 3


def version_of(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def format_eta(seconds: float) -> str:
    """m:ss or h:mm:ss, as the suite's progress lines (common/progress.cpp format_eta)."""
    if seconds < 0:
        return "--:--"
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


class StopFlag:
    """SIGINT/SIGTERM: sampling stops at the next sample, the rows left are recorded as not run
    and the results are merged; a second signal ends the process at once (the suite's way)."""

    def __init__(self):
        self.signal = 0

    def install(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum, _frame):
        if self.signal:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        self.signal = signum

    def __call__(self) -> bool:
        return self.signal != 0

    @property
    def name(self) -> str:
        return {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}.get(self.signal,
                                                                           str(self.signal))


def mode_independent_key(row) -> str:
    """A variant's kernel, e2e and pageable e2e rows run the same check: one verdict for all."""
    return "/".join([row.workload, row.base_impl]
                    + [f"{k}:{v}" for k, v in row.args if k != "mode"])


class Runner:
    """`rows` in order; `doc` the results document they join (its context gives the stopping
    rule, the cache mode and the ceilings; its rows the next family index)."""

    def __init__(self, doc: dict, rows: list, gpu: harness.GpuInfo,
                 gpu_skip: str, stop: StopFlag, out=sys.stderr):
        self.doc = doc
        self.context = doc["context"]
        self.rows = rows
        self.gpu = gpu
        self.gpu_skip = gpu_skip
        self.stop = stop
        self.out = out
        self.rule = rule_from_context(self.context)
        cold = str(self.context.get("gpu_cache_mode", "cold")) != "warm"
        self.timer = harness.GpuTimer(gpu, cold) if gpu.available else None
        self.verdicts: dict[str, harness.Verdict] = {}
        self.data_key = None
        self.data = None
        self.devices: dict = {}
        self.counts = {"measured": 0, "skipped": 0, "failed": 0, "errors": 0}

    # -------------------------------------------------------------- data, kept per size

    def _release(self) -> None:
        self.data, self.data_key, self.devices = None, None, {}
        gc.collect()
        harness.release_device_memory()

    def _data(self, row, mod):
        key = (row.workload, mod.data_key(row))
        if key != self.data_key:
            self._release()
            harness.require_memory(mod.host_bytes(row), 0.0, False)
            self.data = mod.make_data(row)
            self.data_key = key
        return self.data

    def _device(self, row, mod, data):
        key = getattr(mod, "device_key", lambda r: None)(row)
        if key not in self.devices:
            harness.require_memory(0.0, mod.device_bytes(row), True)
            self.devices[key] = mod.make_device(row, data)
        return self.devices[key]

    # -------------------------------------------------------------- one row

    def _validated(self, row, key: str, check, tolerance: Tolerance) -> harness.Verdict:
        if key not in self.verdicts:
            v = harness.verdict(check(), tolerance, row.base)
            if not v.passed:
                print(f"VALIDATION FAILED: {row.base}: {v.detail}", file=self.out, flush=True)
            self.verdicts[key] = v
        return self.verdicts[key]

    def _ceilings(self, row, mode: str | None):
        if row.side == "cpu":
            return ceiling_set(self.context, "cpu_one" if row.serial else "cpu_all")
        if mode == "e2e":
            return None   # PCIe-bound
        return ceiling_set(self.context, "gpu")

    def _measure(self, row, family_index: int) -> dict:
        mod = row.spec
        t0 = time.perf_counter()
        cpu0 = time.thread_time()
        data = self._data(row, mod)
        counters: dict = {}
        if row.side == "cpu":
            case = mod.cpu_case(row, data)
            threads = 1 if row.serial else int(row.arg("threads", "0")) or \
                numba.config.NUMBA_NUM_THREADS
            numba.set_num_threads(threads)
            around = case.around() if case.around else contextlib.nullcontext()
            with around:
                v = self._validated(row, row.base, case.validate, case.tolerance)
                if not v.passed:
                    return self._failed(row, family_index, v)
                stats, batch = harness.cpu_time(case.run, self.rule, self.stop)
            counters["batch"] = batch
        else:
            dev = self._device(row, mod, data)
            case = mod.gpu_case(row, data, dev, self.gpu)
            key = mode_independent_key(row)
            if isinstance(case, GpuCase):
                v = self._validated(row, key, lambda: harness.validate_gpu(case), case.tolerance)
                if not v.passed:
                    return self._failed(row, family_index, v)
                stats, timing = self._time_gpu(row, case)
                counters.update(harness.kernel_counters(case))
                counters.update(timing)
            elif isinstance(case, TransferCase):
                v = self._validated(row, key, case.validate, case.tolerance)
                if not v.passed:
                    return self._failed(row, family_index, v)
                stats = harness.events(case.transfer, self.rule, self.stop)
                counters["us_per_transfer"] = stats.median * 1e6
            elif isinstance(case, ProgressCase):
                v = self._validated(row, key, case.validate, case.tolerance)
                if not v.passed:
                    return self._failed(row, family_index, v)
                flush = self.timer.flush if self.timer is not None and self.timer.cold else None
                stats, pair = measure_progress(case, self.rule, self.stop, flush)
                counters.update(harness.kernel_counters(case))
                counters.update(pair)
            else:
                raise TypeError(f"{row.workload}: unknown case {type(case).__name__}")
        counters.update(case.counters)
        counters["max_abs_err"] = v.stats.max_abs
        counters["max_rel_err"] = v.stats.max_rel
        counters["row_wall_s"] = time.perf_counter() - t0
        return measured_row(row.name, family_index, stats, mod.work(row),
                            self._ceilings(row, row.mode), counters,
                            time.thread_time() - cpu0, row.label)

    def _time_gpu(self, row, case: GpuCase):
        mode = row.mode or "kernel"
        if mode == "kernel":
            return self.timer.kernel(case.compute, self.rule, self.stop)
        if mode != "e2e":
            raise Skip(f"{row.impl} has no mode {mode}")
        if row.pageable:
            if case.pageable is None:
                raise Skip(f"{row.impl} has no end-to-end version from NumPy arrays")
            run, pinned = case.pageable, 0
        else:
            def run():
                case.upload()
                case.compute()
                case.download()
            pinned = 1
        stats = harness.wall_clock(run, self.rule, self.stop)
        return stats, {"launch_gated": 0, "batch": 1, "l2_flushed": 0, "host_pinned": pinned}

    def _failed(self, row, family_index: int, v: harness.Verdict) -> dict:
        self.counts["failed"] += 1
        return error_row(row.name, family_index, f"validation failed: {v.detail}", row.label,
                         {"max_abs_err": v.stats.max_abs, "max_rel_err": v.stats.max_rel})

    # -------------------------------------------------------------- the run

    def run(self) -> list[dict]:
        """Every planned row, in order. Progress as the suite's: one line a row on stderr,
        [k/N elapsed ~left], N counting the rows that will run (not the CUDA rows where there
        is no GPU; a row that skips leaves both counts), the time left from the mean time of
        the rows measured so far."""
        family = next_family_index(self.doc)
        self.total = sum(r.side == "cpu" or self.gpu.available for r in self.rows)
        self.started = 0
        measured_s, measured = 0.0, 0
        start = time.perf_counter()
        out_rows = []
        current_workload = None
        for index, row in enumerate(self.rows):
            fi = family + index
            if row.side == "gpu" and not self.gpu.available:
                out_rows.append(error_row(row.name, fi, self.gpu_skip, row.label))
                self.counts["skipped"] += 1
                continue
            if self.stop():
                out_rows.append(error_row(
                    row.name, fi, f"not run: the run was interrupted (signal {self.stop.signal})",
                    row.label))
                self.counts["skipped"] += 1
                continue
            if row.workload != current_workload:
                self._release()   # a workload's buffers live as long as its rows
                current_workload = row.workload
            self.started += 1
            now = time.perf_counter()
            eta = ""
            if measured >= 3:
                left = self.total - self.started + 1
                eta = f" ~{format_eta(measured_s / measured * left)} left"
            print(f"[{self.started}/{self.total} {format_eta(now - start)}{eta}] {row.base}",
                  file=self.out, flush=True)
            result = self._row(row, fi)
            result.update(getattr(row, "fields", {}))
            out_rows.append(result)
            if not result.get("error_occurred"):
                measured += 1
                measured_s += time.perf_counter() - now
        self._release()
        return out_rows

    def _row(self, row, fi: int) -> dict:
        try:
            result = self._measure(row, fi)
            if not result.get("error_occurred"):
                self.counts["measured"] += 1
            return result
        except Skip as exc:
            return self._skip(row, fi, str(exc))
        except Interrupted:
            return self._skip(row, fi, f"not run: the run was interrupted (signal "
                                       f"{self.stop.signal})")
        except MemoryError:
            return self._skip(row, fi, "out of host memory")
        except Exception as exc:  # noqa: BLE001 - a row's error must not end the run
            if out_of_device_memory(exc):
                return self._skip(row, fi, f"out of device memory: {exc}")
            self.counts["errors"] += 1
            message = f"error: {type(exc).__name__}: {harness._one_line(exc)}"
            print(f"ERROR: {row.base}: {message}", file=self.out, flush=True)
            return error_row(row.name, fi, message, row.label)

    def _skip(self, row, fi: int, why: str) -> dict:
        self.counts["skipped"] += 1
        self.started -= 1
        self.total -= 1
        print(f"SKIPPED: {row.base}: {why}", file=self.out, flush=True)
        return error_row(row.name, fi, why, row.label)


def out_of_device_memory(exc: Exception) -> bool:
    text = f"{type(exc).__name__} {exc}"
    return "OUT_OF_MEMORY" in text.upper() or getattr(exc, "code", None) == 2


# How long a pair may take before the row is given up (the longest planned kernel runs about
# 1.2 s on the H200): a kernel that never ends must not hang the run.
PAIR_DEADLINE_S = 60.0


def median_interval(values: list[float]) -> tuple[float, float]:
    """A distribution-free ~95% interval of the median: the order statistics of ranks
    n/2 -+ 0.98 sqrt(n) (bench/progress.cpp median_interval), clamped to the sample."""
    v = sorted(values)
    n = len(v)
    half = 0.98 * math.sqrt(n)
    lo = max(0, math.floor(n / 2 - half))
    hi = min(n - 1, math.ceil(n / 2 + half))
    return v[lo], v[hi]


# The gate before each pair: a one-thread kernel that sleeps while the host enqueues the
# flushes, the events and both launches (four Numba launches take a few hundred microseconds of
# Python), so that no event interval holds a launch's host latency; doubled when it did not
# hold, as harness.GpuTimer does.
PAIR_GATE_S = 1e-3


def measure_progress(case: ProgressCase, rule, stop, flush=None) -> tuple:
    """The suite's measure_pair (bench/progress.cpp): each sample times the counting kernel
    and the plain one back to back, alternating which goes first, queued behind a gate and
    each after an L2 flush (`flush`, outside the events) when the run is cold; meanwhile the
    host reads the count every case.poll_s until it shows the launch's count, counting the
    distinct values it saw."""
    flush = flush or (lambda: None)
    if case.reset_each:
        case.reset_each()
    case.instrumented()
    case.baseline()
    harness.wait_gpu(time.perf_counter() + PAIR_DEADLINE_S, "the warm-up pair")
    s = {"expected": case.read(), "last": None, "iters": 0, "t": 0.0, "t_none": 0.0,
         "polls": 0, "changes": 0, "pairs": [], "retries": 0,
         "gate": max(1, int(PAIR_GATE_S * 1e9 / harness.GATE_STEP_NS))}
    s["last"] = s["expected"]
    e0, e1, e2, e3 = cuda.event(), cuda.event(), cuda.event(), cuda.event()

    def elapsed(a, b, wall):
        return wall if harness.SIMULATOR else a.elapsed_time(b) * 1e-3

    def pair(first, second) -> tuple[float, float, bool, int, int]:
        """(first's time, second's time, whether the gate held, polls, changes)."""
        if case.reset_each:   # the GPU is idle: the previous pair was waited for
            case.reset_each()
            s["expected"] = 0
            s["last"] = case.read()
        if not harness.SIMULATOR:
            harness._gate_kernel[1, 1](s["gate"], harness.GATE_STEP_NS)
        w0 = time.perf_counter()
        flush()
        e0.record()
        first()
        e1.record()
        w1 = time.perf_counter()
        flush()
        e2.record()
        second()
        e3.record()
        held = harness.SIMULATOR or not e0.query()
        s["expected"] += case.per_launch
        deadline = time.perf_counter() + PAIR_DEADLINE_S
        polls = changes = 0
        while True:   # read the count until it is complete (the article's loop)
            value = case.read()
            polls += 1
            if value != s["last"]:
                changes += 1
                s["last"] = value
            if value >= s["expected"]:
                break
            if time.perf_counter() > deadline:
                raise RuntimeError(f"the progress count stopped at {value} of {s['expected']}")
            time.sleep(case.poll_s)
        harness.wait_event(e3, deadline, "the timed pair")
        w2 = time.perf_counter()
        return (elapsed(e0, e1, w1 - w0), elapsed(e2, e3, w2 - w1), held, polls, changes)

    def sample() -> float:
        baseline_first = s["iters"] % 2 == 0
        order = ((case.baseline, case.instrumented) if baseline_first
                 else (case.instrumented, case.baseline))
        for _ in range(harness.GATE_RETRIES):
            t_first, t_second, held, polls, changes = pair(*order)
            s["polls"] += polls
            if held:
                break
            s["gate"] *= 2   # the host was slower than the gate: longer, and again
            s["retries"] += 1
        else:
            raise harness.GateFailed(f"the launch gate did not hold after "
                                     f"{harness.GATE_RETRIES} tries")
        t_none, t = (t_first, t_second) if baseline_first else (t_second, t_first)
        s["iters"] += 1
        s["changes"] += changes
        s["t"] += t
        s["t_none"] += t_none
        if t_none > 0:
            s["pairs"].append((t - t_none) / t_none * 100.0)
        return t

    wall0 = time.perf_counter()
    stats = collect_samples(rule, sample, interrupted=stop)
    wall = time.perf_counter() - wall0
    iters = max(1, s["iters"])
    counters = {
        "overhead_pct": (s["t"] - s["t_none"]) / s["t_none"] * 100.0 if s["t_none"] > 0 else 0.0,
        "t_none_us": s["t_none"] / iters * 1e6,
        "distinct_updates": s["changes"] / iters,
        "updates_per_s": s["changes"] / s["t"] if s["t"] > 0 else 0.0,
        "polls_per_s": s["polls"] / wall if wall > 0 else 0.0,
        "launch_gated": 0 if harness.SIMULATOR else 1,
        "gate_retries": s["retries"],
    }
    if s["pairs"]:
        counters["overhead_median_pct"] = float(np.median(s["pairs"]))
        counters["overhead_lo_pct"], counters["overhead_hi_pct"] = median_interval(s["pairs"])
    return stats, counters


def quiet_performance_warnings() -> None:
    """Numba warns about grids too small to fill the GPU and the like: the suite measures such
    launches on purpose (the nested loop's 10000 threads, lucas' 41)."""
    for module in ("numba.core.errors", "numba.cuda.core.errors"):
        try:
            category = getattr(importlib.import_module(module), "NumbaPerformanceWarning")
        except (ImportError, AttributeError):
            continue
        warnings.simplefilter("ignore", category)


def gpu_for(no_gpu: bool, why: str = "--no-gpu: the CUDA rows were not run") -> harness.GpuInfo:
    return harness.GpuInfo(False, why) if no_gpu else harness.gpu_info()


def execute(doc: dict, rows: list, gpu: harness.GpuInfo, gpu_skip: str,
            out=sys.stderr) -> tuple[list[dict], Runner, StopFlag]:
    """Runs `rows` against `doc`'s context; (the rows as the suite writes them, the runner with
    its counts, the stop flag: whether SIGINT/SIGTERM arrived). SIGINT and SIGTERM stop the run
    at the next sample; the rows measured before it are kept."""
    quiet_performance_warnings()
    stop = StopFlag()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        stop.install()
    except ValueError:   # not the main thread (a notebook's worker): no signals, no flag
        previous = {}
    try:
        runner = Runner(doc, rows, gpu, gpu_skip, stop, out)
        return runner.run(), runner, stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def versions() -> dict:
    return {
        "numba_version": numba.__version__,
        "numba_cuda_version": version_of("numba-cuda"),
        "python_version": platform.python_version(),
        "numba_num_threads": str(numba.config.NUMBA_NUM_THREADS),
    }


def threading_layer() -> str:
    """The layer Numba's parallel code ran on (known once a parallel function has run)."""
    try:
        return numba.threading_layer()
    except ValueError:
        return f"not started ({numba.config.THREADING_LAYER} requested)"
