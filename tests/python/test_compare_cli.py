"""`twinbench-report compare` for CI: --fail-on-regression's exit codes, --baseline, and the output led by
what changed beyond noise (largest first) with everything else counted as same."""

from __future__ import annotations

import pytest

from conftest import markdown_tables, repeated, write_run
from twinbench.report.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_REGRESSION, main
from twinbench.report.compare import CHANGED_HEADERS, compare

CONTEXT = {"gpu_name": "Test GPU", "cpu_model": "Test CPU", "quick": "false"}
# A GPU kernel row's samples: 0.5% spread; 8 of them measure the median to 0.3% (its standard
# error): e^(2 x hypot(the kind's 0.94%, 0.3%)) - 1 = 2.0%, under the 2% floor, which binds.
BASE = [1.0, 1.005, 0.995, 1.002, 0.998, 1.004, 0.996, 1.001]


def _rows(factors: dict[str, float], names=("a", "b", "c", "d", "e")) -> list[dict]:
    out = []
    for name in names:
        factor = factors.get(name, 1.0)
        out += repeated(f"w{name}/cuda/n:1024/mode:kernel", [s * factor for s in BASE])
    return out


def _pair(tmp_path, factors_b: dict[str, float], context_b: dict | None = None):
    a = write_run(tmp_path / "a.json", _rows({}), CONTEXT)
    b = write_run(tmp_path / "b.json", _rows(factors_b), {**CONTEXT, **(context_b or {})})
    return str(a), str(b)


def _main(tmp_path, a, b, *extra) -> int:
    return main(["compare", a, b, "--out", str(tmp_path / "out"), *extra])


def test_identical_runs_pass(tmp_path, capsys):
    a, b = _pair(tmp_path, {"c": 1.01})   # 1%: under the 2% threshold
    assert _main(tmp_path, a, b, "--fail-on-regression", "5") == EXIT_OK
    out = capsys.readouterr().out
    assert "5 matched: 0 slower and 0 faster beyond noise, 5 same" in out
    assert "no regression beyond 5% and noise" in out


def test_a_regression_beyond_pct_and_noise_fails(tmp_path, capsys):
    a, b = _pair(tmp_path, {"b": 1.10, "d": 1.30, "e": 0.7})
    assert _main(tmp_path, a, b, "--fail-on-regression", "5") == EXIT_REGRESSION
    captured = capsys.readouterr()
    assert "FAIL: 2 benchmark(s) slower by more than 5% and beyond noise" in captured.err
    # Worst first; the faster row is no regression.
    assert captured.err.index("wd/cuda") < captured.err.index("wb/cuda")
    assert "we/cuda" not in captured.err


def test_a_regression_under_pct_passes(tmp_path):
    a, b = _pair(tmp_path, {"b": 1.10})
    assert _main(tmp_path, a, b, "--fail-on-regression", "15") == EXIT_OK


def test_without_the_option_a_regression_still_exits_0(tmp_path, capsys):
    a, b = _pair(tmp_path, {"b": 1.5})
    assert _main(tmp_path, a, b) == EXIT_OK
    assert "slower wb/cuda/n:1024/mode:kernel: B/A 1.500" in capsys.readouterr().out


def test_runs_with_different_settings_are_not_judged_and_pass_with_a_warning(tmp_path, capsys):
    a, b = _pair(tmp_path, {"b": 1.5}, {"gpu_name": "Another GPU"})
    assert _main(tmp_path, a, b, "--fail-on-regression", "5") == EXIT_OK
    assert "settings differ" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-1", "x", "nan"])
def test_a_bad_pct_is_a_usage_error(tmp_path, value, capsys):
    a, b = _pair(tmp_path, {})
    with pytest.raises(SystemExit) as exit_info:
        _main(tmp_path, a, b, "--fail-on-regression", value)
    assert exit_info.value.code == EXIT_BAD_INPUT
    assert "--fail-on-regression" in capsys.readouterr().err


def test_a_baseline_of_one_run_is_a_usage_error(tmp_path, capsys):
    a, b = _pair(tmp_path, {})
    assert _main(tmp_path, a, b, "--baseline", a) == EXIT_BAD_INPUT
    assert "two or more runs" in capsys.readouterr().err


def test_a_baseline_that_saw_a_row_move_raises_its_threshold(tmp_path):
    """A row that moved 20% between two runs of A's code is not called slower for 10%."""
    a, b = _pair(tmp_path, {"b": 1.10, "c": 1.10})
    a2 = write_run(tmp_path / "a2.json", _rows({"b": 1.2}), CONTEXT)
    assert _main(tmp_path, a, b, "--fail-on-regression", "5") == EXIT_REGRESSION
    result = compare(a, b, tmp_path / "with_baseline", baseline=[a, a2])
    verdicts = result.verdicts()
    assert verdicts["wb/cuda/n:1024/mode:kernel"] == "same"
    assert verdicts["wc/cuda/n:1024/mode:kernel"] == "slower"
    thresholds = {c.name: c.threshold for c in result.comparisons}
    assert "baseline: this row in 2 runs" in thresholds["wb/cuda/n:1024/mode:kernel"].source
    assert _main(tmp_path, a, b, "--fail-on-regression", "5", "--baseline", a, str(a2)) \
        == EXIT_REGRESSION   # wc still regressed


def test_the_report_leads_with_the_changes_largest_first_and_counts_the_rest(tmp_path):
    a, b = _pair(tmp_path, {"a": 1.10, "b": 0.5, "c": 1.30, "d": 1.01})
    result = compare(a, b, tmp_path / "out")
    text = result.markdown.read_text()
    first = markdown_tables(text)[0]
    assert first[0] == CHANGED_HEADERS
    names = [cells[0].split("/")[0] for cells in first[1:]]
    assert names == ["wb", "wc", "wa"]          # |log|: 0.5x, then 1.3x, then 1.1x
    verdicts = [cells[1] for cells in first[1:]]
    assert verdicts == ["faster", "slower", "slower"]
    row = dict(zip(CHANGED_HEADERS, first[1]))
    low, high = (float(x) for x in row["95% interval"].strip("[]").split(", "))
    assert low < 0.5 < high
    # The medians' error from the exact order-statistic interval (stats.median_interval, at
    # least 95% coverage), a little wider than the normal approximation's, lifts it over the floor.
    assert row["threshold"].startswith(
        "2.0% (e^(2×1.0%)−1: GPU kernel default, medians' error 0.4%)")
    assert "3 of 5 benchmarks changed beyond noise, the largest change first; 2 are the same." \
        in text
    assert result.summary == "5 matched: 2 slower and 1 faster beyond noise, 2 same"
    assert text.index("## Changed beyond noise") < text.index("## Per benchmark")


def test_nothing_changed_says_so(tmp_path):
    a, b = _pair(tmp_path, {})
    text = compare(a, b, tmp_path / "out").markdown.read_text()
    assert "Nothing: all 5 benchmarks measured in both runs are the same within noise." in text
