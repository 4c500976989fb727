#!/usr/bin/env bash
# twinbench's Python API (twinbench.bench, docs/python.md) as a user gets it: the wheel built from
# a copy of reports/, installed with its numba extra in a fresh venv outside the checkout; there,
# under Numba's CUDA simulator, the docs' example run by `twinbench-py` and its results rendered
# by `twinbench-report`, a planted bug (the kernel skips its last element) refused with exit 1,
# tests/pyapi run against the installed package (among them real kernels compiled to PTX with
# the NumPy the extra resolved, NVVM from PyPI), and the docs' install command last.
#
#   scripts/test-pyapi.sh          (PYTHON=python3.11 to choose the interpreter)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-python3}
start=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/twinbench-pyapi-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
step() { printf '\n== %s (%ss)\n' "$1" "$(($(date +%s) - start))"; }
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off

step "a copy of reports/ and kernel-progress/ (the builds write nothing into the checkout)"
for dir in reports kernel-progress; do
  mkdir -p "$work/checkout/$dir"
  tar -C "$root/$dir" --exclude=build --exclude=dist --exclude='*.egg-info' \
    --exclude=__pycache__ --exclude=.ipynb_checkpoints -cf - . | tar -C "$work/checkout/$dir" -xf -
done

step "the wheel (pip wheel, no dependencies)"
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
"$work/venv/bin/pip" wheel -q --no-deps -w "$work/dist" "$work/checkout/reports"
wheel=$(ls "$work/dist"/twinbench-*-py3-none-any.whl)
"$venv_python" -m zipfile -l "$wheel" > "$work/wheel.txt"
grep -q 'twinbench/bench/workload.py' "$work/wheel.txt" ||
  { echo "the wheel lacks twinbench/bench" >&2; exit 1; }

step "a fresh venv: pip install $(basename "$wheel")[numba,test], kernel-progress for the docs"
"$work/venv/bin/pip" install -q "${wheel}[numba,test]" "$work/checkout/kernel-progress"
# NVVM from PyPI, for the test that compiles real kernels to PTX with the NumPy the extra
# resolved (no GPU and no CUDA toolkit needed).
"$work/venv/bin/pip" install -q "cuda-toolkit[nvvm]==13.*"
"$venv_python" -c 'import numpy; print("the numba extra resolved numpy", numpy.__version__)'
for cmd in twinbench-py twinbench-report; do
  [ -x "$work/venv/bin/$cmd" ] || { echo "the wheel installs no $cmd command" >&2; exit 1; }
done

step "the docs' example under the CUDA simulator: twinbench-py run my_pairs.py --quick"
mkdir "$work/run"
# The page's first python block is my_pairs.py (tests/pyapi/test_docs.py checks the order).
awk '/^```python$/{n++; inside=(n==1); next} /^```$/{inside=0} inside' "$root/docs/python.md" \
  > "$work/run/my_pairs.py"
(cd "$work/run" && NUMBA_ENABLE_CUDASIM=1 "$work/venv/bin/twinbench-py" run my_pairs.py --quick)
(cd "$work/run" && "$work/venv/bin/twinbench-report" render twinbench-py.json --out report)
grep -q 'cuda_add_gpu' "$work/run/report/report.md" ||
  { echo "the rendered report does not show the example's kernel" >&2; exit 1; }

step "a planted bug: the kernel skips its last element; validation refuses it (exit 1)"
sed 's/    if i < c.size:/    if i < c.size - 1:/' "$work/run/my_pairs.py" > "$work/run/bug.py"
! cmp -s "$work/run/my_pairs.py" "$work/run/bug.py" || { echo "the bug was not planted" >&2; exit 1; }
set +e
(cd "$work/run" && NUMBA_ENABLE_CUDASIM=1 "$work/venv/bin/twinbench-py" run bug.py --quick \
  --no-gpu --out bug-cpu.json --ceilings=none >/dev/null 2>&1)
cpu_only=$?
(cd "$work/run" && NUMBA_ENABLE_CUDASIM=1 "$work/venv/bin/twinbench-py" run bug.py --quick \
  --out bug.json --ceilings=none 2> "$work/run/bug.log")
code=$?
set -e
[ "$cpu_only" -eq 0 ] || { echo "the CPU rows of the planted bug failed (exit $cpu_only)" >&2; exit 1; }
if [ "$code" -ne 1 ] || ! grep -q 'VALIDATION FAILED: vector_add/cuda_add_gpu/n:1000/block:64/mode:kernel: non-finite output at index 999' "$work/run/bug.log"; then
  cat "$work/run/bug.log" >&2
  echo "the planted bug was not refused (exit $code)" >&2
  exit 1
fi

step "tests/pyapi against the installed package"
(cd "$work" && TWINBENCH_PYAPI_INSTALLED=1 "$venv_python" -m pytest -q -p no:cacheprovider \
  "$root/tests/pyapi")

step "the docs' install command, from the copy of the checkout"
# shellcheck disable=SC2016  # the backticks are a Markdown fence, not an expansion
install=$(awk '/^```sh$/{getline; print; exit}' "$root/docs/python.md")
[ "$install" = 'pip install "./reports[numba]"' ] ||
  { echo "the docs' install block is not the command tested here: $install" >&2; exit 1; }
(cd "$work/checkout" && "$work/venv/bin/pip" install -q --force-reinstall --no-deps "./reports[numba]")
(cd "$work" && "$venv_python" -c 'import twinbench.bench, twinbench.report')

step "twinbench-py: all passed in $(($(date +%s) - start)) s"
