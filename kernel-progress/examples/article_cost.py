"""What kernel_progress costs the article's program, and how often the host sees its count move.

    python article_cost.py [--samples N] [--pairs P] [--warmup W] [--long-rate R]
                           [--interval S] [--out FILE]

The kernels are the article's, imported unchanged from article_original.py (a device counter
every thread adds one to) and article_progress.py (kp.tally into a slot per block, the host's
LiveProgress around the launch), launched as the article launches them: N samples (10,000,000),
512 threads a block, one sample a thread.

Each configuration is timed in interleaved pairs in one process, the order alternating within
the pairs: an L2 flush, a short kernel that sleeps on the GPU (so that Python's launch cost falls
before the first event, not between the events), then the kernel between two CUDA events. The
progress side runs inside `with kp.LiveProgress(...)` as a user writes it (display "quiet", its
polling thread reading the slots every --interval seconds). Reported per configuration: the
median time of each side, the median of the pairs' excess (with - without) / without in percent
with a ~95% interval of that median (binomial order statistics), and the distinct values of the
count the host read during each progress launch.

Two configurations, both with N samples:
- "article": rate 5, as the article: about 1.2 ms a kernel on the H200, too short for the host
  to see the count move much;
- "long": the same kernels with a rate of --long-rate (100): each sample's inverse-transform loop
  walks ~16x as many terms (it stops at 100 terms), so the kernel lasts ~16x as long with the
  same grid, the same memory and the same single tally per thread. The ">= 50 distinct values"
  check is made there.

Prints a JSON summary (also written to --out) and exits 0; 1 when a final count was wrong.
Under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) it runs with a small --samples, which
checks the output's form, not the GPU's time.
"""

from __future__ import annotations

import argparse
import faulthandler
import importlib.util
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states

import kernel_progress as kp

HERE = Path(__file__).resolve().parent
THREADS_PER_BLOCK = 512          # the article's
ARTICLE_RATE = 5.0               # the article's
FLUSH_BYTES = 128 << 20          # twice the H200's 60 MiB L2
GATE_NS = 2_000_000              # the sleeping kernel before each timed one


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


original = _load("article_original")
progress = _load("article_progress")
SIMULATOR = bool(kp.device.SIMULATOR)


@cuda.jit
def _flush(buf):
    i = cuda.grid(1)
    if i < buf.size:
        buf[i] = buf[i] + 1


@cuda.jit
def _gate(ns):
    if cuda.grid(1) == 0:
        t0 = kp.now()
        while kp.now() - t0 < ns:
            cuda.nanosleep(1000)


def versions() -> dict:
    out = {"python": platform.python_version(), "numpy": np.__version__,
           "kernel_progress": kp.__version__, "kernel_progress_file": kp.__file__}
    for name in ("numba", "numba_cuda", "tqdm"):
        try:
            from importlib.metadata import version
            out[name] = version(name.replace("_", "-"))
        except Exception as e:   # noqa: BLE001 - recorded, not fatal
            out[name] = f"unknown ({type(e).__name__})"
    return out


def median_interval(values: list[float]) -> tuple[float, float, float]:
    """The median and a ~95% interval of it: the order statistics at n/2 -+ 0.98 sqrt(n)."""
    s = sorted(values)
    n = len(s)
    if n == 0:
        return math.nan, math.nan, math.nan
    half = 0.98 * math.sqrt(n)
    lo = max(0, int(math.floor(n / 2 - half)) - 1)
    hi = min(n - 1, int(math.ceil(n / 2 + half)) - 1)
    return statistics.median(s), s[lo], s[hi]


