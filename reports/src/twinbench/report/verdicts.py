"""compare's verdicts: per row, whether B is faster, slower or the same as A beyond its noise
threshold (noise.py) and beyond what the samples tell apart (the U test, stats.py), and which
slower rows a CI gate fails on. Both are needed: with hundreds of samples a row, the U test alone
calls the 0.1-1% by which two machine instances differ significant (83% of the rows of two runs
of identical code)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from .loader import Row, Run
from .noise import DEFAULT_FLOOR, NoiseModel, Threshold, median_log_halfwidth
from .stats import mann_whitney_u

FASTER, SLOWER, SAME = "faster", "slower", "same"
NOT_COMPARABLE = "not comparable"
SIZES_DIFFER = "not comparable: sizes differ"
ONLY_IN_A, ONLY_IN_B = "only in A", "only in B"
NO_COMMON_ROW = "–"
VERDICT_COLORS = {FASTER: "#2ca02c", SLOWER: "#d62728", SAME: "#9e9e9e", NOT_COMPARABLE: "#ff7f0e"}

# The smallest change ever reported (the floor of every row's threshold).
DEFAULT_THRESHOLD = DEFAULT_FLOOR
SIGNIFICANCE = 0.05
# Below this many samples per side the U test cannot reach SIGNIFICANCE at all
# (3 vs 3 gives p >= 0.1), so fall back to the interval rule.
MIN_SAMPLES_FOR_U = 4


def ratio_interval(a: list[float], b: list[float]) -> tuple[float, float] | None:
    """95% interval of median(b) / median(a) (None under two samples a side): each median's
    order-statistic interval, combined in log space as independent errors. It says how precisely
    the runs measured their medians, not where a third run would land (the threshold's job)."""
    ha, hb = median_log_halfwidth(a), median_log_halfwidth(b)
    if ha is None or hb is None:
        return None
    ratio = statistics.median(b) / statistics.median(a)
    half = math.hypot(ha, hb)
    return ratio * math.exp(-half), ratio * math.exp(half)


@dataclass
class Comparison:
    name: str
    a: Row
    b: Row
    ratio: float
    verdict: str
    method: str
    threshold: Threshold | None = None
    interval: tuple[float, float] | None = None

    @property
    def changed(self) -> bool:
        return self.verdict in (FASTER, SLOWER)

    @property
    def magnitude(self) -> float:
        """|log ratio|: a halving and a doubling are the same size of change."""
        return abs(math.log(self.ratio)) if self.ratio > 0 else math.inf


def row_threshold(threshold: float | Threshold | NoiseModel, a: Row, b: Row | None) -> Threshold:
    """The row's threshold from a NoiseModel, or one fixed relative change for every row."""
    if isinstance(threshold, NoiseModel):
        return threshold.threshold(a, b)
    return threshold if isinstance(threshold, Threshold) else Threshold(threshold, "fixed")


def _statistically_clear(a: Row, b: Row) -> tuple[bool, str]:
    """Whether the runs' own measurements tell the two medians apart, and how that was asked."""
    if len(a.samples_s) >= MIN_SAMPLES_FOR_U and len(b.samples_s) >= MIN_SAMPLES_FOR_U:
        _, p = mann_whitney_u(a.samples_s, b.samples_s)
        return p < SIGNIFICANCE, f"Mann-Whitney U, p={p:.3g}"
    if a.stddev_s is not None and b.stddev_s is not None:
        mean_a = a.mean_s if a.mean_s is not None else a.time_s
        mean_b = b.mean_s if b.mean_s is not None else b.time_s
        overlap = (mean_a - a.stddev_s <= mean_b + b.stddev_s
                   and mean_b - b.stddev_s <= mean_a + a.stddev_s)
        return not overlap, "mean±stddev " + ("overlap" if overlap else "apart")
    return True, "single numbers"


def verdict_for(a: Row, b: Row,
                threshold: float | Threshold = DEFAULT_THRESHOLD) -> tuple[str, str]:
    """(verdict, method) for B relative to A; time lower is better. Faster or slower only when
    the runs' measurements tell the medians apart AND the ratio is past the threshold."""
    limit = row_threshold(threshold, a, b)
    ratio = b.time_s / a.time_s
    clear, test = _statistically_clear(a, b)
    beyond = abs(math.log(ratio)) > math.log1p(limit.value)
    verdict = (FASTER if ratio < 1 else SLOWER) if clear and beyond else SAME
    return verdict, f"{test}; threshold ±{limit.text}"


def _skip_reason(a: Row, b: Row) -> str:
    reason = (a.error_message if a.skipped else None) or (b.error_message if b.skipped else None)
    return reason or "no time"


def compare_runs(run_a: Run, run_b: Run, threshold: float | NoiseModel = DEFAULT_THRESHOLD):
    """(comparisons, names only in A, only in B, (name, reason) skipped in either) for the rows
    of A and B joined by name; threshold: a NoiseModel or one fixed relative change."""
    rows_a = {r.name: r for r in run_a.rows}
    rows_b = {r.name: r for r in run_b.rows}
    comparisons, skipped = [], []
    for name in (n for n in rows_a if n in rows_b):
        a, b = rows_a[name], rows_b[name]
        if not (a.usable and b.usable):
            skipped.append((name, _skip_reason(a, b)))
            continue
        limit = row_threshold(threshold, a, b)
        verdict, method = verdict_for(a, b, limit)
        comparisons.append(Comparison(name, a, b, b.time_s / a.time_s, verdict, method, limit,
                                      ratio_interval(a.samples_s, b.samples_s)))
    only_a = [n for n in rows_a if n not in rows_b]
    only_b = [n for n in rows_b if n not in rows_a]
    return comparisons, only_a, only_b, skipped


def gated(c: Comparison, percent: float) -> bool:
    """Whether --fail-on-regression PCT judges this row: its threshold is at most PCT, so its
    noise can tell a PCT regression from the machine (noise.py says why the others are not)."""
    return c.threshold is not None and c.threshold.value <= percent / 100


def slower_beyond(comparisons: list[Comparison], percent: float) -> list[Comparison]:
    """Rows slower beyond their threshold AND by more than percent, worst first (a "not
    comparable" row is not judged, so never one of them)."""
    return sorted((c for c in comparisons if c.verdict == SLOWER and c.ratio - 1 > percent / 100),
                  key=lambda c: -c.magnitude)


def regressions(comparisons: list[Comparison], percent: float) -> list[Comparison]:
    """What fails a CI (--fail-on-regression PCT): the gated rows of slower_beyond."""
    return [c for c in slower_beyond(comparisons, percent) if gated(c, percent)]


def ungated_regressions(comparisons: list[Comparison], percent: float) -> list[Comparison]:
    """The rest of slower_beyond: reported, not failed on (their kind moves past PCT between runs
    of identical code)."""
    return [c for c in slower_beyond(comparisons, percent) if not gated(c, percent)]
