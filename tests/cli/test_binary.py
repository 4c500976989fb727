"""Behaviour of the twinbench binary: bad input, exit codes, skips, the context it records.

Runs the binary built by scripts/test.sh (TWINBENCH_BIN, and TWINBENCH_CPU_BIN for the build
without CUDA). Speed is not asserted here: only what the user sees.
"""
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("TWINBENCH_BIN", ROOT / "build" / "twinbench"))
CPU_BIN = Path(os.environ.get("TWINBENCH_CPU_BIN", ROOT / "build-cpu" / "twinbench"))
TESTS_BIN = Path(os.environ.get("TWINBENCH_TESTS_BIN", ROOT / "build" / "tests" / "twinbench_tests"))


def run(*args, binary=BIN, env=None):
    if not binary.exists():
        pytest.skip(f"{binary} not built")
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def wait_for_first_row(proc, results_file, timeout=120):
    """Until the results file (`results_file()` gives its path, or None before it exists)
    holds a measured row, or the process ends: then a signal lands mid-run."""
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        path = results_file()
        if path is not None and path.exists() and '"samples"' in path.read_text():
            return
        time.sleep(0.1)


def run_json(tmp_path, *args, binary=BIN, env=None):
    out = tmp_path / "run.json"
    proc = run("--quick", *args, f"--benchmark_out={out}", "--benchmark_out_format=json",
               binary=binary, env=env)
    return proc, json.loads(out.read_text())


@pytest.mark.parametrize("pattern", ["dot(", "[serial", "-*omp"])
def test_invalid_filter_regex_is_named_as_such(pattern):
    """An invalid regex is not "no benchmark matches": the user is told the regex is invalid."""
    proc = run(f"--benchmark_filter={pattern}")
    assert proc.returncode == 2
    assert "is not a valid regex" in proc.stderr, proc.stderr
    assert "no benchmark matches" not in proc.stderr


def test_filter_counts_what_google_benchmark_runs(tmp_path):
    """The progress total is the rows that run: a POSIX extended regex, as Google Benchmark
    reads it, and a negated one."""
    for flt in ["dot/(serial|omp)/", "-cuda|thrust|cublas|numba"]:
        proc, data = run_json(tmp_path, "--workload=dot", f"--benchmark_filter={flt}", "--no-ceilings")
        assert proc.returncode == 0, proc.stderr
        ran = [b for b in data["benchmarks"] if not b.get("error_occurred")]
        assert ran
        assert int(data["context"]["benchmarks_planned"]) == len(ran)
        assert f"[1/{len(ran)} " in proc.stderr  # "[k/N elapsed]": N is what runs


def test_progress_total_is_what_runs_host_timed_gpu_rows_included(tmp_path):
    """alloc and sync time their CUDA rows on the host (registered as host rows): without a GPU
    they are not counted either ("[1/153] ... [1/114]" before), and N does not change."""
    import re
    proc, data = run_json(tmp_path, "--workload=alloc,sync", "--no-ceilings", "--no-telemetry")
    assert proc.returncode == 0, proc.stderr
    ran = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    totals = {int(m) for m in re.findall(r"^\[\d+/(\d+) ", proc.stderr, re.M)}
    assert totals == {len(ran)}, totals


