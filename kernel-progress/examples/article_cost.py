"""What counting progress costs the article's program, each way against no counter at all, and
how often the host sees kernel_progress's count move.

    python article_cost.py [--samples N] [--pairs P] [--long-pairs P] [--warmup W]
                           [--long-rounds R] [--bar-rounds R] [--bar-launches L] [--out FILE]

The program is the article's: N samples (10,000,000), 512 threads a block, one sample a thread,
rate 5 (about 1.2 ms a kernel on an H100 or H200). Its kernel is timed six ways, the ways
interleaved in each round (the order rotating from round to round), each way's excess over
(a) in the same round:

  (a) none         the article's kernel without its counter (the program before the article)
  (b) article      the article's: cuda.atomic.add(counter, 0, 1) per sample, in device memory
  (c) load_store   kernel_progress's previous tally: the block summed with counting barriers,
                   its first thread loads its slot from mapped host memory, adds and stores it
  (d) store_only   the same block sum, the running count kept in device memory (an atomic
                   whose result the first thread waits for), stored to the mapped slot: no load
                   from host memory
  (e) tally        kp.tally as shipped (each warp's sum added to its block's slot in device
                   memory by an atomic nobody waits for), inside `with kp.LiveProgress(...)` as
                   a user writes it, the host reading the slots at its default interval
  (f) tally_unread the same kernel and slots, no LiveProgress: what the host's reads add

(b) and (e) at the article's size are the article's own kernels (article_original.py,
article_progress.py, unchanged). (c) and (d) are written here with the package's public device
functions (block_sum, block_index, load, store).

Three configurations:
- "article": the article's size (--pairs rounds);
- "long": rate 100 (each sample's loop walks ~16x as many terms) and --long-rounds samples a
  thread in a grid-stride loop over the same grid, one count per sample (--long-pairs rounds,
  a kernel of over 100 ms);
- "bar": as "long" with --bar-rounds samples a thread (a kernel of over half a second), (e) alone,
  --bar-launches launches: the distinct values the host read during each.

Each launch: an L2 flush, a short kernel that sleeps on the GPU (so that Python's launch cost
falls before the first event, not between the events), then the kernel between two CUDA events,
then a synchronisation. Reported per configuration and way: the median time, the median excess
over (a) in percent with a ~95% interval of that median (binomial order statistics), and for
(e) the distinct values the host read; every final count is checked.

Prints a JSON summary (also written to --out) and exits 0; 1 when a count was wrong. Under
Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) it runs with small sizes, which checks the
output's form, not the GPU's time.
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
from numba import cuda, uint64
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

import kernel_progress as kp

HERE = Path(__file__).resolve().parent
THREADS_PER_BLOCK = 512          # the article's
ARTICLE_RATE = 5.0               # the article's
LONG_RATE = 100.0
FLUSH_BYTES = 128 << 20          # twice the H200's 60 MiB L2
GATE_NS = 2_000_000              # the sleeping kernel before each timed one
WAYS = ("none", "article", "load_store", "store_only", "tally", "tally_unread")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


original = _load("article_original")
progress = _load("article_progress")
SIMULATOR = bool(kp.device.SIMULATOR)
poisson_sample = original.poisson_sample


# ---------------------------------------------------------------- the ways of counting

@cuda.jit(device=True)
def first_thread():
    return cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0 and cuda.threadIdx.z == 0


@cuda.jit(device=True)
def count_nothing(slots, aux, count):
    pass


@cuda.jit(device=True)
def count_article(slots, aux, count):
    if count:
        cuda.atomic.add(aux, 0, 1)


@cuda.jit(device=True)
def count_load_store(slots, aux, count):
    done = kp.block_sum(count)
    if done != 0 and first_thread():
        b = kp.block_index()
        if b < slots.shape[0]:
            kp.store(slots, b, kp.load(slots, b) + done)


@cuda.jit(device=True)
def count_store_only(slots, aux, count):
    done = kp.block_sum(count)
    if done != 0 and first_thread():
        b = kp.block_index()
        if b < slots.shape[0]:
            kp.store(slots, b, cuda.atomic.add(aux, b, done) + done)


@cuda.jit(device=True)
def count_tally(slots, aux, count):
    kp.tally(slots, count)


def article_shape(count):
    """The article's kernel, one sample a thread, counted by `count`."""
    @cuda.jit
    def kernel(rng_states, out, rate, slots, aux):
        thread_id = cuda.grid(1)
        if thread_id < out.size:
            out[thread_id] = poisson_sample(rate,
                                            xoroshiro128p_uniform_float32(rng_states, thread_id))
        count(slots, aux, thread_id < out.size)
    return kernel


