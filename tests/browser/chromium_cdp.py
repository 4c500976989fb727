"""A minimal Chrome DevTools Protocol client for the browser tests of report.html, on the
headless Chromium that `scripts/deps.sh --tests` installs (Debian's `chromium`).

(Not a conftest.py: tests/python has one whose helpers its tests import as `conftest`, and
scripts/test.sh runs both folders in one pytest session, where two `conftest` modules clash.)

How Chromium is driven: the Chrome DevTools Protocol (CDP) over `--remote-debugging-pipe`
(JSON messages separated by NUL bytes, Chromium reading fd 3 and writing fd 4: what Puppeteer
does with `pipe: true`). This needs nothing beyond the standard library (no websocket client,
no port to pick or race for) and gives what the command-line modes cannot:
  * every console error, from the page's own events rather than from parsing `--enable-logging`
    text: Runtime.consoleAPICalled (console.error/assert), Runtime.exceptionThrown (uncaught
    exceptions) and Log.entryAdded at level "error" (failed resource loads, CSP/security and
    other browser-side errors);
  * the page's state after the load event, by evaluating JavaScript in it (whether each <img>
    decoded, where the first <table> is) without editing a copy of report.html;
  * a screenshot of the first screen (a 1280x900 viewport, or the one asked for) from
    Page.captureScreenshot.
`--dump-dom`/`--screenshot` would need a modified copy of the page to report image decoding,
and only see console messages as free-form log lines, so they are not used.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

VIEWPORT = (1280, 900)  # the "first screen": a common laptop window
FIRST_SCREEN = (1400, 900)  # the report's first screen: the headline, its chart, the summary
TIMEOUT_S = 60.0        # a 1.3 MB page with data: images loads in ~1 s; this is for slow CI


def find_chromium() -> str | None:
    """CHROMIUM (a path) if set, else the first browser on PATH."""
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class CDPError(RuntimeError):
    pass


class ChromiumPipe:
    """A headless Chromium and a CDP session on one page, over --remote-debugging-pipe."""

    def __init__(self, binary: str, profile_dir: Path,
                 viewport: tuple[int, int] = VIEWPORT):
        self.viewport = viewport
        to_chrome_r, self._to_chrome_w = os.pipe()
        self._from_chrome_r, from_chrome_w = os.pipe()
        # Chromium reads commands from fd 3 and writes replies to fd 4.
        self._stderr = tempfile.TemporaryFile()
        args = [
            binary,
            "--headless=new",
            "--remote-debugging-pipe",
            "--no-sandbox",               # CI runs as root, where the sandbox refuses to start
            "--disable-gpu",
            "--disable-dev-shm-usage",    # containers often have a 64 MiB /dev/shm
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--mute-audio",
            f"--user-data-dir={profile_dir}",
            f"--window-size={viewport[0]},{viewport[1]}",
            "about:blank",
        ]

        def wire_fds():  # in the child, before exec: put the pipe ends on fds 3 and 4
            # (moved above 10 first, so that one cannot overwrite the other on the way)
            r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)  # os.dup2 makes the copies inheritable
            os.dup2(w, 4)

        # close_fds=False: Popen would otherwise close 3 and 4 after wire_fds. Nothing else
        # leaks: Python opens its descriptors non-inheritable (PEP 446).
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self._stderr, preexec_fn=wire_fds, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next_id = 0
        self._replies: dict[int, dict] = {}
        self._messages: "queue.Queue[dict | None]" = queue.Queue()
        self.events: list[dict] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session_id: str | None = None

    def _read(self):
        buf = b""
        with os.fdopen(self._from_chrome_r, "rb", buffering=0) as f:
            while True:
                chunk = f.read(1 << 16)
                if not chunk:
                    break
                buf += chunk
                *messages, buf = buf.split(b"\0")
                for m in messages:
                    self._messages.put(json.loads(m))
        self._messages.put(None)  # Chromium closed its end: it exited

    def stderr_text(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-4000:]

    def _pump(self, deadline: float):
        try:
            msg = self._messages.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise CDPError(f"no answer from Chromium in {TIMEOUT_S:.0f} s") from None
        if msg is None:
            raise CDPError(f"Chromium exited (status {self.proc.poll()}):\n{self.stderr_text()}")
        if "id" in msg:
            self._replies[msg["id"]] = msg
        else:
            self.events.append(msg)

    def send(self, method: str, params: dict | None = None, *, browser: bool = False) -> dict:
        """Sends a command (to the page's session unless browser) and waits for its reply."""
        self._next_id += 1
        cid = self._next_id
        msg = {"id": cid, "method": method, "params": params or {}}
        if not browser:
            msg["sessionId"] = self.session_id
        os.write(self._to_chrome_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while cid not in self._replies:
            self._pump(deadline)
        reply = self._replies.pop(cid)
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method: str) -> dict:
        deadline = time.monotonic() + TIMEOUT_S
        seen = 0
        while True:
            for ev in self.events[seen:]:
                if ev.get("method") == method and ev.get("sessionId") == self.session_id:
                    return ev
            seen = len(self.events)
            self._pump(deadline)

    def open_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, browser=True)
        attached = self.send("Target.attachToTarget",
                             {"targetId": target["targetId"], "flatten": True}, browser=True)
        self.session_id = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": self.viewport[0], "height": self.viewport[1], "deviceScaleFactor": 1,
                   "mobile": False})

    def close(self):
        try:
            if self.proc.poll() is None:
                self.send("Browser.close", browser=True)
        except (CDPError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        try:
            os.close(self._to_chrome_w)
        except OSError:
            pass
        self._stderr.close()


# Runs in the page after its load event: whether each image decoded, where the tables are.
PAGE_STATE_JS = """
(async () => {
  const box = e => {
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY, left: r.left,
            right: r.right, width: r.width, height: r.height};
  };
  const imgs = Array.from(document.images);
  const decoded = await Promise.all(imgs.map(i => i.decode().then(() => true, () => false)));
  const tables = Array.from(document.querySelectorAll('table'));
  const first = tables.length ? tables[0].getBoundingClientRect() : null;
  let heading = null;
  if (tables.length) {
    // A table sits in its scroll or fit box: the heading is that box's sibling.
    const start = tables[0].closest('div.wide, div.fit') || tables[0];
    for (let e = start.previousElementSibling; e; e = e.previousElementSibling) {
      if (/^H[1-6]$/.test(e.tagName)) { heading = e.textContent.trim(); break; }
    }
  }
  return {
    images: imgs.map((img, k) => ({
      alt: img.alt, src: img.currentSrc.slice(0, 40), complete: img.complete,
      decoded: decoded[k], naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight,
    })),
    tables: tables.length,
    firstTableTop: first ? first.top + window.scrollY : null,
    firstTableHeading: heading,
    innerHeight: window.innerHeight,
    innerWidth: window.innerWidth,
    // Issue 30's first screen: page coordinates (scrollY added) of the headline and the first
    // chart, and whether anything scrolls sideways (the page, or a table's own box).
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    lead: box(document.querySelector('p.lead')),
    firstImage: box(imgs.length ? imgs[0] : null),
    firstImageAlt: imgs.length ? imgs[0].alt : null,
    firstTableBox: box(tables.length ? tables[0] : null),
    sideScroll: Array.from(document.querySelectorAll('div.wide, div.fit'))
      .filter(d => d.scrollWidth > d.clientWidth)
      .map(d => ({cls: d.className, scrollWidth: d.scrollWidth, clientWidth: d.clientWidth,
                  firstHeader: (d.querySelector('th') || {}).textContent || null})),
  };
})()
"""


def capture(binary: str, html: Path, profile_dir: Path, viewport: tuple[int, int] = VIEWPORT
            ) -> tuple[dict, bytes, list[dict]]:
    """Opens html at the viewport; (page state, PNG of the first screen, CDP events)."""
    import base64

    browser = ChromiumPipe(binary, profile_dir, viewport)
    try:
        browser.open_page()
        browser.send("Page.navigate", {"url": Path(html).resolve().as_uri()})
        browser.wait_event("Page.loadEventFired")
        state = browser.send("Runtime.evaluate", {"expression": PAGE_STATE_JS,
                                                  "awaitPromise": True, "returnByValue": True})
        if "exceptionDetails" in state:
            raise CDPError(f"page-state script failed: {state['exceptionDetails']}")
        shot = browser.send("Page.captureScreenshot", {"format": "png"})
        browser.send("Runtime.evaluate", {"expression": "1"})  # let late errors land
        return state["result"]["value"], base64.b64decode(shot["data"]), list(browser.events)
    finally:
        browser.close()
        shutil.rmtree(profile_dir, ignore_errors=True)


def console_errors(events: list[dict]) -> list[str]:
    """The console errors among CDP events, as one line each."""
    out = []
    for ev in events:
        method, p = ev.get("method"), ev.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            out.append(f"console.{p['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            desc = d.get("exception", {}).get("description") or d.get("text", "")
            out.append(f"uncaught exception: {desc} ({d.get('url', '')}:{d.get('lineNumber')})")
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            out.append(f"{e.get('source')}: {e.get('text')} {e.get('url', '')}".rstrip())
    return out
