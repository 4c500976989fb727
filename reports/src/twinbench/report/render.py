"""`render`: one or more runs -> PNG charts, report.md and report.html in a folder."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import analysis as an
from . import machine, multi_gpu, ncu, progress_table
from .analyze import Analysis, analyze, source_line  # noqa: F401  (source_line: its callers')
from .charts import CHARTS, ChartSpec
from .document import (Block, BulletList, Heading, Image, Paragraph, Table, to_html,
                       to_markdown)
from .first_screen import first_screen_blocks
from .loader import Row, Run, load_run, merge_runs
from .peers import numba_blocks
from .png import PNG, wait_all
from .tables import (block_choice_table, busy_table, ceilings_table, context_table,
                     cpu_gpu_table, environment_table, result_tables, roofs_note, roofs_table,
                     skipped_table, throttled_table)


@dataclass
class RenderResult:
    out_dir: Path
    charts: list[Path] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    @property
    def markdown(self) -> Path:
        return self.out_dir / "report.md"

    @property
    def html(self) -> Path:
        return self.out_dir / "report.html"


def _left_out_by_reason(specs: list[ChartSpec], context: dict) -> dict[str, list[str]]:
    """The charts the run has no data for, by reason: each reason said once."""
    status = context.get("gpu_status")
    by_reason: dict[str, list[str]] = {}
    for spec in specs:
        reason = "no data in this run"
        if spec.needs_gpu and status != "available":
            reason += f" ({an.NO_GPU_SAID_ABOVE})" if status else " (gpu_status not recorded)"
        by_reason.setdefault(reason, []).append(spec.key)
    return by_reason


def chart_blocks(run: Run, out_dir: Path, result: RenderResult) -> list[Block]:
    """Each drawn chart under its title (its caption); those left out in one list at the end."""
    blocks: list[Block] = [Heading("Charts")]
    left_out: list[ChartSpec] = []
    for spec in CHARTS:
        figure = spec.draw(run.rows, run.context)
        if figure is None:
            left_out.append(spec)
            continue
        path = out_dir / spec.filename
        result.charts.append(path)
        blocks += [Heading(spec.title, 3),
                   Image(spec.title, spec.filename, PNG(figure, path), caption=False)]
        note = spec.note(run.rows, run.context) if spec.note else None
        if note:
            blocks.append(Paragraph(note, note=True))
    if left_out:
        by_reason = _left_out_by_reason(left_out, run.context)
        result.left_out = [f"chart{'s' if len(keys) > 1 else ''} {', '.join(keys)} left out: "
                           f"{reason}" for reason, keys in by_reason.items()]
        blocks += [Heading("Charts left out", 3),
                   BulletList([f"{', '.join(keys)}: {reason}"
                               for reason, keys in by_reason.items()])]
    return blocks


def suspect_blocks(a: Analysis) -> list[Block]:
    """Rows above their own limit: a figure the hardware could not produce is a bug in the
    figure or in the limit until shown otherwise; each with what the run says to suspect."""
    if not a.suspects:
        return []
    return [Heading("Rows above their own limit", 3),
            Paragraph(f"{len(a.suspects)} row(s) are above the limit the run holds them to; "
                      "their figures are marked (suspect) in the tables.", note=True),
            BulletList([f"{r.name}: {r.fields['suspect']}" for r in a.suspects])]


def status_blocks(a: Analysis) -> list[Block]:
    """Everything that makes the numbers below incomplete, said up front."""
    notes = a.notes
    blocks: list[Block] = []
    if not a.run.rows:
        blocks.append(Paragraph("This run holds no benchmarks: nothing was measured (filter "
                                "matched nothing, or the run stopped before the first one).",
                                note=True))
    # A run without GPU rows opened with that and why (first_screen): said once.
    if notes.gpu_status and (not a.run.rows or any(r.is_gpu for r in a.measured)):
        blocks.append(Paragraph(notes.gpu_status, note=True))
    if notes.numba_status:
        blocks.append(Paragraph(notes.numba_status, note=True))
    if notes.timing:
        blocks.append(Paragraph(notes.timing))
    if a.skipped:
        blocks.append(Paragraph(f"{len(a.skipped)} benchmark(s) were skipped or failed; "
                                "see the last section for reasons.", note=True))
    return blocks


CEILINGS_TEXT = (
    "Bandwidth ceilings are measured at the start of the run by the suite's own kernels, one "
    "per access pattern (bytes read + written per second). Each row is held to the pattern "
    "whose share of reads is nearest its own: GPU kernel rows to the GPU set, serial rows to "
    "the one-thread set, omp rows to the all-thread set; e2e rows to none (PCIe-bound). Compute "
    "roofs are measured the same way; the GPU datasheet figures are shown beside them.")


def ceiling_blocks(context: dict) -> list[Block]:
    blocks: list[Block] = [Heading("Measured ceilings and roofs", 3), Paragraph(CEILINGS_TEXT)]
    tables = [t for t in (ceilings_table(context), roofs_table(context)) if t is not None]
    if not tables:
        blocks.append(Paragraph("This run recorded no ceilings or roofs."))
    why_not = roofs_note(context)
    return blocks + tables + ([Paragraph(why_not)] if why_not else [])


def _state_blocks(rows: list[Row], key: str, what: str, listed: list[Row],
                  table: Table | None) -> list[Block]:
    """"what: none (of N rows that record it)." or "what: k of N rows (below)." and the table;
    nothing when no row carries the counter."""
    carried = machine.with_counter(rows, key)
    if not carried:
        return []
    if not listed:
        return [Paragraph(f"{what}: none (of {len(carried)} rows that record it).")]
    return [Paragraph(f"{what}: {len(listed)} of {len(carried)} rows (below).", note=True),
            table]


def machine_state_blocks(a: Analysis) -> list[Block]:
    """What telemetry and energy could be read, and the rows measured while the GPU was
    throttled or the host was busy: their times are not the machine's best."""
    # The cache mode is said once, at the top, beside how times were taken.
    notes = (a.notes.cpu_isa, a.notes.gpu_telemetry, a.notes.cpu_energy)
    return ([Heading("Machine state during the run", 3)] + [Paragraph(n) for n in notes if n]
            + _state_blocks(a.measured, "gpu_throttled", "GPU rows measured while throttled",
                            a.throttled, throttled_table(a.throttled) if a.throttled else None)
            + _state_blocks(a.measured, "host_busy", "CPU rows measured while the host was busy "
                            "(load above half the CPUs)", a.busy,
                            busy_table(a.measured, a.busy)))


