"""Merging the parts of a run: later parts win per name, drops apply, provenance is kept."""
import json

from twinbench.report.cli import main
from twinbench.report.merge import merge_files


def entry(name, t, **extra):
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
            "repetition_index": 0, "iterations": 10, "real_time": t, "cpu_time": t,
            "time_unit": "us", **extra}


def write(path, rev, benchmarks, truncate=False):
    text = json.dumps({"context": {"git_revision": rev, "gpu_copy_bw_bytes_per_s": "4e12"},
                       "benchmarks": benchmarks})
    if truncate:
        text = text[: text.rfind("{")]  # cut inside the last entry, as a killed run leaves it
    path.write_text(text)
    return path


def test_later_part_wins_and_drop_applies(tmp_path):
    a = write(tmp_path / "a.json", "aaa", [entry("x/cuda/n:1", 5.0), entry("y/old/n:1", 1.0),
                                           entry("z/serial/n:1", 9.0)], truncate=True)
    b = write(tmp_path / "b.json", "bbb", [entry("x/cuda/n:1", 4.0)])
    doc = merge_files([a, b], drop=r"^y/")
    names = {e["name"]: e["real_time"] for e in doc["benchmarks"]}
    assert names == {"x/cuda/n:1": 4.0}  # z was in the truncated tail; y dropped; x from b
    parts = json.loads(doc["context"]["merged_from"])
    assert [p["git_revision"] for p in parts] == ["aaa", "bbb"]
    assert parts[0]["truncated"] and not parts[1]["truncated"]
    assert doc["context"]["git_revision"] == "aaa, bbb"


def test_cli_merge_writes_a_renderable_file(tmp_path):
    a = write(tmp_path / "a.json", "aaa", [entry("x/serial/n:1", 5.0), entry("x/cuda/n:1/block:256", 1.0)])
    out = tmp_path / "run.json"
    assert main(["merge", str(a), "--out", str(out)]) == 0
    assert len(json.loads(out.read_text())["benchmarks"]) == 2
    assert main(["render", str(out), "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.md").exists()
