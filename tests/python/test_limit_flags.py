"""No figure above its own limit goes unflagged: over every committed run, a row whose % of the one
limit it is held to (the run's, or the loader's for a file from before the run wrote it) is above
100 carries `suspect` with what to suspect, and the rendered report shows the flag for it."""

from __future__ import annotations

import pytest

from answer import REPO_ROOT, RUNS
from twinbench.report import ceilings as ce
from twinbench.report import tables
from twinbench.report.analyze import analyze
from twinbench.report.document import to_markdown
from twinbench.report.loader import load_run
from twinbench.report.render import suspect_blocks


@pytest.fixture(scope="module", params=RUNS)
def analysis(request):
    return analyze(load_run(REPO_ROOT / request.param))


def _above(rows) -> list:
    return [r for r in rows if (limit := ce.row_limit(r)) is not None and limit.pct > 100]


def test_every_row_above_its_limit_is_flagged(analysis):
    # The run flags every row above its limit at its median (its reason says whether the slow
    # end of the median's interval is above too); the loader does the same for older files.
    unflagged = [f"{row.name}: {ce.row_limit(row).short}" for row in _above(analysis.rows)
                 if not row.fields.get("suspect")]
    assert not unflagged, "\n".join(unflagged)


def test_every_row_has_one_limit_kind(analysis):
    kinds = {r.fields.get("limit_kind") for r in analysis.rows}
    assert kinds <= {"bandwidth", "compute", "link", "none"}, kinds


def test_the_report_shows_each_flag_with_its_reason(analysis):
    flagged = [r for r in analysis.rows if r.fields.get("suspect")]
    assert analysis.suspects == flagged
    text = to_markdown(suspect_blocks(analysis))
    for row in flagged:
        assert f"{row.name}: {row.fields['suspect']}" in text
        assert tables.ceiling_cell(row).endswith("(suspect)")
    assert bool(text) == bool(flagged)


def test_the_h200_run_flags_what_a_reviewer_found():
    # results/nvidia-h200/2026-12-04: serial axpy fp64 at 118 % of add over a 1.5 GiB working
    # set, the omp FMA above its measured FP32 roof, managed d2h "transfers" far above the pinned
    # link; lucas' 168-byte loop is latency, held to no bandwidth.
    run = load_run(REPO_ROOT / "results/nvidia-h200/2026-12-04/run.json.gz")
    rows = {r.name: r for r in run.rows}
    assert "add bandwidth" in rows["dtypes/serial/kernel:axpy/dtype:fp64/n:67108864"].fields["suspect"]
    assert "FP32 roof" in rows["dtypes/omp/kernel:fma/dtype:fp32/n:262144/k:1024/threads:16"] \
        .fields["suspect"]
    assert "pinned d2h link" in rows["transfers/cuda_managed/dir:d2h/bytes:262144"].fields["suspect"]
    assert rows["lucas/serial_iterative/n:20"].fields["limit_kind"] == "none"
