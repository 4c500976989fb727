"""examples/article_cost.py under the simulator, with one block of samples: the form of its JSON
summary and that the counts it checks are exact (its times there are the simulator's, not a
GPU's). It runs in a process of its own, as on the GPU machine."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import EXAMPLES, env_with_simulator


def test_article_cost_writes_its_summary(tmp_path):
    out = tmp_path / "cost.json"
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "article_cost.py"), "--samples", "300", "--pairs", "2",
         "--warmup", "1", "--out", str(out)],
        cwd=tmp_path, env=env_with_simulator(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    printed = json.loads(r.stdout)
    summary = json.loads(out.read_text())
    assert printed["checks"] == summary["checks"]
    assert summary["environment"]["simulator"] is True
    assert set(summary["configs"]) == {"article", "long"}
    for name, rate in (("article", 5.0), ("long", 100.0)):
        c = summary["configs"][name]
        assert c["samples"] == 300 and c["rate"] == rate and c["blocks"] == 1
        assert c["pairs"] == 2 and c["counts_exact"] and c["article_counter_exact"]
        assert c["t_without_ms_median"] > 0 and c["t_with_ms_median"] > 0
        assert c["excess_pct_lo"] <= c["excess_pct_median"] <= c["excess_pct_hi"]
        assert c["distinct_min"] >= 1 and c["polls_median"] >= 1
        assert len(summary["samples"][name]["excess_pct"]) == 2
    assert summary["checks"]["counts_exact"] is True
    assert summary["checks"]["distinct_config"] == "long"
    assert "samples" not in printed
