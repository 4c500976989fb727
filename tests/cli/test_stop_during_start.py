"""A run stopped during its start (the ceilings take seconds before the first row) ends as one
stopped during the rows does: exit 128 + signal and a valid results file holding the context and
the ceilings measured so far, the ceilings saying where they stopped, and every row skipped as
interrupted. Runs the binary scripts/test.sh builds (TWINBENCH_BIN, else TWINBENCH_CPU_BIN)."""
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARIES = [Path(os.environ.get("TWINBENCH_BIN", ROOT / "build" / "twinbench")),
            Path(os.environ.get("TWINBENCH_CPU_BIN", ROOT / "build-cpu" / "twinbench"))]


@pytest.mark.parametrize("sig, code, label", [("SIGTERM", 143, "SIGTERM"), ("SIGINT", 130, "SIGINT")])
def test_a_signal_during_the_ceilings_leaves_a_valid_results_file(tmp_path, sig, code, label):
    binary = next((b for b in BINARIES if b.exists()), None)
    if binary is None:
        pytest.skip("no twinbench built")
    out = tmp_path / "run.json"
    # The default sizes: the CPU ceilings over 512 MiB arrays take seconds on any machine.
    proc = subprocess.Popen([str(binary), "--workload=dot", f"--benchmark_out={out}",
                             "--benchmark_out_format=json"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    # Its first line (the GPU's status) comes before the ceilings; the signal lands in them.
    proc.stderr.readline()
    time.sleep(0.5)
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == code, err[-2000:]
    data = json.loads(out.read_text())
    ctx = data["context"]
    assert ctx["run_complete"] is False and ctx["interrupted_by"] == label
    assert "before" in ctx["ceilings_interrupted"], ctx.get("ceilings_interrupted")
    assert ctx["benchmarks_measured"] == 0
    assert data["benchmarks"], "the rows are listed, as skipped"
    # GPU rows on a machine without one skip for that reason, whenever the signal comes.
    assert all("interrupted" in b.get("error_message", "") for b in data["benchmarks"]
               if b.get("side") != "gpu")
