"""What the report says of a CPU row above its ceiling, of CPU ceilings measured inside the L3
(--quick), and of CPU intervals from one process: the report side of the gate's CPU noise."""

from __future__ import annotations

from conftest import single, write_run
from twinbench.report import ceilings as ce
from twinbench.report import first_screen as fs
from twinbench.report import summary as su
from twinbench.report.loader import load_run
from twinbench.report.tables import ceilings_table

MIB = 1 << 20
CACHES = [{"level": 1, "size": 48 * 1024, "type": "Data"},
          {"level": 1, "size": 32 * 1024, "type": "Instruction"},
          {"level": 2, "size": 2 * MIB, "type": "Unified"},
          {"level": 3, "size": 300 * MIB, "type": "Unified"}]


def _context(array_bytes: int) -> dict:
    return {"caches": CACHES, "cpu_bw_array_bytes": array_bytes,
            "cpu_bw_triad_all_bytes_per_s": 48e9, "cpu_bw_triad_one_bytes_per_s": 12e9,
            "cpu_bw_add_all_bytes_per_s": 47e9, "cpu_bw_add_one_bytes_per_s": 12e9}


def _row(tmp_path, bytes_per_iter: float, pct: float, array_bytes: int = 512 * MIB):
    entry = single("vector_add/omp/n:268435456/threads:16", 28.0)
    entry.update(bytes_per_iter=bytes_per_iter, pct_ceiling=pct, ceiling_pattern=4.0,
                 ceiling_bytes_per_s=47e9)
    run = load_run(write_run(tmp_path / "r.json", [entry], _context(array_bytes)))
    return run.rows[0], run.context


def test_the_last_level_cache_is_the_largest_data_cache():
    assert ce.cpu_last_level_cache_bytes({"caches": CACHES}) == 300 * MIB
    assert ce.cpu_last_level_cache_bytes({}) is None


def test_a_row_whose_data_exceed_the_caches_is_above_its_ceiling_not_in_cache(tmp_path):
    row, context = _row(tmp_path, bytes_per_iter=3 * 1024 * MIB, pct=118.0)
    assert fs.limit_cell(row, context) == "118 % of add (suspect)"
    assert "no cache served them" in row.fields["suspect"]
    limiter = su.cpu_limiter(row, context)
    assert "above its measured ceiling" in limiter
    assert "cache bandwidth" not in limiter


def test_a_row_whose_data_fit_the_cache_is_still_read_as_cache(tmp_path):
    row, context = _row(tmp_path, bytes_per_iter=24 * MIB, pct=180.0)
    assert fs.limit_cell(row, context) == "180 % of add (suspect)"
    assert "suspect data served from a cache" in row.fields["suspect"]
    assert su.cpu_limiter(row, context).startswith("cache bandwidth")


def test_quick_ceilings_inside_the_l3_are_labelled_cache_ceilings(tmp_path):
    assert ce.cpu_ceilings_in_cache(_context(32 * MIB))
    assert not ce.cpu_ceilings_in_cache(_context(512 * MIB))
    assert not ce.cpu_ceilings_in_cache({"cpu_bw_array_bytes": 32 * MIB})  # no cache sizes
    quick = ceilings_table(_context(32 * MIB))
    assert any("cache ceiling: arrays inside the L3" in h for h in quick.headers)
    default = ceilings_table(_context(512 * MIB))
    assert not any("cache ceiling" in h for h in default.headers)


def test_summary_text_says_cpu_intervals_come_from_one_process():
    for text in (su.SUMMARY_TEXT, su.CPU_ONLY_SUMMARY_TEXT):
        assert "comes from one process only" in text
