"""The committed runs rendered now give the answer recorded in tests/python/answers/: the headline,
the summary table, the first screen and every chart's data (tests/python/answer.py says what is
compared and writes the answers again when a change of figure is meant, its diff committed with
the reason)."""

from __future__ import annotations

import difflib

import pytest

from answer import RUNS, answer_path, dump, render_answer


@pytest.mark.parametrize("run", RUNS)
def test_the_rendered_answer_is_the_recorded_one(run):
    path = answer_path(run)
    assert path.is_file(), f"no recorded answer for {run}: python tests/python/answer.py {run} --write"
    got, want = dump(render_answer(run)), path.read_text(encoding="utf-8")
    if got != want:
        diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                 str(path.name), "rendered now", n=1))[:80])
        pytest.fail(f"{run}: the answer differs from {path.name}:\n{diff}")
