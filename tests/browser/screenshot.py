"""The first screen of a report.html as a reader sees it: a PNG from headless Chromium.

    .venv/bin/python tests/browser/screenshot.py REPORT.html OUT.png [--size 1400x900]

The README's screenshot is made with it (1400x900, the committed H200 report):
    .venv/bin/twinbench-report render results/nvidia-h200/2026-12-02b/run.json \\
        --out results/nvidia-h200/2026-12-02b/report
    .venv/bin/python tests/browser/screenshot.py \\
        results/nvidia-h200/2026-12-02b/report/report.html \\
        results/nvidia-h200/2026-12-02b/report/first-screen.png
Prints where the headline, the chart and the first table end up, and whether anything scrolls
sideways, so a layout that no longer fits is seen without opening the PNG.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chromium_cdp import FIRST_SCREEN, capture, console_errors, find_chromium  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--size", default=f"{FIRST_SCREEN[0]}x{FIRST_SCREEN[1]}",
                        help="viewport WIDTHxHEIGHT in CSS pixels (default %(default)s)")
    args = parser.parse_args(argv)
    binary = find_chromium()
    if binary is None:
        print("no Chromium found (scripts/deps.sh --tests installs it; or set CHROMIUM)",
              file=sys.stderr)
        return 2
    width, height = (int(v) for v in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory() as work:
        state, png, events = capture(binary, args.html, Path(work) / "profile", (width, height))
    args.png.write_bytes(png)
    summary = {k: state.get(k) for k in ("innerWidth", "innerHeight", "scrollWidth", "lead",
                                         "firstImage", "firstTableTop", "sideScroll")}
    print(json.dumps(summary, indent=1))
    errors = console_errors(events)
    for line in errors:
        print("console:", line, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
