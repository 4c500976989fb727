"""`analyze(run)`: the facts a report states, computed once; every renderer (render.py's
document, first_screen.py, the charts) reads this object and computes none of them again.

- `lines`: the summary, per workload at its headline size (summary.summary_lines);
- `pairs`: per problem, the fastest CPU row against the fastest GPU kernel;
- `headline` (`cpu_figures` without GPU rows), `crossover`, `numba_points`: the answer, the
  crossover table and the Numba peers beside the C++; `notes`: how the run was run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import analysis as an
from . import machine, peers, progress_table, reference
from . import summary as su
from .document import Table
from .headline import gpu_headline
from .loader import Row, Run
from .pairing import CpuGpuPair, cpu_gpu_pairs


@dataclass
class Notes:
    """The run's own words on how it was run, each None (or "") where it has none."""
    gpu_status: str | None = None
    numba_status: str | None = None
    timing: str | None = None
    cache_mode: str | None = None
    cpu_isa: str | None = None
    gpu_telemetry: str | None = None
    cpu_energy: str = ""
    progress: str | None = None
    source: str = ""


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
    crossover: Table | None = None
    cpu_energy_per_item: bool = False   # any summary line's best CPU row has one
    peer_rows: bool = False         # the run holds Numba rows (measured or not)
    numba_points: list[peers.NumbaPoint] = field(default_factory=list)
    notes: Notes = field(default_factory=Notes)
    # A run with rows but no GPU rows: this machine's figures (its headline) and the committed
    # reference run its CPU rows are set beside.
    cpu_figures: str | None = None
    reference: Run | None = None



def notes(run: Run, rows: list[Row]) -> Notes:
    context = run.context
    return Notes(gpu_status=an.gpu_status_note(context),
                 numba_status=peers.numba_status_note(context),
                 timing=an.timing_note(run.ok_rows),
                 cache_mode=machine.cache_mode_note(context, run.rows),
                 cpu_isa=machine.cpu_isa_note(context, run.rows),
                 gpu_telemetry=machine.gpu_telemetry_note(context),
                 cpu_energy=machine.cpu_energy_note(context),
                 progress=progress_table.summary_text(rows), source=source_line(run))


def source_line(run: Run) -> str:
    """"Source: run.json. 848 measured benchmark(s) (673 C++, 175 Numba peers), 0 skipped, in
    8 min 19 s (...)": the time covers every row counted."""
    measured = run.ok_rows
    peer_count = sum(1 for r in measured if r.is_peer)
    split = f" ({len(measured) - peer_count} C++, {peer_count} Numba peers)" if peer_count else ""
    return (f"Source: {run.path}. {len(measured)} measured benchmark(s){split}, "
            f"{len(run.skipped_rows)} skipped{an.wall_time_note(run.context, bool(peer_count))}. "
            f"{an.stopping_note(run.context)}")


def analyze(run: Run) -> Analysis:
    rows = an.usable(run.rows)
    lines = su.summary_lines(run.rows, run.context, precisions=True)
    gpu = su.has_gpu_rows(run.rows)
    numba = su.has_numba_rows(run.rows)
    return Analysis(
        run=run, context=run.context, rows=rows, measured=run.ok_rows, skipped=run.skipped_rows,
        lines=lines, pairs=cpu_gpu_pairs(run.rows), gpu=gpu, numba=gpu and numba,
        headline=gpu_headline(lines, run.context) if gpu and lines else None,
        throttled=machine.throttled_rows(rows), busy=machine.busy_rows(rows),
        suspects=[r for r in rows if r.fields.get("suspect")],
        crossover=su.crossover_table(run.rows) if lines else None,
        cpu_energy_per_item=any(an.energy_per_item_j(line.best.cpu)
                                for line in lines if line.best.cpu),
        peer_rows=numba, numba_points=peers.numba_points(run.rows) if numba else [],
        notes=notes(run, rows),
        cpu_figures=None if gpu else reference.cpu_figures(lines, run.context),
        reference=None if gpu or not run.rows else reference.load_reference())
