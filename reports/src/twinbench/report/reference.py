"""A run without a GPU still gets an answer: this machine's CPU figures first, then the committed
reference run (an H200 and its host) as the answer to "how much faster is the GPU", and this
machine's CPU rows beside the reference's GPU rows, labelled as two machines.
"""

from __future__ import annotations

import os
import statistics
from functools import lru_cache
from pathlib import Path

from . import analysis as an
from . import ceilings as ce
from . import summary as su
from .document import Block, Heading, Link, Paragraph, Table
from .loader import LoadError, Run, load_run

# The committed reference run and its report, relative to the repository.
REFERENCE_DIR = Path("results/nvidia-h200/2026-12-02b")
REFERENCE_RUN = REFERENCE_DIR / "run.json.gz"


def _repo_root() -> Path:
    """The checkout holding the reference run: this package's, else the working folder's."""
    for start in (Path(__file__).resolve(), Path.cwd().resolve()):
        for folder in start.parents if start.is_file() else (start, *start.parents):
            if (folder / REFERENCE_RUN).is_file():
                return folder
    return Path.cwd()


REPO_ROOT = _repo_root()
REFERENCE_REPORT = REFERENCE_DIR / "report" / "report.md"
REFERENCE_NAME = "the reference H200 run (results/nvidia-h200/2026-12-02b)"


def reference_href(out_dir: str | Path | None, target: Path = REFERENCE_REPORT,
                   root: Path = REPO_ROOT) -> str:
    """Relative from out_dir inside the repository (the link works in a clone and on GitHub),
    else the absolute path."""
    absolute = (root / target).resolve()
    if out_dir is not None:
        out = Path(out_dir).resolve()
        if out == root.resolve() or root.resolve() in out.parents:
            return Path(os.path.relpath(absolute, out)).as_posix()
    return str(absolute)


@lru_cache(maxsize=2)
def _load(path: str) -> Run | None:
    try:
        return load_run(path)
    except LoadError:
        return None


def load_reference(root: Path = REPO_ROOT) -> Run | None:
    path = root / REFERENCE_RUN
    return _load(str(path)) if path.is_file() else None


# ----------------------------------------------------------------- this machine's figures

def _median_range(values: list[float], fmt) -> str:
    values = sorted(values)
    return f"median {fmt(statistics.median(values))} ({fmt(values[0])}–{fmt(values[-1])})"


def _pct(value: float) -> str:
    return f"{value:.0f} %"


def cpu_figures(lines: list[su.SummaryLine], context: dict) -> str:
    """"OpenMP × serial: median 8.7× (2.1–58×) over 12 workloads; the best CPU row at a median
    64 % (3–95 %) of its access pattern's bandwidth ceiling (10 workloads) ..."""
    speedups = [line.omp_speedup.value for line in lines if line.omp_speedup]
    parts = []
    if speedups:
        parts.append(f"OpenMP × serial {_median_range(speedups, su.fmt_speedup)} over "
                     f"{len(speedups)} workload(s)")
    # Rows that move a few cache lines (lucas) are latency, whatever their bytes per second.
    streams = [line.best.cpu for line in lines if line.best.cpu and
               (line.best.cpu.counter("bytes_per_iter") or 0) >= su.MIN_STREAM_BYTES]
    bandwidth = [c.pct for c in (ce.row_ceiling(row) for row in streams) if c]
    if bandwidth:
        parts.append(f"the best CPU row at {_median_range(bandwidth, _pct)} of its access "
                     f"pattern's bandwidth ceiling ({len(bandwidth)} workload(s))")
    compute = [p for p in (ce.pct_of_roof(line.best.cpu, context,
                                          line.best.cpu.limit_side or "cpu_all")
                           for line in lines if line.best.cpu) if p]
    if compute:
        parts.append(f"at {_median_range(compute, _pct)} of its precision's compute roof "
                     f"({len(compute)} workload(s) that count FLOPs)")
    threads = context.get("omp_threads")
    where = f"This machine ({context.get('cpu_model') or 'CPU not recorded'}" + \
        (f", {threads} OpenMP threads" if threads else "") + ")"
    if not parts:
        return f"{where}: no CPU row measured."
    return f"{where}: " + "; ".join(parts) + "."


