"""What a rendered report answers, in a form that compares across refactors: the headline, the
summary table, the first screen (report.md up to the section after the summary) and each chart's
data (its axes' titles and labels, scales, and every line, marker, bar and text, floats to six
significant digits). tests/python/test_same_answer.py holds the committed runs to the answers in
tests/python/answers/; `python tests/python/answer.py RUN... --write` writes them again."""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ANSWERS = Path(__file__).resolve().parent / "answers"
RUNS = sorted(p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "results").rglob("run.json*"))


def _num(x):
    if isinstance(x, (bool, str)) or x is None:
        return x
    x = float(x)
    if not math.isfinite(x):
        return repr(x)
    return float(f"{x:.6g}")


def _points(values) -> list:
    import numpy as np
    array = np.ma.filled(np.ma.asarray(values, dtype=float), np.nan)
    if array.size == 0:
        return []
    return [[_num(v) for v in row] for row in array.reshape(len(array), -1)]


def _text(t) -> list:
    return [t.get_text(), *[_num(v) for v in t.get_position()]] if t.get_text() else []


def chart_data(figure) -> dict:
    """The figure's data, independent of how it was drawn."""
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.patches import Rectangle
    axes = []
    for ax in figure.axes:
        legend = ax.get_legend()
        axes.append({
            "title": [ax.get_title(loc) for loc in ("left", "center", "right")],
            "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
            "scale": [ax.get_xscale(), ax.get_yscale()],
            "lines": [[str(line.get_label()), line.get_marker() if isinstance(line.get_marker(), str)
                       else "", _points(line.get_xydata())] for line in ax.get_lines()],
            "collections": [
                [str(c.get_label()),
                 [_points(s) for s in c.get_segments()] if isinstance(c, LineCollection)
                 else [_points(p.vertices) for p in c.get_paths()]
                 if isinstance(c, PolyCollection) else _points(c.get_offsets())]
                for c in ax.collections],
            "bars": [[_num(p.get_x()), _num(p.get_y()), _num(p.get_width()), _num(p.get_height())]
                     for p in ax.patches if isinstance(p, Rectangle)],
            "texts": [_text(t) for t in ax.texts],
            "legend": [t.get_text() for t in legend.get_texts()] if legend else [],
        })
    suptitle = figure._suptitle.get_text() if getattr(figure, "_suptitle", None) else ""
    return {"suptitle": suptitle, "axes": axes}


@contextmanager
def recording_charts():
    """Every figure written as PNG meanwhile, as chart_data, in the order written: drawn in this
    process (TWINBENCH_REPORT_WORKERS=0), where FigureCanvasAgg.print_png, which savefig and the
    package's own PNG writer both end in, sees each."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    saved: list[dict] = []
    original = FigureCanvasAgg.print_png
    workers = os.environ.get("TWINBENCH_REPORT_WORKERS")

    @functools.wraps(original)  # savefig passes only the keywords its signature names
    def print_png(self, *args, **kwargs):
        saved.append(chart_data(self.figure))
        return original(self, *args, **kwargs)

    FigureCanvasAgg.print_png = print_png
    os.environ["TWINBENCH_REPORT_WORKERS"] = "0"
    try:
        yield saved
    finally:
        FigureCanvasAgg.print_png = original
        if workers is None:
            os.environ.pop("TWINBENCH_REPORT_WORKERS")
        else:
            os.environ["TWINBENCH_REPORT_WORKERS"] = workers


def _section_end(lines: list[str], start: int) -> int:
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("## "):
            return i
    return len(lines)


def answer_of(markdown: str, charts: list[dict]) -> dict:
    lines = markdown.splitlines()
    headline = next((l for l in lines if l.startswith("**")), "")
    summary_at = next((i for i, l in enumerate(lines) if l.startswith("## Summary")), None)
    if summary_at is None:
        first_screen = lines[:_section_end(lines, 0)]
        table = []
    else:
        first_screen = lines[:_section_end(lines, summary_at)]
        body = first_screen[summary_at:]
        start = next((i for i, l in enumerate(body) if l.startswith("|")), len(body))
        end = next((i for i in range(start, len(body)) if not body[i].startswith("|")), len(body))
        table = body[start:end]
    unique = {json.dumps(c, sort_keys=True): c for c in charts}
    return {"headline": headline, "summary_table": table, "first_screen": first_screen,
            "charts": [unique[k] for k in sorted(unique)]}


def render_answer(run: str | Path) -> dict:
    from twinbench.report.render import render
    with tempfile.TemporaryDirectory() as out, recording_charts() as charts:
        result = render([REPO_ROOT / run], out)
        markdown = result.markdown.read_text(encoding="utf-8")
    # A report names a run it reads beside this one by its path: the same answer from any clone.
    return answer_of(markdown.replace(str(REPO_ROOT), "<repo>"), charts)


def answer_path(run: str) -> Path:
    return ANSWERS / (run.removeprefix("results/").split("/run.json")[0].replace("/", "--")
                      + ".json")


def dump(answer: dict) -> str:
    # One chart element a line, so that a changed figure shows as a short diff.
    return json.dumps(answer, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("runs", nargs="*", default=RUNS)
    parser.add_argument("--write", action="store_true", help="write the answers")
    args = parser.parse_args()
    differ = 0
    for run in args.runs:
        text = dump(render_answer(run))
        path = answer_path(run)
        if args.write:
            ANSWERS.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(REPO_ROOT)}")
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            differ += 1
            print(f"differs: {run}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT / "reports" / "src"))
    sys.exit(main())
