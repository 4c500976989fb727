"""Why rows changed between two runs: each row that changed beyond noise, grouped by a cause the
two runs and the repository show, so that a run's README can say which changes the code explains
and which it does not.

The causes, in the order a row is given the first that applies:
- the host's CPUs were starved around the row in one run: the all-thread FMA probe the run takes
  before and after each CPU row (cpu_probe_flops_before/after) read under a tenth of that run's
  median probe. Such a probe is a 2 ms loop on every thread that took 10x its usual time: a CPU of
  the VM was not running for milliseconds, which stalls any row whose threads meet at a barrier;
- a commit between the runs' revisions changed the row's own code: its workload's files on its side
  (cpu/<workload>*, gpu/<workload>*, bench/<workload>*; the Numba peers' files for a peer row),
  named by commit;
- unexplained: neither. The commits that changed shared code (anything else) between the two
  revisions are listed once, as what may still move any row.
The repository is read with `git log A..B --name-only`; when it does not hold both revisions the
commits are not named, and the list says so.
"""

from __future__ import annotations

import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .loader import Row, Run
from .verdicts import Comparison

# A probe under this share of its run's median probe: the CPUs were starved around the row.
STARVED_SHARE = 0.1
_PROBES = ("cpu_probe_flops_before", "cpu_probe_flops_after")


@dataclass
class Commit:
    sha: str
    subject: str
    files: list[str]


@dataclass
class CauseGroup:
    """One cause and the rows it explains (largest change first), with a note per row name."""
    cause: str
    rows: list[Comparison] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)


@dataclass
class Causes:
    groups: list[CauseGroup]
    # Why the commits could not be named, or "".
    git_problem: str = ""
    # Commits between the revisions that changed no workload's own files.
    shared_commits: list[Commit] = field(default_factory=list)
    revisions: tuple[str, str] = ("?", "?")

    def markdown(self) -> str:
        return to_markdown(self)


def _clean_revision(revision: str) -> str:
    return revision.split("-dirty", 1)[0].strip()


def commits_between(repo: str | Path, rev_a: str, rev_b: str) -> tuple[list[Commit], str]:
    """The commits in rev_b that rev_a lacks, with the files each changed; ([], why) when git or
    the revisions are missing."""
    a, b = _clean_revision(rev_a), _clean_revision(rev_b)
    if not a or not b or "?" in (a, b) or "unknown" in (a, b):
        return [], "a run does not name its git revision"
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "log", "--no-merges", "--format=\x01%h\x02%s",
             "--name-only", f"{a}..{b}"],
            capture_output=True, text=True, check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [], f"git could not be run ({exc})"
    if out.returncode != 0:
        return [], (f"the repository at {repo} does not hold both revisions ({a}, {b}): "
                    + (out.stderr.strip().splitlines() or ["git log failed"])[-1])
    commits = []
    for chunk in out.stdout.split("\x01")[1:]:
        head, _, rest = chunk.partition("\n")
        sha, _, subject = head.partition("\x02")
        commits.append(Commit(sha, subject, [f for f in rest.split("\n") if f.strip()]))
    return commits, ""


def own_files(row: Row) -> tuple[str, ...]:
    """Path prefixes of the row's own code on its side."""
    w = row.workload
    if row.is_peer:
        return (f"peers/numba/{w}", "peers/numba/")
    side = (f"gpu/{w}.", f"gpu/{w}_") if row.is_gpu else (f"cpu/{w}.", f"cpu/{w}_")
    return (*side, f"bench/{w}.", f"bench/{w}_")


def _owns(prefixes: tuple[str, ...], path: str) -> bool:
    return any(path.startswith(p) for p in prefixes)


def _median_probe(run: Run) -> float | None:
    values = [v for r in run.rows for k in _PROBES
              if (v := r.counter(k)) is not None and v > 0]
    return statistics.median(values) if values else None


def starved(row: Row, median_probe: float | None) -> float | None:
    """The row's lowest probe as a share of its run's median probe, when under STARVED_SHARE."""
    if not median_probe:
        return None
    probes = [v for k in _PROBES if (v := row.counter(k)) is not None and v > 0]
    share = min(probes) / median_probe if probes else None
    return share if share is not None and share < STARVED_SHARE else None


