"""The suite's stopping rule (common/sampler.cpp), so that a peer row is sampled as its C++ twin.

Samples are taken until at least `min_samples` of them and `min_time_s` of measured time are
in, then sampling stops once the relative standard deviation is under the target or has
stopped changing (checked every 16 samples over the last 64 values, as nvbench's stdrel
criterion), or once `max_time_s` of wall time has passed. The row's time is the median sample.
The parameters come from the suite's results file (its context's stop_* keys), so a --quick
suite run gets quick peers.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Callable


@dataclass(frozen=True)
class StoppingRule:
    max_rel_stdev: float = 0.01
    min_samples: int = 5
    min_time_s: float = 0.05
    max_time_s: float = 0.3
    max_samples: int = 10000


DEFAULT_RULE = StoppingRule()
QUICK_RULE = StoppingRule(max_rel_stdev=0.05, min_time_s=0.002, max_time_s=0.05)


class StopReason(IntEnum):
    TIME_LIMIT = 0
    SPREAD_UNDER_TARGET = 1
    SPREAD_SETTLED = 2
    SAMPLE_LIMIT = 3


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived while a row was being sampled."""


@dataclass
class SampleStats:
    samples: list[float] = field(default_factory=list)
    median: float = 0.0
    min: float = 0.0
    max: float = 0.0
    mean: float = 0.0
    rel_stdev: float = 0.0
    converged: bool = False
    reason: StopReason = StopReason.TIME_LIMIT
    wall_s: float = 0.0


def rule_from_context(context: dict) -> StoppingRule:
    """The rule the suite ran with (its stop_* context keys); quick or default where absent."""
    base = QUICK_RULE if str(context.get("quick", "")).lower() == "true" else DEFAULT_RULE

    def number(key, default):
        try:
            value = float(context[key])
        except (KeyError, TypeError, ValueError):
            return default
        return value if math.isfinite(value) and value > 0 else default

    return StoppingRule(
        max_rel_stdev=number("stop_max_rel_spread_pct", 100 * base.max_rel_stdev) / 100.0,
        min_samples=int(number("stop_min_samples", base.min_samples)),
        min_time_s=number("stop_min_time_s", base.min_time_s),
        max_time_s=number("stop_max_time_s", base.max_time_s),
    )


class _Running:
    """Welford's update: the spread is checked after every sample, so O(1) a sample."""

    def __init__(self):
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0
        self.sum = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        self.sum += x
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)

    def rel_stdev(self) -> float:
        if self.n < 2 or self.mean <= 0:
            return 0.0
        return math.sqrt(self.m2 / (self.n - 1)) / self.mean


def summarize(samples: list[float]) -> SampleStats:
    st = SampleStats(samples=list(samples))
    if not samples:
        return st
    r = _Running()
    for x in samples:
        r.add(x)
    s = sorted(samples)
    n = len(s)
    st.min, st.max = s[0], s[-1]
    st.median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    st.mean = r.mean
    st.rel_stdev = r.rel_stdev()
    return st


# Noisy work stops once its spread has stopped moving: the relative stdev of the last
# NOISE_WINDOW values of the running spread (against the current one) under NOISE_SETTLED,
# checked every NOISE_CHECK_EVERY samples (common/sampler.cpp).
NOISE_WINDOW = 64
NOISE_CHECK_EVERY = 16
NOISE_SETTLED = 0.05


def _noise_settled(noise: list[float]) -> bool:
    if len(noise) < NOISE_WINDOW:
        return False
    current = noise[-1]
    if not current > 0:
        return False
    sq = sum((v - current) ** 2 for v in noise[-NOISE_WINDOW:])
    return math.sqrt(sq / (NOISE_WINDOW - 1)) / current < NOISE_SETTLED


def collect_samples(rule: StoppingRule, sample: Callable[[], float],
                    now: Callable[[], float] = time.perf_counter,
                    interrupted: Callable[[], bool] = lambda: False) -> SampleStats:
    """Calls `sample` (one sample's seconds) until the rule says stop; raises Interrupted when
    `interrupted()` turns true between samples."""
    samples: list[float] = []
    noise: list[float] = []
    r = _Running()
    reason = StopReason.TIME_LIMIT
    start = now()
    min_samples = max(1, rule.min_samples)
    limit = max(min_samples, rule.max_samples)
    while len(samples) < limit:
        if interrupted():
            raise Interrupted()
        s = sample()
        samples.append(s)
        r.add(s)
        noise.append(r.rel_stdev())
        if r.n < min_samples:
            continue
        if r.sum >= rule.min_time_s:
            if r.rel_stdev() <= rule.max_rel_stdev:
                reason = StopReason.SPREAD_UNDER_TARGET
                break
            if r.n % NOISE_CHECK_EVERY == 0 and _noise_settled(noise):
                reason = StopReason.SPREAD_SETTLED
                break
        if now() - start >= rule.max_time_s:
            break
    if len(samples) >= limit:
        reason = StopReason.SAMPLE_LIMIT
    st = summarize(samples)
    st.reason = reason
    st.converged = reason in (StopReason.SPREAD_UNDER_TARGET, StopReason.SPREAD_SETTLED)
    st.wall_s = now() - start
    return st


# Work shorter than this is timed in batches (a sample holds several calls, divided out), as
# the suite's measure_cpu does: a call of a few microseconds is near the clock's resolution.
CPU_BATCH_SECONDS = 100e-6
MAX_CPU_BATCH = 1_000_000


def cpu_batch(once_s: float) -> int:
    if once_s >= CPU_BATCH_SECONDS:
        return 1
    return int(min(MAX_CPU_BATCH, math.ceil(CPU_BATCH_SECONDS / max(once_s, 1e-9))))


def measure_cpu(rule: StoppingRule, work: Callable[[], object],
                interrupted: Callable[[], bool] = lambda: False) -> tuple[SampleStats, int]:
    """Wall-clock samples of `work` (already warmed up), batched when a call is short."""

    def timed(calls: int) -> float:
        t0 = time.perf_counter()
        for _ in range(calls):
            work()
        return (time.perf_counter() - t0) / calls

    if interrupted():
        raise Interrupted()
    batch = cpu_batch(timed(1))
    return collect_samples(rule, lambda: timed(batch), interrupted=interrupted), batch
