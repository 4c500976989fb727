"""docs/adding-a-workload.md is the example projects: each of its C++, CUDA and CMake blocks is
one of the files of examples/histogram (all of them), examples/blur or examples/sum_squares,
word for word, so the code the page shows is the code CI builds against an installed twinbench
and runs (scripts/test-example.sh, which also runs the shell blocks of docs/using-twinbench.md
as written). Its block of validation messages is what tests/mutations/mutations.cpp prints
(tests/cli/test_mutations.py asserts the same words). Each example's bench file stays within
what an author should need: at most 40 lines and 10 twinbench names.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
NAMES = ["histogram", "blur", "sum_squares"]
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(page: str) -> list[tuple[str, str]]:
    return BLOCK.findall((ROOT / "docs" / page).read_text())


def example_files() -> dict[str, str]:
    return {f"{name}/{p.name}": p.read_text()
            for name in NAMES for p in (EXAMPLES / name).iterdir() if p.is_file()}


def test_every_code_block_of_the_page_is_an_example_file():
    files = example_files()
    shown = [(lang, text) for lang, text in blocks("adding-a-workload.md") if lang]
    assert shown, "no code blocks found"
    for lang, text in shown:
        assert any(content == text for content in files.values()), \
            f"a {lang} block of docs/adding-a-workload.md is no example file"
    shown_files = {name for _, text in shown for name, content in files.items() if content == text}
    histogram = {name for name in files if name.startswith("histogram/")}
    assert histogram <= shown_files, f"not shown: {histogram - shown_files}"
    assert {f"{name}/bench.cpp" for name in NAMES} <= shown_files


def test_the_validation_messages_shown_are_the_mutations_words():
    [messages] = [text for lang, text in blocks("adding-a-workload.md") if not lang]
    source = (ROOT / "tests" / "mutations" / "mutations.cpp").read_text()
    for line in messages.splitlines():
        row = line.split(": ")[1]
        assert f'TWINBENCH_BENCH("{row.split("/")[0]}"' in source, row


def test_using_twinbench_shell_blocks_are_the_two_that_ci_runs():
    assert [lang for lang, _ in blocks("using-twinbench.md")] == ["sh", "sh"]


@pytest.mark.parametrize("name", NAMES)
def test_each_bench_file_is_short_with_few_twinbench_names(name):
    text = (EXAMPLES / name / "bench.cpp").read_text()
    assert len(text.splitlines()) <= 40
    names = set(re.findall(r"\btwinbench::\w+|\bTWINBENCH_\w+", text))
    assert len(names) <= 10, names


def test_a_projects_report_names_the_project_and_twinbench_as_the_harness():
    from twinbench.report.render import project_subject, report_title
    context = {"project": "blur_bench", "project_version": "1.0.0", "project_revision": "abc123",
               "twinbench_version": "0.1.0", "git_revision": "def456"}
    assert report_title(context) == "blur_bench report"
    assert project_subject(context) == ("Subject: blur_bench 1.0.0, revision abc123. Harness: "
                                        "twinbench 0.1.0, revision def456.")
    suite = {"project": "twinbench", "git_revision": "def456"}
    assert report_title(suite) == "twinbench report" and project_subject(suite) is None


def test_a_projects_isa_note_says_the_level_is_the_harnesss():
    from twinbench.report.machine import cpu_isa_note
    note = cpu_isa_note({"project": "blur_bench", "cpu_isa_active": "avx512",
                         "cpu_isa_host": "avx512"}, [])
    assert note.startswith("CPU side: twinbench (the harness) dispatched ISA level avx512")
    assert "blur_bench's own code runs as blur_bench compiled it" in note