def console_rows(stdout):
    """The compact table's rows: {name: [time, unit, rate, rate unit, percent, note...]}."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Benchmark "))
    return {line.split()[0]: line.split()[1:] for line in lines[start + 2:]
            if line and not line.startswith("-") and "SKIPPED" not in line}


def test_console_is_a_compact_table_within_120_columns(tmp_path):
    """One short line per row (time, rate, % of its ceiling, a note); every counter stays in the
    JSON. A skip's reason is said in full, once for the first row it skips and once for the count
    (a GPU build without a GPU), so those lines may be longer."""
    proc, data = run_json(tmp_path, "--workload=dot,vector_add")
    assert proc.returncode == 0, proc.stderr
    table = [line for line in proc.stdout.splitlines() if "SKIPPED" not in line]
    assert max(len(line) for line in table) <= 120, proc.stdout
    assert "Library was built as DEBUG" not in proc.stdout + proc.stderr
    header = next(line for line in proc.stdout.splitlines() if line.startswith("Benchmark "))
    assert header.split() == ["Benchmark", "Time", "Rate", "%", "ceiling", "Note"]
    rows = console_rows(proc.stdout)
    measured = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    assert measured and {b["name"] for b in measured} == set(rows)
    for b in measured:
        time, unit, rate, rate_unit, pct = rows[b["name"]][:5]
        assert unit in ("ns", "us", "ms", "s") and rate_unit.endswith("B/s"), rows[b["name"]]
        if "pct_ceiling" in b:  # the JSON's percentage, to the three digits shown
            shown = float(pct.rstrip("%")) if pct != "<0.01%" else 0.0
            assert pct.endswith("%") and shown == pytest.approx(b["pct_ceiling"], rel=0.01, abs=0.01)
        assert "=" not in " ".join(rows[b["name"]])  # no counters
        # Every counter stays in the results file.
        for counter in ("bytes_per_second", "samples", "median_s", "row_wall_s", "max_rel_err"):
            assert counter in b, (b["name"], counter)


def test_console_full_prints_google_benchmarks_line_with_pct_ceiling_as_a_percentage(tmp_path):
    proc, data = run_json(tmp_path, "--workload=dot", "--benchmark_filter=omp", "--console=full")
    assert proc.returncode == 0, proc.stderr
    assert "pct_ceiling=" in proc.stdout and "UserCounters" in proc.stdout
    for line in proc.stdout.splitlines():
        if "pct_ceiling=" in line:
            value = line.split("pct_ceiling=")[1].split()[0]
            assert value.endswith("%") and not value.endswith("/s"), line
            assert "bytes_per_second=" in line and "samples=" in line
    assert "Library was built as DEBUG" not in proc.stdout + proc.stderr
    # The JSON keeps the percentage as a number (the reports' ceilings.py reads it so; --quick sizes
    # fit in the caches, so it may exceed 100).
    pct = [b["pct_ceiling"] for b in data["benchmarks"] if "pct_ceiling" in b]
    assert pct and all(isinstance(p, (int, float)) and p > 0 for p in pct)


def test_console_style_is_checked_and_in_the_help():
    proc = run("--console=wide")
    assert proc.returncode == 2
    assert "--console: use compact or full (got 'wide')" in proc.stderr
    assert "--console=compact|full" in run("--help").stdout


def test_gpu_tests_say_why_they_skip():
    """Without a GPU, the C++ tests' GPU skips name the reason (once on stderr, and in each skip)."""
    if not TESTS_BIN.exists():
        pytest.skip(f"{TESTS_BIN} not built")
    if not BIN.exists():
        pytest.skip(f"{BIN} not built")
    proc = subprocess.run([str(TESTS_BIN), "--gtest_filter=VectorAddGpu.*"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:]
    if "[  SKIPPED ]" not in proc.stdout:
        pytest.skip("a GPU is present: the GPU tests ran")
    assert "GPU tests skip on this machine: " in proc.stderr
    reason = proc.stderr.split("GPU tests skip on this machine: ")[1].splitlines()[0]
    assert reason.startswith(("no CUDA device", "not built", "CUDA driver")), reason
    assert reason in proc.stdout  # each skip's message


def test_unknown_workload_lists_known_ones():
    proc = run("--workload=nope")
    assert proc.returncode == 2
    assert "unknown workload 'nope'" in proc.stderr
    assert "vector_add" in proc.stderr and "dot" in proc.stderr and "grayscale" in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["--size=0"], "--size must be greater than 0"),
    (["--image=0x100"], "--image must be greater than 0"),
    (["--block=2048"], "above the CUDA limit of 1024"),
    (["--block=0"], "--block must be greater than 0"),
    (["--block2d=64x32"], "above the CUDA limit of 1024"),
    (["--sweep=some"], "expected pow2 or all"),
    (["--size=abc"], "is not a number"),
    (["--benchmark_repetitions=-3"], "--benchmark_repetitions: give a whole number"),
    (["--benchmark_repetitions=0"], "--benchmark_repetitions: give a whole number"),
    (["--benchmark_repetitions=two"], "--benchmark_repetitions: give a whole number"),
    (["--benchmark_out_format=xml", "--benchmark_out=x.json"], "--benchmark_out_format: use "),
    (["--benchmark_format=yaml"], "--benchmark_format: use console, json or csv"),
    (["--machine=../../x"], "--machine: use letters, digits"),
    (["--machine=a/b"], "--machine: use letters, digits"),
    (["--devices=0,1,0"], "listed twice"),
    (["--devices=0,"], "expected a device number"),
    (["--devices=-1"], "expected a device number"),
    (["--devices=gpu0"], "expected a device number"),
])
def test_bad_values_are_refused(args, message):
    proc = run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_filter_matching_nothing_is_an_error():
    proc = run("--benchmark_filter=^nothing_matches$")
    assert proc.returncode == 2
    assert "no benchmark matches" in proc.stderr