class Timer:
    """An L2 flush and a sleeping kernel before the events, so that the events hold the kernel
    alone (on a GPU; under the simulator, the launch as it runs)."""

    def __init__(self):
        self.flush_buf = None if SIMULATOR else cuda.device_array(FLUSH_BYTES // 4, np.float32)
        if self.flush_buf is not None:
            self.flush_buf[:] = 0

    def before(self):
        if self.flush_buf is not None:
            n = self.flush_buf.size
            _flush[(n + 255) // 256, 256](self.flush_buf)
            _gate[1, 32](GATE_NS)

    def events(self):
        try:
            return cuda.event(timing=True), cuda.event(timing=True)
        except TypeError:        # the simulator's Event takes no arguments
            return cuda.event(), cuda.event()


def elapsed_ms(e0, e1, wall0: float) -> float:
    """The events' time; the simulator's events have none (-1), so there the wall time from
    just before the launch to after the synchronisation (the form of the output, not a GPU's
    time)."""
    t = e0.elapsed_time(e1)
    return t if t >= 0 else 1e3 * (time.perf_counter() - wall0)


def run_config(name: str, n: int, rate: float, pairs: int, warmup: int, interval: float,
               log) -> dict:
    blocks = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    rng_states = create_xoroshiro128p_states(THREADS_PER_BLOCK * blocks, seed=1)
    out = cuda.device_array(n, dtype=np.int32)
    counter = cuda.to_device(np.zeros(1, dtype=np.uint64))
    timer = Timer()
    live = kp.LiveProgress(blocks, total=n, display="quiet", interval=interval)
    launches_without = 0

    def without() -> float:
        nonlocal launches_without
        timer.before()
        e0, e1 = timer.events()
        w0 = time.perf_counter()
        e0.record()
        original.generate_samples[blocks, THREADS_PER_BLOCK](rng_states, out, rate, counter)
        e1.record()
        cuda.synchronize()
        launches_without += 1
        return elapsed_ms(e0, e1, w0)

    def with_progress() -> tuple[float, int, int, int]:
        with live:
            timer.before()
            e0, e1 = timer.events()
            w0 = time.perf_counter()
            e0.record()
            progress.generate_samples[blocks, THREADS_PER_BLOCK](rng_states, out, rate,
                                                                 live.slots)
            e1.record()
        cuda.synchronize()
        return elapsed_ms(e0, e1, w0), live.count, live.stats.distinct, live.stats.polls

    t_without, t_with, excess, distinct, polls, counts = [], [], [], [], [], []
    start = time.monotonic()
    for i in range(warmup + pairs):
        first_with = i % 2 == 1
        if first_with:
            tw, count, d, p = with_progress()
            t0 = without()
        else:
            t0 = without()
            tw, count, d, p = with_progress()
        if i < warmup:
            continue
        t_without.append(t0)
        t_with.append(tw)
        excess.append(100.0 * (tw - t0) / t0 if t0 > 0 else math.nan)
        distinct.append(d)
        polls.append(p)
        counts.append(count)
        if (i - warmup) % 10 == 0:
            log(f"{name}: pair {i - warmup + 1}/{pairs}: without {t0:.3f} ms, with {tw:.3f} ms, "
                f"{d} distinct values in {p} reads")
    wall = time.monotonic() - start
    device_count = int(counter.copy_to_host()[0])
    mean = float(out.copy_to_host().mean())
    med, lo, hi = median_interval(excess)
    return {
        "samples": n, "rate": rate, "blocks": blocks, "threads_per_block": THREADS_PER_BLOCK,
        "pairs": len(excess), "warmup_pairs": warmup, "interval_s": interval,
        "t_without_ms_median": statistics.median(t_without) if t_without else math.nan,
        "t_with_ms_median": statistics.median(t_with) if t_with else math.nan,
        "excess_pct_median": med, "excess_pct_lo": lo, "excess_pct_hi": hi,
        "distinct_median": statistics.median(distinct) if distinct else 0,
        "distinct_min": min(distinct, default=0), "distinct_max": max(distinct, default=0),
        "polls_median": statistics.median(polls) if polls else 0,
        "counts_exact": all(c == n for c in counts),
        "article_counter_exact": device_count == n * launches_without,
        "sample_mean": mean,
        "wall_s": wall,
        "t_without_ms": t_without, "t_with_ms": t_with, "excess_pct": excess,
        "distinct": distinct,
    }


def finite(x):
    """NaN and infinities as null, so that the JSON is strict."""
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    return x


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=10_000_000,
                    help="samples (= threads doing work) per kernel: the article's 10,000,000")
    ap.add_argument("--pairs", type=int, default=30, help="timed pairs per configuration")
    ap.add_argument("--warmup", type=int, default=3, help="pairs run first and not counted")
    ap.add_argument("--long-rate", type=float, default=100.0,
                    help="the rate of the long configuration (0: leave it out)")
    ap.add_argument("--interval", type=float, default=2e-4,
                    help="seconds between the host's reads of the slots (the suite's Numba "
                         "progress rows read every 200 us; the package's default is 0.02)")
    ap.add_argument("--min-distinct", type=int, default=50)
    ap.add_argument("--max-excess-pct", type=float, default=1.0)
    ap.add_argument("--deadline", type=float, default=240.0,
                    help="seconds before a hang dumps the stacks and exits (faulthandler)")
    ap.add_argument("--out", default=None, help="where to write the JSON summary too")
    args = ap.parse_args(argv)
    faulthandler.dump_traceback_later(args.deadline, exit=True)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    env = versions()
    env["simulator"] = SIMULATOR
    env["NUMBA_ENABLE_CUDASIM"] = os.environ.get("NUMBA_ENABLE_CUDASIM", "")
    if not SIMULATOR:
        dev = cuda.get_current_device()
        env["gpu"] = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        env["compute_capability"] = list(dev.compute_capability)
    log(f"article_cost: {json.dumps({k: v for k, v in env.items()})}")

    configs = {"article": ARTICLE_RATE}
    if args.long_rate > 0:
        configs["long"] = args.long_rate
    results = {}
    for name, rate in configs.items():
        log(f"{name}: {args.samples} samples, rate {rate}, {args.warmup} warm-up + "
            f"{args.pairs} pairs")
        results[name] = run_config(name, args.samples, rate, args.pairs, args.warmup,
                                   args.interval, log)
    summary_configs = {name: {k: v for k, v in r.items()
                              if k not in ("t_without_ms", "t_with_ms", "excess_pct", "distinct")}
                       for name, r in results.items()}
    checked = results.get("long", results["article"])
    summary = {
        "what": "kernel_progress on the article's program: with (article_progress.py) against "
                "without (article_original.py), interleaved pairs in one process",
        "environment": env,
        "configs": summary_configs,
        "checks": {
            "counts_exact": all(r["counts_exact"] and r["article_counter_exact"]
                                for r in results.values()),
            "article_excess_le_max": results["article"]["excess_pct_median"]
            <= args.max_excess_pct,
            "max_excess_pct": args.max_excess_pct,
            "distinct_config": "long" if "long" in results else "article",
            "distinct_ge_min": checked["distinct_min"] >= args.min_distinct,
            "min_distinct": args.min_distinct,
        },
        "samples": {name: {k: r[k] for k in ("t_without_ms", "t_with_ms", "excess_pct",
                                             "distinct")}
                    for name, r in results.items()},
    }
    summary = finite(summary)
    text = json.dumps(summary, indent=1, allow_nan=False)
    short = dict(summary)
    short.pop("samples")
    print(json.dumps(short, indent=1, allow_nan=False), flush=True)
    if args.out:
        Path(args.out).write_text(text + "\n")
    faulthandler.cancel_dump_traceback_later()
    return 0 if summary["checks"]["counts_exact"] else 1


if __name__ == "__main__":
    sys.exit(main())
