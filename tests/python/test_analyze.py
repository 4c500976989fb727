"""analyze(run) computes the report's facts once; a render reads them and computes none again."""

from __future__ import annotations

from twinbench.report import pairing, render
from twinbench.report import summary as su
from twinbench.report.analyze import analyze
from twinbench.report.loader import load_run

from conftest import REPO_ROOT


def test_the_rows_carry_their_fields_and_suspects():
    a = analyze(load_run(REPO_ROOT / "results" / "nvidia-h200" / "2026-12-04" / "run.json.gz"))
    described = [r for r in a.rows if r.described]
    assert described, "the run's rows carry their description"
    assert all(r.fields.get("side") in ("cpu", "gpu") for r in described)
    flagged = [r for r in a.rows if r.fields.get("suspect")]
    assert len(flagged) == len(a.suspects)
    assert all(r.counter("pct_ceiling") > 100 for r in flagged if r.fields.get("limit_kind")
               in ("bandwidth", "link"))
    assert a.lines and a.pairs and a.headline and a.gpu


def test_a_render_analyses_once(gpu_run, tmp_path, monkeypatch):
    calls = {"summary_lines": 0, "cpu_gpu_pairs": 0}

    def counted(module, name):
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls[name] += 1
            return original(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)

    counted(su, "summary_lines")
    counted(pairing, "cpu_gpu_pairs")
    # analyze.py imported cpu_gpu_pairs by name: count it there too.
    from twinbench.report import analyze as analyze_module
    monkeypatch.setattr(analyze_module, "cpu_gpu_pairs", pairing.cpu_gpu_pairs)
    render.render_run(gpu_run, tmp_path)
    assert calls == {"summary_lines": 1, "cpu_gpu_pairs": 1}
