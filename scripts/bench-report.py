#!/usr/bin/env python3
"""How long `twinbench-report render` takes on a run, and where the time goes: load, analysis,
each chart (building its figure and writing its PNG) and the documents (report.md, report.html
and everything else). Best of --repeat renders in one process, after one import.

    .venv/bin/python scripts/bench-report.py [RUN.json] [--repeat 2] [--profile]

Default RUN: results/nvidia-h200/2026-12-04/run.json.gz. Not a test: timings depend on the
machine and its load; the figures quoted in reports/README.md say where they were measured.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class _Clock:
    """Wall and CPU seconds (this process and its children, for charts drawn in workers): on a
    busy machine the CPU seconds stay near what a quiet one takes, the wall seconds do not."""

    def __init__(self):
        self.wall, self.cpu = time.perf_counter(), _cpu()

    def lap(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, _cpu() - self.cpu


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _timed_charts(phases: dict[str, list[float]]):
    """Each chart from its Figure's construction to its PNG (FigureCanvasAgg.print_png, which
    savefig and the package's own PNG writer both end in), named by its first title."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    init, print_png = Figure.__init__, FigureCanvasAgg.print_png
    started: dict[int, _Clock] = {}

    def timed_init(self, *args, **kwargs):
        started[id(self)] = _Clock()
        init(self, *args, **kwargs)

    @functools.wraps(print_png)  # print_figure passes only the keywords its signature names
    def timed_print_png(self, *args, **kwargs):
        try:
            return print_png(self, *args, **kwargs)
        finally:
            # savefig prints twice (a pass for the layout first): the last one ends the chart.
            clock = started.get(id(self.figure))
            if clock is not None:
                figure = self.figure
                title = (figure._suptitle.get_text() if figure._suptitle else "") or next(
                    (a.get_title() for a in figure.axes if a.get_title()), "figure")
                wall, cpu = clock.lap()
                phases[f"chart: {title[:60]}"] = [wall, cpu]

    Figure.__init__, FigureCanvasAgg.print_png = timed_init, timed_print_png

    def restore():
        Figure.__init__, FigureCanvasAgg.print_png = init, print_png
    return restore


def one_render(run_path: Path, out: Path) -> dict[str, list[float]]:
    from twinbench.report import loader, render
    phases: dict[str, list[float]] = {}
    total = _Clock()
    clock = _Clock()
    run = loader.merge_runs([loader.load_run(run_path)])
    phases["load"] = list(clock.lap())
    analysis = None
    if hasattr(render, "analyze"):
        clock = _Clock()
        analysis = render.analyze(run)
        phases["analysis"] = list(clock.lap())
    restore = _timed_charts(phases)
    try:
        clock = _Clock()
        if analysis is not None:
            render.render_analysis(analysis, out)
        else:
            render.render_run(run, out)
        rest = clock.lap()
    finally:
        restore()
    charts = [v for k, v in phases.items() if k.startswith("chart")]
    phases["documents (the rest of the render)"] = [rest[0] - sum(c[0] for c in charts),
                                                    rest[1] - sum(c[1] for c in charts)]
    phases["total"] = list(total.lap())
    return phases


