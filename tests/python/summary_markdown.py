"""The summary as report.md writes it: a narrow table on the first screen, then
per workload a list of the other columns. full_summary reads both back into the full table's
rows, so tests of what a column says need not care where the report puts it."""

from __future__ import annotations

import re

from conftest import markdown_tables
from twinbench.report import first_screen as fs

_ITEM = re.compile(r"^- \*\*(.+)\*\*$")
_FIELD = re.compile(r"^  - ([^:]+): (.*)$")


def narrow_summary(markdown: str) -> tuple[list[str], list[list[str]]]:
    """The first screen's table: (headers, lines)."""
    header, *lines = markdown_tables(markdown)[0]
    assert header in (fs.NARROW_HEADERS, fs.CPU_ONLY_NARROW_HEADERS), header
    return header, lines


def detail_items(markdown: str) -> list[tuple[str, dict[str, str]]]:
    """The folded detail's items, in order: (title, {column: cell})."""
    start = markdown.index(fs.DETAILS_TEXT)
    items: list[tuple[str, dict[str, str]]] = []
    for line in markdown[start:].splitlines()[1:]:
        if not line.strip():
            if items:
                break
            continue
        item, field = _ITEM.match(line), _FIELD.match(line)
        if item:
            items.append((item.group(1), {}))
        elif field and items:
            items[-1][1][field.group(1)] = field.group(2)
        else:
            break
    return items


def full_summary(markdown: str, headers: list[str]) -> dict[str, dict[str, str]]:
    """workload -> {column of the full summary table: cell}, "–" where the detail leaves a
    column out (empty); a workload with a line per precision keeps its last, as a dict of the
    full table's lines did."""
    rows = {}
    for title, fields in detail_items(markdown):
        label, size = title.split(", ", 1)
        cells = {h: "–" for h in headers}
        cells.update(fields)
        cells["workload"] = label.split()[0]
        cells["size"] = "–" if size == "no size args" else size
        rows[cells["workload"]] = cells
    return rows
