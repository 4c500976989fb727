"""The gate (twinbench/report/gate.py) end to end, with a fake twinbench binary (fake_twinbench.py) whose
timings are chosen per process: identical code passes, a slowdown that holds fails, a one-off is
not reproduced, a row that moves from process to process is ambiguous, bad input exits 2."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from twinbench.report import gate
from twinbench.report.cli import main

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FAKE = HERE / "fake_twinbench.py"

KERNEL = "dot/cuda/n:1048576/block:256/mode:kernel"
KERNEL_2 = "vector_add/cuda/n:1048576/block:256/mode:kernel"
CPU_ROW = "dot/omp/n:268435456/threads:16"
SERIAL = "dot/serial/n:1048576"


def _rows(**factors) -> list[dict]:
    """The four rows, each with its factors per process (default: 1.0 every time)."""
    times = {KERNEL: 12e-6, KERNEL_2: 7e-6, CPU_ROW: 0.018, SERIAL: 1.2e-3}
    keys = {"kernel": KERNEL, "kernel_2": KERNEL_2, "cpu": CPU_ROW, "serial": SERIAL}
    chosen = {keys[k]: v for k, v in factors.items()}
    return [{"name": n, "time": t, "factors": chosen.get(n, [1.0])} for n, t in times.items()]


def fake_binary(tmp_path: Path, label: str, rows: list[dict], exit_code: int = 0,
                context: dict | None = None) -> Path:
    spec = tmp_path / f"{label}.spec.json"
    spec.write_text(json.dumps({"rows": rows, "exit": exit_code, "context": context or {}}))
    binary = tmp_path / f"twinbench-{label}"
    binary.write_text(
        "#!/bin/sh\n"
        f"FAKE_TWINBENCH_SPEC='{spec}' FAKE_TWINBENCH_STATE='{tmp_path / (label + '.state')}' "
        f"exec '{sys.executable}' '{FAKE}' \"$@\"\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return binary


def run_cli(*args: str) -> int:
    return main(["gate", *[str(a) for a in args]])


def verdicts(out: Path) -> dict[str, str]:
    data = json.loads((out / "gate.json").read_text())
    return {s["name"]: s["verdict"] for s in data["suspects"]}


def test_identical_code_exits_0(tmp_path):
    a = fake_binary(tmp_path, "a", _rows())
    b = fake_binary(tmp_path, "b", _rows())
    out = tmp_path / "out"
    assert run_cli("--a", a, "--b", b, "--out", out) == gate.EXIT_PASS
    assert verdicts(out) == {}
    summary = (out / "gate.md").read_text()
    assert "PASS: no confirmed regression" in summary
    assert "Confirm step: 0.0 s (no suspect)" in summary


def test_one_binary_twice_is_an_aa_pair(tmp_path):
    a = fake_binary(tmp_path, "a", _rows())
    assert run_cli("--a", a, "--b", a, "--out", tmp_path / "out") == gate.EXIT_PASS


def test_slowdown_every_time_is_confirmed_and_exits_1(tmp_path, capsys):
    a = fake_binary(tmp_path, "a", _rows())
    b = fake_binary(tmp_path, "b", _rows(kernel=[1.06]))
    out = tmp_path / "out"
    assert run_cli("--a", a, "--b", b, "--out", out) == gate.EXIT_REGRESSION
    assert verdicts(out) == {KERNEL: gate.CONFIRMED}
    printed = capsys.readouterr().out
    assert "FAIL: 1 confirmed regression(s)" in printed
    assert re.search(r"gate: confirm step took \d+\.\d s", printed)
    data = json.loads((out / "gate.json").read_text())
    rounds = data["suspects"][0]["rounds"]
    assert len(rounds) == gate.DEFAULT_ROUNDS
    for r in rounds:
        assert r["ratio"] == pytest.approx(1.06, rel=1e-3)
        assert r["interval"][0] <= r["ratio"] <= r["interval"][1]
        assert r["p"] < 0.05 and r["verdict"] == gate.ROUND_SLOWER


def test_slow_once_then_not_is_not_reproduced(tmp_path):
    a = fake_binary(tmp_path, "a", _rows())
    b = fake_binary(tmp_path, "b", _rows(kernel=[1.08, 1.0]))
    out = tmp_path / "out"
    assert run_cli("--a", a, "--b", b, "--out", out) == gate.EXIT_PASS
    assert verdicts(out) == {KERNEL: gate.NOT_REPRODUCED}
    assert "not reproduced" in (out / "gate.md").read_text()


def test_a_row_that_moves_between_processes_is_ambiguous_not_failed(tmp_path):
    a = fake_binary(tmp_path, "a", _rows())
    # The first run and round 2 slow, rounds 1 and 3 not: the slowdown does not hold.
    b = fake_binary(tmp_path, "b", _rows(kernel_2=[1.07, 1.0, 1.07, 0.99]))
    out = tmp_path / "out"
    assert run_cli("--a", a, "--b", b, "--out", out) == gate.EXIT_PASS
    assert verdicts(out) == {KERNEL_2: gate.AMBIGUOUS}


def test_regression_against_a_results_file(tmp_path):
    a = fake_binary(tmp_path, "a", _rows())
    a_json = tmp_path / "a.json"
    subprocess.run([a, f"--benchmark_out={a_json}"], check=True, capture_output=True)
    b = fake_binary(tmp_path, "b", _rows(kernel=[1.06]))
    out = tmp_path / "out"
    assert run_cli("--a", a_json, "--b", b, "--out", out) == gate.EXIT_REGRESSION
    assert verdicts(out) == {KERNEL: gate.CONFIRMED}
    assert "against A's samples" in (out / "gate.md").read_text()
    # A was not run again: only B's processes are in the confirm folder.
    assert not list((out / "confirm").glob("*-A.json"))
    assert len(list((out / "confirm").glob("*-B.json"))) == gate.DEFAULT_ROUNDS


def test_confirm_rounds_run_the_suspects_only_by_exact_name(tmp_path):
    a = fake_binary(tmp_path, "a", _rows())
    b = fake_binary(tmp_path, "b", _rows(kernel=[1.06]))
    out = tmp_path / "out"
    run_cli("--a", a, "--b", b, "--out", out, "--rounds", "2")
    for path in sorted((out / "confirm").glob("round*.json")):
        names = [e["name"] for e in json.loads(path.read_text())["benchmarks"]]
        assert names == [KERNEL + "/manual_time"]
    # A and B interleaved: A B in round 1, B A in round 2.
    assert sorted(p.name for p in (out / "confirm").glob("*.json")) == [
        "round1-A.json", "round1-B.json", "round2-A.json", "round2-B.json"]


def test_cpu_row_slowed_15_percent_is_confirmed_with_cpu_pct(tmp_path):
    a = fake_binary(tmp_path, "a", _rows())
    b = fake_binary(tmp_path, "b", _rows(cpu=[1.15]))
    out = tmp_path / "out"
    assert run_cli("--a", a, "--b", b, "--out", out, "--cpu-pct", "15") == gate.EXIT_REGRESSION
    assert verdicts(out) == {CPU_ROW: gate.CONFIRMED}


def test_cpu_rows_are_not_gated_by_default(tmp_path):
    # A CPU row's threshold without a baseline is about 50% (twinbench/report/noise.py): above --pct.
    a = fake_binary(tmp_path, "a", _rows())
    b = fake_binary(tmp_path, "b", _rows(cpu=[1.15]))
    out = tmp_path / "out"
    assert run_cli("--a", a, "--b", b, "--out", out) == gate.EXIT_PASS
    assert verdicts(out) == {}


@pytest.mark.parametrize("case", ["missing_a", "b_is_results", "b_fails", "a_garbage",
                                  "bad_env"])
def test_bad_input_exits_2(tmp_path, case, capsys):
    good = fake_binary(tmp_path, "a", _rows())
    args = {"missing_a": ["--a", tmp_path / "nope", "--b", good],
            "b_is_results": ["--a", good, "--b", tmp_path / "b.json"],
            "b_fails": ["--a", good, "--b", fake_binary(tmp_path, "b", _rows(), exit_code=1)],
            "a_garbage": ["--a", tmp_path / "garbage.json", "--b", good],
            "bad_env": ["--a", good, "--b", good, "--b-env", "NOEQUALS"]}[case]
    subprocess.run([good, f"--benchmark_out={tmp_path / 'b.json'}"], check=True,
                   capture_output=True)
    (tmp_path / "garbage.json").write_text("not json")
    assert run_cli(*args, "--out", tmp_path / "out") == gate.EXIT_BAD_INPUT
    assert "gate: error:" in capsys.readouterr().err


def test_usage_error_exits_2(tmp_path):
    with pytest.raises(SystemExit) as exc:
        run_cli("--a", tmp_path, "--b", tmp_path, "--rounds", "0")
    assert exc.value.code == gate.EXIT_BAD_INPUT


def test_b_env_reaches_only_b(tmp_path):
    # The injected slowdown of the real binary is an environment variable: it must not reach A.
    a = fake_binary(tmp_path, "a", _rows())
    printer = tmp_path / "env-b"
    printer.write_text(f"#!/bin/sh\necho \"MARK=$MARK\" >> '{tmp_path}/seen-b'\n"
                       f"exec '{a}' \"$@\"\n")
    printer.chmod(0o755)
    recorder = tmp_path / "env-a"
    recorder.write_text(f"#!/bin/sh\necho \"MARK=$MARK\" >> '{tmp_path}/seen-a'\n"
                        f"exec '{a}' \"$@\"\n")
    recorder.chmod(0o755)
    run_cli("--a", recorder, "--b", printer, "--out", tmp_path / "out", "--b-env", "MARK=on")
    seen_a = set((tmp_path / "seen-a").read_text().split())
    seen_b = set((tmp_path / "seen-b").read_text().split())
    assert seen_a == {"MARK="} and seen_b == {"MARK=on"}


def test_name_filter_selects_exact_names_with_time_suffixes():
    names = ["dot/cuda/n:1024/block:256/mode:kernel", "a.b/x+y/n:1"]
    pattern = re.compile(gate.name_filter(names))
    assert pattern.search("dot/cuda/n:1024/block:256/mode:kernel/manual_time")
    assert pattern.search("dot/cuda/n:1024/block:256/mode:kernel")
    assert pattern.search("a.b/x+y/n:1/real_time")
    assert not pattern.search("dot/cuda/n:10240/block:256/mode:kernel/manual_time")
    assert not pattern.search("xdot/cuda/n:1024/block:256/mode:kernel")
    assert not pattern.search("aXb/x+y/n:1")


def test_bench_command_uses_twinbench_flags(tmp_path):
    cmd = gate.bench_command(Path("/bin/twinbench"), tmp_path / "r.json", ["--quick"],
                             names=[KERNEL], workloads=["dot"], repetitions=3)
    assert cmd[0] == "/bin/twinbench" and "--quick" in cmd
    assert "--workload=dot" in cmd and "--no-ceilings" in cmd
    assert "--benchmark_repetitions=3" in cmd
    assert f"--benchmark_out={tmp_path / 'r.json'}" in cmd
    assert "--benchmark_out_format=json" in cmd
    assert any(c.startswith("--benchmark_filter=^(") for c in cmd)


def test_round_verdicts():
    def rnd(v):
        return gate.Round(1, 1.0, None, 0.01, v)
    slower, same = gate.ROUND_SLOWER, gate.ROUND_SAME
    assert gate.verdict_of([rnd(slower)] * 3) == gate.CONFIRMED
    assert gate.verdict_of([rnd(same)] * 3) == gate.NOT_REPRODUCED
    assert gate.verdict_of([rnd(slower), rnd(same), rnd(slower)]) == gate.AMBIGUOUS
    assert gate.verdict_of([rnd(same), gate.Round(2)]) == gate.AMBIGUOUS


def test_midpoint_is_halfway_in_log_space():
    assert gate.midpoint(5) == pytest.approx(1.05 ** 0.5 - 1)
    assert gate.midpoint(15) == pytest.approx(0.0724, abs=1e-4)


@pytest.mark.skipif(os.name != "posix", reason="a shell script")
def test_ci_gate_script_passes_exit_codes_and_prints_the_summary(tmp_path):
    a = fake_binary(tmp_path, "a", _rows())
    b = fake_binary(tmp_path, "b", _rows(kernel=[1.06]))
    env = {**os.environ, "PYTHON": sys.executable}
    script = REPO / "scripts" / "ci-gate.sh"
    same = subprocess.run(["bash", script, "--a", a, "--b", a, "--out", tmp_path / "aa"],
                          env=env, capture_output=True, text=True)
    assert same.returncode == 0, same.stderr
    assert "PASS: no confirmed regression" in same.stdout
    slow = subprocess.run(["bash", script, "--a", a, "--b", b, "--out", tmp_path / "ab"],
                          env=env, capture_output=True, text=True)
    assert slow.returncode == 1, slow.stderr
    assert "| **confirmed** |" in slow.stdout
    assert "confirm step took" in slow.stdout
    bad = subprocess.run(["bash", script, "--a", tmp_path / "nope", "--b", b],
                         env=env, capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2


def test_calibration_checks_the_gates_outputs(tmp_path, capsys):
    from twinbench.report.calibrate_compare import main as calibrate
    a = fake_binary(tmp_path, "a", _rows())
    hook = {"inject_slowdown": f"^{KERNEL}=6 (test hook)"}
    b = fake_binary(tmp_path, "b", _rows(kernel=[1.06]), context=hook)
    missed = fake_binary(tmp_path, "m", _rows(kernel=[1.06, 1.0]), context=hook)
    assert run_cli("--a", a, "--b", a, "--out", tmp_path / "aa") == 0
    assert run_cli("--a", a, "--b", b, "--out", tmp_path / "ab") == 1
    assert run_cli("--a", a, "--b", missed, "--out", tmp_path / "missed") == 0
    assert calibrate(["--gates", str(tmp_path / "aa"), str(tmp_path / "ab"),
                      "--out", str(tmp_path / "cal")]) == 0
    table = (tmp_path / "cal" / "gates.md").read_text()
    assert "1 of 1 (1 GPU kernel, 0 CPU rows)" in table
    assert calibrate(["--gates", str(tmp_path / "missed")]) == 1
    assert calibrate(["--gates", str(tmp_path / "nope")]) == 2


def test_bench_args_reach_every_run_and_repetitions_the_confirm_rounds(tmp_path):
    a = fake_binary(tmp_path, "a", _rows())
    b = fake_binary(tmp_path, "b", _rows(kernel=[1.06]))
    out = tmp_path / "out"
    assert run_cli("--a", a, "--b", b, "--out", out, "--bench-args=--workload=dot --quick",
                   "--repetitions", "2", "--rounds", "1") == gate.EXIT_REGRESSION
    first = [e["name"] for e in json.loads((out / "b.json").read_text())["benchmarks"]]
    assert first and all(n.startswith("dot/") for n in first)
    round_b = json.loads((out / "confirm" / "round1-B.json").read_text())["benchmarks"]
    assert [e["repetition_index"] for e in round_b] == [0, 1]
