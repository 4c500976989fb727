"""The report's first screen: the headline, the chart under it, and the summary table
cut to what a reader compares, narrow enough for a 1400 px window and plain Markdown; every other
column of the summary follows per workload, folded in HTML (<details>) and listed in Markdown.

Built from the analysis' summary lines (analyze.Analysis.lines) and summary.py's cells, so the
narrow table, the folded detail and the chart read the same numbers; summary.summary_blocks says
how the table is read (its notes, the crossover table, a CPU-only run's opening) and sets these
blocks where it would put its wide table.
"""

from __future__ import annotations

from pathlib import Path

from . import ceilings as ce
from . import reference
from . import summary as su
from .document import Block, Detail, Details, Heading, Image, Paragraph, Table
from .headline import gpu_headline
from .loader import Row, Run
from .png import PNG
from .speedup_chart import (CPU_FILENAME, CPU_TITLE, FILENAME, TITLE, cpu_chart, limiter_sides,
                            line_label, own_limit, speedup_chart, without_brackets)
from .units import fmt_time

# ----------------------------------------------------------------- the narrow table

NARROW_HEADERS = ["workload", "size", "best CPU", "best GPU kernel",
                  "GPU kernel × CPU (interval)", "CPU % of limit", "GPU % of limit", "limiter"]
CPU_ONLY_NARROW_HEADERS = ["workload", "size", "serial", "best CPU", "OpenMP × serial (interval)",
                           "CPU % of limit", "limiter"]


def time_cell(row: Row | None) -> str:
    """"3.01 ms omp": the time and which implementation; block sizes and threads are in the
    folded detail."""
    return "–" if row is None else f"{fmt_time(row.time_s)} {row.impl}"


def limit_cell(row: Row | None, context: dict | None = None) -> str:
    """"95 % of add", "47 % of FP32 roof", "117 % of add (suspect)": the row's share of its own
    limit as the run wrote it, flagged where the run flagged it (ceilings.row_limit)."""
    limit = ce.row_limit(row)
    if limit is None:
        return "–"
    return limit.short + (" (suspect)" if limit.suspect else "")


def limiter_cell(line: su.SummaryLine) -> str:
    """"GPU: memory bandwidth; e2e: PCIe transfers; CPU: latency / other": each side's limiter
    without its figures (they are in the % columns; the folded detail has the full text)."""
    sides = limiter_sides(line.limiter)
    if not sides:
        return "–"
    return "; ".join(f"{side}: {_words(text)}" if side else _words(text)
                     for side, text in sides.items())


def _words(text: str) -> str:
    """The limiter's words without figures: "too few threads: 2 blocks, 0 of a wave" -> "too few
    threads" (the figures are in the detail); "compute: FMA pipe" stays whole."""
    words = without_brackets(text)
    head, sep, tail = words.partition(":")
    return head if sep and any(ch.isdigit() for ch in tail) else words


def narrow_cells(line: su.SummaryLine, context: dict, gpu: bool = True) -> list[str]:
    best = line.best
    head = [line_label(line), " ".join(line.size_key) or "–"]
    if not gpu:
        return head + [time_cell(best.serial), time_cell(best.cpu),
                       su.omp_speedup_cell(line), limit_cell(best.cpu),
                       limiter_cell(line)]
    return head + [time_cell(best.cpu), time_cell(best.gpu), su.speedup_cell(line.gpu_speedup),
                   limit_cell(best.cpu), limit_cell(best.gpu),
                   limiter_cell(line)]


def narrow_table(lines: list[su.SummaryLine], context: dict, gpu: bool = True) -> Table | None:
    if not lines:
        return None
    return Table(list(NARROW_HEADERS if gpu else CPU_ONLY_NARROW_HEADERS),
                 [narrow_cells(line, context, gpu) for line in lines], fit=True)


# ----------------------------------------------------------------- the folded detail

def detail_items(lines: list[su.SummaryLine], numba: bool, gpu: bool) -> list[Detail]:
    """Per line, every column of the full summary table but the two that name it, leaving out
    the empty ones."""
    headers = su.summary_headers(numba, gpu)
    out = []
    for line in lines:
        cells = su.summary_cells(line, numba, gpu)
        fields = [(h, c) for h, c in zip(headers, cells)
                  if h not in ("workload", "size") and c not in ("–", "")]
        title = f"{line_label(line)}, {' '.join(line.size_key) or 'no size args'}"
        out.append(Detail(title, fields))
    return out


DETAILS_TEXT = ("Each workload in full: the implementations and their block sizes and threads, "
                "every speedup with its interval, the hardware ratio, energy, the Numba peer and "
                "the limiter with its figures.")


# ----------------------------------------------------------------- the blocks

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
    """The summary of an analysis (analyze.Analysis) with the headline and chart before its
    heading and, in place of its wide table, the narrow one and the folded detail. A run without
    GPU rows keeps its opening (reference.no_gpu_blocks: no GPU and why, this machine's
    figures), the figures set as the headline. charts: where to record the chart file written."""
    lines, gpu = a.lines, a.gpu
    # A run without GPU rows opens with that, this machine's figures (its headline) and the
    # reference run, and sets its CPU rows beside the reference's GPU rows after the table.
    no_gpu = [] if gpu or not a.run.rows else reference.no_gpu_blocks(a.run, out_dir, lines,
                                                                      lead=bool(lines))
    if not lines:
        return no_gpu
    beside = [] if gpu else reference.two_machine_blocks(a.run, lines)
    opening: list[Block] = []
    if a.headline:
        opening.append(Paragraph(a.headline, lead=True))
    image, path = chart_block(lines, a.context, gpu, out_dir)
    if image is not None:
        opening.append(image)
        if charts is not None and path is not None:
            charts.append(path)
    table = [narrow_table(lines, a.context, gpu), Paragraph(DETAILS_TEXT),
             Details(detail_items(lines, a.numba, gpu))]
    return no_gpu + su.summary_blocks(a, opening=opening, table=table, beside=beside)
