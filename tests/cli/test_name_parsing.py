"""A benchmark's name is output, never input.

The name `<workload>/<impl>/<axis>:<value>/...` is generated from a typed description
(common/bench_spec.hpp); the harness decides from the description's fields (side, mode, threads,
workload). These tests grep the C++ sources for the idioms that took a name apart to decide
something (a search for '/', for "/mode:", an impl-prefix check) and fail on any outside the
generator, and check the binary writes the fields into every row.
"""
import json
import re
from pathlib import Path

import pytest

from test_binary import run_json

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("common", "bench", "cpu", "gpu")
SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh"}

# The idioms of name parsing the generator replaced, and their likes.
NAME_PARSING = [
    re.compile(r"""\b(?:find|rfind)\(\s*(?:'/'|"/)"""),            # name.find('/'), find("/mode:e2e")
    re.compile(r""""/(?:mode|threads|block|n|dtype):"""),           # "/mode:e2e" in a name
    re.compile(r"""(?:rfind|starts_with)\(\s*"(?:serial|omp|cuda|thrust|cublas|openblas|onednn)"""),
    re.compile(r"""\{\s*"cuda",\s*"thrust\""""),                    # a list of GPU impl prefixes
    re.compile(r"""\bworkload_of\s*\("""),
]

# The generator, and the files allowed to read names, each with the reason.
ALLOWED = {
    # The generator itself (and its inverse for Google Benchmark's own suffixes).
    "common/bench_spec.cpp",
    # Matches this run's rows with a previous results file's, which hold only names, to weigh
    # the progress estimate; it decides no behaviour of a row.
    "common/progress_eta.cpp",
}


def sources():
    for folder in SOURCE_DIRS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in SUFFIXES:
                yield path


def code_lines(path):
    """Lines without // comments (a comment may quote a name)."""
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        yield number, line.split("//", 1)[0]


def name_parsing(path):
    return [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
            for n, line in code_lines(path) if any(p.search(line) for p in NAME_PARSING)]


def test_no_code_outside_the_generator_parses_a_benchmark_name():
    found = []
    for path in sources():
        if str(path.relative_to(ROOT)) not in ALLOWED:
            found += name_parsing(path)
    assert not found, "a name is read to decide something (use the BenchSpec's fields):\n" + \
        "\n".join(found)


@pytest.mark.parametrize("line", [
    'if (current_benchmark().find("/mode:e2e") != std::string::npos) return;',
    "return name.substr(0, name.find('/'));",
    'if (impl.rfind("omp", 0) == 0) return CeilingSet::cpu_all;',
    'for (const char* prefix : {"cuda", "thrust", "cublas"})',
    'const bool omp_variant = std::string_view(impl).starts_with("omp");',
])
def test_the_grep_catches_the_idioms_it_replaced(line):
    """The mutation check: each idiom the generator replaced is found again if it comes back."""
    assert any(p.search(line) for p in NAME_PARSING)


def test_every_row_carries_its_description(tmp_path):
    proc, doc = run_json(tmp_path, "--workload=vector_add,lucas", "--no-ceilings",
                         "--benchmark_filter=vector_add/(serial|omp)|lucas/serial_recursive")
    assert proc.returncode == 0, proc.stderr
    rows = [b for b in doc["benchmarks"] if not b.get("error_occurred")]
    assert rows
    for row in rows:
        for key in ("workload", "impl", "algorithm", "side", "mode", "precision"):
            assert key in row, (row["name"], key)
        assert row["name"].startswith(f'{row["workload"]}/{row["impl"]}/')
    by_impl = {r["impl"]: r for r in rows}
    assert by_impl["omp"]["side"] == "cpu"
    assert by_impl["serial_recursive"]["algorithm"] == "recursive"
    # The work model declared with the description became the rates, with no call in the body.
    omp = by_impl["omp"]
    n = int(omp["name"].split("/n:")[1].split("/")[0])
    assert omp["bytes_per_iter"] == 12 * n and omp["items_per_second"] > 0
    assert "pct_ceiling" not in omp  # --no-ceilings
