"""Machine state, energy and environment in the report, and the settings `compare` warns
about."""

from __future__ import annotations

import json

import pytest

from conftest import single, write_run
from twinbench.report import analysis as an
from twinbench.report import pairing
from twinbench.report import machine
from twinbench.report.compare import compare
from twinbench.report.loader import load_run
from twinbench.report.render import render
from twinbench.report.tables import environment_table

import make_samples as samples



@pytest.fixture(scope="module")
def markdown(gpu_report):
    return gpu_report.markdown.read_text()


def _cells(markdown: str, first: str) -> list[str]:
    line = next(l for l in markdown.splitlines() if l.startswith(f"| {first} |"))
    return [c.strip() for c in line.strip("|").split("|")]


# ----------------------------------------------------------------- energy

def test_pairs_are_best_cpu_against_best_gpu_kernel(gpu_run):
    pair = next(p for p in pairing.cpu_gpu_pairs(gpu_run.rows)
                if p.workload == "vector_add" and p.size_key == ("n:268435456",))
    assert pair.cpu.name == "vector_add/omp/n:268435456/threads:16"
    assert pair.gpu.name == "vector_add/cuda/n:268435456/block:256/mode:kernel"
    assert pair.gpu_e2e.mode == "e2e"


def test_energy_ratio_arithmetic(gpu_run):
    pair = next(p for p in pairing.cpu_gpu_pairs(gpu_run.rows)
                if p.workload == "vector_add" and p.size_key == ("n:268435456",))
    # omp: 250 W x 40 ms = 10 J; cuda: 500 W x 0.8 ms = 0.4 J.
    assert an.energy_per_iter_j(pair.cpu) == pytest.approx(10.0)
    assert an.energy_per_iter_j(pair.gpu) == pytest.approx(0.4)
    assert an.energy_ratio(pair.cpu, pair.gpu) == pytest.approx(25.0)
    assert an.energy_per_item_j(pair.cpu) == pytest.approx(10.0 / 2**28)


def test_energy_per_item_from_items_and_the_older_gpu_counter_name(tmp_path):
    gpu = dict(single("k/cuda/n:100/mode:kernel", 2.0), gpu_energy_per_iter_j=0.5,
               items_per_second=100 / 2e-3)
    cpu = dict(single("k/omp/n:100/threads:4", 4.0), energy_per_iter_j=2.0)
    run = load_run(write_run(tmp_path / "r.json", [gpu, cpu]))
    by = {r.family: r for r in run.rows}
    assert an.energy_per_iter_j(by["cuda"]) == 0.5
    assert an.energy_per_item_j(by["cuda"]) == pytest.approx(0.005)
    assert an.energy_ratio(by["omp"], by["cuda"]) == pytest.approx(4.0)
    assert an.energy_per_item_j(by["omp"]) is None  # no item count: no per-item figure


def test_cpu_vs_gpu_table_in_the_report(markdown):
    assert "## CPU vs GPU: time and energy" in markdown
    assert _cells(markdown, "vector_add n:268435456") == [
        "vector_add n:268435456", "omp threads:16", "40 ms", "cuda block:256 mode:kernel",
        "800 µs", "50.00×", "0.31×", "37.3 nJ", "1.49 nJ", "25.00×"]


def test_missing_cpu_energy_says_why(tmp_path, data_dir):
    doc = json.loads((data_dir / "gpu_run.json").read_text())
    doc["context"]["cpu_energy"] = samples.NO_RAPL
    for entry in doc["benchmarks"]:
        if "/serial/" in entry["name"] or "/omp/" in entry["name"]:
            entry.pop("energy_per_iter_j", None)
            entry.pop("energy_per_item_j", None)
    path = tmp_path / "no_rapl.json"
    path.write_text(json.dumps(doc))
    text = render([path], tmp_path / "out").markdown.read_text()
    section = text[text.index("## CPU vs GPU"):text.index("## Results per workload")]
    assert ("> **Note:** CPU energy: not available here: /sys/class/powercap does not exist "
            "(a VM usually hides RAPL).") in section
    assert _cells(section, "vector_add n:268435456")[-3:] == ["–", "1.49 nJ", "–"]


