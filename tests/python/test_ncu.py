"""twinbench/report/ncu.py from a stored Nsight Compute raw CSV (tests/python/data/ncu_raw_h200.csv, in
the layout `ncu --csv --page raw --print-units base` prints: header, units row, one row per
kernel, the NVTX push/pop stack in its own column), merged into the committed H200 run: which
rows a profile pass asks for, how kernels map to rows (by the tb[<row>] range, not by order),
the ncu_* keys, and the words the summary's limiter, the why paragraphs and the occupancy chart
read off them. No GPU needed."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from twinbench.report import ncu
from twinbench.report import summary as sm
from twinbench.report.loader import load_run

# The H200 run results/nvidia-h200/2026-12-02/run.json (in git history) without its
# per-sample times: the tests must not depend on where results are kept.
RUN = Path(__file__).resolve().parent / "data" / "ncu_h200_run.json"
CSV = Path(__file__).resolve().parent / "data" / "ncu_raw_h200.csv"
VA = "vector_add/cuda/n:268435456/block:256/mode:kernel"
VA_ARTICLE = "vector_add/cuda_article/n:268435456/block:256/mode:kernel"


LATENCY_NO_MODEL = ("latency (its model has no bytes to stream or FLOPs: API calls or a dependent "
                    "chain)")


@pytest.fixture(scope="module")
def h200():
    return load_run(RUN)


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    out = tmp_path_factory.mktemp("ncu") / "run.json"
    result = ncu.merge(RUN, [CSV], out, version="Version 2025.3.0.0", command="ncu --nvtx ...",
                       selected=[VA, VA_ARTICLE, "aos_soa/cuda_aos/n:67108864/block:256"])
    return load_run(out), result, json.loads(out.read_text())


def row(run, name):
    return next(r for r in run.rows if r.name == name)


# ----------------------------------------------------------------- selection

def test_selection_covers_every_kernel_workload_with_its_fastest_and_the_articles(h200):
    chosen = ncu.select_rows(h200.rows)
    names = {r.name for r in chosen}
    workloads = {r.workload for r in chosen}
    assert len(workloads) >= 15
    assert not workloads & ncu.NO_WINDOW_WORKLOADS
    assert all(r.mode != "e2e" and not r.is_peer and r.is_gpu for r in chosen)
    # the summary's fastest GPU kernel of each profiled workload is in
    for line in sm.summary_lines(h200.rows, h200.context):
        gpu = line.best.gpu
        if gpu and ncu.profilable(gpu):
            assert gpu.name in names, gpu.name
    # and the articles' kernels
    assert VA_ARTICLE in names
    assert "transpose/cuda_article_fast/rows:8192/cols:8192/block:16x16" in names
    # one row per impl and size: the fastest of its block sweep
    assert VA in names and "vector_add/cuda/n:268435456/block:512/mode:kernel" not in names


def test_sweep_selection_leaves_out_the_main_rows_and_takes_every_block(h200):
    sweeps = ncu.sweep_rows(h200.rows)
    blocks = {r.args["block"] for r in sweeps if r.workload == "vector_add" and r.impl == "cuda"
              and r.size_key == ("n:268435456",)}
    assert blocks == {"64", "128", "256", "512", "1024"}


def test_the_filter_matches_exactly_the_rows_with_their_suffix():
    pattern = re.compile(ncu.filter_regex([VA, "conv2d/cuda_tiled/image:3840x2160/filter:7"]))
    assert pattern.match(VA + "/manual_time")
    assert pattern.match(VA)
    assert not pattern.match(VA.replace("block:256", "block:2560") + "/manual_time")
    assert not pattern.match("x" + VA)
    assert ncu.filter_regex(["a.b(c)"]) == r"^(a\.b\(c\))(/manual_time|/real_time|/process_time)?$"


# ----------------------------------------------------------------- the CSV

def test_kernels_map_to_rows_by_their_range_and_others_are_left_out():
    kernels = ncu.read_csv(CSV)
    rows = {k.row for k in kernels}
    assert VA in rows and "scan/thrust/dtype:int32/n:268435456" in rows
    assert len(kernels) == 12  # 13 kernels, one outside any tb[] range (a validation run)
    va = next(k for k in kernels if k.row == VA)
    assert va.name.startswith("vector_add_kernel(")
    assert va.duration_s == pytest.approx(742112e-9)
    assert va.metrics["dram__bytes.sum.per_second"] == pytest.approx(0.926 * 4.8e12, rel=1e-3)


def test_the_mapping_does_not_depend_on_launch_order(tmp_path):
    lines = CSV.read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
    body = lines[start + 2:]
    shuffled = tmp_path / "shuffled.csv"
    shuffled.write_text("\n".join(lines[:start + 2] + body[::-1]) + "\n")
    assert ncu.keys_by_row(ncu.read_csv(shuffled)) == ncu.keys_by_row(ncu.read_csv(CSV))


def test_a_csv_without_ranges_is_refused(tmp_path):
    text = CSV.read_text().replace("tb[", "xx[")
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    with pytest.raises(ncu.NcuCsvError, match="NVTX range"):
        ncu.read_csv(bad)
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ncu.NcuCsvError, match="header"):
        ncu.read_csv(tmp_path / "other.csv")


def test_the_renamed_form_maps_too(tmp_path):
    """--print-nvtx-rename kernel: the range stands in for the kernel's name."""
    table = list(csv.reader(io.StringIO(CSV.read_text().split("\n", 2)[2])))
    header = table[0]
    k, n = header.index("Kernel Name"), [i for i, h in enumerate(header) if "Push/Pop" in h][0]
    for cells in table[2:]:
        cells[k] = re.search(r"tb\[[^\]]+\]", cells[n]).group(0) if "tb[" in cells[n] else cells[k]
        cells[n] = ""
    buf = io.StringIO()
    csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(table)
    renamed = tmp_path / "renamed.csv"
    renamed.write_text(buf.getvalue())
    kernels = ncu.read_csv(renamed)
    assert {k.row for k in kernels} == {k.row for k in ncu.read_csv(CSV)}
    assert all(k.name == "" for k in kernels)


