"""Every code block of docs/python.md, run as the page says, under the CUDA simulator: the pair
written to my_pairs.py, the commands run, the notebook's blocks executed in order in one
folder. The install block is the command scripts/test-pyapi.sh runs."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from conftest import REPO, command, run_command

PAGE = REPO / "docs" / "python.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(PAGE.read_text())]


def test_the_page_has_the_blocks_this_test_runs():
    kinds = [k for k, _ in blocks()]
    assert kinds == ["sh", "python", "sh", "python", "python", "python", "python"], kinds


def test_the_install_block_is_the_command_the_install_test_runs():
    assert blocks()[0][1].strip() == 'pip install "./reports[numba]"'


def test_the_pair_is_short_and_names_few_twinbench_names():
    pair = blocks()[1][1]
    assert len(pair.strip().splitlines()) <= 25
    names = set(re.findall(r"\btb\.(\w+)", pair))
    assert names == {"Workload", "uniform"}, names


def test_the_docs_in_order(in_tmp):
    """The pair, the commands, the notebook, the reading of the file, the progress bar and the
    2D kernel, as a reader runs them one after another."""
    page = blocks()
    (in_tmp / "my_pairs.py").write_text(page[1][1])
    for line in page[2][1].strip().splitlines():
        args = shlex.split(line)
        r = run_command(command(args[0]) + args[1:], in_tmp)
        assert r.returncode == 0, f"{line}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        if args[0] == "twinbench-py":
            assert "~" in r.stderr and " left] " in r.stderr   # the progress line's estimate
    run = json.loads((in_tmp / "twinbench-py.json").read_text())
    rows = {r["name"]: r for r in run["benchmarks"]}
    assert not [n for n, r in rows.items() if r.get("error_occurred")]
    assert "vector_add/serial_reference/n:1000/manual_time" in rows
    report = (in_tmp / "report" / "report.md").read_text()
    assert "vector_add" in report and "cuda_add_gpu" in report
    for source in page[3:7]:
        exec(compile(source[1], "docs/python.md", "exec"), {"__name__": "__docs__"})
    assert (in_tmp / "notebook.json").exists()


@pytest.mark.parametrize("index", [3, 4, 5, 6])
def test_each_python_block_is_python(index):
    compile(blocks()[index][1], "docs/python.md", "exec")
