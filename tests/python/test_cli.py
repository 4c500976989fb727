"""The command line end to end, including bad inputs and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import REPO_ROOT, write_run
from twinbench.report.cli import main


def test_not_json_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("<html>not a result</html>")
    assert main([str(bad), "--out", str(tmp_path / "out")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_json_without_benchmarks_exits_2(tmp_path, capsys):
    bad = tmp_path / "nobench.json"
    bad.write_text(json.dumps({"context": {"date": "x"}, "results": []}))
    assert main(["render", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert 'no "benchmarks" list' in capsys.readouterr().err


def test_missing_file_exits_2(tmp_path, capsys):
    assert main([str(tmp_path / "absent.json"), "--out", str(tmp_path / "out")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_compare_with_bad_input_exits_2(tmp_path, data_dir, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("")
    assert main(["compare", str(data_dir / "cpu_only_run.json"), str(bad),
                 "--out", str(tmp_path / "out")]) == 2
    assert "error:" in capsys.readouterr().err


def test_empty_benchmark_list_renders_a_report(tmp_path):
    path = write_run(tmp_path / "empty.json", [])
    assert main([str(path), "--out", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "report.md").read_text()
    assert "holds no benchmarks" in text
    # Every chart is left out for the same reason: said once, naming them all.
    assert text.count("no data in this run") == 1
    assert "- speedup, roofline, " in text


def test_partial_run_says_so(tmp_path, data_dir):
    assert main([str(data_dir / "partial_run.json"), "--out", str(tmp_path / "out")]) == 0
    assert "PARTIAL RUN: the file ends early" in (tmp_path / "out" / "report.md").read_text()


def test_cpu_only_run_leaves_gpu_charts_out(tmp_path, data_dir):
    assert main([str(data_dir / "cpu_only_run.json"), "--out", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "report.md").read_text()
    # Said once, in the opening (the status note below would repeat it).
    assert text.count("No GPU in this run (gpu_status: not built: TWINBENCH_WITH_CUDA=OFF)") == 1
    assert "GPU variants were not built" not in text
    assert ("- occupancy, transfers, streams, progress, crossover: no data in this run "
            "(no GPU in this run: the note at the top says why)") in text
    # The reason itself, once in the whole report: tables and lists point to the note.
    assert text.count("not built: TWINBENCH_WITH_CUDA=OFF") == 1
    assert (tmp_path / "out" / "speedup.png").exists()
    assert not (tmp_path / "out" / "occupancy.png").exists()


def test_report_says_how_gpu_rows_were_timed(tmp_path):
    from conftest import single
    gated = dict(single("conv2d/cuda_tiled/w:64/h:64/f:5/block:32x8/mode:kernel", 0.02),
                 launch_gated=1)
    inline = dict(single("dot/thrust/n:1048576/mode:kernel", 0.03), launch_gated=0)
    path = write_run(tmp_path / "timed.json", [gated, inline])
    assert main([str(path), "--out", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "report.md").read_text()
    assert "1 row(s) timed behind the launch gate" in text
    assert "1 with the launch latency included" in text
    assert "dot/thrust/n:1048576/mode:kernel" in text


def test_gpu_report_files(gpu_report):
    names = {p.name for p in gpu_report.out_dir.iterdir()}
    assert {"report.md", "report.html", "speedup.png", "roofline.png", "occupancy.png",
            "transfers.png", "streams.png", "progress.png", "ceiling.png",
            "crossover.png"} <= names
    assert not gpu_report.left_out
    html = gpu_report.html.read_text()
    # The eight charts and the first screen's.
    assert html.count("data:image/png;base64,") == 9 and "first-screen-speedup.png" in names
    assert "src='speedup.png'" not in html  # self-contained


def _run_module(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT / "reports" / "src"))
    return subprocess.run([sys.executable, "-m", "twinbench.report", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_module_entry_point_end_to_end(tmp_path, data_dir):
    proc = _run_module(str(data_dir / "errors_run.json"), "--out", str(tmp_path / "out"),
                       cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "report.html").exists()
    assert list((tmp_path / "out").glob("*.png"))
    # Errored benchmarks appear as skipped, with their reason.
    text = (tmp_path / "out" / "report.md").read_text()
    assert "## Skipped or failed benchmarks" in text
    # One line per reason: the reason, how many benchmarks, which.
    assert ("| CUDA error: out of memory (cudaMalloc 34359738368 bytes) | 1 | "
            "dot/cuda/n:4294967296/block:256/mode:e2e |") in text
    assert "validation failed: max_rel_err 0.31 > 1e-5" in text


def test_report_script_compare(tmp_path, data_dir):
    script = REPO_ROOT / "scripts" / "report.sh"
    proc = subprocess.run(["bash", str(script), "compare", str(data_dir / "errors_run.json"),
                           str(data_dir / "errors_run.json"), "--out", str(tmp_path / "cmp")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "same" in (tmp_path / "cmp" / "compare.md").read_text()


def test_report_script_bad_input_exit_code(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    proc = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "report.sh"), str(bad),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert "error:" in proc.stderr


def test_partial_run_says_so_on_the_report_first_line(tmp_path):
    run = tmp_path / "cut.json"
    run.write_text(json.dumps({
        "context": {"benchmarks_planned": "40", "gpu_status": "available"},
        "benchmarks": [{"name": "dot/serial/n:1000/manual_time", "run_type": "iteration",
                        "iterations": 1, "real_time": 10.0, "cpu_time": 10.0, "time_unit": "us"}]}))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "twinbench.report", "render", str(run),
                           "--out", str(out)], cwd=REPO_ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    first = (out / "report.md").read_text().splitlines()[0]
    assert "PARTIAL RUN" in first and "1 of 40 benchmarks" in first


def _one_line_exit_2(args, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "twinbench.report", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


@pytest.mark.parametrize("threshold", ["-1", "nan", "inf", "0", "abc"])
def test_compare_threshold_must_be_a_positive_fraction(tmp_path, data_dir, threshold):
    sample = str(data_dir / "gpu_run.json")
    line = _one_line_exit_2(["compare", sample, sample, "--out", str(tmp_path / "o"),
                             f"--threshold={threshold}"], tmp_path)
    assert "--threshold" in line


def test_bad_drop_regex_is_one_line(tmp_path, data_dir):
    line = _one_line_exit_2(["merge", str(data_dir / "gpu_run.json"), "--out",
                             str(tmp_path / "m.json"), "--drop", "(["], tmp_path)
    assert "--drop" in line


@pytest.mark.parametrize("where", ["file", "under_file"])
def test_output_path_that_cannot_be_a_folder(tmp_path, data_dir, where):
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    out = blocker if where == "file" else blocker / "sub"
    line = _one_line_exit_2(["render", str(data_dir / "gpu_run.json"), "--out", str(out)],
                            tmp_path)
    assert "cannot write" in line


def test_entries_with_non_string_names_are_left_out(tmp_path):
    run = write_run(tmp_path / "r.json", [
        {"name": 5, "real_time": 1.0, "time_unit": "us", "iterations": 1},
        {"name": "dot/serial/n:10", "real_time": 1.0, "cpu_time": 1.0, "time_unit": "us",
         "iterations": 1}])
    out = tmp_path / "o"
    proc = subprocess.run([sys.executable, "-m", "twinbench.report", "render", str(run),
                           "--out", str(out)], cwd=REPO_ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "without a string name" in (out / "report.md").read_text()


def test_the_console_names_the_charts_left_out_once_per_reason(tmp_path, data_dir, capsys):
    assert main([str(data_dir / "cpu_only_run.json"), "--out", str(tmp_path / "out")]) == 0
    lines = [l for l in capsys.readouterr().out.splitlines() if "left out" in l]
    assert len(lines) == len({l.split(" left out: ")[1] for l in lines})
    assert any(l.startswith("charts ") and ", " in l for l in lines)
