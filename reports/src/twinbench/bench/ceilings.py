"""This machine's limits, measured in the same call as the rows they hold (the suite's context
keys, so the reports read them as the suite's own): from the twinbench binary where it is built,
else from ceiling kernels in Python.

The binary measures everything the suite's runs hold rows to (bandwidth per access pattern on
both sides, the FLOP roofs, the copy bandwidth); it is asked for its context with one tiny row. The Python kernels measure the bandwidth of the six patterns
(common/ceilings.cpp's read, write, copy, scale, add, triad) with one thread (NumPy) and with
all of Numba's (prange), and on the GPU with events around a grid-stride kernel; no FLOP roofs
(those need the binary's vectorized and tensor-core kernels), and the context says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from .suite import PATTERNS

# The keys taken from the binary's context: the limits and the devices they were measured on.
_BINARY_PREFIXES = ("cpu_bw_", "gpu_bw_", "cpu_roof_", "gpu_roof_", "gpu_peak_", "gpu_copy_bw",
                    "cpu_triad_bw")
BINARY_ENV = "TWINBENCH_BINARY"
# One row per ceiling set: the binary's start measures only the sets its selected rows are held
# to (one thread's, all threads', the GPU's), and the Python rows need all of them.
PROBE_ROW = ("^vector_add/(serial/n:4096|omp/n:4096/threads:[0-9]+|"
             "cuda/n:4096/block:256/mode:kernel)(/|$)")


def find_binary(explicit: str | None = None) -> str | None:
    """The twinbench binary: the one named, $TWINBENCH_BINARY, `twinbench` on PATH, or a
    checkout's build/twinbench above the current folder."""
    for candidate in (explicit, os.environ.get(BINARY_ENV)):
        if candidate:
            return candidate
    found = shutil.which("twinbench")
    if found:
        return found
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        candidate = folder / "build" / "twinbench"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def from_binary(binary: str, quick: bool, timeout_s: float = 600.0) -> tuple[dict, str]:
    """(context keys, "") from the binary's ceilings, or ({}, why not)."""
    with tempfile.TemporaryDirectory(prefix="twinbench-py-ceilings-") as tmp:
        out = Path(tmp) / "ceilings.json"
        # The binary measures its ceilings before its rows and refuses a filter that selects
        # none (exit 2, no file): rows of microseconds, the vector add of 4096 elements on one
        # thread, all threads and the GPU, are the cheapest way to its context.
        args = [binary, f"--benchmark_filter={PROBE_ROW}", "--size=4096",
                f"--benchmark_out={out}", "--benchmark_out_format=json"]
        if quick:
            args.append("--quick")
        try:
            proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return {}, f"{binary} could not be run ({type(exc).__name__}: {exc})"
        try:
            context = json.loads(out.read_text()).get("context", {})
        except (OSError, ValueError):
            tail = " ".join((proc.stderr or proc.stdout).split())[-200:]
            return {}, f"{binary} exited {proc.returncode} without a results file ({tail})"
    keys = {k: v for k, v in context.items() if k.startswith(_BINARY_PREFIXES)}
    if not keys:
        return {}, f"{binary} wrote no ceilings (exit {proc.returncode})"
    return keys, ""


# ---------------------------------------------------------------- Python ceiling kernels

# Bytes read and written per element of each pattern (suite.PATTERNS' order), float64 arrays:
# read sums two arrays, write fills one, copy/scale read one and write one, add/triad read two.
_READ = {"read": 2, "write": 0, "copy": 1, "scale": 1, "add": 2, "triad": 2}
_WRITTEN = {"read": 0, "write": 1, "copy": 1, "scale": 1, "add": 1, "triad": 1}


def _cpu_kernels(parallel: bool):
    from numba import njit, prange

    @njit(parallel=parallel, fastmath=True)
    def read(a, b, c):
        s = 0.0
        for i in prange(a.size):
            s += a[i] + b[i]
        c[0] = s

    @njit(parallel=parallel)
    def write(a, b, c):
        for i in prange(c.size):
            c[i] = 1.5

    @njit(parallel=parallel)
    def copy(a, b, c):
        for i in prange(c.size):
            c[i] = a[i]

    @njit(parallel=parallel)
    def scale(a, b, c):
        for i in prange(c.size):
            c[i] = 0.4 * a[i]

    @njit(parallel=parallel)
    def add(a, b, c):
        for i in prange(c.size):
            c[i] = a[i] + b[i]

    @njit(parallel=parallel)
    def triad(a, b, c):
        for i in prange(c.size):
            c[i] = a[i] + 0.4 * b[i]

    return {"read": read, "write": write, "copy": copy, "scale": scale, "add": add,
            "triad": triad}


