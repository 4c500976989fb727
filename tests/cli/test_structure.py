"""The suite is the public API's first user, and the public API stands alone:
- every bench/ file declares its rows through include/twinbench/twinbench.hpp alone: it includes
  nothing of common/ or bench/, never names Google Benchmark's state or writes its counters,
  defines no buffer structs of its own, never poisons or compares an output itself (a workload's
  own check is called from Output::checked_by or Options::check), and registers with
  TWINBENCH_BENCH;
- include/twinbench/ includes nothing outside itself (it is what `cmake --install` installs), and
  the library (common/) includes nothing of the suite's bench/.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = sorted((ROOT / "bench").glob("*.cpp"))
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
FORBIDDEN = {
    "Google Benchmark's state": re.compile(r"\bbenchmark::"),
    "raw counters": re.compile(r"\bcounters\s*\["),
    "a buffer struct of its own": re.compile(r"\bstruct\s+(Host|Device)Data\b"),
    "poisoning or comparing itself": re.compile(
        r"\b(poison|poison_device|compare|compare_exact|compare_bytes|compare_scalar|validate_once"
        r"|validate_once_described|run_checked|run_cpu|run_cpu_checked|run_cpu_in_place"
        r"|run_gpu_modes|run_gpu_checked|run_kernel|io_stages)\s*\("),
    "the harness's registration": re.compile(
        r"\b(add_cpu_benchmark|add_gpu_benchmark|add_host_timed_gpu_benchmark|bench_spec|inputs<"
        r"|TWINBENCH_WORKLOAD|TWINBENCH_REGISTER|time_gpu|time_gpu_ab|measure_cpu)\b"),
}


def code(path: Path) -> str:
    """The file without its comments."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def test_the_suite_has_its_22_workloads():
    assert len(BENCH) == 22, [p.name for p in BENCH]


@pytest.mark.parametrize("path", BENCH, ids=[p.stem for p in BENCH])
def test_bench_file_uses_the_public_api_alone(path):
    text = code(path)
    for header in INCLUDE.findall(text):
        assert not header.startswith(("common/", "bench/")), f"{path.name} includes {header}"
        assert "/" not in header or header.startswith(("twinbench/", "cpu/", "gpu/")), header
    for what, pattern in FORBIDDEN.items():
        found = pattern.search(text)
        assert not found, f"{path.name}: {what}: {found.group(0)}"
    assert "TWINBENCH_BENCH(" in text


def test_no_other_bench_headers():
    assert sorted(p.name for p in (ROOT / "bench").iterdir() if p.suffix != ".cpp") == []


def test_public_headers_include_nothing_outside_themselves():
    for path in (ROOT / "include" / "twinbench").rglob("*.hpp"):
        for header in INCLUDE.findall(code(path)):
            assert "/" not in header or header.startswith("twinbench/"), f"{path}: {header}"


def test_the_library_includes_nothing_of_the_suites_bench_files():
    for path in (ROOT / "common").iterdir():
        for header in INCLUDE.findall(code(path)):
            assert not header.startswith("bench/"), f"{path.name} includes {header}"