def group_by_cause(run_a: Run, run_b: Run, changed: list[Comparison],
                   repo: str | Path | None) -> Causes:
    rev_a = str(run_a.context.get("git_revision", "?"))
    rev_b = str(run_b.context.get("git_revision", "?"))
    commits, problem = (commits_between(repo, rev_a, rev_b) if repo is not None
                        else ([], "no repository was given"))
    median_a, median_b = _median_probe(run_a), _median_probe(run_b)
    groups: dict[str, CauseGroup] = {}
    for c in changed:
        share_a, share_b = starved(c.a, median_a), starved(c.b, median_b)
        if share_a is not None or share_b is not None:
            which, share = ("B", share_b) if share_b is not None else ("A", share_a)
            cause = ("the host's CPUs were starved around the row (its CPU probe read under a "
                     "tenth of its run's median probe)")
            group = groups.setdefault(cause, CauseGroup(cause))
            group.rows.append(c)
            group.notes[c.name] = f"{which}'s probe at {share:.1%} of its median"
            continue
        prefixes = own_files(c.b)
        mine = [m for m in commits if any(_owns(prefixes, f) for f in m.files)]
        if mine:
            cause = ("a commit between the runs changed the row's own code (the candidate "
                     "cause): " + "; ".join(f"{m.sha} {_short(m.subject)}" for m in mine))
        else:
            cause = "unexplained: no commit between the runs changed the row's own code"
        groups.setdefault(cause, CauseGroup(cause)).rows.append(c)
    shared = [m for m in commits if any(_shared_path(f) for f in m.files)]
    order = sorted(groups.values(), key=lambda g: (g.cause.startswith("unexplained"),
                                                  -len(g.rows), g.cause))
    return Causes(order, problem, shared, (rev_a, rev_b))


# Code every row runs through: the harness and library, the build, the scripts that run the suite.
_SHARED_PREFIXES = ("common/", "include/", "cmake/", "CMakeLists.txt", "CMakePresets.json",
                    "scripts/run.sh", "scripts/gpu-run.sh", "scripts/common.sh",
                    "scripts/gpu-bundle.sh")
_SHARED_HELPERS = ("cpu/streaming.hpp", "cpu/nt_store.hpp", "cpu/vector_math.hpp")


def _shared_path(path: str) -> bool:
    # bench/'s subfolders hold the registration code every workload's file uses.
    return (path.startswith(_SHARED_PREFIXES) or path in _SHARED_HELPERS
            or (path.startswith("bench/") and path.count("/") > 1))


def _short(subject: str, width: int = 90) -> str:
    return subject if len(subject) <= width else subject[:width - 1].rstrip() + "…"


def _row_line(c: Comparison, note: str | None) -> str:
    return f"- `{c.name}`: {c.verdict}, B/A {c.ratio:.3g}" + (f" ({note})" if note else "")


def to_markdown(causes: Causes, max_rows: int = 40) -> str:
    rev_a, rev_b = causes.revisions
    total = sum(len(g.rows) for g in causes.groups)
    lines = [f"{total} rows changed beyond noise between revisions {rev_a} (A) and {rev_b} (B), "
             "grouped by cause (produced by `twinbench-report compare`, which says how a cause "
             "is decided in its compare.md)."]
    if causes.git_problem:
        lines.append(f"The commits between the runs are not named: {causes.git_problem}.")
    for g in causes.groups:
        lines += ["", f"**{g.cause}** ({len(g.rows)} rows)", ""]
        lines += [_row_line(c, g.notes.get(c.name)) for c in g.rows[:max_rows]]
        if len(g.rows) > max_rows:
            lines.append(f"- … and {len(g.rows) - max_rows} more (compare.md lists them all)")
    if causes.shared_commits:
        lines += ["", f"Commits between the runs that changed shared code, which may move any "
                  f"row ({len(causes.shared_commits)}):", ""]
        lines += [f"- {m.sha} {_short(m.subject)}" for m in causes.shared_commits]
    return "\n".join(lines) + "\n"
