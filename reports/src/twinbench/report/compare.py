"""`compare A B`: per workload and per benchmark, is B faster, slower or the same as A?

compare.md opens with what changed beyond noise (largest first), then both runs' summary rows
side by side (summary.py's) with a verdict per workload, then every benchmark; the verdicts are
verdicts.py's, "not comparable" when the runs' settings or a workload's headline sizes differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, StrMethodFormatter

from .analyze import analyze
from .causes import Causes, group_by_cause
from .document import Block, Heading, Image, Paragraph, Table, to_html, to_markdown
from .loader import Row, Run, load_run
from .machine import Difference, compared_count, setting_differences
from .noise import DEFAULT_K, NoiseModel
from .png import png_bytes
from .summary import SummaryLine
from .units import fmt_time
# The verdicts (verdicts.py) and the U test (stats.py), re-exported: compare.py renders them.
from .stats import mann_whitney_u  # noqa: F401
from .verdicts import (  # noqa: F401
    DEFAULT_THRESHOLD, FASTER, MIN_SAMPLES_FOR_U, NO_COMMON_ROW, NOT_COMPARABLE, ONLY_IN_A,
    ONLY_IN_B, SAME, SIGNIFICANCE, SIZES_DIFFER, SLOWER, VERDICT_COLORS, Comparison, compare_runs,
    gated, ratio_interval, regressions, row_threshold, ungated_regressions, verdict_for)

MAX_LISTED = 40
# A chart of every row of a full run (850 bars) is unreadable and takes a minute to draw: past
# this many rows it shows the rows that changed beyond noise, the largest changes.
MAX_CHARTED = 60
NICE_RATIO_TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25,
                    1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0)
# The rows a workload's verdict compares, in order of preference: (label, Contenders field).
SUBJECTS = (("GPU kernel", "gpu"), ("best CPU", "cpu"), ("GPU e2e", "e2e"))
SIDE_BY_SIDE_HEADERS = [
    "workload", "size", "GPU kernel × CPU in A", "GPU kernel × CPU in B",
    "GPU e2e × CPU in A", "GPU e2e × CPU in B", "OpenMP × serial in A", "OpenMP × serial in B",
    "GPU kernel time B/A", "best CPU time B/A", "verdict", "how decided"]
SIDE_BY_SIDE_TEXT = (
    "Each run's summary row (the same headline size, like-for-like pairing and speedups as its "
    "own report, intervals in brackets), A beside B. B/A below 1 means B took less time. The "
    "verdict compares the two GPU kernel rows of the summary (the best CPU rows where a run has "
    "no GPU kernel for the workload) as the per-benchmark verdicts do: faster or slower only when "
    "the measurements tell them apart and the ratio is past the row's threshold (both in the "
    "last column); how the best CPU rows compare follows. \"not comparable\" when the runs' "
    "settings differ (listed above) or the workload's headline sizes differ; the ratios are then "
    "shown but do not measure the code alone.")
CHANGED_HEADERS = ["benchmark", "verdict", "B/A", "95% interval", "threshold", "A time", "B time",
                   "how decided"]
COMPARISON_HEADERS = ["benchmark", "A time", "B time", "B/A", "95% interval", "verdict",
                      "how decided"]


@dataclass
class SummaryComparison:
    """One workload's summary row in A and in B, the B/A time ratios and a verdict."""
    workload: str
    a: SummaryLine | None
    b: SummaryLine | None
    gpu_ratio: float | None = None     # B/A of the headline GPU kernel time
    cpu_ratio: float | None = None     # B/A of the headline best CPU time (serial or OpenMP)
    verdict: str = NO_COMMON_ROW
    method: str = ""
    # Why the ratios do not measure the code alone ("settings differ", "sizes differ"), or "".
    caveat: str = ""


def _timed_pair(a: Row | None, b: Row | None) -> bool:
    return a is not None and b is not None and bool(a.time_s) and bool(b.time_s)


def _time_ratio(a: Row | None, b: Row | None) -> float | None:
    return b.time_s / a.time_s if _timed_pair(a, b) else None


def _row_label(row: Row) -> str:
    return " ".join(p for p in (row.impl, row.tuning_label) if p)


def _judge(label: str, row_a: Row, row_b: Row,
           threshold: float | NoiseModel) -> tuple[str, str, str]:
    """(verdict, which rows, method)."""
    verdict, method = verdict_for(row_a, row_b, row_threshold(threshold, row_a, row_b))
    which = (f"{label} (A {_row_label(row_a)}, B {_row_label(row_b)})"
             if _row_label(row_a) != _row_label(row_b) else label)
    return verdict, which, method


