"""twinbench/report/pairing.py is the one place rows are paired: the speedup chart and the summary table
pair the same rows for the same question and print the same number for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from twinbench.report import analysis as an
from twinbench.report import charts, pairing, summary, units
from twinbench.report import reference as ref
from twinbench.report.loader import load_run

RUN = Path(__file__).resolve().parents[2] / ref.REFERENCE_RUN


def test_one_speedup_format():
    assert charts.fmt_speedup is units.fmt_speedup is summary.fmt_speedup
    assert [units.fmt_speedup(v) for v in (1234.5, 32.64, 1.234, 0.01234)] == \
        ["1,234×", "32.6×", "1.23×", "0.0123×"]


@pytest.mark.skipif(not RUN.is_file(), reason="no reference run in this checkout")
def test_the_chart_and_the_table_give_the_same_speedup_for_the_same_pair():
    rows = load_run(RUN).rows
    problems = an.group_by_problem(an.usable(rows))
    impls: dict[str, set[str]] = {}
    for row in rows:
        impls.setdefault(row.workload, set()).add(row.impl)
    matched = 0
    for c in pairing.speedup_comparisons(rows):
        if c.kind != "kernel":
            continue
        members = problems.get((c.workload, c.size_key), [])
        groups = pairing.like_for_like(members, impls[c.workload])
        table = [g for g in groups.values() if g.cpu is c.baseline and g.gpu is c.row]
        for g in table:
            matched += 1
            value = an.speedup(g.cpu, g.gpu)
            assert value == pytest.approx(c.speedup, rel=1e-12)
            assert units.fmt_speedup(value) == units.fmt_speedup(c.speedup)
    assert matched >= 5