def _best_of(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _numpy_patterns():
    """One thread's patterns with NumPy's loops (single-threaded, vectorized, nothing to
    compile): compiling six more Numba functions took 4 s of a quick run on two cores."""
    return {"read": lambda a, b, c: c.__setitem__(0, a.sum() + b.sum()),
            "write": lambda a, b, c: c.fill(1.5),
            "copy": lambda a, b, c: np.copyto(c, a),
            "scale": lambda a, b, c: np.multiply(a, 0.4, out=c),
            "add": lambda a, b, c: np.add(a, b, out=c),
            "triad": lambda a, b, c: np.add(a, 0.4 * b, out=c)}


def cpu(quick: bool) -> dict:
    """cpu_bw_<pattern>_{one,all}_bytes_per_s: the fastest of a few passes over arrays of 64 MiB
    each (16 MiB with --quick), several times a server's last-level cache per core; one thread
    with NumPy, all of Numba's threads with prange loops."""
    n = (2 << 20) if quick else (8 << 20)
    a = np.full(n, 1.25)
    b = np.full(n, 0.75)
    c = np.empty(n)
    out = {"cpu_bw_array_bytes": str(n * 8)}
    for which, kernels in (("one", _numpy_patterns()), ("all", _cpu_kernels(True))):
        for p in PATTERNS:
            k = kernels[p]
            k(a, b, c)   # compiles, touches the pages
            t = _best_of(lambda: k(a, b, c), 3 if quick else 10)
            out[f"cpu_bw_{p}_{which}_bytes_per_s"] = str((_READ[p] + _WRITTEN[p]) * 8.0 * n / t)
    return out


def _gpu_kernels():
    from numba import cuda

    @cuda.jit
    def read(a, b, c):
        i = cuda.grid(1)
        s = 0.0
        while i < a.size:
            s += a[i] + b[i]
            i += cuda.gridsize(1)
        if s == -1.0:   # never: keeps the loads
            c[0] = s

    @cuda.jit
    def write(a, b, c):
        i = cuda.grid(1)
        while i < c.size:
            c[i] = 1.5
            i += cuda.gridsize(1)

    @cuda.jit
    def copy(a, b, c):
        i = cuda.grid(1)
        while i < c.size:
            c[i] = a[i]
            i += cuda.gridsize(1)

    @cuda.jit
    def scale(a, b, c):
        i = cuda.grid(1)
        while i < c.size:
            c[i] = 0.4 * a[i]
            i += cuda.gridsize(1)

    @cuda.jit
    def add(a, b, c):
        i = cuda.grid(1)
        while i < c.size:
            c[i] = a[i] + b[i]
            i += cuda.gridsize(1)

    @cuda.jit
    def triad(a, b, c):
        i = cuda.grid(1)
        while i < c.size:
            c[i] = a[i] + 0.4 * b[i]
            i += cuda.gridsize(1)

    return {"read": read, "write": write, "copy": copy, "scale": scale, "add": add,
            "triad": triad}


def gpu(info, quick: bool) -> dict:
    """gpu_bw_<pattern>_bytes_per_s: events around each kernel over arrays of 8x the L2 (so
    little of them stays cached), the fastest of several launches."""
    from numba import cuda
    n = max(1 << 20, 8 * info.l2_bytes // 8)
    a = cuda.to_device(np.full(n, 1.25))
    b = cuda.to_device(np.full(n, 0.75))
    c = cuda.device_array(n)
    grid, block = max(1, info.sms) * 8, 256
    start, stop = cuda.event(), cuda.event()
    out = {"gpu_bw_array_bytes": str(n * 8)}
    for p, k in _gpu_kernels().items():
        k[grid, block](a, b, c)
        cuda.synchronize()
        best = float("inf")
        for _ in range(5 if quick else 20):
            start.record()
            k[grid, block](a, b, c)
            stop.record()
            stop.synchronize()
            best = min(best, start.elapsed_time(stop) * 1e-3)
        out[f"gpu_bw_{p}_bytes_per_s"] = str((_READ[p] + _WRITTEN[p]) * 8.0 * n / best)
    return out


def measure(info, quick: bool, binary: str | None, use: str, say) -> dict:
    """The context keys of this machine's limits and where they came from (`ceilings_source`).
    use: "auto" (the binary where found, else Python), "binary", "python" or "none"."""
    if use == "none":
        return {"ceilings_source": "none (--ceilings=none): rows are not held to a ceiling"}
    why_not = ""
    if use in ("auto", "binary"):
        found = find_binary(binary)
        if found:
            say(f"ceilings: from the twinbench binary {found}")
            keys, why_not = from_binary(found, quick)
            if keys:
                return {**keys, "ceilings_source": f"the twinbench binary ({found})"}
            say(f"ceilings: {why_not}; measuring them in Python instead")
        else:
            why_not = "no twinbench binary found (PATH, $TWINBENCH_BINARY, ./build/twinbench)"
        if use == "binary":
            return {"ceilings_source": f"none: {why_not}"}
    say("ceilings: measuring bandwidth per access pattern with Python kernels (CPU"
        + (", GPU" if info.available and not _simulated() else "") + ")")
    keys = cpu(quick)
    gpu_note = ""
    if info.available and not _simulated():
        keys.update(gpu(info, quick))
    elif info.available:
        gpu_note = "; no GPU ceilings under Numba's CUDA simulator"
    reason = f" ({why_not})" if why_not else ""
    return {**keys, "ceilings_source": "Python ceiling kernels (twinbench.bench.ceilings): "
            f"bandwidth per pattern, no FLOP roofs{gpu_note}{reason}"}


def _simulated() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
