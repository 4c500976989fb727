"""The README and docs/ say what is, and every link and command in them points at something real.

README.md stays short (the rest lives in docs/, as Google Benchmark and nvbench keep theirs); every
relative link resolves to a file in the repository; the scripts and `python -m` modules the text
names exist; and the text carries no issue numbers, dates or revisions, which a reader of the
repository cannot follow (history belongs to git). A results folder's name is a path, not a date.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
README_MAX_LINES = 150

# Pages other engineers are writing at the same time as the README that links them. A link to one
# of these may be missing until it lands; once every page exists this list is emptied.
PAGES_WRITTEN_IN_PARALLEL: set[str] = set()

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)

RESULTS_PATH = re.compile(r"results/[\w./-]*")
ISSUE = re.compile(r"\bissues?\s+#?\d+|(?<![\w&/#])#\d+\b", re.I)
DATE = re.compile(r"\b(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b")
REVISION = re.compile(r"(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w/-])")

# The reports are the twinbench package, installed into the venv by scripts/deps.sh: the text
# runs its command (`.venv/bin/twinbench-report`) or the venv's interpreter, never the system
# Python, which may lack it; nor the old top-level `reports` module.
REPORTS_WITHOUT_VENV = re.compile(
    r"(?<![\w/.])python3?\s+-m\s+twinbench\b|python3?\s+-m\s+reports\b")
# Pages whose commands are checked for that; the pages written in parallel join once they are
# brought in line (their plain `python -m twinbench.report` lines assume an activated venv).
VENV_CHECKED = ["README.md", "docs/command-line.md", "docs/design.md", "docs/gpu-machines.md",
                "docs/method.md", "docs/testing.md", "docs/workloads.md",
                "docs/compare-and-gate.md", "docs/live-progress.md", "docs/machines.md",
                "docs/adding-a-workload.md"]

SCRIPT = re.compile(r"(?<![\w./-])scripts/[\w.-]+\.(?:sh|py)\b")
PYTHON_MODULE = re.compile(r"python3?\s+-m\s+([A-Za-z_][\w.]*)")


def doc_files() -> list[Path]:
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


def prose(text: str) -> str:
    """The text a reader follows as links: without code blocks and inline code."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def relative_links(text: str) -> list[str]:
    targets = []
    for target in LINK.findall(prose(text)):
        if EXTERNAL.match(target) or target.startswith("#"):
            continue
        targets.append(target.split("#", 1)[0])
    return targets


def resolve(doc: Path, target: str) -> Path:
    return (doc.parent / target).resolve()


def in_repository(path: Path) -> bool:
    return path == ROOT or ROOT in path.parents


def without_results_paths(text: str) -> str:
    return RESULTS_PATH.sub("results/PATH", text)


def history_marks(text: str) -> list[str]:
    """Issue numbers, dates and revisions outside results paths."""
    text = without_results_paths(text)
    found = []
    for pattern in (ISSUE, DATE, REVISION):
        found += [m.group(0) for m in pattern.finditer(text)]
    return found


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail into docs/"


def test_readme_links_every_docs_page():
    linked = {str(resolve(README, t).relative_to(ROOT)) for t in relative_links(README.read_text())}
    pages = {str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")}
    assert pages <= linked, f"docs pages the README does not link: {sorted(pages - linked)}"


@pytest.mark.parametrize("doc", doc_files(), ids=ids(doc_files()))
def test_relative_links_resolve(doc):
    missing = []
    for target in relative_links(doc.read_text(encoding="utf-8")):
        path = resolve(doc, target)
        name = str(path.relative_to(ROOT)) if in_repository(path) else str(path)
        if not in_repository(path):
            missing.append(f"{target} (outside the repository)")
        elif not path.exists() and name not in PAGES_WRITTEN_IN_PARALLEL:
            missing.append(target)
    assert not missing, f"{doc.relative_to(ROOT)}: links to nothing: {missing}"


@pytest.mark.parametrize("doc", doc_files(), ids=ids(doc_files()))
def test_no_issue_numbers_dates_or_revisions(doc):
    marks = history_marks(doc.read_text(encoding="utf-8"))
    assert not marks, f"{doc.relative_to(ROOT)} names history a reader cannot follow: {marks}"


@pytest.mark.parametrize("doc", doc_files(), ids=ids(doc_files()))
def test_named_scripts_exist(doc):
    named = set(SCRIPT.findall(doc.read_text(encoding="utf-8")))
    missing = sorted(s for s in named if not (ROOT / s).is_file())
    assert not missing, f"{doc.relative_to(ROOT)} names scripts that do not exist: {missing}"


@pytest.mark.parametrize("doc", doc_files(), ids=ids(doc_files()))
def test_named_python_modules_exist(doc, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.syspath_prepend(str(ROOT / "reports" / "src"))
    named = set(PYTHON_MODULE.findall(doc.read_text(encoding="utf-8")))
    missing = sorted(m for m in named if not module_exists(m))
    assert not missing, f"{doc.relative_to(ROOT)} runs modules that do not exist: {missing}"


@pytest.mark.parametrize("name", VENV_CHECKED)
def test_reports_run_with_the_venv(name):
    plain = REPORTS_WITHOUT_VENV.findall((ROOT / name).read_text(encoding="utf-8"))
    assert not plain, f"{name}: run the reports as .venv/bin/twinbench-report ..., not {plain}"


def test_the_venv_check_tells_the_two_apart():
    assert REPORTS_WITHOUT_VENV.search("python -m twinbench.report compare a b")
    assert REPORTS_WITHOUT_VENV.search("run python3 -m twinbench.report.noise x")
    assert REPORTS_WITHOUT_VENV.search(".venv/bin/python -m reports compare a b")
    assert not REPORTS_WITHOUT_VENV.search(".venv/bin/python -m twinbench.report.noise a b")
    assert not REPORTS_WITHOUT_VENV.search(".venv/bin/twinbench-report compare a b")


def module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


# The checks themselves, on text with and without what they look for.


@pytest.mark.parametrize(
    "text",
    ["see issue 37", "issues 26, 27", "fixed in #41", "on 2026-12-02 it", "revision f8f33ef", "(40175bc:"],
)
def test_history_marks_are_found(text):
    assert history_marks(text)


@pytest.mark.parametrize(
    "text",
    [
        "`results/nvidia-h200/2026-12-02b/report/first-screen.png`",
        "n:268435456",
        "[a](#the-two-commands)",
        "ISCA 2010",
        "&#38;",
        "questions/78433388/reporting",
        "a deadbeef word",
    ],
)
def test_ordinary_text_is_not_history(text):
    assert not history_marks(text)


def test_links_in_code_are_not_links():
    text = "```cpp\nauto f = [](benchmark::State& s) {};\n```\nand `[x](nowhere.md)` and [y](docs/method.md)"
    assert relative_links(text) == ["docs/method.md"]


def test_anchors_and_urls_are_not_files():
    text = "[a](#x) [b](https://example.org/a.md) [c](docs/testing.md#on-the-gpu-machine)"
    assert relative_links(text) == ["docs/testing.md"]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
