"""`analyze(run)`: the facts a report states, computed once; every renderer (Markdown, HTML, the
charts, the first screen) reads this object and computes none of them again.

- `table`: the usable rows as a pandas DataFrame, one column per typed field the run wrote (the
  description's workload, impl, side, mode, algorithm, precision; the loader's kind; the size,
  median, samples; the limit each row is held to, its % of it and the flag), for grouping;
- `lines`: the summary, per workload at its headline size: the pairs like for like and best vs
  best, their speedups with intervals, the hardware ratios, the limiters and the flags
  (summary.summary_lines);
- `pairs`: per problem, the fastest CPU row against the fastest GPU kernel (pairing.cpu_gpu_pairs);
- `headline`: the headline's sentence; `gpu` and `numba`: what the run holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from . import analysis as an
from . import machine
from . import summary as su
from .headline import gpu_headline
from .loader import Row, Run
from .pairing import CpuGpuPair, cpu_gpu_pairs

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class Analysis:
    run: Run
    context: dict
    rows: list[Row]
    # Rows with a time (the source line's count; `rows` also drops times of zero) and skipped.
    measured: list[Row]
    skipped: list[Row]
    lines: list[su.SummaryLine]
    pairs: list[CpuGpuPair]
    gpu: bool
    numba: bool
    headline: str | None
    throttled: list[Row] = field(default_factory=list)
    busy: list[Row] = field(default_factory=list)
    # Rows above their own limit, flagged by the run (or, for older files, by the loader) with
    # what to suspect: the `suspect` field.
    suspects: list[Row] = field(default_factory=list)

    @cached_property
    def table(self) -> pd.DataFrame:
        """The usable rows as a DataFrame, built on first use: pandas' import alone is 0.3 s of
        a render on the 2-core development machine, where no section reads it."""
        return rows_table(self.rows)


COLUMNS = ["name", "workload", "impl", "side", "kind", "mode", "algorithm", "precision", "size",
           "median_s", "samples", "limit_kind", "limit", "pct_of_limit", "suspect", "gpu", "peer"]


def rows_table(rows: list[Row]) -> pd.DataFrame:
    """One row per benchmark, from the fields the run wrote for it."""
    import pandas as pd

    return pd.DataFrame(
        [(r.name, r.workload, r.impl, r.fields.get("side", ""), r.kind or "", r.mode or "",
          r.fields.get("algorithm", ""), r.precision or "", r.size_label, r.time_s,
          len(r.samples_s), r.fields.get("limit_kind", ""), r.fields.get("limit", ""),
          r.counter("pct_ceiling") if r.fields.get("limit_kind") != "none" else None,
          r.fields.get("suspect", ""), r.is_gpu, r.is_peer) for r in rows], columns=COLUMNS)


def analyze(run: Run) -> Analysis:
    rows = an.usable(run.rows)
    lines = su.summary_lines(run.rows, run.context, precisions=True)
    gpu = su.has_gpu_rows(run.rows)
    return Analysis(
        run=run, context=run.context, rows=rows, measured=run.ok_rows, skipped=run.skipped_rows,
 lines=lines, pairs=cpu_gpu_pairs(run.rows),
        gpu=gpu, numba=gpu and su.has_numba_rows(run.rows),
        headline=gpu_headline(lines, run.context) if gpu and lines else None,
        throttled=machine.throttled_rows(rows), busy=machine.busy_rows(rows),
        suspects=[r for r in rows if r.fields.get("suspect")])
