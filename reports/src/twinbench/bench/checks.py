"""Validation against a reference, as the suite's common/validate.hpp does it.

A variant passes when every element's |got - ref| / max(|ref|, scale_floor) is within the
workload's relative tolerance, with no NaN or Inf where the reference is finite. Outputs are
filled with NaN (or a negative integer) before the validating run, so an element a kernel never
wrote cannot pass by holding a stale value. A result of another type than the reference's, or a
write past the end of an output, is refused whatever its values (`ErrorStats.refused`). NumPy
only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Elements compared at a time: float64 copies of a 256M-element output would be 2 GiB each.
_CHUNK = 1 << 22


@dataclass(frozen=True)
class Tolerance:
    rel: float
    scale_floor: float = 0.0


@dataclass
class ErrorStats:
    max_abs: float = 0.0
    max_rel: float = 0.0
    worst_index: int = 0
    finite: bool = True
    size_matches: bool = True
    note: str = ""   # what a workload's own check adds (a statistic, a counter)
    refused: str = ""   # why the output is refused whatever its values (its type, a write
    #                     past its end)


def compare(got: np.ndarray, ref: np.ndarray, scale_floor: float = 0.0) -> ErrorStats:
    got = np.asarray(got).reshape(-1)
    ref = np.asarray(ref).reshape(-1)
    s = ErrorStats()
    if got.size != ref.size:
        s.size_matches = False
        return s
    floor = scale_floor if scale_floor > 0 else 1e-300
    for start in range(0, got.size, _CHUNK):
        g = got[start:start + _CHUNK].astype(np.float64)
        r = ref[start:start + _CHUNK].astype(np.float64)
        bad = ~np.isfinite(g) & np.isfinite(r)
        if bad.any():
            s.finite = False
            s.worst_index = start + int(np.argmax(bad))
            return s
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            abs_err = np.abs(g - r)
            rel_err = abs_err / np.maximum(np.abs(r), floor)
        abs_err = np.nan_to_num(abs_err, nan=0.0)   # NaN where the reference is NaN too
        rel_err = np.nan_to_num(rel_err, nan=0.0)
        if abs_err.size:
            s.max_abs = max(s.max_abs, float(abs_err.max()))
            i = int(np.argmax(rel_err))
            if rel_err[i] > s.max_rel:
                s.max_rel = float(rel_err[i])
                s.worst_index = start + i
    return s


def compare_scalar(got: float, ref: float, scale: float) -> ErrorStats:
    """A reduction's result: `scale` is what its rounding error is proportional to (sum |a b|
    for a dot product), so that cancellation cannot fail a correct result."""
    s = ErrorStats()
    if not math.isfinite(got):
        s.finite = False
        return s
    s.max_abs = abs(got - ref)
    s.max_rel = s.max_abs / max(abs(scale), 1e-300)
    return s


def compare_exact(got: np.ndarray, ref: np.ndarray) -> ErrorStats:
    """Integers and copies: every element equal. max_abs = the largest difference (for integers)
    or the count of differing elements (for bytes), max_rel = 1 if any differs."""
    got = np.asarray(got).reshape(-1)
    ref = np.asarray(ref).reshape(-1)
    s = ErrorStats()
    if got.size != ref.size:
        s.size_matches = False
        return s
    if got.dtype.kind == "f":
        bad = ~np.isfinite(got) & np.isfinite(ref)
        if bad.any():   # an element never written keeps the NaN it was poisoned with
            s.finite = False
            s.worst_index = int(np.argmax(bad))
            return s
    differ = got != ref
    if differ.any():
        s.worst_index = int(np.argmax(differ))
        if got.dtype == np.uint8:
            s.max_abs = float(np.count_nonzero(differ))
        else:
            s.max_abs = float(np.max(np.abs(got[differ].astype(np.float64)
                                            - ref[differ].astype(np.float64))))
        s.max_rel = 1.0
    return s


def passes(s: ErrorStats, tol: Tolerance) -> bool:
    return s.size_matches and s.finite and not s.refused and s.max_rel <= tol.rel


def describe(s: ErrorStats, tol: Tolerance) -> str:
    if s.refused:
        return s.refused
    if not s.size_matches:
        return "output size differs from the reference"
    if not s.finite:
        return f"non-finite output at index {s.worst_index}"
    floor = f", scale floor {tol.scale_floor:.3g}" if tol.scale_floor > 0 else ""
    text = (f"max rel error {s.max_rel:.3e} at index {s.worst_index} (tolerance {tol.rel:.1e}"
            f"{floor}), max abs error {s.max_abs:.3e}")
    return f"{text}; {s.note}" if s.note else text


# ---------------------------------------------------------------- guards after the outputs
#
# Every output is the front of a longer allocation: GUARD_ELEMENTS more elements follow it,
# filled with the poison pattern of the validating call and checked unchanged after it, so that a
# write past the end of an output is refused rather than landing in memory nobody looks at (the
# CPU's @njit code and a GPU kernel do not check bounds).

# The most a 1D kernel without its bounds test writes past the end is a block less one thread,
# and the largest block is 1024 threads.
GUARD_ELEMENTS = 1024
# Bytes a poisoned type without NaN is filled with, one validating call each (common/validate.hpp
# kPoisonBytes): an element left unwritten holds the pattern and mismatches in at least one call;
# an accumulator never reset ends at pattern + v, equal to the reference in at most one. 0xFF
# bytes are NaN for floating point.
POISON_BYTES = (0xFF, 0x55)


def fill_pattern(array: np.ndarray, pass_index: int) -> None:
    """The validating call's byte pattern in every byte (NaN for floating point)."""
    array.view(np.uint8).reshape(-1)[:] = POISON_BYTES[pass_index]


