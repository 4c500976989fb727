"""The README's answer and first screen come from the newest complete committed run, and say what
that run's report says: the picture is its report's first screen, and every figure of the
README's headline paragraph is the report's."""

from __future__ import annotations

import re

from conftest import REPO_ROOT
from twinbench.report.analyze import analyze
from twinbench.report.loader import load_run

README = REPO_ROOT / "README.md"


def _answer_section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## The answer on one")
    return text[start:text.index("\n## ", start + 3)]


def _named_run() -> str:
    match = re.search(r"The first screen of the report for `(results/[^`]+)`", _answer_section())
    assert match, "the answer names the run its first screen comes from"
    return match.group(1)


def _complete_runs() -> list[str]:
    """The committed runs that hold a complete default run and its report, oldest first."""
    runs = []
    for run_json in sorted(REPO_ROOT.glob("results/*/*/run.json.gz")):
        folder = run_json.parent
        if not (folder / "report" / "report.md").exists():
            continue
        if load_run(run_json).partial:
            continue
        runs.append(str(folder.relative_to(REPO_ROOT)))
    return sorted(runs, key=lambda f: f.rsplit("/", 1)[-1])


_NUM = r"(\d+(?:\.\d+)?)"
_X = r"[x×]"
_FIGURES = [
    rf"{_NUM}[-–]{_NUM}{_X} faster like for like on {_NUM} of {_NUM} workloads",
    rf"median {_NUM}{_X}",
    rf"(?:hardware ratio|measured limits is) {_NUM}[-–]{_NUM}{_X}",
    rf"{_NUM} of {_NUM} workloads are slower on the GPU",
]


def _figures(text: str) -> list[tuple[str, ...]]:
    """The headline's figures, written either way (the README's ASCII or the report's signs)."""
    text = " ".join(text.split())
    found = [re.search(p, text) for p in _FIGURES]
    assert all(found), (text, [p for p, m in zip(_FIGURES, found) if not m])
    return [m.groups() for m in found]


def test_the_answer_is_the_newest_complete_runs():
    """Of its machine's runs: the README gives the answer on one H200, and a complete run on
    another GPU (an H100 lent instead) is that GPU's answer, not a newer figure for the H200."""
    named = _named_run()
    machine = named.rsplit("/", 1)[0] + "/"
    assert named == [r for r in _complete_runs() if r.startswith(machine)][-1]


def test_the_picture_is_that_runs_first_screen():
    run = _named_run()
    picture = f"({run}/report/first-screen.png)"
    assert picture in _answer_section()
    assert (REPO_ROOT / run / "report" / "first-screen.png").exists()


def test_the_headline_figures_are_the_reports():
    run = _named_run()
    report = (REPO_ROOT / run / "report" / "report.md").read_text(encoding="utf-8")
    headline = analyze(load_run(REPO_ROOT / run / "run.json.gz")).headline
    assert headline and headline in report, "the committed report holds the run's headline now"
    section = _answer_section()
    said = section[section.index("Its headline:"):]
    said = said[:said.index("A speedup well above")]
    assert _figures(said) == _figures(headline), (said, headline)
    for workload in re.findall(r"the CPU is faster on ([^.]+?)\.", headline)[0].replace(
            " and ", ", ").split(", "):
        assert f"`{workload}`" in said
