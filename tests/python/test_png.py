"""png.py: a figure drawn once, in a child process or in this one, gives the same PNG; the
report waits for every chart before it returns."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from twinbench.report import png


def _figure() -> Figure:
    fig = Figure(figsize=(4, 3), layout="constrained")
    ax = fig.subplots()
    ax.plot([1, 2, 3], [3, 1, 2], "o-", label="a line")
    ax.set_title("a title")
    ax.legend()
    return fig


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_png_is_the_same_drawn_here_or_in_a_child(tmp_path, monkeypatch, workers):
    monkeypatch.setenv(png.WORKERS_ENV, workers)
    pngs = [png.PNG(_figure(), tmp_path / f"{k}.png") for k in range(3)]
    png.wait_all()
    expected = png.png_bytes(_figure())
    for k, p in enumerate(pngs):
        assert (tmp_path / f"{k}.png").read_bytes() == expected
        assert bytes(p) == expected


def test_without_a_path_it_is_drawn_here(monkeypatch):
    monkeypatch.setenv(png.WORKERS_ENV, "2")
    assert bytes(png.PNG(_figure())) == png.png_bytes(_figure())


def test_the_layout_runs_once(monkeypatch):
    calls = []
    fig = _figure()
    engine = fig.get_layout_engine()
    original = engine.execute
    monkeypatch.setattr(engine, "execute", lambda f: calls.append(1) or original(f))
    png.png_bytes(fig)
    assert calls == [1]