def headline_lines(run: Run) -> dict[str, SummaryLine]:
    """Workload -> the first line of its summary (its own precision), as the report states it."""
    lines: dict[str, SummaryLine] = {}
    for line in analyze(run).lines:
        lines.setdefault(line.workload, line)
    return lines


def _judge_workload(item: SummaryComparison, threshold: float | NoiseModel,
                    settings: str) -> None:
    """Fill in the verdict and method of a workload in both runs."""
    a, b = item.a, item.b
    if settings:
        item.verdict, item.caveat = NOT_COMPARABLE, "settings differ"
        item.method = f"settings differ: {settings}"
    elif a.size_key != b.size_key:
        item.verdict, item.caveat = SIZES_DIFFER, "sizes differ"
        item.method = (f"headline size A {' '.join(a.size_key) or '–'}, "
                       f"B {' '.join(b.size_key) or '–'}")
    else:
        subject = next(((label, getattr(a.best, f), getattr(b.best, f)) for label, f in SUBJECTS
                        if _timed_pair(getattr(a.best, f), getattr(b.best, f))), None)
        if subject is None:
            item.method = "no side measured in both runs"
            return
        item.verdict, which, method = _judge(*subject, threshold)
        item.method = f"{which}: {method}"
        if subject[0] == "GPU kernel" and item.cpu_ratio is not None:
            # The speedup also moves with the CPU side: say how that went.
            cpu_verdict, which, method = _judge("best CPU", a.best.cpu, b.best.cpu, threshold)
            item.method += f"; {which}: {cpu_verdict} ({method})"


def compare_summaries(run_a: Run, run_b: Run, threshold: float | NoiseModel = DEFAULT_THRESHOLD,
                      differences: list[Difference] | None = None) -> list[SummaryComparison]:
    """One SummaryComparison per workload in either run's summary. differences: the settings
    that differ between the runs (setting_differences); any makes every verdict "not
    comparable"."""
    if differences is None:
        differences, _ = setting_differences(run_a.context, run_b.context)
    lines_a, lines_b = headline_lines(run_a), headline_lines(run_b)
    settings = ", ".join(d.setting.label for d in differences)
    out = []
    for workload in sorted(set(lines_a) | set(lines_b)):
        a, b = lines_a.get(workload), lines_b.get(workload)
        item = SummaryComparison(workload, a, b)
        out.append(item)
        if a is None or b is None:
            item.verdict = ONLY_IN_A if b is None else ONLY_IN_B
            item.method = f"no summary row for {workload} in {'B' if b is None else 'A'}"
            continue
        item.gpu_ratio = _time_ratio(a.best.gpu, b.best.gpu)
        item.cpu_ratio = _time_ratio(a.best.cpu, b.best.cpu)
        _judge_workload(item, threshold, settings)
    return out


def _ratio_text(ratio: float | None, caveat: str) -> str:
    if ratio is None:
        return "–"
    return f"{ratio:.3f}" + (f" ({caveat}: not like for like)" if caveat else "")


def _size_text(item: SummaryComparison) -> str:
    sizes = [" ".join(line.size_key) or "–" if line else None for line in (item.a, item.b)]
    if sizes[0] is None or sizes[1] is None or sizes[0] == sizes[1]:
        return sizes[0] or sizes[1] or "–"
    return f"A {sizes[0]} / B {sizes[1]}"


def side_by_side_cells(item: SummaryComparison) -> list[str]:
    cells = [item.workload, _size_text(item)]
    for speedup in ("gpu_speedup", "e2e_speedup", "omp_speedup"):
        for line in (item.a, item.b):
            value = getattr(line, speedup) if line else None
            cells.append(value.text if value else "–")
    return cells + [_ratio_text(item.gpu_ratio, item.caveat),
                    _ratio_text(item.cpu_ratio, item.caveat), item.verdict, item.method]


# ----------------------------------------------------------------- output

def changed_first(comparisons: list[Comparison]) -> list[Comparison]:
    """What changed beyond noise, the largest change first; then the rest by name."""
    return sorted(comparisons,
                  key=lambda c: (not c.changed, -c.magnitude if c.changed else 0.0, c.name))


def changed_rows(comparisons: list[Comparison]) -> list[Comparison]:
    """The rows that changed beyond noise, the largest change first."""
    return [c for c in changed_first(comparisons) if c.changed]


def charted_rows(comparisons: list[Comparison]) -> list[Comparison]:
    """Every row of a small comparison; of a large one, the largest changes beyond noise."""
    if len(comparisons) <= MAX_CHARTED:
        return comparisons
    return changed_rows(comparisons)[:MAX_CHARTED]


