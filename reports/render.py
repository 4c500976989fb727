"""`render`: one or more runs -> PNG charts, report.md and report.html in a folder."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from . import analysis as an
from .charts import CHARTS, ChartSpec
from .document import Block, Heading, Image, Paragraph, to_html, to_markdown
from .loader import Run, load_run, merge_runs
from .tables import context_table, result_tables, block_choice_table, skipped_table

PNG_DPI = 110


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


def _png_bytes(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=PNG_DPI)
    return buffer.getvalue()


def _left_out_line(spec: ChartSpec, context: dict) -> str:
    line = f"chart {spec.key} left out: no data in this run"
    status = context.get("gpu_status")
    if spec.needs_gpu and status != "available":
        line += f" (gpu_status: {status or 'not recorded'})"
    return line


def chart_blocks(run: Run, out_dir: Path, result: RenderResult) -> list[Block]:
    blocks: list[Block] = [Heading("Charts")]
    for spec in CHARTS:
        figure = spec.draw(run.rows, run.context)
        if figure is None:
            line = _left_out_line(spec, run.context)
            result.left_out.append(line)
            blocks.append(Paragraph(line))
            continue
        png = _png_bytes(figure)
        path = out_dir / spec.filename
        path.write_bytes(png)
        result.charts.append(path)
        blocks += [Heading(spec.title, 3), Image(spec.title, spec.filename, png)]
    return blocks


def status_blocks(run: Run) -> list[Block]:
    """Everything that makes the numbers below incomplete, said up front."""
    blocks: list[Block] = []
    if not run.rows:
        blocks.append(Paragraph("This run holds no benchmarks: nothing was measured "
                                "(filter matched nothing, or the run stopped before the first one).",
                                note=True))
    gpu_note = an.gpu_status_note(run.context)
    if gpu_note:
        blocks.append(Paragraph(gpu_note, note=True))
    timing = an.timing_note(run.ok_rows)
    if timing:
        blocks.append(Paragraph(timing))
    skipped = len(run.skipped_rows)
    if skipped:
        blocks.append(Paragraph(f"{skipped} benchmark(s) were skipped or failed; "
                                "see the last section for reasons.", note=True))
    return blocks


def build_document(run: Run, out_dir: Path, result: RenderResult) -> list[Block]:
    # A cut-short run says so before anything else: its first line.
    blocks: list[Block] = []
    if run.partial:
        blocks.append(Paragraph("PARTIAL RUN: " + "; ".join(run.problems) + ".", note=True))
    blocks += [Heading("twinbench report", 1),
               Paragraph(f"Source: {run.path}. "
                         f"{len(run.ok_rows)} measured benchmark(s), "
                         f"{len(run.skipped_rows)} skipped{an.wall_time_note(run.context)}. "
                         f"{an.stopping_note(run.context)}")]
    blocks += status_blocks(run)
    blocks += [Heading("Run context"), context_table(run.context)]
    blocks += chart_blocks(run, out_dir, result)
    tables = result_tables(run.rows)
    blocks.append(Heading("Results per workload and size"))
    if tables:
        blocks.append(Paragraph("× serial / × omp: speedup over the serial and the fastest "
                                "OpenMP row of the same problem size. % copy ceiling: share of "
                                "the device copy bandwidth measured at start."))
    else:
        blocks.append(Paragraph("No measured results."))
    for title, table in tables:
        blocks += [Heading(title, 3), table]
    blocks_table = block_choice_table(run.rows)
    if blocks_table is not None:
        blocks += [Heading("Block size: best measured against the occupancy API's suggestion"),
                   Paragraph("suggested block: cudaOccupancyMaxPotentialBlockSize for the kernel; "
                             "the last column is how much slower the suggested size ran (1.00× "
                             "when it is the best)."),
                   blocks_table]
    skipped = skipped_table(run)
    if skipped is not None:
        blocks += [Heading("Skipped or failed benchmarks"), skipped]
    return blocks


def render_run(run: Run, out_dir: str | Path) -> RenderResult:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = RenderResult(out_dir)
    blocks = build_document(run, out_dir, result)
    result.markdown.write_text(to_markdown(blocks), encoding="utf-8")
    result.html.write_text(to_html(blocks, "twinbench report"), encoding="utf-8")
    return result


def render(paths: list[str | Path], out_dir: str | Path) -> RenderResult:
    """Load the files (LoadError propagates) and write the report into out_dir."""
    return render_run(merge_runs([load_run(p) for p in paths]), out_dir)
