"""docs/adding-a-workload.md is the example project: each of its C++, CUDA and CMake blocks is
one of examples/histogram's files, word for word, so the code the page shows is the code CI builds
against an installed twinbench and runs (scripts/test-example.sh, which also runs the shell
blocks of docs/using-twinbench.md as written). The example's bench file stays within what an
author should need: at most 40 lines and 8 twinbench names.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "histogram"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(page: str) -> list[tuple[str, str]]:
    return BLOCK.findall((ROOT / "docs" / page).read_text())


def test_every_code_block_of_the_page_is_an_example_file():
    files = {p.name: p.read_text() for p in EXAMPLE.iterdir() if p.is_file()}
    shown = blocks("adding-a-workload.md")
    assert shown, "no code blocks found"
    for lang, text in shown:
        matches = [name for name, content in files.items() if content == text]
        assert matches, f"a {lang} block of docs/adding-a-workload.md is no file of {EXAMPLE}"
    shown_files = {name for _, text in shown for name, content in files.items() if content == text}
    assert shown_files == set(files), f"not shown: {set(files) - shown_files}"


def test_using_twinbench_shell_blocks_are_the_two_that_ci_runs():
    assert [lang for lang, _ in blocks("using-twinbench.md")] == ["sh", "sh"]


def test_the_bench_file_is_short_with_few_twinbench_names():
    text = (EXAMPLE / "bench.cpp").read_text()
    assert len(text.splitlines()) <= 40
    names = set(re.findall(r"\btwinbench::\w+|\bTWINBENCH_\w+", text))
    assert len(names) <= 8, names
