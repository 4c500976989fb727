"""The progress section: per target, what each way of counting costs the kernel and how live
the count is (bench/progress.cpp times every instrumented kernel against its uninstrumented twin
in cold pairs: the median pair's overhead with a distribution-free ~95% interval, the twin's
time, and the distinct values the host's poller saw).

How the host reads the count decides whether it is live: `load` (mapped host memory, a plain
load while the kernel runs), `copy` (device memory, a cudaMemcpyAsync on a stream of its own
while the kernel runs), both host-visible; `after` (the article's legacy-stream copy, and its
Numba peer's counter:device row: it waits for the kernel, so final values only). The H200
measured the same slots in device memory as cheap as or cheaper than in mapped host memory: the
kernels' reporting code costs, not the PCIe stores (gpu/progress.cuh). The Numba peers stay out
of the best C++ strategy per target. cuda_live strategy:none rows are no strategy: they time the
cuda_live kernels' twin against the suite's own kernel of the target.
"""

from __future__ import annotations

from dataclasses import dataclass

from .document import Block, Heading, Paragraph, Table
from .loader import Row
from .units import fmt_time

HOST_LOAD_COUNTERS = frozenset({"mapped", "slots64", "slots8", "managed"})
HOST_COPY_COUNTERS = frozenset({"device", "devslots64", "devslots8"})
# The bar: at most 1% for every target, 0.5% for targets whose kernel runs over 1 ms.
LIMIT_PCT = 1.0
LIMIT_LONG_PCT = 0.5
LONG_KERNEL_S = 1e-3


def _is_progress(row: Row) -> bool:
    return row.workload == "progress" and not row.skipped and not row.error_message


def is_twin_row(row: Row) -> bool:
    """cuda_live strategy:none: the twin timed against the suite's kernel, not a strategy."""
    return row.impl == "cuda_live" and row.args.get("strategy") == "none"


def reads(row: Row) -> str:
    """load, copy, after, or "" (nothing counted)."""
    if row.args.get("strategy") == "none":
        return ""
    if row.impl.startswith("cuda_article") or (
            row.family == "numba_cuda" and row.args.get("counter") == "device"):
        return "after"
    counter = row.args.get("counter", "")
    if counter in HOST_LOAD_COUNTERS:
        return "load"
    if counter in HOST_COPY_COUNTERS:
        return "copy"
    return ""


def host_visible(row: Row) -> bool:
    return reads(row) in ("load", "copy")


def overhead(row: Row) -> float | None:
    """The median pair's overhead in %, else (older files) the overhead of the sums."""
    value = row.counter("overhead_median_pct")
    return value if value is not None else row.counter("overhead_pct")


def _target_key(row: Row) -> tuple[str, str]:
    return row.args.get("target", "?"), row.args.get("n", "?")


def _n_sort(n: str) -> float:
    try:
        return float(n)
    except ValueError:
        return float("inf")


def targets(rows: list[Row]) -> list[tuple[str, str]]:
    keys = {_target_key(r) for r in rows if _is_progress(r)}
    return sorted(keys, key=lambda k: (k[0], _n_sort(k[1])))


def _of_target(rows: list[Row], key: tuple[str, str]) -> list[Row]:
    return [r for r in rows if _is_progress(r) and _target_key(r) == key]


def twin_gap(rows: list[Row], key: tuple[str, str]) -> float | None:
    """How far the cuda_live twin of a target is from the suite's kernel, in % (None: no twin)."""
    return next((overhead(r) for r in _of_target(rows, key) if is_twin_row(r)), None)


def vs_suite_kernel(row: Row, gap: float | None) -> float | None:
    """The row's cost against the suite's own kernel of the target: its overhead over the twin,
    compounded with the twin's gap for cuda_live rows (the twin of a cuda row is the suite's
    kernel itself)."""
    ov = overhead(row)
    if ov is None or row.impl != "cuda_live":
        return ov
    return None if gap is None else ((1 + ov / 100) * (1 + gap / 100) - 1) * 100


@dataclass
class Best:
    target: str
    n: str
    row: Row
    overhead_pct: float
    limit_pct: float
    kernel_s: float | None

    @property
    def met(self) -> bool:
        return self.overhead_pct <= self.limit_pct


def best_host_visible(rows: list[Row], key: tuple[str, str]) -> Best | None:
    """The host-visible strategy of the target with the lowest median overhead over its twin."""
    mine = [r for r in _of_target(rows, key)
            if host_visible(r) and not r.is_peer and overhead(r) is not None]
    if not mine:
        return None
    row = min(mine, key=lambda r: (overhead(r), r.name))
    twin_us = row.counter("t_none_us")
    kernel_s = (twin_us * 1e-6 if twin_us is not None else None) or row.time_s
    limit = LIMIT_LONG_PCT if kernel_s is not None and kernel_s > LONG_KERNEL_S else LIMIT_PCT
    return Best(key[0], key[1], row, overhead(row), limit, kernel_s)