def guarded_empty(shape, dtype) -> tuple[np.ndarray, np.ndarray]:
    """(the output, its guard): a host array of `shape` and the GUARD_ELEMENTS that follow it
    in the same allocation."""
    size = int(np.prod(shape))
    whole = np.empty(size + GUARD_ELEMENTS, dtype=dtype)
    return whole[:size].reshape(shape), whole[size:]


def guard_written(guard: np.ndarray, pass_index: int) -> int:
    """The first element of `guard` that is not the pattern of `pass_index` (-1: none)."""
    changed = np.flatnonzero((guard.view(np.uint8).reshape(guard.size, -1)
                              != POISON_BYTES[pass_index]).any(axis=1))
    return int(changed[0]) if changed.size else -1


def past_the_end(name: str, size: int, offset: int) -> str:
    return (f"wrote past the end of output {name}: element {size + offset} (the output has "
            f"{size}) changed after the call; an index test such as `i < out.size` is missing "
            "or off by one")


def poison_value(dtype) -> object:
    """NaN for floats, the most negative value for integers (never a valid output here)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.nan
    return np.iinfo(dtype).min


# ---------------------------------------------------------------- Poisson (cpu/poisson.cpp)

CHI2_BINS = 16
CHI2_MIN_SIZE = 10_000     # below, the merged tail bin expects fewer than 5 counts
Z_999 = 3.090232306167813


def chi2_quantile_wh(dof: int, z: float) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile at the normal quantile z."""
    a = 2.0 / (9.0 * dof)
    c = 1.0 - a + z * math.sqrt(a)
    return dof * c * c * c


@dataclass
class PoissonStats:
    n: int
    mean: float
    variance: float
    z_mean: float
    z_var: float
    chi2: float
    dof: int
    chi2_limit: float
    negative: int

    def score(self) -> float:
        """<= 1 passes: the worst of |mean z| / 4, |variance z| / 4 and chi2 / chi2_0.999."""
        if self.negative > 0 or self.n == 0:
            return 1e30
        s = max(abs(self.z_mean), abs(self.z_var)) / 4.0
        if self.dof > 0:
            s = max(s, self.chi2 / self.chi2_limit)
        return s

    def describe(self) -> str:
        return (f"n={self.n} mean={self.mean:.6f} (z={self.z_mean:.2f}) var={self.variance:.6f} "
                f"(z={self.z_var:.2f}) chi2={self.chi2:.2f} (limit {self.chi2_limit:.2f}, dof "
                f"{self.dof}) negative={self.negative}")


def _chi2(hist, n: int, rate: float) -> tuple[float, int, float]:
    """Chi-square of the bins 0..15 (the last holding k >= 15) against Poisson(rate): (chi2, dof,
    its 0.999 quantile); (0, 0, 0) below CHI2_MIN_SIZE samples."""
    if n < CHI2_MIN_SIZE:
        return 0.0, 0, 0.0
    chi2 = 0.0
    p = math.exp(-rate)
    below = 0.0
    for k in range(CHI2_BINS):
        if k > 0:
            p *= rate / k
        prob = max(1.0 - below, 0.0) if k == CHI2_BINS - 1 else p
        below += p
        expected = n * prob
        chi2 += (float(hist[k]) - expected) ** 2 / expected
    dof = CHI2_BINS - 1
    return chi2, dof, chi2_quantile_wh(dof, Z_999)


def poisson_stats(x: np.ndarray, rate: float) -> PoissonStats:
    """Mean, variance and a chi-square over the bins 0..15 (the last holding k >= 15) of a
    sample against Poisson(rate), as tb::poisson::sample_stats; exact integer sums."""
    x = np.asarray(x).reshape(-1)
    n = x.size
    negative = int(np.count_nonzero(x < 0))
    valid = x[x >= 0].astype(np.int64)
    if n == 0:
        return PoissonStats(0, 0, 0, 0, 0, 0, 0, 0, negative)
    total = int(valid.sum())
    mean = total / n
    sq = float(((x.astype(np.float64) - mean) ** 2).sum())
    variance = sq / (n - 1) if n > 1 else 0.0
    z_mean = (mean - rate) / math.sqrt(rate / n)
    z_var = (variance - rate) / math.sqrt((rate + 2.0 * rate * rate) / n) if n > 1 else 0.0
    hist = np.bincount(np.minimum(valid, CHI2_BINS - 1), minlength=CHI2_BINS)
    chi2, dof, limit = _chi2(hist, n, rate)
    return PoissonStats(n, mean, variance, z_mean, z_var, chi2, dof, limit, negative)


def poisson_stats_from_counts(n: int, hist, negative: int, total: int, total_sq: int,
                              rate: float) -> PoissonStats:
    """poisson_stats from a sample's tallies, for samples too many to bring to the host: `hist`
    the counts of k = 0..15 (the last holding k >= 15), `negative` the count of negative values,
    `total` and `total_sq` the exact sums of k and k^2 over the others. The variance is that of
    the non-negative values (any negative one fails the check anyway)."""
    if n == 0:
        return PoissonStats(0, 0, 0, 0, 0, 0, 0, 0, negative)
    mean = total / n
    valid = n - negative
    sq = total_sq - 2.0 * mean * total + valid * mean * mean
    variance = max(sq, 0.0) / (n - 1) if n > 1 else 0.0
    z_mean = (mean - rate) / math.sqrt(rate / n)
    z_var = (variance - rate) / math.sqrt((rate + 2.0 * rate * rate) / n) if n > 1 else 0.0
    chi2, dof, limit = _chi2(hist, n, rate)
    return PoissonStats(n, mean, variance, z_mean, z_var, chi2, dof, limit, negative)
