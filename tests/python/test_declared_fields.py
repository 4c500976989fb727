"""Pairing from the rows' declared fields: a row written by twinbench carries its description (workload, impl, algorithm, side, mode, precision); the reports pair
"same algorithm" and "same precision" from those fields, and fall back to the words of the
impl names only for rows of older files, which have none.
"""
from __future__ import annotations

from twinbench.report import summary as sm
from twinbench.report.pairing import algorithm_by_tags as chart_algorithm_of
from twinbench.report.loader import Row, family_of, parse_name, size_key_of


def _row(name: str, seconds: float, **fields: str) -> Row:
    workload, impl, args = parse_name(name)
    row = Row(name, workload, impl, family_of(impl), args, size_key_of(args), args.get("mode"),
              seconds)
    if fields:
        row.fields = {"workload": workload, "impl": impl, "algorithm": "", "side": "",
                      "mode": args.get("mode", ""), "precision": "", **fields}
    return row


def test_declared_algorithm_pairs_rows_whatever_their_names():
    """Renaming an impl changes a label, not the pairing: the fields say which rows meet."""
    rows = [_row("w/serial_alpha/n:8", 4.0, algorithm="walk"),
            _row("w/omp_beta/n:8/threads:2", 2.0, algorithm="walk"),
            _row("w/cuda_gamma/n:8/block:64/mode:kernel", 0.5, algorithm="walk", side="gpu"),
            _row("w/cuda/n:8/block:64/mode:kernel", 0.1, side="gpu")]
    groups = sm.like_for_like(rows)
    assert set(groups) == {"walk", ""}
    walk = groups["walk"]
    assert (walk.serial.impl, walk.omp.impl, walk.gpu.impl) == \
        ("serial_alpha", "omp_beta", "cuda_gamma")
    assert groups[""].gpu.impl == "cuda" and groups[""].cpu is None
    assert chart_algorithm_of(rows[0], frozenset()) == "walk"


def test_names_decide_only_for_rows_without_fields():
    """An older file's rows: the shared impl words (recursive) name the algorithm."""
    rows = [_row("lucas/serial_recursive/n:30", 4.0),
            _row("lucas/cuda_recursive/n:30/block:64/mode:kernel", 1.0)]
    assert set(sm.like_for_like(rows)) == {"recursive"}
    # The same impls with fields that declare the plain algorithm: the fields win.
    declared = [_row("lucas/serial_recursive/n:30", 4.0, side="cpu"),
                _row("lucas/cuda_recursive/n:30/block:64/mode:kernel", 1.0, side="gpu")]
    assert set(sm.like_for_like(declared)) == {""}


def test_declared_precision_pairs_rows_and_the_impl_word_does_not():
    """cublas_bf16 meets onednn_bf16 by their precision fields; a described row whose impl
    happens to hold a precision word but declares none is the workload's own precision."""
    bf16_cpu = _row("sgemm/onednn_bf16/n:64/threads:2", 1.0, precision="bf16", side="cpu")
    bf16_gpu = _row("sgemm/cublas_bf16/n:64/mode:kernel", 0.1, precision="bf16", side="gpu")
    plain = _row("sgemm/cuda_tf32/n:64/block:16x16/mode:kernel", 0.2, side="gpu")
    assert [sm.precision_class(r) for r in (bf16_cpu, bf16_gpu, plain)] == ["bf16", "bf16", ""]
    old = _row("sgemm/cublas_tf32/n:64/mode:kernel", 0.2)  # no fields: the word decides
    assert sm.precision_class(old) == "tf32"
    groups = sm.like_for_like([bf16_cpu, bf16_gpu, plain])
    assert groups[":bf16"].omp.impl == "onednn_bf16" and groups[":bf16"].gpu.impl == "cublas_bf16"


def test_the_loader_takes_the_declared_mode():
    """A described row's mode is its field's; an older file's row keeps its name's mode arg."""
    from twinbench.report.loader import rows_from_entries

    def entry(name: str, **fields: str) -> dict:
        return {"name": name + "/manual_time", "run_name": name + "/manual_time",
                "run_type": "iteration", "iterations": 1, "real_time": 5.0, "cpu_time": 5.0,
                "time_unit": "us", **fields}

    described = {"workload": "w", "impl": "cuda", "algorithm": "", "side": "gpu",
                 "precision": ""}
    rows, _ = rows_from_entries([
        entry("w/cuda/n:8/block:64", mode="e2e", **described),   # the field, not the name
        entry("w/cuda/n:16/block:64/mode:e2e", mode="", **described),
        entry("w/cuda/n:32/block:64/mode:e2e"),                  # an older file's row
    ])
    assert [r.mode for r in rows] == ["e2e", None, "e2e"]