def chart_ratios(comparisons: list[Comparison]) -> Figure | None:
    if not comparisons:
        return None
    ordered = sorted(comparisons, key=lambda c: c.ratio)
    ratios = [c.ratio for c in ordered]
    fig = Figure(figsize=(10, 1.4 + 0.28 * len(ordered)), layout="constrained")
    ax = fig.subplots()
    colors = [VERDICT_COLORS[c.verdict] for c in ordered]
    # Bars grow from 1 (no change) so faster and slower point in opposite directions.
    ax.barh(range(len(ordered)), [r - 1 for r in ratios], left=1, color=colors)
    ax.scatter(ratios, range(len(ordered)), color=colors, edgecolors="black", linewidths=0.5,
               zorder=3, s=18)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(StrMethodFormatter("{x:.3g}×"))
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(ordered)), [c.name for c in ordered], fontsize=7)
    left, right = min(min(ratios), 0.9) / 1.2, max(max(ratios), 1.1) * 1.2
    ax.set_xlim(left, right)
    ax.set_xticks([t for t in NICE_RATIO_TICKS if left <= t <= right])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("time ratio B / A (log scale; < 1 means B is faster)")
    ax.set_title("B relative to A per benchmark (green faster, red slower, grey same)")
    return fig


@dataclass
class CompareResult:
    out_dir: Path
    comparisons: list[Comparison] = field(default_factory=list)
    summary: str = ""
    # Settings that change the numbers and differ between A and B; and those one file lacks.
    differences: list[Difference] = field(default_factory=list)
    not_recorded: dict[str, list[str]] = field(default_factory=dict)
    # The summaries side by side, one per workload in either run.
    workloads: list[SummaryComparison] = field(default_factory=list)
    noise: NoiseModel = field(default_factory=NoiseModel)
    # The changed rows grouped by cause (causes.py).
    causes: Causes | None = None

    def changed(self) -> list[Comparison]:
        return changed_rows(self.comparisons)

    def regressions(self, percent: float) -> list[Comparison]:
        return regressions(self.comparisons, percent)

    def ungated_regressions(self, percent: float) -> list[Comparison]:
        return ungated_regressions(self.comparisons, percent)

    @property
    def markdown(self) -> Path:
        return self.out_dir / "compare.md"

    @property
    def html(self) -> Path:
        return self.out_dir / "compare.html"

    def verdicts(self) -> dict[str, str]:
        return {c.name: c.verdict for c in self.comparisons}

    def workload_verdicts(self) -> dict[str, str]:
        return {w.workload: w.verdict for w in self.workloads}


def mark_not_comparable(comparisons: list[Comparison],
                        differences: list[Difference]) -> list[Comparison]:
    """Runs whose settings differ are not compared benchmark by benchmark either: the verdict
    says so, and the method keeps what the test would have said, for the reader who knows why."""
    settings = ", ".join(d.setting.label for d in differences)
    return [Comparison(c.name, c.a, c.b, c.ratio, NOT_COMPARABLE,
                       f"settings differ ({settings}); the samples alone say {c.verdict} "
                       f"({c.method})", c.threshold, c.interval) for c in comparisons]


def _summary(comparisons: list[Comparison]) -> str:
    counts = {v: sum(c.verdict == v for c in comparisons)
              for v in (FASTER, SLOWER, SAME, NOT_COMPARABLE)}
    text = (f"{len(comparisons)} matched: {counts[SLOWER]} slower and {counts[FASTER]} faster "
            f"beyond noise, {counts[SAME]} same")
    if counts[NOT_COMPARABLE]:
        text += f", {counts[NOT_COMPARABLE]} not comparable (the runs' settings differ)"
    return text


def interval_text(interval: tuple[float, float] | None) -> str:
    return f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "–"


def _changed_table(comparisons: list[Comparison]) -> Table:
    # The threshold has its own column: the method keeps the test only.
    rows = [[c.name, c.verdict, f"{c.ratio:.3f}", interval_text(c.interval),
             c.threshold.text if c.threshold else "–", fmt_time(c.a.time_s), fmt_time(c.b.time_s),
             c.method.split("; threshold ±", 1)[0]] for c in comparisons]
    return Table(CHANGED_HEADERS, rows)


def _comparison_table(comparisons: list[Comparison]) -> Table:
    return Table(COMPARISON_HEADERS, [
        [c.name, fmt_time(c.a.time_s), fmt_time(c.b.time_s), f"{c.ratio:.3f}",
         interval_text(c.interval), c.verdict, c.method] for c in changed_first(comparisons)])


