"""Every repository path that the docs, the READMEs and the code's comments name exists: a
reader sent to a file that was renamed or removed learns nothing. A path counts as existing when
the file or folder is there, when it names files by their stem (`cpu/scan` for cpu/scan.cpp and
.hpp), or, inside a sub-project with its own layout (kernel-progress/), relative to that project.
A results folder that left the tree for git history exists when results/README.md's "In git
history" table lists it (with the revision that restores it). Paths with placeholders
(`<workload>`, `*`, `{...}`) are patterns, not paths."""

from __future__ import annotations

import re
import subprocess

import pytest

from conftest import REPO_ROOT

TOP = ("common", "cpu", "gpu", "bench", "include", "scripts", "docs", "reports", "tests", "peers",
       "results", "examples", "kernel-progress", "cmake")
# A path ends where its characters do; one that runs into a placeholder (`tests/test_<w>.cpp`) is
# a pattern and is not read.
PATH = re.compile(r"(?<![\w./-])((?:%s)/[A-Za-z0-9_.+/-]*[A-Za-z0-9_+/-])(?![\w.+/<*{-])"
                  % "|".join(TOP))
# Where the names are read: the docs and READMEs whole, and the sources (their comments and
# strings: a message that names a file sends the reader there too).
DOCS = re.compile(r"(^docs/.*\.md$|(^|/)README\.md$)")
SOURCES = re.compile(r"^(common|cpu|gpu|bench|include|scripts|reports/src)/.*\.(cpp|hpp|cu|cuh|h|py|sh)$")
# Named on purpose though absent: files a command writes (results/main.json: ci-gate.sh's output).
WRITTEN = {"results/main.json"}


def _tracked() -> list[str]:
    out = subprocess.run(["git", "-C", str(REPO_ROOT), "ls-files"], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return out.stdout.split()


def _in_history() -> set[str]:
    """The results folders results/README.md lists as restorable from git history."""
    text = (REPO_ROOT / "results" / "README.md").read_text(encoding="utf-8")
    history = text.split("## In git history", 1)[-1] if "## In git history" in text else ""
    return {"results/" + m for m in re.findall(r"^\| `([^`]+)` \|", history, re.M)}


def _exists(path: str, named_in: str) -> bool:
    if any(path == h or path.startswith(h + "/") for h in _in_history()):
        return True
    candidates = [REPO_ROOT / path, (REPO_ROOT / named_in).parent / path]
    project = named_in.split("/", 1)[0]
    if project == "kernel-progress" or named_in == "scripts/test-kernel-progress.sh":
        # The sub-project's own paths (its test script lists what its sdist must hold).
        candidates.append(REPO_ROOT / "kernel-progress" / path)
    for c in candidates:
        if c.exists() or any(c.parent.glob(c.name + ".*")):
            return True
    return False


# The files of the ceilings, the reports and the run scripts, held on their own so that a stale
# name there fails under its own test; test_every_named_path_exists holds the whole tree.
CHECKED = re.compile(r"^(docs/method\.md|README\.md|reports/README\.md|results/.*README\.md|"
                     r"reports/src/twinbench/report/.*\.py|scripts/(run|gpu-run|gpu-bundle|"
                     r"gpu-profile|report)\.sh|common/(host_ceilings|ceilings|ceiling_rows|"
                     r"cpu_cache_flush|row_limit)\.[ch]pp|cpu/(scan|streaming|nt_store|"
                     r"vector_math)\.[ch]pp)$")


def missing_paths(only: re.Pattern | None = None) -> dict[str, list[str]]:
    missing: dict[str, list[str]] = {}
    for name in _tracked():
        if not (DOCS.search(name) or SOURCES.search(name)):
            continue
        if only is not None and not only.search(name):
            continue
        text = (REPO_ROOT / name).read_text(encoding="utf-8", errors="replace")
        for match in PATH.finditer(text):
            path = match.group(1).rstrip("./")
            if any(c in path for c in "*<>{}") or path in WRITTEN:
                continue
            if not _exists(path, name):
                missing.setdefault(path, []).append(name)
    return missing


def _listing(missing: dict[str, list[str]]) -> str:
    return "\n".join(f"{p} (named in {', '.join(sorted(set(f)))})"
                     for p, f in sorted(missing.items()))


def test_paths_named_in_the_docs_reports_and_ceilings_exist():
    missing = missing_paths(CHECKED)
    assert not missing, _listing(missing)


def test_every_named_path_exists():
    missing = missing_paths()
    assert not missing, _listing(missing)
