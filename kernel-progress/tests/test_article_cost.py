"""examples/article_cost.py under the simulator, with one block of samples: the form of its JSON
summary and that the counts it checks are exact (its times there are the simulator's, not a
GPU's). It runs in a process of its own, as on the GPU machine."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import EXAMPLES, env_with_simulator

WAYS = {"none", "article", "load_store", "store_only", "tally", "tally_unread"}


def test_article_cost_writes_its_summary(tmp_path):
    out = tmp_path / "cost.json"
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "article_cost.py"), "--samples", "300", "--pairs", "2",
         "--long-pairs", "2", "--warmup", "1", "--long-rounds", "2", "--bar-rounds", "2",
         "--bar-launches", "1", "--out", str(out)],
        cwd=tmp_path, env=env_with_simulator(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    printed = json.loads(r.stdout)
    summary = json.loads(out.read_text())
    assert printed["checks"] == summary["checks"]
    assert summary["environment"]["simulator"] is True
    assert set(summary["configs"]) == {"article", "long", "bar"}
    for name, rate, n in (("article", 5.0, 300), ("long", 100.0, 1024)):
        c = summary["configs"][name]
        assert c["samples"] == n and c["rate"] == rate and c["blocks"] == 1
        assert c["rounds"] == 2 and set(c["ways"]) == WAYS
        for way, w in c["ways"].items():
            assert w["t_ms_median"] > 0
            if way != "none":
                assert w["excess_pct_lo"] <= w["excess_pct_median"] <= w["excess_pct_hi"]
                assert len(summary["samples"][name]["ways"][way]["excess_pct"]) == 2
            if way != "none":
                assert w["counts_exact"], way
        assert c["ways"]["tally"]["distinct_min"] >= 1
    bar = summary["configs"]["bar"]
    assert bar["launches"] == 1 and bar["counts_exact"] and bar["distinct_min"] >= 1
    checks = summary["checks"]
    assert checks["counts_exact"] is True and checks["against"] == "none"
    assert {"article_excess_le_max", "article_excess_hi_le_max", "long_excess_le_max",
            "bar_distinct_ge_min"} <= set(checks)
    assert "samples" not in printed
