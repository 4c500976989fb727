"""A row's rates from its counters and a run's numbers from its context: facts the loader, the
ceilings and the analysis all read, in a module that imports none of them."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .loader import Row


def _giga_per_s(rate: float | None, row: Row, per_iter_counter: str) -> float | None:
    """A rate in units of 1e9 per second: the one Google Benchmark reported, else the row's
    per-iteration counter over its time."""
    if rate is not None:
        return rate / 1e9
    per_iter = row.counter(per_iter_counter)
    if per_iter and row.time_s:
        return per_iter / row.time_s / 1e9
    return None


def gb_per_s(row: Row) -> float | None:
    return _giga_per_s(row.bytes_per_second, row, "bytes_per_iter")


def gflop_per_s(row: Row) -> float | None:
    return _giga_per_s(row.flop_per_s, row, "flop_per_iter")


def achieved_flop_per_s(row: Row) -> float | None:
    value = gflop_per_s(row)
    return None if value is None else value * 1e9


def arithmetic_intensity(row: Row) -> float | None:
    flop = row.counter("flop_per_iter")
    nbytes = row.counter("bytes_per_iter")
    if flop and nbytes:
        return flop / nbytes
    return None


def context_number(run_or_ctx, key: str) -> float | None:
    context = run_or_ctx if isinstance(run_or_ctx, dict) or run_or_ctx is None \
        else run_or_ctx.context
    raw = context.get(key) if context else None
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value > 0 else None
