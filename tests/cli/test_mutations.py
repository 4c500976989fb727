"""The harness's validation says what it found (tests/mutations/mutations.cpp: one planted bug
per workload, declared through the public API): a bug in the reference is the reference's and
no row is blamed; a row's failure names the row, the output, the position ((x, y) for a shaped
output), the value got and the value expected, and says when an element was never written or
was added to without being reset. A failed validation exits 1 and the correct rows still run.
"""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS_BIN = Path(os.environ.get("TWINBENCH_TESTS_BIN", ROOT / "build" / "tests" / "twinbench_tests"))
BIN = Path(os.environ.get("TWINBENCH_MUTATIONS_BIN", TESTS_BIN.parent / "twinbench_mutations"))


def run(workload: str) -> subprocess.CompletedProcess:
    if not BIN.exists():
        pytest.skip(f"{BIN} not built")
    return subprocess.run([str(BIN), f"--workload={workload}", "--quick", "--no-ceilings",
                           "--no-telemetry"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OMP_NUM_THREADS": "2"})


def failures(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("VALIDATION FAILED")]


def test_nan_in_the_reference_is_the_references_error():
    proc = run("reference_nan")
    assert proc.returncode == 1, proc.stderr
    [line] = failures(proc)
    assert "the reference is wrong, not this row" in line
    assert "output 'c' [7] is nan (not finite)" in line


def test_reference_leaving_an_element_unwritten():
    proc = run("reference_unwritten")
    assert proc.returncode == 1
    [line] = failures(proc)
    assert "the reference is wrong, not this row" in line
    assert "'c' [999]" in line and "never written" in line


def test_reference_accumulating_without_reset_found_by_two_patterns():
    proc = run("reference_not_reset")
    assert proc.returncode == 1
    [line] = failures(proc)
    assert "the reference is wrong" in line
    assert "differs between two runs" in line and "without resetting it" in line


def test_row_accumulating_onto_the_poison_said_as_such():
    proc = run("accumulator_not_reset")
    assert proc.returncode == 1
    [line] = failures(proc)
    assert line.startswith("VALIDATION FAILED: accumulator_not_reset/no_reset/n:1000: output 'bins' [")
    assert "accumulated onto the poison" in line and "wrapping around" in line
    # got = 0xFFFFFFFF + count (mod 2^32) = count - 1, with the expected count beside it.
    got = int(line.split("got ")[1].split(",")[0])
    expected = int(line.split("expected ")[1].split(" ")[0])
    assert got == (0xFFFFFFFF + expected) % 2**32
    assert "accumulator_not_reset/serial/n:1000" in proc.stdout  # the correct row is timed


def test_unwritten_element_and_wrong_value_name_position_got_and_expected():
    proc = run("row_bugs")
    assert proc.returncode == 1
    short, shifted = failures(proc)
    assert "row_bugs/short/n:1000: output 'c' [999]: got -nan, expected" in short
    assert "never written: it still holds the poison, bytes 0xFF" in short
    assert "row_bugs/shifted/n:1000: output 'c' [500]: got " in shifted
    assert "rel error" in shifted and "tolerance 1.0e-06" in shifted
    assert "row_bugs/serial/n:1000" in proc.stdout


def test_shaped_output_failure_names_x_and_y():
    proc = run("image_bug")
    assert proc.returncode == 1
    [line] = failures(proc)
    assert "image_bug/wrong_pixel/w:6/h:4: output 'out' (x=3, y=2): got" in line