def test_cpu_only_report_says_why_cpu_energy_is_missing(tmp_path, data_dir):
    text = render([data_dir / "cpu_only_run.json"], tmp_path / "out").markdown.read_text()
    section = text[text.index("### Machine state"):text.index("## Charts")]
    assert ("CPU energy: not available here: /sys/class/powercap does not exist "
            "(a VM usually hides RAPL).") in section
    assert "GPU telemetry" not in section


def test_energy_and_telemetry_notes():
    assert machine.cpu_energy_note({"cpu_energy": samples.NO_RAPL}) == (
        "CPU energy: not available here: /sys/class/powercap does not exist "
        "(a VM usually hides RAPL).")
    assert machine.cpu_energy_note({}) == "CPU energy: not recorded in this run."
    assert machine.cpu_energy_note({"cpu_energy": samples.RAPL}).startswith(
        "CPU energy: rapl: package-0")
    why = "not available: NVML: libnvidia-ml.so.1 not found"
    assert machine.gpu_telemetry_note({"gpu_telemetry": why}) == f"GPU telemetry: {why}."
    assert machine.gpu_telemetry_note({"gpu_status": "not built: OFF"}) is None


# ----------------------------------------------------------------- machine state

@pytest.mark.parametrize("mask,names", [
    (0x24, ["SwPowerCap", "SwThermalSlowdown"]),
    (0x1 | 0x2, ["GpuIdle", "ApplicationsClocksSetting"]),
    (0x8 | 0x40 | 0x80 | 0x100, ["HwSlowdown", "HwThermalSlowdown", "HwPowerBrakeSlowdown",
                                 "DisplayClockSetting"]),
    (0x10 | 0x400, ["SyncBoost", "unknown 0x400"]),
    (0, []),
])
def test_decode_throttle_reasons(mask, names):
    assert machine.decode_throttle_reasons(mask) == names


def test_throttled_and_busy_rows_are_listed(markdown):
    section = markdown[markdown.index("### Machine state"):markdown.index("## Charts")]
    assert "GPU rows measured while throttled: 1 of" in section
    assert _cells(section, "matmul/cublas/n:1024/mode:kernel") == [
        "matmul/cublas/n:1024/mode:kernel", "SwPowerCap, SwThermalSlowdown", "1410 / 1755",
        "500 / 700", "87"]
    assert "CPU rows measured while the host was busy (load above half the CPUs): 1 of" in section
    assert _cells(section, "dot/serial/n:1048576") == ["dot/serial/n:1048576", "20.5",
                                                       "2400 → 2600"]


def test_none_throttled_or_busy_is_said(tmp_path):
    rows = [dict(single("k/cuda/n:1/mode:kernel", 1.0), gpu_throttled=0, gpu_throttle_reasons=1),
            dict(single("k/serial/n:1", 2.0), host_busy=0)]
    text = render([write_run(tmp_path / "r.json", rows)], tmp_path / "out").markdown.read_text()
    assert "GPU rows measured while throttled: none (of 1 rows that record it)." in text
    assert "CPU rows measured while the host was busy (load above half the CPUs): none" in text


def test_cache_mode_in_the_method_note(markdown, tmp_path):
    head = markdown[:markdown.index("## Run context")]
    assert ("GPU cache mode: cold. The L2 (50 MiB) was flushed by reading a 100 MiB buffer "
            "before every timed sample") in head
    run = load_run(write_run(tmp_path / "old.json", [single("k/cuda/n:1/mode:kernel", 1.0)]))
    warm = machine.cache_mode_note({"gpu_cache_mode": "warm", "gpu_l2_cache_bytes": "52428800"},
                                   run.rows)
    assert warm.startswith("GPU cache mode: warm (--warm). The L2 (50 MiB) keeps")
    assert "not recorded" in machine.cache_mode_note(run.context, run.rows)
    # A run without GPU rows flushed nothing, whatever mode its context names.
    assert machine.cache_mode_note({"gpu_cache_mode": "cold"}, []) is None


def test_rows_timed_against_the_runs_cache_mode_are_the_exception_not_a_second_claim(tmp_path):
    """A cold run whose rows include some timed warm (the Numba peers under the simulator) says
    one thing: every sample of the kernel rows was flushed except those rows, named."""
    rows = [dict(single(f"k/cuda/n:{i}/mode:kernel", 1.0), l2_flushed=1) for i in range(3)]
    rows += [dict(single(f"k/numba_cuda/n:{i}", 1.0), l2_flushed=0) for i in range(5)]
    run = load_run(write_run(tmp_path / "sim.json", rows))
    note = machine.cache_mode_note({"gpu_cache_mode": "cold"}, run.rows)
    assert "before every timed sample of the kernel rows, except 5 row(s) that say they were " \
           "timed warm (l2_flushed = 0: k/numba_cuda/n:0, k/numba_cuda/n:1, " \
           "k/numba_cuda/n:2 and 2 more)" in note
    assert note.count("every timed sample") == 1


