"""The report's summary section, first screen first: the headline, the chart under it and the
summary table cut to what a reader compares, narrow enough for a 1400 px window and plain
Markdown; every other column of the full summary (summary.summary_cells) follows per workload,
folded in HTML (<details>) and listed in Markdown; then how to read it and the crossover table.
A run without GPU rows opens with that, this machine's figures and the reference run
(reference.py). Every figure is read from the analysis (analyze.Analysis)."""

from __future__ import annotations

from pathlib import Path

from . import reference
from . import summary as su
from .document import Block, Detail, Details, Heading, Image, Paragraph, Table
from .loader import Row
from .png import PNG
from .speedup_chart import (CPU_FILENAME, CPU_TITLE, FILENAME, TITLE, cpu_chart, line_label,
                            speedup_chart, without_brackets)
from .summary import limit_cell  # noqa: F401  (one definition of the cell, used here by name)
from .units import fmt_time

NARROW_HEADERS = ["workload", "size", "best CPU", "best GPU kernel",
                  "GPU kernel × CPU (interval)", "CPU % of limit", "GPU % of limit", "limiter"]
CPU_ONLY_NARROW_HEADERS = ["workload", "size", "serial", "best CPU", "OpenMP × serial (interval)",
                           "CPU % of limit", "limiter"]
DETAILS_TEXT = ("Each workload in full: the implementations and their block sizes and threads, "
                "every speedup with its interval, the hardware ratio, energy, the Numba peer and "
                "the limiter with its figures.")


def time_cell(row: Row | None) -> str:
    """"3.01 ms omp": the time and which implementation (the detail has the tuning)."""
    return "–" if row is None else f"{fmt_time(row.time_s)} {row.impl}"


def limiter_cell(line: su.SummaryLine) -> str:
    """"GPU: memory bandwidth; e2e: PCIe transfers; CPU: latency / other": each side's limiter
    without its figures (they are in the % columns and the detail)."""
    return "; ".join(f"{side}: {_words(text)}" for side, text in line.limiters.items()) or "–"


def _words(text: str) -> str:
    """"too few threads: 2 blocks, 0 of a wave" -> "too few threads"; "compute: FMA pipe" stays."""
    words = without_brackets(text)
    head, sep, tail = words.partition(":")
    return head if sep and any(ch.isdigit() for ch in tail) else words


def narrow_cells(line: su.SummaryLine, gpu: bool = True) -> list[str]:
    best = line.best
    head = [line_label(line), " ".join(line.size_key) or "–"]
    if not gpu:
        return head + [time_cell(best.serial), time_cell(best.cpu), su.omp_speedup_cell(line),
                       limit_cell(best.cpu), limiter_cell(line)]
    return head + [time_cell(best.cpu), time_cell(best.gpu), su.speedup_cell(line.gpu_speedup),
                   limit_cell(best.cpu), limit_cell(best.gpu), limiter_cell(line)]


def narrow_table(lines: list[su.SummaryLine], gpu: bool = True) -> Table | None:
    if not lines:
        return None
    return Table(list(NARROW_HEADERS if gpu else CPU_ONLY_NARROW_HEADERS),
                 [narrow_cells(line, gpu) for line in lines], fit=True)


def detail_items(lines: list[su.SummaryLine], numba: bool, gpu: bool) -> list[Detail]:
    """Per line, every non-empty column of the full summary but the two that name it."""
    headers = su.summary_headers(numba, gpu)
    return [Detail(f"{line_label(line)}, {' '.join(line.size_key) or 'no size args'}",
                   [(h, c) for h, c in zip(headers, su.summary_cells(line, numba, gpu))
                    if h not in ("workload", "size") and c not in ("–", "")])
            for line in lines]


def chart_block(lines: list[su.SummaryLine], context: dict, gpu: bool,
                out_dir: Path | None) -> tuple[Image | None, Path | None]:
    """The first screen's chart, written beside the report when out_dir is given."""
    figure = speedup_chart(lines) if gpu else cpu_chart(lines, context)
    if figure is None:
        return None, None
    filename, title = (FILENAME, TITLE) if gpu else (CPU_FILENAME, CPU_TITLE)
    path = Path(out_dir) / filename if out_dir is not None else None
    return Image(title, filename, PNG(figure, path), caption=False), path


def first_screen_blocks(a, out_dir: Path | None = None,
                        charts: list[Path] | None = None) -> list[Block]:
    """The summary section of an analysis; charts: where to record the chart file written."""
    lines, gpu = a.lines, a.gpu
    no_gpu = [] if gpu or not a.run.rows else reference.no_gpu_blocks(a, out_dir)
    if not lines:
        return no_gpu
    blocks = no_gpu + ([Paragraph(a.headline, lead=True)] if a.headline else [])
    image, path = chart_block(lines, a.context, gpu, out_dir)
    if image is not None:
        blocks.append(image)
        if charts is not None and path is not None:
            charts.append(path)
    blocks += [Heading("Summary: how much faster, and why" if gpu
                       else "Summary: this machine's CPU"),
               narrow_table(lines, gpu=gpu), Paragraph(DETAILS_TEXT),
               Details(detail_items(lines, a.numba, gpu)),
               Paragraph(su.SUMMARY_TEXT if gpu else su.CPU_ONLY_SUMMARY_TEXT)]
    if a.numba:
        blocks.append(Paragraph(su.NUMBA_COLUMN_TEXT))
    if not a.cpu_energy_per_item:
        blocks.append(Paragraph(a.notes.cpu_energy))
    if not gpu:
        blocks += reference.two_machine_blocks(a)
    if a.crossover is not None:
        blocks += [Heading(su.CROSSOVER_TITLE, 3), Paragraph(su.CROSSOVER_TEXT), a.crossover]
    return blocks
