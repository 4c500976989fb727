"""The stopping rule is the suite's (common/sampler.cpp), read from the suite's context."""

from __future__ import annotations

import pytest

from twinbench.bench.sampler import (DEFAULT_RULE, QUICK_RULE, Interrupted, StoppingRule,
                                 StopReason, collect_samples, cpu_batch, rule_from_context,
                                 summarize)


class Clock:
    """Wall time that advances only as samples are taken."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def sampler(values, clock, overhead=0.0):
    it = iter(values)

    def sample():
        v = next(it)
        clock.t += v + overhead
        return v

    return sample


def test_steady_samples_stop_once_min_samples_and_min_time_are_in():
    clock = Clock()
    rule = StoppingRule(max_rel_stdev=0.01, min_samples=5, min_time_s=0.05, max_time_s=0.3)
    st = collect_samples(rule, sampler([0.02] * 100, clock), now=clock)
    assert len(st.samples) == 5 and st.reason == StopReason.SPREAD_UNDER_TARGET and st.converged
    assert st.median == 0.02


def test_min_time_holds_sampling_past_min_samples():
    clock = Clock()
    rule = StoppingRule(min_samples=5, min_time_s=0.05, max_time_s=10)
    st = collect_samples(rule, sampler([0.001] * 1000, clock), now=clock)
    assert len(st.samples) == 50   # 50 ms of measured time


def test_noisy_samples_stop_when_the_spread_has_settled():
    clock = Clock()
    rule = StoppingRule(max_rel_stdev=0.01, min_samples=5, min_time_s=0.0, max_time_s=1e9)
    noisy = [0.001, 0.002] * 10_000
    st = collect_samples(rule, sampler(noisy, clock), now=clock)
    assert st.reason == StopReason.SPREAD_SETTLED and st.converged
    assert len(st.samples) % 16 == 0 and len(st.samples) >= 64


def test_the_time_limit_ends_a_row_that_does_not_settle():
    clock = Clock()
    rule = StoppingRule(max_rel_stdev=0.0001, min_samples=5, min_time_s=0.0, max_time_s=0.1)
    growing = [0.01 * (1 + i) for i in range(1000)]
    st = collect_samples(rule, sampler(growing, clock), now=clock)
    assert st.reason == StopReason.TIME_LIMIT and not st.converged
    assert 5 <= len(st.samples) < 10


def test_min_samples_win_over_the_time_limit():
    clock = Clock()
    rule = StoppingRule(max_rel_stdev=0.0001, min_samples=5, min_time_s=0.0, max_time_s=0.001)
    st = collect_samples(rule, sampler([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], clock), now=clock)
    assert len(st.samples) == 5


def test_an_interrupt_stops_sampling():
    calls = []
    with pytest.raises(Interrupted):
        collect_samples(DEFAULT_RULE, lambda: calls.append(1) or 0.01,
                        interrupted=lambda: len(calls) >= 3)
    assert len(calls) == 3


def test_summary_is_the_median_and_the_sample_stdev():
    st = summarize([3.0, 1.0, 2.0, 4.0])
    assert st.median == 2.5 and st.min == 1.0 and st.max == 4.0
    assert st.rel_stdev == pytest.approx((5 / 3) ** 0.5 / 2.5)


def test_the_rule_comes_from_the_suites_context():
    ctx = {"stop_max_rel_spread_pct": "2", "stop_min_samples": "7", "stop_min_time_s": "0.01",
           "stop_max_time_s": "0.5"}
    assert rule_from_context(ctx) == StoppingRule(0.02, 7, 0.01, 0.5)
    assert rule_from_context({"quick": "true"}) == QUICK_RULE
    assert rule_from_context({}) == DEFAULT_RULE
    assert rule_from_context({"stop_min_samples": "junk", "quick": "false"}) == DEFAULT_RULE


def test_short_cpu_work_is_batched_as_the_suite_batches_it():
    assert cpu_batch(1e-3) == 1 and cpu_batch(100e-6) == 1
    assert cpu_batch(25e-6) == 4 and cpu_batch(0.0) == 100_000   # a 1 ns floor on a call