def test_unknown_flag_is_an_error():
    assert run("--no_such_flag").returncode != 0


def test_list_workloads():
    proc = run("--list-workloads")
    assert proc.returncode == 0
    for name in ("vector_add", "dot", "grayscale"):
        assert name in proc.stdout


def test_quick_run_validates_cpu_and_records_context(tmp_path):
    proc, data = run_json(tmp_path, "--workload=vector_add,dot")
    assert proc.returncode == 0, proc.stderr
    ctx = data["context"]
    for key in ("git_revision", "cpu_model", "omp_threads", "compiler", "gpu_status", "machine",
                "cpu_triad_bw_bytes_per_s"):
        assert ctx.get(key), key
    rows = {b["name"]: b for b in data["benchmarks"]}
    serial = next(b for n, b in rows.items() if n.startswith("vector_add/serial/"))
    assert not serial.get("error_occurred")
    assert serial["max_rel_err"] == 0
    assert serial["bytes_per_second"] > 0
    omp = next(b for n, b in rows.items() if n.startswith("dot/omp/"))
    assert "/threads:" in omp["name"] and omp["max_rel_err"] < 1e-6
    # Progress: one line per benchmark on stderr, "[i/N mm:ss] name", N counting only what
    # will run (GPU rows skip at once without a device), with the time left after a few rows.
    measured = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    assert f"[1/{len(measured)} " in proc.stderr
    assert " left] " in proc.stderr
    # The stopping rule: at least 5 samples a row, kept beside it with their statistics.
    for b in measured:
        assert b["samples"] >= 5 and len(b["samples_s"]) == b["samples"], b["name"]
        assert b["min_s"] <= b["median_s"] <= b["max_s"]
        assert b["rel_spread_pct"] >= 0
    assert ctx["run_complete"] is True and ctx["run_wall_s"] > 0
    assert int(ctx["benchmarks_planned"]) == len(measured)
    assert ctx["stop_rule"] == "stdrel" and ctx["stop_min_samples"] == "5"


def test_stopping_rule_flags(tmp_path):
    proc, data = run_json(tmp_path, "--workload=dot", "--benchmark_filter=serial",
                          "--min-samples=7", "--stop-spread=100", "--min-time=0.0001",
                          "--max-time=5")
    assert proc.returncode == 0, proc.stderr
    (row,) = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    assert row["samples"] >= 7 and row["converged"] == 1
    # 7 exactly, unless a busy machine made even a 100% spread target unreachable.
    assert row["samples"] == 7 or row["rel_spread_pct"] > 100
    assert data["context"]["stop_min_samples"] == "7"
    assert data["context"]["stop_max_rel_spread_pct"] == "100"


@pytest.mark.parametrize("flag", ["--min-samples=0", "--stop-spread=-1", "--min-time=abc",
                                  "--max-time=0", "--stop-spread=101", "--progress-demo=0",
                                  # values that would overflow an int when narrowed
                                  "--image=3000000000x1", "--image=1x2147483648",
                                  "--block2d=65536x65536", "--block2d=2147483647x2"])
def test_bad_values_exit_2_naming_the_flag(flag):
    proc = run(flag, "--workload=grayscale")
    assert proc.returncode == 2
    assert flag.split("=")[0] in proc.stderr


def test_google_benchmark_min_time_gives_its_own_loop(tmp_path):
    proc, data = run_json(tmp_path, "--workload=dot", "--benchmark_filter=serial",
                          "--benchmark_min_time=0.05")
    assert proc.returncode == 0, proc.stderr
    (row,) = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    assert row["iterations"] > 1 and data["context"]["stop_rule"] == "google-benchmark"


def test_gpu_variants_skip_with_reason_without_device(tmp_path):
    proc, data = run_json(tmp_path, "--workload=vector_add")
    if data["context"]["gpu_status"] == "available":
        pytest.skip("a GPU is present")
    assert proc.returncode == 0
    gpu = [b for b in data["benchmarks"] if "/cuda" in b["name"] or "/thrust" in b["name"]]
    assert gpu, "GPU variants are registered when CUDA is built"
    for b in gpu:
        assert b.get("error_occurred")
        assert b["error_message"].startswith("no CUDA device: ")
    assert "GPU benchmarks skipped" in proc.stderr
    # A skip is shown as a skip, with a count, not as an error per row; the reason the GPU rows
    # skip is said once in the run, at its start.
    console = run("--quick", "--workload=vector_add")
    assert "ERROR OCCURRED" not in console.stdout
    reason = data["context"]["gpu_status"]
    assert (console.stdout + console.stderr).count(reason) == 1
    assert f"twinbench: GPU benchmarks skipped: {reason}" in console.stderr
    assert f"SKIPPED {len(gpu)} rows: the reason given at the start" in console.stdout


