"""The report flags CPU rows measured while the CPU gave less than its best (reports/cpu_capacity)."""

from conftest import single, write_run

from reports.cpu_capacity import capacity_blocks, low_capacity_rows
from reports.document import Table, to_markdown
from reports.loader import load_run


def probed(name, ms, before, after):
    row = single(name, ms)
    row.update(cpu_probe_flops_before=before, cpu_probe_flops_after=after)
    return row


def test_a_row_whose_lower_probe_is_under_80_percent_of_the_median_is_flagged(tmp_path):
    """A burst (4.0) moves the median little; a row in a bad moment (1.3 against 2.6) is flagged."""
    run = load_run(write_run(tmp_path / "run.json", [
        probed("dot/omp/n:1024/threads:16", 1.0, 2.6e12, 2.6e12),
        probed("scan/omp/dtype:int32/n:1024/threads:16", 1.0, 2.6e12, 1.3e12),
        probed("conv2d/omp/image:64x64/filter:3/threads:16", 1.0, 2.6e12, 4.0e12),
        single("dot/cuda/n:1024/block:256", 0.1),
    ]))
    low = low_capacity_rows(run.rows)
    assert [r.name for r, _ in low] == ["scan/omp/dtype:int32/n:1024/threads:16"]
    assert low[0][1] == 1.3 / 2.6
    blocks = capacity_blocks(run.rows)
    assert blocks[0].note and "1 of 3 CPU rows" in blocks[0].text and "2.60 TFLOP/s" in blocks[0].text
    assert isinstance(blocks[1], Table) and blocks[1].rows[0][-1] == "50%"
    assert "| scan/omp/dtype:int32/n:1024/threads:16 | 2.60 | 1.30 | 50% |" in to_markdown(blocks)


def test_no_flag_says_so_and_no_probe_says_nothing(tmp_path):
    steady = load_run(write_run(tmp_path / "a.json", [
        probed("dot/omp/n:1024/threads:16", 1.0, 2.5e12, 2.6e12)]))
    blocks = capacity_blocks(steady.rows)
    assert len(blocks) == 1 and not blocks[0].note and "every one of the 1 CPU rows" in blocks[0].text
    old = load_run(write_run(tmp_path / "b.json", [single("dot/omp/n:1024/threads:16", 1.0)]))
    assert capacity_blocks(old.rows) == []
