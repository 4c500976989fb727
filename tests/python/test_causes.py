"""compare groups the rows that changed beyond noise by cause (twinbench/report/causes.py): a
commit between the runs' revisions that changed the row's own files, CPUs starved around the row
(its probe), or unexplained; changes.md holds the list for a run's README."""

from __future__ import annotations

import subprocess

from conftest import repeated, write_run
from twinbench.report.causes import commits_between
from twinbench.report.compare import compare


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def _repo(tmp_path):
    repo = tmp_path / "repo"
    (repo / "cpu").mkdir(parents=True)
    (repo / "common").mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    (repo / "cpu" / "scan.cpp").write_text("v1\n")
    (repo / "cpu" / "dot.cpp").write_text("v1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    rev_a = _git(repo, "rev-parse", "--short=12", "HEAD")
    (repo / "cpu" / "scan.cpp").write_text("v2\n")
    _git(repo, "commit", "-q", "-am", "scan: a faster omp pass")
    (repo / "common" / "harness.cpp").write_text("v1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "harness: one more counter")
    return repo, rev_a, _git(repo, "rev-parse", "--short=12", "HEAD")


def _rows(times: dict[str, float], probes: dict[str, float]) -> list[dict]:
    out = []
    for name, t in times.items():
        for entry in repeated(name, [t * f for f in (0.99, 1.0, 1.01, 1.0, 0.995, 1.005)]):
            entry.update({"cpu_probe_flops_before": probes.get(name, 1e12),
                          "cpu_probe_flops_after": probes.get(name, 1e12)})
            out.append(entry)
    return out


def test_changes_are_grouped_by_commit_probe_or_unexplained(tmp_path):
    repo, rev_a, rev_b = _repo(tmp_path)
    names = ["scan/omp/n:1048576/threads:2", "dot/omp/n:1048576/threads:2",
             "vector_add/omp/n:1048576/threads:2", "nested_loop/omp/n:100/threads:2"]
    a = write_run(tmp_path / "a.json", _rows(dict.fromkeys(names, 1.0), {}),
                  {"git_revision": rev_a})
    b_times = {names[0]: 0.5, names[1]: 2.0, names[2]: 3.0, names[3]: 1.0}
    b = write_run(tmp_path / "b.json", _rows(b_times, {names[2]: 1e9}),
                  {"git_revision": rev_b + "-dirty"})
    result = compare(a, b, tmp_path / "out", repo=repo)
    groups = {g.cause: [c.name for c in g.rows] for g in result.causes.groups}
    by_commit = next(k for k in groups if "scan: a faster omp pass" in k)
    assert groups[by_commit] == [names[0]]
    starved = next(k for k in groups if "starved" in k)
    assert groups[starved] == [names[2]]
    unexplained = next(k for k in groups if k.startswith("unexplained"))
    assert groups[unexplained] == [names[1]]  # its file did not change between the revisions
    assert all(names[3] not in rows for rows in groups.values())  # not changed
    assert [m.subject for m in result.causes.shared_commits] == ["harness: one more counter"]
    text = (tmp_path / "out" / "changes.md").read_text()
    assert "3 rows changed beyond noise" in text and "harness: one more counter" in text
    assert "Changed rows by cause" in (tmp_path / "out" / "compare.md").read_text()


def test_revisions_the_repository_lacks_are_said(tmp_path):
    repo, rev_a, _ = _repo(tmp_path)
    commits, problem = commits_between(repo, rev_a, "0123456789ab")
    assert commits == [] and "does not hold both revisions" in problem
    assert commits_between(repo, "?", rev_a)[1] == "a run does not name its git revision"