def changed_blocks(comparisons: list[Comparison], noise: NoiseModel) -> list[Block]:
    """What the comparison leads with: the rows that changed beyond noise, largest first."""
    changed = changed_rows(comparisons)
    same = sum(c.verdict == SAME for c in comparisons)
    blocks: list[Block] = [Heading("Changed beyond noise")]
    if changed:
        blocks += [Paragraph(f"{len(changed)} of {len(comparisons)} benchmarks changed beyond "
                             f"noise, the largest change first; {same} are the same."),
                   _changed_table(changed)]
    elif any(c.verdict == NOT_COMPARABLE for c in comparisons):
        blocks.append(Paragraph("No verdict: the runs' settings differ (below)."))
    else:
        blocks.append(Paragraph(f"Nothing: all {same} benchmarks measured in both runs are the "
                                "same within noise."))
    blocks.append(Paragraph(
        "A benchmark is faster or slower only when both runs' measurements tell the medians apart "
        f"(Mann-Whitney U at p<{SIGNIFICANCE} with ≥{MIN_SAMPLES_FOR_U} samples each, else "
        "mean±stddev intervals apart) and the ratio B/A is past the row's threshold. "
        + noise.describe() + " The 95% interval is that of the ratio of the medians (order "
        "statistics of each run's samples)."))
    return blocks


def _name_list(names: list[str]) -> Table:
    # A run against a filtered run can differ by hundreds of names; the head is enough.
    rows = [[n] for n in names[:MAX_LISTED]]
    if len(names) > MAX_LISTED:
        rows.append([f"… and {len(names) - MAX_LISTED} more"])
    return Table(["benchmark"], rows)


def settings_blocks(differences: list[Difference], not_recorded: dict[str, list[str]],
                    compared: int) -> list[Block]:
    """The warning a comparison opens with: a time ratio between runs made with different
    clocks, placement or cache mode measures the settings as much as the code."""
    if differences:
        blocks: list[Block] = [
            Paragraph("The runs differ in settings that change the numbers; a ratio below may "
                      "come from these rather than from the code: "
                      + "; ".join(d.sentence for d in differences) + ".", note=True),
            Table(["setting", "A", "B", "why it matters"],
                  [[d.setting.label, d.a, d.b, d.setting.why] for d in differences])]
    else:
        blocks = [Paragraph(f"Settings that change the numbers: the same in A and B wherever "
                            f"both recorded them ({compared} compared).")]
    return blocks + [Paragraph(f"Not recorded in {label} (an older file, or a run without that "
                               f"part), so not compared: {', '.join(not_recorded[label])}.")
                     for label in ("A", "B") if not_recorded.get(label)]


def _chart_blocks(comparisons: list[Comparison], out_dir: Path) -> list[Block]:
    """The chart of B/A (written to out_dir), or why it was left out."""
    charted = charted_rows(comparisons)
    figure = chart_ratios(charted)
    if figure is None:
        if comparisons:
            return [Paragraph(f"chart ratios left out: no change beyond noise among "
                              f"{len(comparisons)} benchmarks (too many to chart them all)")]
        return [Paragraph("chart ratios left out: no benchmark measured in both runs")]
    png = png_bytes(figure)
    (out_dir / "compare_ratios.png").write_bytes(png)
    blocks: list[Block] = []
    if len(charted) < len(comparisons):
        blocks.append(Paragraph(f"The chart shows the {len(charted)} largest changes beyond "
                                f"noise of {len(comparisons)} benchmarks."))
    return blocks + [Image("Time ratio B/A", "compare_ratios.png", png)]


def cause_blocks(causes: Causes) -> list[Block]:
    """The changed rows grouped by cause (causes.py), the same list as changes.md."""
    total = sum(len(g.rows) for g in causes.groups)
    if not total:
        return []
    blocks: list[Block] = [
        Heading("Changed rows by cause"),
        Paragraph(f"{total} rows changed beyond noise. A row's cause is the first that applies: "
                  "its CPU probe (an all-thread FMA loop taken before and after each CPU row) "
                  "read under a tenth of its run's median, i.e. the host's CPUs were starved "
                  "around it; a commit between the runs' revisions changed its workload's own "
                  "files on its side (cpu/, gpu/ or bench/<workload>); else unexplained. "
                  "changes.md beside this file holds the same list for a run's README.")]
    if causes.git_problem:
        blocks.append(Paragraph(f"The commits are not named: {causes.git_problem}.", note=True))
    for g in causes.groups:
        blocks += [Paragraph(f"{g.cause} ({len(g.rows)} rows)"),
                   Table(["benchmark", "verdict", "B/A", "note"],
                         [[c.name, c.verdict, f"{c.ratio:.3f}", g.notes.get(c.name, "")]
                          for c in g.rows])]
    if causes.shared_commits:
        blocks += [Paragraph(f"Commits between the runs that changed shared code (the harness, "
                             f"the build, the scripts), which may move any row: "
                             f"{len(causes.shared_commits)}."),
                   Table(["commit", "subject"],
                         [[m.sha, m.subject] for m in causes.shared_commits])]
    return blocks