def loop_shape(count):
    """The article's sample drawn out.size / threads times by each thread (a grid-stride loop of
    whole rounds: out.size is a multiple of the threads), each sample counted by `count`."""
    @cuda.jit
    def kernel(rng_states, out, rate, slots, aux):
        thread_id = cuda.grid(1)
        for i in range(thread_id, out.size, cuda.gridsize(1)):
            out[i] = poisson_sample(rate, xoroshiro128p_uniform_float32(rng_states, thread_id))
            count(slots, aux, True)
    return kernel


COUNTS = {"none": count_nothing, "article": count_article, "load_store": count_load_store,
          "store_only": count_store_only, "tally": count_tally, "tally_unread": count_tally}
# At the article's size, (b) and (e) are the article's own kernels.
ARTICLE_KERNELS = {w: article_shape(c) for w, c in COUNTS.items() if w not in ("article", "tally")}
LOOP_KERNELS = {w: loop_shape(c) for w, c in COUNTS.items()}


# ---------------------------------------------------------------- timing

@cuda.jit
def _flush(buf):
    i = cuda.grid(1)
    if i < buf.size:
        buf[i] = buf[i] + 1


@cuda.jit
def _gate(ns):
    if cuda.grid(1) == 0:
        t0 = kp.now()
        while kp.now() - t0 < uint64(ns):
            cuda.nanosleep(1000)


def versions() -> dict:
    out = {"python": platform.python_version(), "numpy": np.__version__,
           "kernel_progress": kp.__version__, "kernel_progress_file": kp.__file__}
    for name in ("numba", "numba_cuda", "tqdm", "cuda_bindings"):
        try:
            from importlib.metadata import version
            out[name] = version(name.replace("_", "-"))
        except Exception as e:   # noqa: BLE001 - recorded, not fatal
            out[name] = f"unknown ({type(e).__name__})"
    return out


def median_interval(values: list[float]) -> tuple[float, float, float]:
    """The median and a ~95% interval of it: the order statistics at n/2 -+ 0.98 sqrt(n)."""
    s = sorted(v for v in values if not math.isnan(v))
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

    def time(self, launch) -> float:
        """Milliseconds between the events around launch(); the simulator's events have none, so
        there the wall time of the launch (the form of the output, not a GPU's time)."""
        self.before()
        try:
            e0, e1 = cuda.event(timing=True), cuda.event(timing=True)
        except TypeError:        # the simulator's Event takes no arguments
            e0, e1 = cuda.event(), cuda.event()
        w0 = time.perf_counter()
        e0.record()
        launch()
        e1.record()
        e1.synchronize()
        t = e0.elapsed_time(e1)
        return t if t >= 0 else 1e3 * (time.perf_counter() - w0)


_STATES: dict = {}


def rng_states(threads: int):
    """The article's generators, one a thread, made once (10M take seconds on the host)."""
    if threads not in _STATES:
        _STATES[threads] = create_xoroshiro128p_states(threads, seed=1)
    return _STATES[threads]