def test_several_kernels_of_a_row_weigh_by_duration():
    keys = ncu.keys_by_row(ncu.read_csv(CSV))["scan/thrust/dtype:int32/n:268435456"]
    assert keys["ncu_kernels"] == 3
    assert keys["ncu_kernel"] == "DeviceScanKernel"  # the longest names the row
    # two 2 us kernels at 0.1 % beside a 676 us one at 78.9 %
    assert keys["ncu_dram_pct"] == pytest.approx((676 * 78.9 + 4 * 0.1) / 680, rel=1e-6)
    assert keys["ncu_duration_s"] == pytest.approx(680e-6)


# ----------------------------------------------------------------- merge

def test_merge_adds_keys_to_the_profiled_rows_and_context(merged):
    run, result, doc = merged
    va = row(run, VA)
    assert va.counter("ncu_dram_pct") == pytest.approx(92.6)
    assert va.counter("ncu_ld_sectors_per_request") == pytest.approx(4.0)
    assert va.counter("ncu_st_sectors_per_request") == pytest.approx(4.0)
    assert va.counter("ncu_occupancy_achieved_pct") == pytest.approx(87.9)
    assert va.counter("ncu_pipe_fma_pct") == pytest.approx(3.1)
    assert va.fields["ncu_stall_top"] == "long_scoreboard"
    assert va.counter("ncu_stall_top_share") == pytest.approx(9.7 / (9.7 + 1.1 + 0.1 + 0.1 + 0.1 + 0.2 + 0.5))
    assert row(run, "sgemm/cublas/n:4096/mode:kernel").fields["ncu_pipe_top"] == "fma"
    assert row(run, "poisson/cuda/n:100000000/block:1024/mode:kernel").fields[
        "ncu_occupancy_limiter"] == "registers"
    assert len(result["rows"]) == 9
    assert result["unknown"] == ["vector_add/cuda_gone/n:268435456/block:256/mode:kernel"]
    assert result["missing"] == ["aos_soa/cuda_aos/n:67108864/block:256"]
    ctx = doc["context"]
    assert ctx["ncu_version"] == "Version 2025.3.0.0" and ctx["ncu_command"] == "ncu --nvtx ..."
    assert ctx["ncu_rows_profiled"] == "9" and ctx["ncu_kernels_profiled"] == "12"
    assert ctx["ncu_rows_without_kernel"] == "aos_soa/cuda_aos/n:67108864/block:256"
    # an unprofiled row is untouched, and the timings of every row are the run's own
    assert row(run, "vector_add/thrust/n:268435456/mode:kernel").counter("ncu_sm_pct") is None
    original = load_run(RUN)
    assert [r.time_s for r in run.rows] == [r.time_s for r in original.rows]


