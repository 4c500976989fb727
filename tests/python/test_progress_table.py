"""twinbench/report/progress_table.py on a small synthetic run: the best host-visible strategy per target,
how each row is read, the cuda_live twin's gap, and the blocks rendered to Markdown."""

from __future__ import annotations

from twinbench.report import progress_table as pt
from twinbench.report.document import Heading, Table, to_markdown
from twinbench.report.loader import rows_from_entries

BLOCK = "block:256"


def _entry(impl, target, strategy, counter, n, time_us, median, lo=None, hi=None, t_none=None,
           updates=None, distinct=None, slots=None, error=None):
    e = {
        "name": f"progress/{impl}/target:{target}/strategy:{strategy}/counter:{counter}/n:{n}/"
                f"{BLOCK}/manual_time",
        "run_type": "iteration", "iterations": 10, "real_time": time_us, "cpu_time": time_us,
        "time_unit": "us", "overhead_median_pct": median, "overhead_pct": median,
        "t_none_us": t_none if t_none is not None else time_us / (1 + median / 100),
    }
    for key, value in (("overhead_lo_pct", lo), ("overhead_hi_pct", hi),
                       ("updates_per_s", updates), ("distinct_updates", distinct),
                       ("slots", slots)):
        if value is not None:
            e[key] = value
    if error:
        e["error_occurred"] = True
        e["error_message"] = error
    return e


def _rows():
    entries = [
        # vector_add: the mapped word is pathological, the device counter cheap but not
        # host-visible; the persistent cuda_live kernel with slots is the best, its twin 2% off.
        _entry("cuda", "vector_add", "none", "mapped", 268435456, 725, 0.0),
        _entry("cuda", "vector_add", "per_block", "mapped", 268435456, 357855, 49246.0),
        _entry("cuda", "vector_add", "per_block", "device", 268435456, 963, 32.7),
        _entry("cuda_article", "vector_add", "per_thread", "device", 268435456, 7757, 744.0,
               distinct=1.0),
        _entry("cuda_live", "vector_add", "none", "slots64", 268435456, 740, 2.0, -0.1, 4.0),
        _entry("cuda_live", "vector_add", "live_block", "slots64", 268435456, 741, 0.10, -0.05,
               0.3, updates=5000.0, distinct=3.6, slots=1056),
        _entry("cuda_live", "vector_add", "live_block", "slots8", 268435456, 742, 0.20, 0.0, 0.4,
               slots=1056),
        # poisson 10M: 28 us, a 1% limit; the best is live_warp at 0.8%.
        _entry("cuda", "poisson", "live_block", "slots64", 10000000, 29.0, 1.5, 1.0, 2.0),
        _entry("cuda", "poisson", "live_warp", "slots64", 10000000, 28.8, 0.8, 0.5, 1.1),
        _entry("cuda", "poisson", "per_warp", "device", 10000000, 28.7, 2.3),
        _entry("cuda", "poisson", "live_block", "devslots8", 10000000, 28.7, 0.9),
        # sgemm: 40 ms, so a 0.5% limit, missed at 0.6%; a failed row is left out.
        _entry("cuda_live", "sgemm", "none", "slots64", 8192, 40000, 1.0),
        _entry("cuda_live", "sgemm", "live_block", "slots64", 8192, 40240, 0.6, 0.4, 0.9,
               t_none=40000, updates=20000.0, distinct=800.0, slots=4096),
        _entry("cuda_live", "sgemm", "live_block", "slots8", 8192, 1, 0.0, error="wrong count"),
    ]
    rows, problems = rows_from_entries(entries)
    assert not problems
    return rows


def test_reads_and_host_visibility():
    rows = {r.name: r for r in _rows()}
    by = {(r.impl, r.args["target"], r.args["strategy"], r.args["counter"]): r
          for r in rows.values()}
    assert pt.reads(by["cuda", "vector_add", "per_block", "mapped"]) == "load"
    assert pt.reads(by["cuda", "vector_add", "per_block", "device"]) == "copy"
    assert pt.reads(by["cuda_article", "vector_add", "per_thread", "device"]) == "after"
    assert pt.reads(by["cuda_live", "vector_add", "live_block", "slots8"]) == "load"
    assert pt.reads(by["cuda", "vector_add", "none", "mapped"]) == ""
    assert pt.is_twin_row(by["cuda_live", "vector_add", "none", "slots64"])
    # A copy on its own stream reads while the kernel runs: host-visible, as a load.
    assert pt.host_visible(by["cuda", "poisson", "per_warp", "device"])
    assert pt.reads(by["cuda", "poisson", "live_block", "devslots8"]) == "copy"
    assert pt.host_visible(by["cuda", "poisson", "live_block", "devslots8"])
    assert not pt.host_visible(by["cuda_article", "vector_add", "per_thread", "device"])