class Setup:
    """One configuration's arrays, counters and launches."""

    def __init__(self, samples: int, rate: float, rounds: int, loop: bool):
        self.blocks = (samples + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        threads = self.blocks * THREADS_PER_BLOCK
        self.n = threads * rounds if loop else samples
        self.rate = rate
        self.loop = loop
        self.rng_states = rng_states(threads)
        self.out = cuda.device_array(self.n, dtype=np.int32)
        self.mapped = cuda.mapped_array(self.blocks, dtype=np.uint64)
        self.shadow = cuda.to_device(np.zeros(self.blocks, dtype=np.uint64))
        self.counter = cuda.to_device(np.zeros(1, dtype=np.uint64))
        self.unread = cuda.to_device(np.zeros(self.blocks, dtype=np.uint64))
        self.live = kp.LiveProgress(self.blocks, total=self.n, display="quiet")
        self.timer = Timer()
        self.counts: dict[str, list[int]] = {w: [] for w in WAYS}
        self.distinct: list[int] = []
        self.polls: list[int] = []

    def _launch(self, way: str, slots, aux):
        grid = (self.blocks, THREADS_PER_BLOCK)
        if not self.loop and way == "article":
            original.generate_samples[grid](self.rng_states, self.out, self.rate, aux)
        elif not self.loop and way == "tally":
            progress.generate_samples[grid](self.rng_states, self.out, self.rate, slots)
        else:
            kernels = LOOP_KERNELS if self.loop else ARTICLE_KERNELS
            kernels[way][grid](self.rng_states, self.out, self.rate, slots, aux)

    def run(self, way: str) -> float:
        """One timed launch of `way`, its count recorded."""
        if way == "tally":
            with self.live:
                t = self.timer.time(lambda: self._launch(way, self.live.slots, self.counter))
            self.counts[way].append(self.live.count)
            self.distinct.append(self.live.stats.distinct)
            self.polls.append(self.live.stats.polls)
            return t
        slots, aux = {
            "none": (self.unread, self.counter),
            "article": (self.unread, self.counter),
            "load_store": (self.mapped, self.counter),
            "store_only": (self.mapped, self.shadow),
            "tally_unread": (self.unread, self.counter),
        }[way]
        zero = {"article": self.counter, "load_store": self.mapped, "store_only": self.shadow,
                "tally_unread": self.unread}.get(way)
        if zero is not None:
            zero_fill(zero)
            if way == "store_only":
                zero_fill(self.mapped)
        t = self.timer.time(lambda: self._launch(way, slots, aux))
        if way == "article":
            self.counts[way].append(int(self.counter.copy_to_host()[0]))
        elif way in ("load_store", "store_only"):
            self.counts[way].append(int(np.asarray(self.mapped).sum(dtype=np.uint64)))
        elif way == "tally_unread":
            self.counts[way].append(int(self.unread.copy_to_host().sum(dtype=np.uint64)))
        return t


def zero_fill(array) -> None:
    """Zeroes a device or mapped array before a launch (no kernel runs on it)."""
    if isinstance(array, np.ndarray):
        array[:] = 0
    else:
        array.copy_to_device(np.zeros(array.shape, dtype=array.dtype))


def timed_rounds(name: str, setup: Setup, ways: tuple, rounds: int, warmup: int, log) -> dict:
    """`rounds` rounds of every way, the order rotating; each way's excess over "none" in the
    same round."""
    times = {w: [] for w in ways}
    start = time.monotonic()
    for r in range(warmup + rounds):
        order = ways[r % len(ways):] + ways[:r % len(ways)]
        got = {w: setup.run(w) for w in order}
        if r < warmup:
            for w in ways:
                setup.counts[w].clear()
            setup.distinct.clear()
            setup.polls.clear()
            continue
        for w in ways:
            times[w].append(got[w])
        if (r - warmup) % 10 == 0:
            log(f"{name}: round {r - warmup + 1}/{rounds}: " +
                ", ".join(f"{w} {got[w]:.3f} ms" for w in ways))
    result = {"samples": setup.n, "rate": setup.rate, "blocks": setup.blocks,
              "threads_per_block": THREADS_PER_BLOCK, "rounds": rounds, "warmup_rounds": warmup,
              "interval_s": setup.live.interval, "wall_s": time.monotonic() - start, "ways": {}}
    for w in ways:
        way = {"t_ms_median": statistics.median(times[w]), "t_ms": times[w]}
        if w != "none":
            excess = [100.0 * (t - t0) / t0 for t, t0 in zip(times[w], times["none"])]
            med, lo, hi = median_interval(excess)
            way.update({"excess_pct_median": med, "excess_pct_lo": lo, "excess_pct_hi": hi,
                        "excess_pct": excess})
        if w in setup.counts and setup.counts[w]:
            way["counts_exact"] = all(c == setup.n for c in setup.counts[w])
        if w == "tally":
            way.update({"distinct_min": min(setup.distinct), "distinct_median":
                        statistics.median(setup.distinct), "distinct_max": max(setup.distinct),
                        "polls_median": statistics.median(setup.polls),
                        "distinct": list(setup.distinct)})
        result["ways"][w] = way
    return result


def bar_launches(setup: Setup, launches: int, log) -> dict:
    """`launches` launches of the shipped tally under LiveProgress at its default interval."""
    times = [setup.run("tally") for _ in range(launches)]
    log(f"bar: {launches} launches of {statistics.median(times):.1f} ms, distinct values "
        f"{setup.distinct}, polls {setup.polls}")
    return {"samples": setup.n, "rate": setup.rate, "blocks": setup.blocks,
            "interval_s": setup.live.interval, "launches": launches, "t_ms": times,
            "t_ms_median": statistics.median(times), "distinct": list(setup.distinct),
            "distinct_min": min(setup.distinct), "polls": list(setup.polls),
            "counts_exact": all(c == setup.n for c in setup.counts["tally"])}


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


def strip_samples(config: dict) -> dict:
    out = {k: v for k, v in config.items() if k not in ("t_ms", "distinct", "polls")}
    if "ways" in out:
        out["ways"] = {w: {k: v for k, v in d.items() if k not in ("t_ms", "excess_pct",
                                                                   "distinct")}
                       for w, d in out["ways"].items()}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=10_000_000,
                    help="samples (= threads doing work) of the article's kernel: 10,000,000")
    ap.add_argument("--pairs", type=int, default=40, help="timed rounds at the article's size")
    ap.add_argument("--long-pairs", type=int, default=30, help="timed rounds of the long kernel")
    ap.add_argument("--warmup", type=int, default=2, help="rounds run first and not counted")
    ap.add_argument("--long-rounds", type=int, default=10,
                    help="samples a thread in the long kernel (0: leave it out)")
    ap.add_argument("--bar-rounds", type=int, default=50,
                    help="samples a thread in the bar's kernel (0: leave it out)")
    ap.add_argument("--bar-launches", type=int, default=3)
    ap.add_argument("--ways", default=",".join(WAYS),
                    help="the ways timed, comma-separated (none is always timed)")
    ap.add_argument("--max-excess-pct", type=float, default=1.0)
    ap.add_argument("--max-excess-hi-pct", type=float, default=1.5)
    ap.add_argument("--max-long-excess-pct", type=float, default=0.5)
    ap.add_argument("--min-distinct", type=int, default=50)
    ap.add_argument("--deadline", type=float, default=400.0,
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
    log(f"article_cost: {json.dumps(env)}")

    ways = ("none",) + tuple(w for w in WAYS if w != "none" and w in args.ways.split(","))
    configs = {}
    log(f"article: {args.samples} samples, rate {ARTICLE_RATE}, {args.pairs} rounds")
    configs["article"] = timed_rounds("article", Setup(args.samples, ARTICLE_RATE, 1, False),
                                      ways, args.pairs, args.warmup, log)
    if args.long_rounds > 0:
        log(f"long: {args.long_rounds} samples a thread, rate {LONG_RATE}")
        configs["long"] = timed_rounds("long", Setup(args.samples, LONG_RATE, args.long_rounds,
                                                     True), ways, args.long_pairs, 1, log)
    if args.bar_rounds > 0 and "tally" in ways:
        log(f"bar: {args.bar_rounds} samples a thread, rate {LONG_RATE}")
        configs["bar"] = bar_launches(Setup(args.samples, LONG_RATE, args.bar_rounds, True),
                                      args.bar_launches, log)

    exact = all(w.get("counts_exact", True) for c in configs.values()
                for w in c.get("ways", {}).values()) and \
        all(c.get("counts_exact", True) for c in configs.values())
    checks = {"counts_exact": exact, "against": "none"}
    if "tally" in ways:
        tally = configs["article"]["ways"]["tally"]
        checks.update({
            "article_excess_le_max": tally["excess_pct_median"] <= args.max_excess_pct,
            "article_excess_hi_le_max": tally["excess_pct_hi"] <= args.max_excess_hi_pct,
            "max_excess_pct": args.max_excess_pct, "max_excess_hi_pct": args.max_excess_hi_pct,
        })
    if "long" in configs and "tally" in ways:
        checks["long_excess_le_max"] = (configs["long"]["ways"]["tally"]["excess_pct_median"]
                                        <= args.max_long_excess_pct)
        checks["max_long_excess_pct"] = args.max_long_excess_pct
    if "bar" in configs:
        checks["bar_distinct_ge_min"] = configs["bar"]["distinct_min"] >= args.min_distinct
        checks["min_distinct"] = args.min_distinct
    summary = finite({
        "what": "the article's program counted several ways, each against the kernel without a "
                "counter, rounds of interleaved launches in one process",
        "ways": list(ways),
        "environment": env,
        "configs": {name: strip_samples(c) for name, c in configs.items()},
        "checks": checks,
        "samples": configs,
    })
    short = {k: v for k, v in summary.items() if k != "samples"}
    print(json.dumps(short, indent=1, allow_nan=False), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=1, allow_nan=False) + "\n")
    faulthandler.cancel_dump_traceback_later()
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
