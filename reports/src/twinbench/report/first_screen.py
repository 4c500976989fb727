"""The report's first screen: the headline, the chart under it, and the summary table
cut to what a reader compares, narrow enough for a 1400 px window and plain Markdown; every other
column of the summary follows per workload, folded in HTML (<details>) and listed in Markdown.

Built from summary.py's SummaryLine objects and its cells (summary_cells, summary_headers), so
the narrow table, the folded detail and the chart read the same numbers; summary.summary_blocks
still says how the table is read (its notes, the crossover table, a CPU-only run's opening), and
first_screen_blocks swaps its wide table for these.
"""

from __future__ import annotations

from pathlib import Path

from . import ceilings as ce
from . import summary as su
from .document import Block, Detail, Details, Heading, Image, Paragraph, Table
from .headline import gpu_headline
from .loader import Row, Run
from .speedup_chart import (CPU_FILENAME, CPU_TITLE, FILENAME, TITLE, cpu_chart, limiter_sides,
                            line_label, own_limit, speedup_chart, without_brackets)
from .units import fmt_time

# ----------------------------------------------------------------- the narrow table

NARROW_HEADERS = ["workload", "size", "best CPU", "best GPU kernel",
                  "GPU kernel × CPU (interval)", "CPU % of limit", "GPU % of limit", "limiter"]
CPU_ONLY_NARROW_HEADERS = ["workload", "size", "serial", "best CPU", "OpenMP × serial (interval)",
                           "CPU % of limit", "limiter"]
# A row's share of its own memory ceiling above this came from a cache (summary.CACHE_PCT).
CACHE_PCT = su.CACHE_PCT


def time_cell(row: Row | None) -> str:
    """"3.01 ms omp": the time and which implementation; block sizes and threads are in the
    folded detail."""
    return "–" if row is None else f"{fmt_time(row.time_s)} {row.impl}"


def limit_cell(row: Row | None, context: dict, suspect: bool = False) -> str:
    """"95 % of add", "47 % of FP32 roof", "300 % of add (cache)": the row's share of the limit
    it is nearest (speedup_chart.own_limit). suspect: the run's CPU ceilings are impossible
    (SummaryLine.suspect), so a CPU share above them is no cache; nor is a CPU row's whose data
    exceed the caches (it is above its measured ceiling)."""
    share = own_limit(row, context)
    if share is None:
        return "–"
    pct, bound, what = share
    text = f"{pct:.0f} % of {what}" + (" roof" if bound == "compute" else "")
    if bound == "bandwidth" and pct > CACHE_PCT:
        if suspect and not row.is_gpu:
            text += " (ceiling suspect)"
        elif ce.cpu_data_beyond_cache(row, context):
            text += f" ({ce.ABOVE_CEILING})"
        else:
            text += " (cache)"
    return text


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
                       su.omp_speedup_cell(line), limit_cell(best.cpu, context, line.suspect),
                       limiter_cell(line)]
    return head + [time_cell(best.cpu), time_cell(best.gpu), su.speedup_cell(line.gpu_speedup),
                   limit_cell(best.cpu, context, line.suspect), limit_cell(best.gpu, context),
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

def _png(figure) -> bytes:
    from .render import _png_bytes  # render imports this module
    return _png_bytes(figure)


def chart_block(lines: list[su.SummaryLine], context: dict, gpu: bool,
                out_dir: Path | None) -> tuple[Image | None, Path | None]:
    """The first screen's chart, written beside the report when out_dir is given."""
    figure = speedup_chart(lines) if gpu else cpu_chart(lines, context)
    if figure is None:
        return None, None
    png = _png(figure)
    filename, title = (FILENAME, TITLE) if gpu else (CPU_FILENAME, CPU_TITLE)
    path = None
    if out_dir is not None:
        path = Path(out_dir) / filename
        path.write_bytes(png)
    return Image(title, filename, png, caption=False), path


def _is_summary_table(block: Block, run: Run) -> bool:
    gpu = su._has_gpu_rows(run.rows)
    numba = gpu and su.has_numba_rows(run.rows)
    return isinstance(block, Table) and block.headers == su.summary_headers(numba, gpu)


def first_screen_blocks(run: Run, out_dir: Path | None = None,
                        charts: list[Path] | None = None) -> list[Block]:
    """summary.summary_blocks with the headline and chart before its heading and its wide table
    replaced by the narrow one and the folded detail. A run without GPU rows keeps its opening
    (reference.no_gpu_blocks: no GPU and why, this machine's figures), the figures set as the
    headline. charts: where to record the chart file written."""
    from . import reference

    blocks = su.summary_blocks(run, out_dir)
    lines = su.summary_lines(run.rows, run.context, precisions=True)
    if not lines:
        return blocks
    gpu = su._has_gpu_rows(run.rows)
    numba = gpu and su.has_numba_rows(run.rows)
    at = next((k for k, b in enumerate(blocks) if _is_summary_table(b, run)), None)
    if at is not None:
        narrow = narrow_table(lines, run.context, gpu)
        blocks[at:at + 1] = [narrow, Paragraph(DETAILS_TEXT),
                             Details(detail_items(lines, numba, gpu))]
    opening: list[Block] = []
    if gpu:
        text = gpu_headline(lines, run.context)
        if text:
            opening.append(Paragraph(text, lead=True))
    else:
        figures = reference.cpu_figures(lines, run.context)
        for block in blocks:
            if isinstance(block, Paragraph) and block.text == figures:
                block.lead = True
    image, path = chart_block(lines, run.context, gpu, out_dir)
    if image is not None:
        opening.append(image)
        if charts is not None and path is not None:
            charts.append(path)
    heading = next((k for k, b in enumerate(blocks) if isinstance(b, Heading)), len(blocks))
    blocks[heading:heading] = opening
    return blocks