CPU_GPU_TEXT = (
    "Per problem, the fastest CPU row (serial or omp) against the fastest GPU row that times the "
    "kernel alone (cuda, thrust, cublas); the e2e speedup includes the transfers. Energy is the "
    "mean power while the row's samples ran × its median time (GPU: board power from NVML; "
    "CPU: RAPL package). energy CPU : GPU above 1× means the GPU used less energy for the same "
    "work.")


def cpu_gpu_blocks(a: Analysis) -> list[Block]:
    if not a.pairs:
        return []
    blocks: list[Block] = [Heading("CPU vs GPU: time and energy"), Paragraph(CPU_GPU_TEXT)]
    # An energy column left empty says why, in the run's own words.
    if not any(an.energy_per_iter_j(p.cpu) for p in a.pairs):
        blocks.append(Paragraph(a.notes.cpu_energy, note=True))
    if not any(an.energy_per_iter_j(p.gpu) for p in a.pairs):
        blocks.append(Paragraph(a.notes.gpu_telemetry or "GPU energy: not recorded in this run.",
                                note=True))
    return blocks + [cpu_gpu_table(a.pairs)]


RESULTS_TEXT = (
    "× serial / × omp: speedup over the serial and the fastest OpenMP row of the same problem "
    "size. % of limit: share of the one limit the run holds the row to (the bandwidth of the "
    "access pattern named, the roof of its precision, or its link; see the ceilings table); "
    "files without per-pattern ceilings: % of device copy (cudaMemcpy).")
BLOCKS_TEXT = (
    "suggested block: cudaOccupancyMaxPotentialBlockSize for the kernel; the last column is how "
    "much slower the suggested size ran (1.00× when it is the best).")