def bests(rows: list[Row]) -> dict[tuple[str, str], Best]:
    """The best host-visible strategy of each target that has one."""
    found = {key: best_host_visible(rows, key) for key in targets(rows)}
    return {key: best for key, best in found.items() if best is not None}


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:+,.2f} %"


def _interval_cell(row: Row) -> str:
    lo, hi = row.counter("overhead_lo_pct"), row.counter("overhead_hi_pct")
    return "–" if lo is None or hi is None else f"[{lo:+.2f}, {hi:+.2f}]"


def _num(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "–"
    if value == 0:
        return "0"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.{digits}g}"


def strategy_label(row: Row) -> str:
    return "twin (none)" if is_twin_row(row) else row.args.get("strategy", "?")


def _counting(row: Row) -> str:
    """"cuda_live live_block slots8": what a best strategy is."""
    return f"{row.impl} {strategy_label(row)} {row.args.get('counter', '')}".strip()


def _order(row: Row) -> tuple:
    # Twin first (it qualifies every cuda_live row), then host-visible, then by overhead.
    ov = overhead(row)
    return (not is_twin_row(row), not host_visible(row), ov if ov is not None else float("inf"),
            row.name)


def target_table(rows: list[Row], key: tuple[str, str]) -> Table:
    gap = twin_gap(rows, key)
    best = best_host_visible(rows, key)
    out = []
    for r in sorted(_of_target(rows, key), key=_order):
        how = reads(r)
        mark = " (best)" if best is not None and r is best.row else ""
        out.append([
            r.impl,
            strategy_label(r) + mark,
            r.args.get("counter", "–"),
            "vs the suite's kernel" if is_twin_row(r) else (how or "–"),
            "yes" if host_visible(r) else "no",
            _pct(overhead(r)),
            _interval_cell(r),
            _pct(vs_suite_kernel(r, gap)) if not is_twin_row(r) else _pct(overhead(r)),
            _num(r.counter("updates_per_s")),
            _num(r.counter("distinct_updates")),
            _num(r.counter("slots")),
            fmt_time(r.time_s),
        ])
    headers = ["impl", "strategy", "counter", "host reads", "host-visible",
               "overhead (median pair)", "interval (~95%)", "vs the suite's kernel",
               "updates seen /s", "values seen a kernel", "slots", "time"]
    return Table(headers, out)


def overview_table(rows: list[Row]) -> Table | None:
    lines = [[best.target, best.n, fmt_time(best.kernel_s), _counting(best.row),
              _pct(best.overhead_pct), _interval_cell(best.row),
              f"≤ {best.limit_pct:g} %", "yes" if best.met else "no",
              _pct(twin_gap(rows, key)) if best.row.impl == "cuda_live" else "0 (the suite's)",
              _num(best.row.counter("updates_per_s"))] for key, best in bests(rows).items()]
    if not lines:
        return None
    return Table(["target", "n", "kernel", "best host-visible", "overhead", "interval (~95%)",
                  "limit", "met", "twin vs suite's kernel", "updates seen /s"], lines)


def progress_blocks(rows: list[Row]) -> list[Block]:
    """An overview (the best host-visible strategy per target against its limit), then one
    table per target and size; nothing without progress rows."""
    keys = targets(rows)
    if not keys:
        return []
    blocks: list[Block] = [
        Heading("Live progress: what counting costs each kernel"),
        Paragraph("Each instrumented kernel is timed against its twin (the same kernel with the "
                  "counting compiled out) in cold pairs; overhead is the median pair's, with a "
                  "~95% distribution-free interval of that median. Host reads: load (mapped "
                  "host memory, a plain load while the kernel runs), copy (device memory, a "
                  "cudaMemcpyAsync on another stream while the kernel runs), both host-visible; "
                  "after (the article's legacy-stream copy, which waits for the kernel: not "
                  "live). cuda_live kernels were written for "
                  "live progress (persistent grids, a long sgemm); their twin (none) row says "
                  "how far that kernel is from the suite's own. Updates seen: distinct values "
                  "the host's poller read, per second of kernel time and per kernel."),
    ]
    overview = overview_table(rows)
    if overview is not None:
        blocks += [Heading("Best host-visible strategy per target", 3), overview]
    for key in keys:
        blocks += [Heading(f"progress — target:{key[0]} n:{key[1]}", 3), target_table(rows, key)]
    return blocks


def summary_text(rows: list[Row]) -> str | None:
    """The best host-visible strategy's worst overhead over the targets ("host-visible live
    count: ≤ +0.31 % on 7 targets (worst poisson n:10000000, ...)"); None without live rows."""
    found = list(bests(rows).values())
    if not found:
        return None
    worst = max(found, key=lambda b: b.overhead_pct)
    met = sum(b.met for b in found)
    return (f"host-visible live count: ≤ {_pct(worst.overhead_pct)} on {len(found)} targets "
            f"(worst {worst.target} n:{worst.n}, {strategy_label(worst.row)} "
            f"{worst.row.args.get('counter', '')}; {met} of {len(found)} within its limit)")
