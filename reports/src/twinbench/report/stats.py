"""The statistics the reports use, from scipy.stats (as Google Benchmark's tools/compare.py):
the Mann-Whitney U test, a distribution-free interval for a median (order statistics: the number
of samples below the median is Binomial(n, 1/2)), and a quantile. scipy is imported inside each
function, so that rendering a report needs only what its charts need."""

from __future__ import annotations

from functools import lru_cache

# Exact U distribution up to this many samples per side; normal beyond.
EXACT_LIMIT = 30


def mann_whitney_u(a: list[float], b: list[float]) -> tuple[float, float]:
    """Two-sided Mann-Whitney U test (scipy.stats, as Google Benchmark's tools/compare.py).
    Returns (U of a, p-value): the exact distribution up to EXACT_LIMIT samples a side without
    ties, else the normal approximation with tie and continuity corrections."""
    from scipy import stats
    m, n = len(a), len(b)
    if m == 0 or n == 0:
        raise ValueError("both samples need at least one value")
    if len(set(a) | set(b)) == 1:
        return m * n / 2, 1.0
    has_ties = len(set(a) | set(b)) < m + n
    exact = not has_ties and m <= EXACT_LIMIT and n <= EXACT_LIMIT
    result = stats.mannwhitneyu(a, b, alternative="two-sided",
                                method="exact" if exact else "asymptotic")
    return float(result.statistic), min(1.0, float(result.pvalue))


def u_test(a: list[float], b: list[float]) -> float | None:
    """The two-sided U test's p-value of b against a; None when a side has no samples."""
    if not a or not b:
        return None
    return mann_whitney_u(b, a)[1]


@lru_cache(maxsize=512)
def order_index(n: int, tail: float) -> tuple[int, float]:
    """(k, coverage): [x_(k), x_(n-1-k)] (0-based, sorted) is the narrowest order-statistic
    interval whose coverage of the median is at least 1 - 2 tail, or k = 0 with its coverage."""
    # scipy.special's binomial CDF, which scipy.stats.binom.cdf evaluates: importing it alone
    # takes 0.4 s on the 2-core development machine, scipy.stats 0.9 s of every render.
    from scipy.special import bdtr
    import numpy as np
    if n < 2:
        return 0, 0.0
    cdf = bdtr(np.arange(n // 2), n, 0.5)
    within = np.flatnonzero(cdf <= tail)
    k = int(within[-1]) if within.size else 0
    return k, 1.0 - 2.0 * float(cdf[k])


def median_interval(samples: list[float], level: float) -> tuple[float, float, float] | None:
    """(low, high, coverage) for the median of the positive finite samples at `level` (two-sided),
    the narrowest order-statistic interval that reaches it (or min..max with its coverage);
    None under two samples."""
    if len(samples) < 2:  # before numpy's import: ncu.py loads runs with a bare python3
        return None
    import numpy as np
    values = np.asarray(samples, dtype=float)  # None becomes NaN, dropped with the rest
    values = np.sort(values[np.isfinite(values) & (values > 0)])
    if len(values) < 2:
        return None
    k, coverage = order_index(len(values), (1 - level) / 2)
    return float(values[k]), float(values[len(values) - 1 - k]), coverage


def quantile(values: list[float], q: float) -> float:
    """The q-quantile by linear interpolation between order statistics (values non-empty)."""
    import numpy as np
    return float(np.quantile(np.asarray(values, dtype=float), q))