def test_merge_says_when_the_counters_were_refused(tmp_path):
    out = tmp_path / "run.json"
    ncu.merge(RUN, [CSV], out, log_text="==ERROR== ERR_NVGPUCTRPERM - The user does not have "
              "permission to access NVIDIA GPU Performance Counters")
    assert "NVreg_RestrictProfilingToAdminUsers" in json.loads(out.read_text())["context"]["ncu_problem"]


def test_merge_from_the_command_line(tmp_path, capsys):
    shutil.copy(RUN, tmp_path / "run.json")
    assert ncu.main(["merge", str(tmp_path / "run.json"), str(CSV), "--version", "V"]) == 0
    assert "9 rows merged" in capsys.readouterr().out
    assert json.loads((tmp_path / "run.json").read_text())["context"]["ncu_version"] == "V"
    assert ncu.main(["merge", str(tmp_path / "run.json"), str(tmp_path / "none.csv")]) == 2


# ----------------------------------------------------------------- words

@pytest.mark.parametrize("name, words", [
    (VA, "DRAM bandwidth (ncu: 93 % of peak)"),
    ("sgemm/cublas/n:4096/mode:kernel", "compute: FMA pipe (ncu: SM 85 %, FMA 84 % of peak)"),
    ("sgemm/cuda_naive/n:4096/block:32x32/mode:kernel", "L1/shared bandwidth (ncu: 96 % of peak)"),
    ("poisson/cuda/n:100000000/block:1024/mode:kernel",
     "too few threads: occupancy 31 % of 38 % theoretical: registers (ncu)"),
    ("conv2d/cuda_tiled/image:3840x2160/filter:7/block:16x16/mode:kernel",
     "latency: long scoreboard stalls (ncu: SM 47 %, memory 52 % of peak)"),
    ("lucas/cuda_iterative/n:90/block:64/mode:kernel", "too few threads: 1 block, 0.00024 of a wave (ncu: occupancy 3 %)"),
])
def test_limiter_words(merged, name, words):
    run, _, _ = merged
    assert ncu.limiter_words(row(run, name)) == words


def test_the_summary_limiter_takes_the_counters_first_and_the_rules_elsewhere(merged):
    run, _, _ = merged
    lines = {l.workload: l.limiter for l in sm.summary_lines(run.rows, run.context)}
    assert lines["vector_add"].startswith("GPU: DRAM bandwidth (ncu: 93 % of peak)")
    assert lines["sgemm"].startswith("GPU: compute: FMA pipe (ncu:")
    # a row without counters: the rules, as before
    assert lines["aos_soa"].startswith("GPU: memory bandwidth (100 % of add)")
    # no kernel to profile: host copies are read by the rate of their bytes
    assert "GPU: copy bandwidth (" in lines["transfers"]


def test_the_limiter_classes_read_the_counters_words(merged):
    from twinbench.report import speedup_chart as sc
    assert sc.limiter_class("DRAM bandwidth (ncu: 93 % of peak)") == sc.MEMORY
    assert sc.limiter_class("compute: FMA pipe (ncu: SM 85 %)") == sc.COMPUTE
    assert sc.limiter_class("too few threads: occupancy 31 % of 38 % theoretical: registers (ncu)") \
        == sc.LATENCY


def test_a_run_without_a_profile_keeps_the_rules_words(h200):
    gpu = row(h200, VA)
    assert sm.gpu_limiter(gpu, h200.context) == "memory bandwidth (100 % of add)"
    other = row(h200, "sync/cuda_graph/launches:1000")
    assert sm.gpu_limiter(other, h200.context) == LATENCY_NO_MODEL