# ----------------------------------------------------------------- environment

def test_environment_table(gpu_run, data_dir):
    table = environment_table(gpu_run.context)
    values = {row[0]: row[1] for row in table.rows}
    assert values["GPU persistence mode"] == "Enabled"
    assert values["GPU cache mode"] == "cold"
    assert values["OMP_PROC_BIND"] == "close"
    assert values["CUDA driver"] == "12.8"
    assert values["GPU L2 size"] == "50 MiB"
    cpu_only = {row[0]: row[1] for row in
                environment_table(load_run(data_dir / "cpu_only_run.json").context).rows}
    assert "GPU ECC" not in cpu_only          # a run without a GPU is not asked for GPU settings
    assert cpu_only["CPU governor"] == "performance"
    old = {row[0]: row[1] for row in
           environment_table(load_run(data_dir / "old_format_run.json").context).rows}
    assert old["GPU ECC"] == "not recorded" and old["OpenMP threads"] == "16"


def test_environment_table_keeps_env_keys_it_does_not_know():
    table = environment_table({"env_hugepages": "always"})
    assert ["env_hugepages", "always", "env_hugepages"] in table.rows


# ----------------------------------------------------------------- compare

def _variant(data_dir, tmp_path, name, change: dict, drop: tuple = ()) -> str:
    doc = json.loads((data_dir / "gpu_run.json").read_text())
    doc["context"].update(change)
    for key in drop:
        doc["context"].pop(key)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_compare_warns_about_settings_that_change_the_numbers(tmp_path, data_dir):
    b = _variant(data_dir, tmp_path, "b.json",
                 {"gpu_cache_mode": "warm", "env_cpu_governor": "powersave",
                  "omp_threads": "16.0",             # the same number: not a difference
                  "env_gpu_ecc": "Disabled"},
                 drop=("env_omp_places", "env_numa_nodes"))
    result = compare(data_dir / "gpu_run.json", b, tmp_path / "out")
    assert [(d.setting.label, d.a, d.b) for d in result.differences] == [
        ("GPU ECC", "Enabled", "Disabled"), ("GPU cache mode", "cold", "warm"),
        ("CPU governor", "performance", "powersave")]
    assert result.not_recorded == {"A": [], "B": ["NUMA nodes", "OMP_PLACES"]}
    text = result.markdown.read_text()
    warning = text.index("> **Note:** The runs differ in settings that change the numbers")
    assert warning < text.index(result.summary) < text.index("## Per benchmark")
    assert "GPU cache mode: A cold, B warm" in text
    assert "| CPU governor | performance | powersave |" in text
    assert "Not recorded in B (an older file, or a run without that part), so not compared: " \
           "NUMA nodes, OMP_PLACES." in text
    assert "OMP_PLACES: A" not in text


def test_compare_with_an_older_file_lists_what_it_lacks_without_warning(tmp_path, data_dir):
    result = compare(data_dir / "old_format_run.json", data_dir / "gpu_run.json", tmp_path / "o")
    assert result.differences == []
    assert {"GPU persistence mode", "GPU cache mode", "CPU governor", "OMP_PROC_BIND",
            "quick run"} <= set(result.not_recorded["A"])
    assert result.not_recorded["B"] == []
    text = result.markdown.read_text()
    assert "The runs differ" not in text
    assert "the same in A and B wherever both recorded them" in text


def test_setting_differences_ignores_gpu_settings_of_a_run_without_gpu():
    differences, missing = machine.setting_differences(
        {"gpu_status": "not built: OFF", "omp_threads": "8"},
        {"gpu_status": "not built: OFF", "omp_threads": "16"})
    assert [d.sentence for d in differences] == [
        "OpenMP threads: A 8, B 16 (the omp rows use this many threads)"]
    assert "GPU ECC" not in missing["A"] and "CPU governor" in missing["A"]
