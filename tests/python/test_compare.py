from __future__ import annotations

import math

import pytest

from conftest import repeated, single, write_run
from twinbench.report.compare import SAME, FASTER, SLOWER, compare, mann_whitney_u


def test_u_test_fully_separated_samples():
    u, p = mann_whitney_u([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    assert u == 0
    assert p == pytest.approx(2 / math.comb(10, 5))  # exact: 2 of 252 orderings


def test_u_test_interleaved_samples_are_not_significant():
    _, p = mann_whitney_u([1, 3, 5, 7, 9], [2, 4, 6, 8, 10])
    assert p > 0.5


def test_u_test_with_ties_uses_normal_approximation():
    u, p = mann_whitney_u([1, 1, 2, 2, 3, 3], [4, 4, 5, 5, 6, 6])
    assert u == 0
    assert p < 0.01


def test_u_test_is_symmetric():
    a, b = [1.0, 2.5, 3.1, 4.2], [2.0, 5.0, 6.1, 7.3, 8.0]
    assert mann_whitney_u(a, b)[1] == pytest.approx(mann_whitney_u(b, a)[1])


@pytest.fixture()
def compared(tmp_path):
    base = [10.0, 10.1, 9.9, 10.05, 9.95]
    a = (repeated("k/cuda/n:1/faster", base) + repeated("k/cuda/n:1/slower", base)
         + repeated("k/cuda/n:1/noise", base)
         + repeated("k/cuda/n:1/agg_faster", base, with_iterations=False)
         + repeated("k/cuda/n:1/agg_noise", base, with_iterations=False)
         + [single("k/serial/n:1/t_faster", 10.0), single("k/serial/n:1/t_same", 10.0),
            single("k/serial/n:1/t_slower", 10.0), single("k/serial/n:1/gone", 1.0)])
    # The single numbers of CPU serial rows face that kind's default threshold (52%).
    b = (repeated("k/cuda/n:1/faster", [7.0, 7.1, 6.9, 7.05, 6.95])
         + repeated("k/cuda/n:1/slower", [13.0, 13.2, 12.9, 13.1, 12.8])
         + repeated("k/cuda/n:1/noise", [10.02, 9.93, 10.08, 9.97, 10.0])
         + repeated("k/cuda/n:1/agg_faster", [8.0, 8.1, 7.9, 8.05, 7.95], with_iterations=False)
         + repeated("k/cuda/n:1/agg_noise", [10.1, 10.0, 9.9, 10.2, 9.8], with_iterations=False)
         + [single("k/serial/n:1/t_faster", 5.0), single("k/serial/n:1/t_same", 12.0),
            single("k/serial/n:1/t_slower", 16.0), single("k/serial/n:1/new", 1.0)])
    path_a = write_run(tmp_path / "a.json", a)
    path_b = write_run(tmp_path / "b.json", b)
    return compare(path_a, path_b, tmp_path / "out")


def test_verdicts(compared):
    verdicts = compared.verdicts()
    assert verdicts["k/cuda/n:1/faster"] == FASTER
    assert verdicts["k/cuda/n:1/slower"] == SLOWER
    assert verdicts["k/cuda/n:1/noise"] == SAME
    assert verdicts["k/cuda/n:1/agg_faster"] == FASTER
    assert verdicts["k/cuda/n:1/agg_noise"] == SAME
    assert verdicts["k/serial/n:1/t_faster"] == FASTER
    assert verdicts["k/serial/n:1/t_same"] == SAME
    assert verdicts["k/serial/n:1/t_slower"] == SLOWER


def test_methods_follow_available_evidence(compared):
    methods = {c.name: c.method for c in compared.comparisons}
    assert methods["k/cuda/n:1/faster"].startswith("Mann-Whitney U")
    assert methods["k/cuda/n:1/agg_faster"].startswith(
        "mean±stddev apart; threshold ±2.0% (floor")
    assert methods["k/cuda/n:1/agg_noise"].startswith("mean±stddev overlap")
    assert methods["k/serial/n:1/t_same"] == (
        "single numbers; threshold ±51.9% (e^(2×20.9%)−1: CPU serial default)")


def test_ratio_and_output(compared):
    ratio = {c.name: c.ratio for c in compared.comparisons}["k/cuda/n:1/faster"]
    assert ratio == pytest.approx(7.0 / 10.0)
    text = compared.markdown.read_text()
    assert "| k/cuda/n:1/faster | 10 ms | 7 ms | 0.700 | [0.688, 0.712] | faster |" in text
    assert "## Only in A (1)" in text and "k/serial/n:1/gone" in text
    assert "## Only in B (1)" in text and "k/serial/n:1/new" in text
    assert (compared.out_dir / "compare_ratios.png").stat().st_size > 1000
    assert "data:image/png;base64," in compared.html.read_text()
