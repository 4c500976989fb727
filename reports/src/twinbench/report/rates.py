"""A row's rates from its counters and a run's numbers from its context: facts the loader, the
ceilings and the analysis all read, in a module that imports none of them."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .loader import Row


def _giga_per_s(rate: float | None, row: Row, per_iter_counter: str) -> float | None:
    """A rate in 1e9 per second: the one Google Benchmark reported, else the row's
    per-iteration counter over its time."""
    per_iter = row.counter(per_iter_counter)
    if rate is None and per_iter and row.time_s:
        rate = per_iter / row.time_s
    return None if rate is None else rate / 1e9


def gb_per_s(row: Row) -> float | None:
    return _giga_per_s(row.bytes_per_second, row, "bytes_per_iter")


def gflop_per_s(row: Row) -> float | None:
    return _giga_per_s(row.flop_per_s, row, "flop_per_iter")


def achieved_flop_per_s(row: Row) -> float | None:
    value = gflop_per_s(row)
    return None if value is None else value * 1e9


def arithmetic_intensity(row: Row) -> float | None:
    flop, nbytes = row.counter("flop_per_iter"), row.counter("bytes_per_iter")
    return flop / nbytes if flop and nbytes else None


def context_number(run_or_ctx, key: str) -> float | None:
    """A positive finite number of a run's (or a context's) key, else None."""
    context = run_or_ctx if isinstance(run_or_ctx, dict) or run_or_ctx is None \
        else run_or_ctx.context
    try:
        value = float(context.get(key) if context else None)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value > 0 else None