def test_the_cpu_limiter_says_why_no_counter_spoke(h200):
    """A row with no throughput in its model is latency whatever the counters; where a row's
    limiter is left unnamed, the reason no counter spoke comes from the run's context."""
    serial = row(h200, "sync/serial_call/launches:1000")
    context = dict(h200.context, cpu_counters="not available: ENOENT (No such file or directory):"
                   " no CPU PMU (...: a VM without a virtual PMU); kernel.perf_event_paranoid=2")
    assert sm.cpu_limiter(serial, context) == LATENCY_NO_MODEL
    assert ncu.cpu_counters_reason(context) == "no CPU counters: a VM without a PMU"
    context["cpu_counters"] = "not available: EACCES (Permission denied): refused"
    assert ncu.cpu_counters_reason(context) == "no CPU counters: EACCES"
    context["cpu_counters"] = "available (perf_event_open): cycles, instructions; probe IPC 3.1"
    assert ncu.cpu_counters_reason(context) is None


def test_why_paragraphs_compare_the_fastest_kernel_with_the_articles(merged, h200):
    run, _, _ = merged
    paragraphs = {p.split(" ")[0]: p for p in ncu.why_paragraphs(run)}
    va = paragraphs["vector_add"]
    assert va.startswith("vector_add (n:268435456): cuda block:256, the fastest GPU kernel, is "
                         "held by DRAM bandwidth (ncu: 93 % of peak); the articles' cuda_article "
                         "block:256")
    assert "coalescing: load sectors per request 4.0 against 8.0" in va
    assert "cublas" in paragraphs["sgemm"] and "cuda_naive" in paragraphs["sgemm"]
    assert "lucas" not in paragraphs  # no article kernel profiled beside it
    assert ncu.why_paragraphs(h200) == []  # no profile, no paragraph


def test_the_occupancy_chart_draws_achieved_beside_theoretical(merged, h200):
    pytest.importorskip("matplotlib")
    from twinbench.report import charts
    run, _, _ = merged
    fig = charts.chart_occupancy(run.rows, run.context)
    assert "achieved (green, ncu)" in fig._suptitle.get_text()
    labels = {line.get_label() for ax in fig.axes for line in ax.get_lines()}
    assert "achieved (ncu)" in labels and "theoretical (API)" in labels
    plain = charts.chart_occupancy(h200.rows, h200.context)
    assert "achieved" not in plain._suptitle.get_text()


def test_without_an_article_kernel_the_slowest_profiled_one_is_the_foil(merged, monkeypatch):
    run, _, _ = merged
    monkeypatch.setattr(ncu, "_article_impls", lambda rows, workload: [])
    paragraphs = {p.split(" ")[0]: p for p in ncu.why_paragraphs(run)}
    assert "the slowest profiled kernel, cuda_naive block:16x16, 8.89× slower," in paragraphs["conv2d"]
    assert "poisson" not in paragraphs  # one profiled kernel: nothing to set it against


def test_the_summary_note_names_the_profiler_only_for_a_profiled_run(merged, h200):
    run, _, _ = merged
    note = ncu.summary_note(run.context)
    assert "Version 2025.3.0.0" in note and "9 GPU rows profiled" in note
    assert ncu.summary_note(h200.context) is None


def test_the_report_section_holds_the_note_and_the_paragraphs(merged, h200):
    from twinbench.report.document import Heading, Paragraph
    run, _, _ = merged
    blocks = ncu.report_blocks(run)
    assert isinstance(blocks[0], Heading) and "Nsight Compute" in blocks[0].text
    texts = [b.text for b in blocks if isinstance(b, Paragraph)]
    assert texts[0] == ncu.summary_note(run.context)
    assert any(t.startswith("vector_add (n:268435456)") for t in texts)
    assert ncu.report_blocks(h200) == []  # neither a profile nor a CPU probe in that run
    run.context["cpu_counters"] = "not available: ENOENT"
    assert ncu.report_blocks(run)[-1].text == \
        "CPU hardware counters (perf_event_open): not available: ENOENT."
    del run.context["cpu_counters"]