def module_changes(run_path: Path) -> None:
    """Follows one render with sys.setprofile and counts, among the package's own modules
    (twinbench.report.*): the calls from one module into another and the returns back (each a
    change of module), and of those calls the ones that carry the run's data (an argument that
    is the Run, its rows, or the analysis). Matplotlib's drawing is stubbed out meanwhile: it is
    no module of the package and only slows the count."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from twinbench.report import loader, render
    run = loader.merge_runs([loader.load_run(run_path)])
    data_ids = {id(run), id(run.rows)}
    prefix = "twinbench.report"
    changes = calls = data_calls = 0
    entered: dict[str, int] = {}
    sequence: list[str] = []

    def module(frame) -> str:
        return frame.f_globals.get("__name__", "") if frame is not None else ""

    def profile(frame, event, _arg):
        nonlocal changes, calls, data_calls
        if event not in ("call", "return"):
            return
        here, there = module(frame), module(frame.f_back)
        if here == there or not here.startswith(prefix) or not there.startswith(prefix):
            return
        changes += 1
        if event == "call":
            calls += 1
            values = list(frame.f_locals.values())
            for v in values:
                if type(v).__name__ == "Analysis":  # what it holds is the run's data too
                    data_ids.update(id(getattr(v, k)) for k in ("run", "rows", "lines", "pairs"))
                    data_ids.add(id(v))
            if any(id(v) in data_ids for v in values):
                data_calls += 1
                entered[here] = entered.get(here, 0) + 1
                sequence.append(here)

    saved = (Figure.savefig, FigureCanvasAgg.print_png, ConstrainedLayoutEngine.execute)
    Figure.savefig = lambda self, target, *a, **k: None
    FigureCanvasAgg.print_png = lambda self, target, *a, **k: target.write(b"")
    ConstrainedLayoutEngine.execute = lambda self, fig: None
    os.environ["TWINBENCH_REPORT_WORKERS"] = "0"
    try:
        with tempfile.TemporaryDirectory() as out:
            sys.setprofile(profile)
            try:
                render.render_run(run, out)
            finally:
                sys.setprofile(None)
    finally:
        Figure.savefig, FigureCanvasAgg.print_png, ConstrainedLayoutEngine.execute = saved
        os.environ.pop("TWINBENCH_REPORT_WORKERS", None)
    print(f"module changes within {prefix} during one render: {changes} "
          f"({calls} calls into another module and their returns)")
    print(f"  calls into another module carrying the run's data (the Run or its rows; the "
          f"analysis, its rows, summary lines or pairs): {data_calls}, in {len(entered)} "
          f"modules:")
    moves = sum(1 for a, b in zip(sequence, sequence[1:]) if a != b)
    print(f"  followed as the run's data, call after call: the module changes {moves} times "
          f"over those {len(sequence)} calls")
    for name, count in sorted(entered.items(), key=lambda kv: -kv[1]):
        print(f"    {name.removeprefix(prefix + '.')}: {count}")


def best_of(repeat: int, run: Path, workers: str | None) -> dict[str, list[float]]:
    saved = os.environ.pop("TWINBENCH_REPORT_WORKERS", None)
    if workers is not None:
        os.environ["TWINBENCH_REPORT_WORKERS"] = workers
    try:
        best = None
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as out:
                phases = one_render(run, Path(out))
            if best is None or phases["total"][0] < best["total"][0]:
                best = phases
        return best
    finally:
        os.environ.pop("TWINBENCH_REPORT_WORKERS", None)
        if saved is not None:
            os.environ["TWINBENCH_REPORT_WORKERS"] = saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", nargs="?", default=ROOT / "results/nvidia-h200/2026-12-04/run.json.gz",
                        type=Path)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--profile", action="store_true", help="also print cProfile's top 25")
    parser.add_argument("--src", type=Path, default=ROOT / "reports" / "src",
                        help="the folder holding the twinbench package to time (default: the "
                             "checkout's reports/src; another revision's, to compare)")
    parser.add_argument("--module-changes", action="store_true",
                        help="count the changes of module within the package in one render "
                             "(sys.setprofile) instead of timing")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src))
    if args.module_changes:
        module_changes(args.run)
        return 0
    t = time.perf_counter()
    import twinbench.report.render  # noqa: F401  (the import is timed apart from the renders)
    imported = time.perf_counter() - t
    # The phases with every chart drawn in this process, one after another (a chart drawn in a
    # child process is not timed here); then the render as a user gets it.
    best = best_of(args.repeat, args.run, workers="0")
    print(f"render of {args.run} (best of {args.repeat}; import {imported:.2f} s apart)")
    print(f"  {'phase (charts drawn one after another, in this process)':<66} {'wall':>7} "
          f"{'CPU':>7}")
    for name, (wall, cpu) in best.items():
        print(f"  {name:<66} {wall:6.2f}s {cpu:6.2f}s")
    try:
        from twinbench.report import png
    except ImportError:  # a revision that draws every chart in the process itself
        png = None
    if png is not None and png.workers() > 0:
        user = best_of(args.repeat, args.run, workers=None)
        wall, cpu = user["total"]
        print(f"  {f'total as run (charts drawn {png.workers()} at once beside it)':<66} "
              f"{wall:6.2f}s {cpu:6.2f}s")
    # The command as a user runs it: a fresh interpreter, its imports included.
    command = [sys.executable, "-m", "twinbench.report", "render", str(args.run)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(args.src), os.environ.get("PYTHONPATH")])))
    walls = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as out:
            clock = _Clock()
            subprocess.run([*command, "--out", out], env=env, check=True, capture_output=True)
            walls.append(clock.lap())
    wall, cpu = min(walls)
    print(f"  {'the command (python -m twinbench.report render), imports included':<66} "
          f"{wall:6.2f}s {cpu:6.2f}s")
    if args.profile:
        profiler = cProfile.Profile()
        with tempfile.TemporaryDirectory() as out:
            profiler.runcall(one_render, args.run, Path(out))
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)
        print(text.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