def no_gpu_blocks(a, out_dir: str | Path | None) -> list[Block]:
    """The opening of the report of an analysis without GPU rows (analyze.Analysis): there is
    no GPU and why, this machine's figures (its headline) and where the answer with a GPU is."""
    status = a.context.get("gpu_status") or "not recorded"
    blocks: list[Block] = [Paragraph(
        f"No GPU in this run (gpu_status: {status}): only the CPU side was measured, so this "
        "report gives no GPU speedup of its own. The reference answer, a GPU and its host "
        "measured by this suite, is the committed H200 report: ",
        note=True, link=Link("results/nvidia-h200/2026-12-02b/report",
                             reference_href(out_dir),
                             reference_href(out_dir, REFERENCE_REPORT.with_suffix(".html"))))]
    blocks.append(Paragraph(a.cpu_figures, lead=bool(a.lines)))
    if a.reference is None:
        blocks.append(Paragraph(f"The reference run ({REFERENCE_RUN}) is not in this checkout: "
                                "no comparison with its GPU rows.", note=True))
    return blocks


# ----------------------------------------------------------------- two machines

TWO_MACHINES_TITLE = "This machine's CPU beside the reference H200's GPU (two machines)"
TWO_MACHINES_HEADERS = ["workload", "size", "this machine's CPU", "H200 GPU kernel (reference)",
                        "H200 GPU × this CPU (two machines)",
                        "H200 GPU × its own host CPU (one machine)",
                        "H200 hardware ratio (one machine)"]


def _reference_lines(reference: Run) -> dict[tuple[str, tuple[str, ...], str], su.SummaryLine]:
    """The reference run's pairs at every size, by (workload, size, group key)."""
    out = {}
    by_problem = an.group_by_problem([r for r in an.usable(reference.rows) if not r.is_peer])
    impls: dict[str, set[str]] = {}
    for (workload, _), members in by_problem.items():
        impls.setdefault(workload, set()).update(r.impl for r in members)
    for (workload, size), members in by_problem.items():
        for key, best in su.like_for_like(members, impls[workload]).items():
            if best.gpu:
                out[(workload, size, key)] = su.SummaryLine(workload, size, best, None, None, {})
    return out


def _hardware_text(line: su.SummaryLine, context: dict) -> str:
    ratio = su.hardware_ratio(line.best.gpu, line.best.cpu, context)
    return ratio.text if ratio else "–"


def two_machine_table(lines: list[su.SummaryLine], reference: Run) -> Table | None:
    """Per workload of this run at its headline size: its best CPU row beside the reference's
    fastest GPU kernel of the same algorithm and precision at the same size, where it has one."""
    theirs = _reference_lines(reference)
    rows = []
    for line in lines:
        cpu = line.best.cpu
        key = su.group_key(line.best.algorithm, line.best.precision)
        ref = theirs.get((line.workload, line.size_key, key))
        if cpu is None or ref is None or ref.best.gpu is None:
            continue
        rows.append([line.workload, " ".join(line.size_key) or "–", su.row_cell(cpu),
                     su.row_cell(ref.best.gpu),
                     su.speedup_cell(su.speedup_of(cpu, ref.best.gpu)),
                     su.speedup_cell(ref.gpu_speedup), _hardware_text(ref, reference.context)])
    return Table(TWO_MACHINES_HEADERS, rows) if rows else None


def two_machine_blocks(a) -> list[Block]:
    """This run's best CPU rows beside the reference's GPU rows (a: analyze.Analysis)."""
    reference = a.reference
    if reference is None:
        return []
    table = two_machine_table(a.lines, reference)
    if table is None:
        return [Heading(TWO_MACHINES_TITLE, 3),
                Paragraph(f"None of this run's workloads was measured at a size "
                          f"{REFERENCE_NAME} has: nothing to set beside it.")]
    return [Heading(TWO_MACHINES_TITLE, 3),
            Paragraph(f"Two machines, not one: this run's best CPU row per workload beside the "
                      f"fastest GPU kernel of the same algorithm and precision at the same size "
                      f"in {REFERENCE_NAME}. The ratio mixes this CPU with that GPU; the last two "
                      "columns are the reference's own like-for-like figure (its GPU against its "
                      f"host's {reference.context.get('omp_threads', '?')} OpenMP threads), the "
                      "one to quote, and the ratio of that machine's limits to read it against."),
            table]
