"""Every fenced block of the README is checked: the diff is the one between the two example
programs (which test_examples.py runs), one kernel line and three host lines; the Python
blocks run under the simulator; the shell block is the install command that
scripts/test-kernel-progress.sh runs."""

from __future__ import annotations

import warnings

import kernel_progress as kp
from readme_blocks import ROOT, article_diff, blocks, changed_lines

README = (ROOT / "README.md").read_text()


def test_the_readme_has_the_blocks_that_are_checked():
    assert [lang for lang, _ in blocks(README)] == ["sh", "diff", "python"]


def test_the_install_block_is_the_plain_command():
    (code,) = [c for lang, c in blocks(README) if lang == "sh"]
    assert code == "pip install ./kernel-progress\n"


def test_the_diff_is_the_examples_diff():
    (code,) = [c for lang, c in blocks(README) if lang == "diff"]
    assert code == article_diff()


def test_the_article_kernel_changes_one_line_and_its_host_three():
    counts = changed_lines(article_diff())
    assert counts["kernel"] == (1, 1)          # the atomic out, kp.tally in
    assert counts["host"] == (3, 3)            # the counter, the launch, the count printed
    assert counts["module"] == (0, 2)          # the import and a blank line


def test_the_python_blocks_run():
    for lang, code in blocks(README):
        if lang == "python":
            with warnings.catch_warnings():
                warnings.simplefilter("error", kp.KernelProgressWarning)
                exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