def result_blocks(run: Run) -> list[Block]:
    tables = result_tables(run.rows)
    blocks: list[Block] = [Heading("Results per workload and size"),
                           Paragraph(RESULTS_TEXT if tables else "No measured results.")]
    for title, table in tables:
        blocks += [Heading(title, 3), table]
    blocks_table = block_choice_table(run.rows)
    if blocks_table is not None:
        blocks += [Heading("Block size: best measured against the occupancy API's suggestion"),
                   Paragraph(BLOCKS_TEXT), blocks_table]
    skipped = skipped_table(run)
    if skipped is not None:
        blocks += [Heading("Skipped or failed benchmarks"), skipped]
    return blocks


def _chart(blocks_and_chart: tuple[list[Block], Path | None], result: RenderResult
           ) -> list[Block]:
    """A section's blocks, its chart file recorded."""
    blocks, chart = blocks_and_chart
    if chart is not None:
        result.charts.append(chart)
    return blocks


def _outside_project(context: dict) -> str | None:
    """The project whose workloads the run measured, where it is not the suite itself."""
    project = context.get("project")
    return project if project and project != "twinbench" else None


def report_title(context: dict) -> str:
    """The suite's runs are "twinbench report"; a project's own are its report."""
    project = _outside_project(context)
    return f"{project} report" if project else "twinbench report"


def project_subject(context: dict) -> str | None:
    """A project's run names the project, its version and revision as the subject, and
    twinbench's revision as the harness's; None for the suite's own runs."""
    project = _outside_project(context)
    if not project:
        return None
    version = context.get("project_version") or "?"
    revision = context.get("project_revision") or "not recorded"
    return (f"Subject: {project} {version}, revision {revision}. Harness: twinbench "
            f"{context.get('twinbench_version', '?')}, revision "
            f"{context.get('git_revision', 'not recorded')}.")


def build_document(a: Analysis, out_dir: Path, result: RenderResult) -> list[Block]:
    run = a.run
    # A cut-short run says so before anything else: its first line.
    blocks: list[Block] = []
    if run.partial:
        blocks.append(Paragraph("PARTIAL RUN: " + "; ".join(run.problems) + ".", note=True))
    blocks.append(Heading(report_title(run.context), 1))
    if subject := project_subject(run.context):
        blocks.append(Paragraph(subject))
    # The answer first: the headline, its chart and the summary table fill a 1400x900
    # first screen; what was run and how it was timed come right after.
    blocks += first_screen_blocks(a, out_dir, result.charts)
    # After the summary: the hardware counters' section (ncu: who named the limiters, why per
    # workload) and the live progress tables.
    blocks += ncu.report_blocks(run)
    if a.notes.progress:
        blocks.append(Paragraph("Progress: " + a.notes.progress))
    blocks += progress_table.progress_blocks(a.rows)
    blocks.append(Paragraph(a.notes.source))
    if a.notes.cache_mode:
        blocks.append(Paragraph(a.notes.cache_mode))
    blocks += status_blocks(a) + suspect_blocks(a)
    blocks += _chart(numba_blocks(a, out_dir), result)
    blocks += _chart(multi_gpu.section_blocks(run, out_dir), result)
    blocks += [Heading("Run context"), context_table(run.context),
               Heading("Method and machine"), Heading("Environment", 3),
               environment_table(a.context)]
    blocks += ceiling_blocks(a.context) + machine_state_blocks(a)
    blocks += chart_blocks(run, out_dir, result)
    return blocks + cpu_gpu_blocks(a) + result_blocks(run)


def render_run(run: Run, out_dir: str | Path, embed_images: bool = True) -> RenderResult:
    return render_analysis(analyze(run), out_dir, embed_images)


def render_analysis(a: Analysis, out_dir: str | Path, embed_images: bool = True) -> RenderResult:
    """The report of an analysis: report.md, report.html and the charts, in out_dir."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = RenderResult(out_dir)
    try:
        blocks = build_document(a, out_dir, result)
        result.markdown.write_text(to_markdown(blocks), encoding="utf-8")
        result.html.write_text(to_html(blocks, report_title(a.run.context), embed_images),
                               encoding="utf-8")
    finally:
        wait_all()  # every chart on disk, and none left drawing for the next render
    return result


def render(paths: list[str | Path], out_dir: str | Path, embed_images: bool = True) -> RenderResult:
    """Load the files (LoadError propagates) and write the report into out_dir."""
    return render_run(merge_runs([load_run(p) for p in paths]), out_dir, embed_images)
