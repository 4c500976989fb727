"""The examples run under the simulator: the article's program as the article writes it and
with kernel-progress (the README's diff), and the notebook, executed by nbclient."""

from __future__ import annotations

import importlib
import os
import re
import warnings

import pytest

import kernel_progress as kp
from conftest import EXAMPLES, INSTALLED, SRC

# One block of the article's 512 threads, padded: the simulator makes each thread's random state
# in Python (about 6 ms a state), so the block is the size; more blocks are test_tally.py's.
N = 300


@pytest.fixture()
def examples_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def test_the_article_program_counts_after_the_kernel(examples_path, capsys):
    original = importlib.import_module("article_original")
    samples = original.main(N)
    assert f"{N} of {N} samples" in capsys.readouterr().out
    assert samples.shape == (N,) and abs(samples.mean() - 5.0) < 0.5


def test_the_article_program_with_a_bar_reaches_exactly_100_percent(examples_path, capsys):
    progress = importlib.import_module("article_progress")
    with warnings.catch_warnings():
        warnings.simplefilter("error", kp.KernelProgressWarning)
        samples = progress.main(N)
    out, err = capsys.readouterr()
    assert f"{N} of {N} samples" in out
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert re.match(r"samples: 100%\|.*\| 300/300 ", last), last
    assert abs(samples.mean() - 5.0) < 0.5


def _tool(name):
    """The notebook's tools: the [test] extra, which the installed run has (a missing one fails
    there); a checkout's venv without them skips."""
    return importlib.import_module(name) if INSTALLED else pytest.importorskip(name)


def test_the_notebook_runs_with_tqdm_s_widget(tmp_path):
    nbformat = _tool("nbformat")
    nbclient = _tool("nbclient")
    _tool("ipykernel")
    nb = nbformat.read(EXAMPLES / "article_progress.ipynb", as_version=4)
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    if not INSTALLED:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)     # the kernel process inherits this process's environment
    try:
        client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                         resources={"metadata": {"path": str(tmp_path)}})
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(old)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert f"{N} of {N} samples" in text, text[-2000:]
    assert not [o for o in outputs if o.output_type == "error"]
    widgets = [o for o in outputs
               if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    if INSTALLED:
        _tool("ipywidgets")
    else:
        try:
            import ipywidgets  # noqa: F401
        except ImportError:
            return         # tqdm.auto falls back to its text bar: the count is still checked
    assert widgets, "tqdm.auto drew a widget in the notebook"