def test_an_unwritable_results_file_exits_3_before_running(tmp_path):
    target = tmp_path / "missing" / "run.json"
    proc = run("--quick", "--workload=dot", f"--benchmark_out={target}")
    assert proc.returncode == 3
    assert f"cannot write the results file {target}" in proc.stderr
    assert "[1/" not in proc.stderr  # nothing was measured first
    full = run("--quick", "--workload=dot", "--benchmark_filter=serial", "--benchmark_out=/dev/full")
    assert full.returncode == 3


def test_nested_loop_too_large_skips_with_the_numbers_and_lucas_says_it_clamps(tmp_path):
    proc, data = run_json(tmp_path, "--workload=nested_loop,lucas", "--size=1000003",
                          "--benchmark_filter=serial")
    assert proc.returncode == 0, proc.stderr
    nested = [b for b in data["benchmarks"] if b["name"].startswith("nested_loop/")]
    assert nested and all(b.get("error_occurred") for b in nested)
    assert "above the cap" in nested[0]["error_message"]
    assert "n = 1000003" in nested[0]["error_message"]
    assert "lucas: n above 90 overflows int64" in proc.stderr
    lucas = [b["name"] for b in data["benchmarks"] if b["name"].startswith("lucas/")]
    assert lucas and all("/n:90" in n for n in lucas)


def test_an_allocation_failure_is_a_skip_not_a_validation_failure(tmp_path):
    import resource

    def limit_address_space():
        resource.setrlimit(resource.RLIMIT_AS, (768 << 20, 768 << 20))

    out = tmp_path / "alloc.json"
    if not BIN.exists():
        pytest.skip(f"{BIN} not built")
    proc = subprocess.run([str(BIN), "--quick", "--workload=alloc", "--size=1073741824",
                           "--benchmark_filter=serial_malloc/", f"--benchmark_out={out}"],
                          capture_output=True, text=True, timeout=300,
                          preexec_fn=limit_address_space)
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(out.read_text())["benchmarks"]
    assert row["error_message"] == "out of host memory"
    assert "VALIDATION FAILED" not in proc.stderr


def test_validation_failure_sets_exit_code(tmp_path):
    proc, data = run_json(tmp_path, "--workload=vector_add",
                          env={"TWINBENCH_INJECT_VALIDATION_FAILURE": "vector_add/omp"})
    assert proc.returncode == 1
    bad = [b for b in data["benchmarks"] if b["name"].startswith("vector_add/omp")]
    assert bad and all(b["error_message"].startswith("validation failed") for b in bad)
    assert "real_time" not in bad[0] or bad[0]["iterations"] == 0
    rows = console_rows(proc.stdout)  # the console says so in the row's note
    assert all(rows[b["name"]] == ["-", "-", "-", "validation", "failed"] for b in bad), rows
    good = [b for b in data["benchmarks"] if b["name"].startswith("vector_add/serial")]
    assert good and not good[0].get("error_occurred")


def test_size_override_names_the_size(tmp_path):
    proc, data = run_json(tmp_path, "--workload=dot", "--size=1001")
    assert proc.returncode == 0
    assert all("/n:1001" in b["name"] for b in data["benchmarks"])


def test_cpu_only_build_says_gpu_not_built(tmp_path):
    proc, data = run_json(tmp_path, "--workload=vector_add", binary=CPU_BIN)
    assert proc.returncode == 0
    assert data["context"]["gpu_status"].startswith("not built")
    assert all(not b["name"].split("/")[1].startswith(("cuda", "thrust")) for b in data["benchmarks"])