def test_best_host_visible_per_target_and_limits():
    rows = _rows()
    best = pt.best_host_visible(rows, ("vector_add", "268435456"))
    assert best.row.impl == "cuda_live" and best.row.args["counter"] == "slots64"
    assert best.overhead_pct == 0.10
    assert best.limit_pct == 1.0  # its twin ran 740 us, under 1 ms
    poisson = pt.best_host_visible(rows, ("poisson", "10000000"))
    # The cheapest of load and copy: live_warp's mapped slots (0.8%) over device slots (0.9%).
    assert poisson.row.args["strategy"] == "live_warp"
    assert poisson.limit_pct == 1.0 and poisson.met
    sgemm = pt.best_host_visible(rows, ("sgemm", "8192"))
    assert sgemm.limit_pct == 0.5  # a 40 ms kernel
    assert not sgemm.met
    assert sgemm.row.args["counter"] == "slots64"  # the failed slots8 row is not a candidate


def test_cuda_live_cost_against_the_suites_kernel_compounds_the_twin_gap():
    rows = _rows()
    gap = pt.twin_gap(rows, ("vector_add", "268435456"))
    assert gap == 2.0
    live = pt.best_host_visible(rows, ("vector_add", "268435456")).row
    assert abs(pt.vs_suite_kernel(live, gap) - ((1.001 * 1.02) - 1) * 100) < 1e-9
    cuda_row = pt.best_host_visible(rows, ("poisson", "10000000")).row
    assert pt.vs_suite_kernel(cuda_row, None) == 0.8


def test_blocks_render_to_markdown():
    blocks = pt.progress_blocks(_rows())
    assert isinstance(blocks[0], Heading)
    tables = [b for b in blocks if isinstance(b, Table)]
    assert len(tables) == 1 + 3  # overview + vector_add, poisson, sgemm
    md = to_markdown(blocks)
    assert "### progress — target:vector_add n:268435456" in md
    assert "live_block (best)" in md
    assert "[-0.05, +0.30]" in md
    overview = tables[0]
    assert [row[0] for row in overview.rows] == ["poisson", "sgemm", "vector_add"]
    sgemm = next(row for row in overview.rows if row[0] == "sgemm")
    assert sgemm[7] == "no" and sgemm[6] == "≤ 0.5 %"
    vadd = next(row for row in overview.rows if row[0] == "vector_add")
    assert vadd[8] == "+2.00 %"  # the twin's gap to the suite's kernel


def test_summary_text_names_the_worst_target():
    text = pt.summary_text(_rows())
    assert "≤ +0.80 %" in text and "poisson n:10000000" in text
    assert "2 of 3 within" in text


def test_no_progress_rows_no_blocks():
    assert pt.progress_blocks([]) == []
    assert pt.summary_text([]) is None


def test_numba_rows_read_as_their_counter_says_and_stay_out_of_the_best_cpp_row():
    # The article's Numba counter is copied after the kernel; kernel_progress's slots are loads
    # while it runs; a Numba row, however cheap, is never the suite's best strategy.
    rows = rows_from_entries([
        _entry("cuda", "poisson", "none", "slots8", 10000000, 28.5, 0.0),
        _entry("cuda", "poisson", "live_block", "slots8", 10000000, 29.0, 1.8),
        _entry("numba_cuda", "poisson", "per_thread", "device", 10000000, 1200, 0.3),
        _entry("numba_cuda", "poisson", "live_block", "slots8", 10000000, 1210, 0.8),
    ])[0]
    by_impl = {(r.impl, r.args["counter"]): r for r in rows}
    assert pt.reads(by_impl[("numba_cuda", "device")]) == "after"
    assert pt.reads(by_impl[("numba_cuda", "slots8")]) == "load"
    best = pt.best_host_visible(rows, ("poisson", "10000000"))
    assert best is not None and best.row.impl == "cuda"
