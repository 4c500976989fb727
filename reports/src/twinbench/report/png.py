"""Figures as PNG files, drawn once each with the Agg backend, in child processes while the
report goes on.

`Figure.savefig` on a constrained-layout figure draws it twice: a pass that runs the layout, then
the drawing, which runs the layout again. Here the layout runs once at the PNG's resolution, is
then fixed, and the figure is drawn once; the pixels are the same (checked on every chart of
results/nvidia-h200/2026-12-04).

Drawing is most of a render (results/nvidia-h200/2026-12-04: 13 of 18 CPU seconds, on the
2-core development machine; building the figures 2.3), and a drawn figure changes nothing the
report reads: so each figure is drawn in a forked child, as many at once as the machine has
cores, while the parent goes on building the next figure and the documents without waiting (a
figure waits for a free core, not the parent). TWINBENCH_REPORT_WORKERS=0 draws in the process
itself (where there is no fork, too).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

PNG_DPI = 110
# zlib level 1, not PIL's default 6: the ten charts of results/nvidia-h200/2026-12-04 encode in
# 5.15 s against 5.8 s of drawing and encoding on the 2-core development machine, in 2,365 KiB
# against 2,340 KiB (flat colours compress at any level).
PNG_OPTIONS = {"compress_level": 1}
WORKERS_ENV = "TWINBENCH_REPORT_WORKERS"


def png_bytes(figure: Figure, dpi: int = PNG_DPI) -> bytes:
    """The figure drawn once, its layout (if any) run once at this dpi and then fixed."""
    figure.set_dpi(dpi)
    canvas = FigureCanvasAgg(figure)
    engine = figure.get_layout_engine()
    if engine is not None:
        engine.execute(figure)
        figure.set_layout_engine("none")
    buffer = io.BytesIO()
    canvas.print_png(buffer, pil_kwargs=PNG_OPTIONS)
    return buffer.getvalue()


def workers() -> int:
    """How many figures are drawn at once beside this process (0: none, drawn here)."""
    text = os.environ.get(WORKERS_ENV)
    if text is not None:
        return max(0, int(text))
    if not hasattr(os, "fork"):
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores if cores and cores > 1 else 0


_running: list[PNG] = []  # drawn by a child now
_pending: list[PNG] = []  # waiting for a core: this process goes on meanwhile


class PNG:
    """A figure's PNG, written to path (when given) by a child process; bytes(png) waits for it.
    A child that fails leaves the drawing to this process, so a PNG is never missing."""

    def __init__(self, figure: Figure, path: str | Path | None = None):
        self.path = Path(path) if path is not None else None
        self._figure: Figure | None = figure
        self._pid: int | None = None
        self._data: bytes | None = None
        self._done = False
        if self.path is None or workers() < 1:
            self._finish_here()
            return
        _pending.append(self)
        _pump(block=False)

    def _start(self) -> None:
        assert self._figure is not None and self.path is not None
        pid = os.fork()
        if pid == 0:  # the child: draw, write, leave without running the parent's cleanup
            status = 1
            try:
                self.path.write_bytes(png_bytes(self._figure))
                status = 0
            finally:
                os._exit(status)
        self._pid = pid
        _running.append(self)

    def _reap(self, block: bool) -> None:
        assert self._pid is not None and self.path is not None
        pid, status = os.waitpid(self._pid, 0 if block else os.WNOHANG)
        if pid == 0:
            return
        _running.remove(self)
        self._pid = None
        if status != 0 or not self.path.is_file():
            self._finish_here()
        self._figure, self._done = None, True

    def _finish_here(self) -> None:
        assert self._figure is not None
        self._data = png_bytes(self._figure)
        if self.path is not None:
            self.path.write_bytes(self._data)
        self._figure, self._done = None, True

    def wait(self) -> None:
        while not self._done:
            if self._pid is not None:
                self._reap(block=True)
            else:
                _pump(block=True)

    def __bytes__(self) -> bytes:
        self.wait()
        if self._data is None:
            assert self.path is not None
            self._data = self.path.read_bytes()
        return self._data


def _pump(block: bool) -> None:
    """Reaps the children that are done and starts the figures waiting, as many at once as
    workers(); block: waits for a core until none is waiting."""
    for png in list(_running):
        png._reap(block=False)
    while _pending:
        if len(_running) < max(1, workers()):
            _pending.pop(0)._start()
        elif block:
            _running[0]._reap(block=True)
        else:
            return


def wait_all() -> None:
    """Every PNG started is on disk."""
    while _pending or _running:
        _pump(block=True)
        for png in list(_running):
            png._reap(block=True)