def test_run_script_cut_short_says_why_and_exits_nonzero(tmp_path):
    """scripts/run.sh stopped mid-run: it names the cause, exits 143, and the report it
    still renders starts by saying the run is partial."""
    import signal
    if not BIN.exists():
        pytest.skip(f"{BIN} not built")
    env = {**os.environ, "TWINBENCH_BIN": str(BIN), "TWINBENCH_RESULTS": str(tmp_path)}
    proc = subprocess.Popen(["bash", str(ROOT / "scripts" / "run.sh"), "--workload=dot,vector_add",
                             "--machine=cut"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    wait_for_first_row(proc, lambda: next((tmp_path / "cut").glob("*.json"), None))
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err[-2000:]
    assert "cut short: terminated" in err or "interrupted (SIGTERM)" in err
    (report,) = (tmp_path / "cut").glob("*/report.md")
    assert report.read_text().splitlines()[0].startswith("> **Note:** PARTIAL RUN")


def test_full_adds_the_rows_left_out_for_time():
    def listed(*flags):
        proc = run("--workload=lucas,poisson,transfers", *flags, "--benchmark_list_tests=true")
        assert proc.returncode == 0, proc.stderr
        return set(proc.stdout.split())
    default, full = listed(), listed("--full")
    assert default < full
    for name in ("lucas/cuda_recursive/n:40/block:64/mode:kernel",
                 "poisson/serial_article/n:10000000",
                 "transfers/serial_memcpy/bytes:1073741824"):
        assert not any(n.startswith(name) for n in default), name
        assert any(n.startswith(name) for n in full), name


def test_telemetry_is_on_by_default_and_says_why_a_source_is_missing(tmp_path):
    proc, data = run_json(tmp_path, "--workload=dot", "--benchmark_filter=serial")
    assert proc.returncode == 0, proc.stderr
    (row,) = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    for key in ("host_load1_before", "host_cpu_mhz_before", "host_cpu_mhz_after", "host_busy"):
        assert key in row, key
    ctx = data["context"]
    if ctx["gpu_status"] != "available":
        assert "no GPU telemetry" in ctx["gpu_telemetry"]
    # RAPL: either the domains read, or the reason they are not.
    assert ctx["cpu_energy"].startswith(("rapl: ", "not available here: ", "not readable"))
    if ctx["cpu_energy"].startswith("rapl: "):
        assert row["energy_per_iter_j"] > 0 and row["energy_per_item_j"] > 0
    for key in ("env_cpu_governor", "env_omp_proc_bind", "env_omp_places", "env_numa_nodes"):
        assert ctx[key], key


def test_no_telemetry_turns_it_off(tmp_path):
    proc, data = run_json(tmp_path, "--workload=dot", "--benchmark_filter=serial", "--no-telemetry")
    assert proc.returncode == 0, proc.stderr
    (row,) = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    assert "host_busy" not in row and "energy_per_iter_j" not in row
    assert data["context"]["cpu_energy"] == "off (--no-telemetry)"


def test_no_ceilings_skips_them_and_says_so(tmp_path):
    proc, data = run_json(tmp_path, "--workload=dot", "--benchmark_filter=serial", "--no-ceilings")
    assert proc.returncode == 0, proc.stderr
    ctx = data["context"]
    assert ctx["ceilings"] == "off (--no-ceilings)"
    assert ctx["gpu_cache_mode"] == "cold"
    assert not [k for k in ctx if k.startswith(("cpu_bw_", "gpu_bw_", "cpu_roof_", "gpu_roof_"))]
    (row,) = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    assert "pct_ceiling" not in row and row["max_rel_err"] >= 0


def test_cpu_rows_are_held_to_their_own_pattern_and_thread_count(tmp_path):
    proc, data = run_json(tmp_path, "--workload=dot,vector_add", "--benchmark_filter=serial|omp")
    assert proc.returncode == 0, proc.stderr
    ctx = data["context"]
    patterns = ("read", "write", "copy", "scale", "add", "triad")
    for p in patterns:
        for side in ("all", "one"):
            assert float(ctx[f"cpu_bw_{p}_{side}_bytes_per_s"]) > 0, (p, side)
    for roof in ("cpu_roof_fp32_flops", "cpu_roof_fp64_flops", "cpu_roof_fp32_one_flops"):
        assert float(ctx[roof]) > 0, roof
    rows = {b["name"].split("/")[0] + "/" + b["name"].split("/")[1]: b
            for b in data["benchmarks"] if not b.get("error_occurred")}
    dot, add = rows["dot/serial"], rows["vector_add/omp"]
    assert dot["written_bytes_per_iter"] == 0 and dot["read_bytes_per_iter"] > 0
    assert patterns[int(dot["ceiling_pattern"])] == "read"
    assert dot["ceiling_bytes_per_s"] == pytest.approx(float(ctx["cpu_bw_read_one_bytes_per_s"]),
                                                       rel=1e-5)
    assert patterns[int(add["ceiling_pattern"])] in ("add", "triad")
    expected = max(float(ctx["cpu_bw_add_all_bytes_per_s"]), float(ctx["cpu_bw_triad_all_bytes_per_s"]))
    assert add["ceiling_bytes_per_s"] == pytest.approx(expected, rel=1e-5)
    seconds = add["real_time"] * 1e-6  # microseconds
    assert add["pct_ceiling"] == pytest.approx(
        100 * add["bytes_per_iter"] / seconds / add["ceiling_bytes_per_s"], rel=1e-3)


def test_warm_is_recorded_as_the_cache_mode(tmp_path):
    for flag, mode in (("--warm", "warm"), (None, "cold")):
        args = ["--workload=lucas", "--benchmark_filter=serial_iterative"] + ([flag] if flag else [])
        proc, data = run_json(tmp_path, *args)
        assert proc.returncode == 0, proc.stderr
        assert data["context"]["gpu_cache_mode"] == mode
        assert data["context"]["cpu_cache_mode"] == mode


def test_cpu_samples_are_cold_unless_warm(tmp_path):
    """CPU rows of 1 us or more are timed one call a sample after a flush of the CPU caches,
    as GPU kernel rows after an L2 flush; --warm turns it off; the context says how big the
    flush is and what one pass took."""
    args = ["--workload=vector_add", "--benchmark_filter=vector_add/serial", "--quick"]
    proc, data = run_json(tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    assert "MiB" in data["context"]["cpu_cache_flush"]
    assert "last pass" in data["context"]["cpu_cache_flush"]
    assert "after clflush of its lines (cold)" in data["context"]["cpu_cache_flush"]
    rows = [b for b in data["benchmarks"] if b["name"].startswith("vector_add/serial")]
    assert rows and all(b["llc_flushed"] == 1 and b["batch"] == 1 for b in rows)
    proc, data = run_json(tmp_path, *args, "--warm")
    assert proc.returncode == 0, proc.stderr
    assert "cpu_cache_flush" not in data["context"]
    assert all(b["llc_flushed"] == 0 for b in data["benchmarks"])


def test_work_under_a_microsecond_is_batched_warm(tmp_path):
    """The cold bound is on the work's warm time: lucas' iterative loop (tens of ns) is batched,
    not timed one cold call a sample, though a call right after a flush takes over 1 us."""
    proc, data = run_json(tmp_path, "--workload=lucas", "--benchmark_filter=serial_iterative")
    assert proc.returncode == 0, proc.stderr
    rows = [b for b in data["benchmarks"] if b["name"].startswith("lucas/serial_iterative")]
    assert rows and all(b["llc_flushed"] == 0 and b["batch"] > 1 for b in rows)


def test_a_size_too_large_for_memory_skips_with_the_numbers(tmp_path):
    proc, data = run_json(tmp_path, "--workload=vector_add", "--size=4611686018427387904",
                          "--benchmark_filter=serial")
    assert proc.returncode == 0, proc.stderr
    (row,) = data["benchmarks"]
    assert row["error_message"].startswith("needs ") and "GiB available" in row["error_message"]


def test_two_runs_started_together_write_separate_files(tmp_path):
    if not BIN.exists():
        pytest.skip(f"{BIN} not built")
    env = {**os.environ, "TWINBENCH_BIN": str(BIN), "TWINBENCH_RESULTS": str(tmp_path)}
    cmd = ["bash", str(ROOT / "scripts" / "run.sh"), "--quick", "--workload=lucas",
           "--machine=twin", "--", "--benchmark_filter=serial_iterative"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0
        # run.sh says whether the Numba peers run (README: they are opt-in without a GPU).
        assert "the Numba peers are left out" in err or "running the articles' Numba programs" in err
    files = sorted((tmp_path / "twin").glob("*.json"))
    assert len(files) == 2
    for f in files:
        data = json.loads(f.read_text())
        assert data["context"]["run_complete"] is True
        assert len({b["name"] for b in data["benchmarks"]}) == len(data["benchmarks"])


@pytest.mark.parametrize("sig, code, label", [("SIGINT", 130, "SIGINT"), ("SIGTERM", 143, "SIGTERM")])
def test_interrupted_run_closes_its_results_file(tmp_path, sig, code, label):
    """A signal ends the run early but the JSON is valid: the rows measured so far, the rest
    skipped as interrupted, the context saying so, and the exit code 128 + signal."""
    import signal
    if not BIN.exists():
        pytest.skip(f"{BIN} not built")
    out = tmp_path / "run.json"
    proc = subprocess.Popen([str(BIN), "--workload=dot,vector_add", f"--benchmark_out={out}",
                             "--benchmark_out_format=json"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    wait_for_first_row(proc, lambda: out)
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err[-2000:]
    data = json.loads(out.read_text())
    ctx = data["context"]
    assert ctx["run_complete"] is False and ctx["interrupted_by"] == label
    measured = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    assert len(measured) == ctx["benchmarks_measured"] >= 1
    assert any("interrupted" in b.get("error_message", "") for b in data["benchmarks"])


def test_devices_picks_one_of_the_visible_devices(tmp_path):
    """--devices=N shows the run only device N of those visible (CUDA_VISIBLE_DEVICES, recorded
    in the context); an N the list does not have is refused before anything runs."""
    proc, data = run_json(tmp_path, "--workload=vector_add", "--devices=0", "--no-ceilings",
                          env={"CUDA_VISIBLE_DEVICES": "5,3"})
    assert proc.returncode == 0, proc.stderr
    assert data["context"]["cuda_visible_devices"] == "5"
    proc = run("--devices=2", "--quick", env={"CUDA_VISIBLE_DEVICES": "3,5"})
    assert proc.returncode == 2
    assert "shows 2 device(s)" in proc.stderr


def test_devices_list_runs_each_device_into_its_own_file(tmp_path):
    """--devices=0,1: one run per device, one after another, each writing its own results file
    with its device in the context; a device that is not there is that run's bad input, and the
    whole exits with the first non-zero status (here 2, device 1's: CI has no GPU, the H200
    machine one)."""
    out = tmp_path / "run.json"
    proc = run("--devices=0,1", "--quick", "--workload=dot", "--benchmark_filter=dot/serial",
               "--no-ceilings", f"--benchmark_out={out}", "--benchmark_out_format=json")
    assert "device 0 (1 of 2: --devices=0,1)" in proc.stderr
    first = json.loads((tmp_path / "run-gpu0.json").read_text())
    assert first["context"]["cuda_visible_devices"] == "0"
    assert any(b["name"].startswith("dot/serial/") and not b.get("error_occurred")
               for b in first["benchmarks"])
    assert not out.exists()
    import shutil
    many = shutil.which("nvidia-smi") and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU ") >= 2
    if not many:
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert "--devices=1: no such GPU here" in proc.stderr


def test_devices_all_without_a_gpu_is_bad_input():
    proc = run("--devices=all", "--quick", "--workload=dot", env={"CUDA_VISIBLE_DEVICES": "99"})
    assert proc.returncode == 2
    assert "--devices=all: CUDA shows this process no GPU" in proc.stderr


def test_devices_names_a_missing_gpu_as_bad_input():
    """A device past those the machine has (here: past a GPU that CUDA_VISIBLE_DEVICES hides)
    is bad input, said once, not a run of skipped rows."""
    proc = run("--devices=1", "--quick", "--workload=dot", env={"CUDA_VISIBLE_DEVICES": "99,98"})
    assert proc.returncode == 2
    assert "--devices=1: no such GPU here" in proc.stderr


def test_multi_gpu_workloads_skip_with_their_reason_on_one_or_no_gpu(tmp_path):
    """collectives, peer_copy and scaling register on any machine; without a GPU every row skips
    with the reason, and peer_copy's rows would say that they need two GPUs on a machine with
    one."""
    out = tmp_path / "run.json"
    proc = run("--quick", "--workload=collectives,peer_copy,scaling", "--no-ceilings",
               f"--benchmark_out={out}", "--benchmark_out_format=json")
    if proc.returncode == 2 and "no benchmark matches" in proc.stderr:
        pytest.skip("a build without CUDA has no NCCL or peer-copy rows")
    assert proc.returncode in (0, 4), proc.stderr
    data = json.loads(out.read_text())
    names = [b["name"] for b in data["benchmarks"]]
    assert any(n.startswith("collectives/nccl/op:all_reduce/bytes:8/") for n in names)
    assert any(n.startswith("peer_copy/cuda/src:0/dst:1/") for n in names)
    assert any(n.startswith("peer_copy/cuda/src:all/dst:all/") for n in names)
    assert any(n.startswith("peer_copy/cuda/src:host/dst:all/") for n in names)
    assert any(n.startswith("scaling/cuda/target:poisson/scaling:strong/gpus:1/") for n in names)
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            assert b["error_message"], b["name"]


@pytest.mark.parametrize("devices, message", [
    ("0,x", "a list of device numbers"),
    ("gpu1", "a list of device numbers"),
])
def test_run_devices_refuses_a_bad_list(devices, message):
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "run-devices.sh"), devices],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_run_devices_all_without_a_gpu_says_so(tmp_path):
    """`all` asks nvidia-smi; where it lists no GPU the script says so and exits 2."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "nvidia-smi").write_text("#!/bin/sh\nexit 9\n")
    (fake / "nvidia-smi").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "run-devices.sh"), "all"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2
    assert "no GPU listed by nvidia-smi" in proc.stderr


def test_torch_allreduce_reference_says_why_it_cannot_run(tmp_path):
    """Without torch (CI) or without a GPU the reference script exits 2 with the reason."""
    proc = subprocess.run([os.environ.get("PYTHON", "python3"),
                           str(ROOT / "scripts" / "torch-allreduce.py")],
                          capture_output=True, text=True, timeout=120)
    try:
        import torch  # noqa: F401
        has_gpu = torch.cuda.is_available()
    except ImportError:
        has_gpu = False
    if not has_gpu:
        assert proc.returncode == 2
        assert "torch-allreduce:" in proc.stderr


MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_btl": "self,vader", "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def mpirun(tmp_path, *args, ranks=2, env=None):
    """twinbench under Open MPI's mpirun: shared memory and loopback only, bounded in time."""
    import shutil
    if shutil.which("mpirun") is None:
        pytest.skip("no mpirun here (Debian's openmpi-bin; deps.sh installs it)")
    if not BIN.exists():
        pytest.skip(f"{BIN} not built")
    out = tmp_path / "run.json"
    proc = subprocess.run(["mpirun", "-np", str(ranks), str(BIN), "--quick", "--no-ceilings",
                           *args, f"--benchmark_out={out}", "--benchmark_out_format=json"],
                          capture_output=True, text=True, timeout=240,
                          env={**os.environ, **MPI_ENV, **(env or {})})
    if "this build has no MPI" in proc.stderr:
        pytest.skip("twinbench was built without MPI")
    return proc, out


def test_mpi_ranks_take_the_mpi_rows_together_and_rank_zero_writes(tmp_path):
    """Under mpirun every rank takes the MPI collectives together (validated exactly, the
    slowest rank's time), rank 0 alone prints and writes the results file, and the rows that
    are not MPI rows run on rank 0 alone (the others skip them silently)."""
    proc, out = mpirun(tmp_path, "--workload=collectives,dot", "--benchmark_filter=all_reduce|dot/serial")
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(out.read_text())
    mpi_rows = [b for b in data["benchmarks"] if b["name"].startswith("collectives/mpi/")]
    assert len(mpi_rows) == 7, [b["name"] for b in data["benchmarks"]]
    for b in mpi_rows:
        assert "/ranks:2/" in b["name"]
        assert not b.get("error_occurred"), b
        assert b["max_abs_err"] == 0 and b["algbw_GBps"] > 0 and b["busbw_GBps"] == b["algbw_GBps"]
    dot = [b for b in data["benchmarks"] if b["name"].startswith("dot/serial/")]
    assert dot and not any(b.get("error_occurred") for b in dot)
    # One console, rank 0's: each row printed once.
    assert proc.stdout.count("collectives/mpi/op:all_reduce/bytes:8/ranks:2") == 1


def test_mpi_nccl_rows_across_ranks_skip_together_without_gpus(tmp_path):
    """The NCCL rows across processes (one rank per GPU, bootstrapped through MPI) are taken by
    every rank; where a rank has no GPU or no NCCL every rank skips them with the reason, and
    none waits in NCCL's bootstrap. Each rank is given its local rank's GPU."""
    proc, out = mpirun(tmp_path, "--workload=collectives", "--benchmark_filter=all_reduce")
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(out.read_text())
    rows = [b for b in data["benchmarks"]
            if b["name"].startswith("collectives/nccl/") and "/ranks:2/" in b["name"]]
    assert len(rows) == 7, [b["name"] for b in data["benchmarks"]]
    assert data["context"]["cuda_visible_devices"] == "0"
    gpu = data["context"].get("gpu_status") == "available"
    for b in rows:
        assert b["side"] == "gpu" and b["impl"] == "nccl"
        if not gpu:
            assert b.get("error_occurred"), b
            assert "ranks cannot run NCCL" in b["error_message"], b["error_message"]


def test_mpi_validation_failure_fails_on_every_rank(tmp_path):
    """A wrong result fails the row on every rank together (no rank waits for a collective the
    others skipped) and the job exits 1."""
    proc, out = mpirun(tmp_path, "--workload=collectives", "--benchmark_filter=all_reduce",
                       env={"TWINBENCH_INJECT_VALIDATION_FAILURE": "op:all_reduce/bytes:64/"})
    assert proc.returncode == 1, proc.stderr[-2000:]
    rows = {b["name"].split("/manual_time")[0]: b for b in json.loads(out.read_text())["benchmarks"]}
    failed = rows["collectives/mpi/op:all_reduce/bytes:64/ranks:2"]
    assert failed.get("error_occurred") and "validation failed" in failed["error_message"]
    assert not rows["collectives/mpi/op:all_reduce/bytes:512/ranks:2"].get("error_occurred")