def compare(path_a: str | Path, path_b: str | Path, out_dir: str | Path,
            threshold: float = DEFAULT_THRESHOLD, baseline: list[str | Path] | None = None,
            k: float = DEFAULT_K, repo: str | Path | None = ".") -> CompareResult:
    """Load two runs, write compare.md (+ compare.html, compare_ratios.png, changes.md) to
    out_dir. threshold: the floor of every row's threshold; baseline: runs of one revision (two or
    more) whose between-run noise sets the thresholds; k: the multiple of the noise; repo: the git
    repository that holds both runs' revisions, for the changes' causes (None: not named)."""
    run_a, run_b = load_run(path_a), load_run(path_b)
    runs = [(run_a, "A"), (run_b, "B")]
    baseline_runs = [load_run(p) for p in baseline or []]
    noise = (NoiseModel.from_baseline(baseline_runs, threshold, k) if baseline_runs
             else NoiseModel(floor=threshold, k=k))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    comparisons, only_a, only_b, skipped = compare_runs(run_a, run_b, noise)
    differences, not_recorded = setting_differences(run_a.context, run_b.context)
    if differences:
        comparisons = mark_not_comparable(comparisons, differences)
    workloads = compare_summaries(run_a, run_b, noise, differences)
    result = CompareResult(out_dir, comparisons, _summary(comparisons), differences, not_recorded,
                           workloads, noise)

    # The settings' first paragraph (the warning when they differ), what changed beyond noise,
    # then the summaries side by side, then the rest of the settings (the table of differences).
    settings = settings_blocks(differences, not_recorded,
                               compared_count(run_a.context, run_b.context))
    revisions = [f"{label}: {run.path} (git {run.context.get('git_revision', '?')})."
                 for run, label in runs]
    blocks: list[Block] = [Heading("twinbench comparison", 1), Paragraph(" ".join(revisions)),
                           settings[0]]
    blocks += [Paragraph(f"{label} carries an injected slowdown (a test hook, "
                         f"TWINBENCH_INJECT_SLOWDOWN): {run.context['inject_slowdown']}.",
                         note=True)
               for run, label in runs if run.context.get("inject_slowdown")]
    blocks += changed_blocks(comparisons, noise)
    causes = group_by_cause(run_a, run_b, changed_rows(comparisons), repo)
    result.causes = causes
    blocks += cause_blocks(causes)
    (out_dir / "changes.md").write_text(causes.markdown(), encoding="utf-8")
    if workloads:
        blocks += [Heading("Summary, A and B side by side"),
                   Table(SIDE_BY_SIDE_HEADERS, [side_by_side_cells(w) for w in workloads]),
                   Paragraph(SIDE_BY_SIDE_TEXT)]
    else:
        blocks.append(Paragraph("No summary row in either run: no workload has a usable row."))
    if len(settings) > 1:
        blocks += [Heading("Settings that differ" if differences else "Settings not compared"),
                   *settings[1:]]
    blocks += [Heading("By benchmark name"),
               Paragraph(result.summary + ". Changed rows first (largest change first), then the "
                         "rest by name."),
               *[Paragraph(f"{label} is a partial run: " + "; ".join(run.problems), note=True)
                 for run, label in runs if run.partial],
               *_chart_blocks(comparisons, out_dir)]
    if comparisons:
        blocks += [Heading("Per benchmark"), _comparison_table(comparisons)]
    if skipped:
        blocks += [Heading("Skipped in A or B"),
                   Table(["benchmark", "reason"], [list(s) for s in skipped])]
    for names, label in ((only_a, "Only in A"), (only_b, "Only in B")):
        if names:
            blocks += [Heading(f"{label} ({len(names)})"), _name_list(names)]
    result.markdown.write_text(to_markdown(blocks), encoding="utf-8")
    result.html.write_text(to_html(blocks, "twinbench comparison"), encoding="utf-8")
    return result
