"""twinbench.report.calibrate_compare: its criteria checked on an A/A and an A/B pair."""

from __future__ import annotations

from conftest import repeated, write_run
from twinbench.report.calibrate_compare import injected_pattern, main

CONTEXT = {"gpu_name": "Test GPU", "cpu_model": "Test CPU", "quick": "false"}
BASE = [1.0, 1.005, 0.995, 1.002, 0.998, 1.004, 0.996, 1.001]
NAMES = [f"w{i}/cuda/n:1024/mode:kernel" for i in range(30)]
HOOK = "^w(1|2)/=5 (test hook: benchmarks matching /^w(1|2)// do 5% extra work per sample)"


def _run(path, factors=None, context=None):
    rows = []
    for name in NAMES:
        factor = (factors or {}).get(name.split("/")[0], 1.0)
        rows += repeated(name, [s * factor for s in BASE])
    return str(write_run(path, rows, {**CONTEXT, **(context or {})}))


def test_the_pattern_comes_from_the_context():
    assert injected_pattern({"inject_slowdown": HOOK}) == ("^w(1|2)/", 5.0)
    assert injected_pattern({}) is None


def test_a_clean_calibration_meets_every_criterion(tmp_path, capsys):
    a1 = _run(tmp_path / "a1.json")
    a2 = _run(tmp_path / "a2.json", {"w7": 1.01})
    b = _run(tmp_path / "b.json", {"w1": 1.05, "w2": 1.05}, {"inject_slowdown": HOOK})
    assert main(["--aa", a1, a2, "--ab", a1, b, "--out", str(tmp_path / "cal")]) == 0
    text = (tmp_path / "cal" / "calibration.md").read_text()
    assert "| A/A: at least 95% of rows same | yes | 30 of 30 same (100.0%); 0 flagged |" in text
    assert ("| A/B: every injected 5% slowdown on a GPU kernel row reported | yes | "
            "2 of 2 GPU kernel rows slower (2 injected rows in all) |") in text
    assert "| A/B: --fail-on-regression 5 would exit 1 | yes |" in text
    assert (tmp_path / "cal" / "aa" / "compare.md").exists()
    assert "all criteria met" in capsys.readouterr().out


def test_false_alarms_and_a_missed_slowdown_are_reported(tmp_path):
    a1 = _run(tmp_path / "a1.json")
    a2 = _run(tmp_path / "a2.json", {"w3": 1.3, "w4": 1.3})         # 2 of 30 flagged: 93% same
    b = _run(tmp_path / "b.json", {"w1": 1.05}, {"inject_slowdown": HOOK})  # w2 not slowed
    assert main(["--aa", a1, a2, "--ab", a1, b, "--out", str(tmp_path / "cal")]) == 1
    text = (tmp_path / "cal" / "calibration.md").read_text()
    assert "| A/A: at least 95% of rows same | NO | 28 of 30 same (93.3%); 2 flagged |" in text
    assert "| A/A: --fail-on-regression 5 would exit 0 | NO | 2 regression(s) |" in text
    assert "1 of 2 GPU kernel rows slower" in text


def test_a_b_run_without_the_hook_is_unusable(tmp_path, capsys):
    a1 = _run(tmp_path / "a1.json")
    assert main(["--aa", a1, a1, "--ab", a1, a1, "--out", str(tmp_path / "cal")]) == 2
    assert "no inject_slowdown" in capsys.readouterr().err
