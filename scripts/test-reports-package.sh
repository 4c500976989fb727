#!/usr/bin/env bash
# The twinbench Python package as a user gets it: builds the wheel and the sdist from reports/,
# checks their metadata (`twine check --strict`) and that both ship the licence and the
# templates, installs the wheel into a fresh venv outside the checkout and renders a committed
# run there with the installed `twinbench-report` (the working folder outside the checkout too,
# so nothing is imported from it).
#   scripts/test-reports-package.sh [RUN.json]     (default: results/nvidia-h200/2026-12-04)
# PYTHON: the interpreter that makes the venvs (default python3). Needs PyPI, or a pip
# configured with a mirror, for build, twine and the package's dependencies.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-python3}
run=${1:-$root/results/nvidia-h200/2026-12-04/run.json.gz}
run=$(cd "$(dirname "$run")" && pwd)/$(basename "$run")
work=$(mktemp -d "${TMPDIR:-/tmp}/twinbench-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
t0=$SECONDS
step() { echo "== package: $* ($((SECONDS - t0)) s)" >&2; }
pip_quiet=(-q --disable-pip-version-check)

step "build and twine in $work/tools"
"$python" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install "${pip_quiet[@]}" build twine

step "wheel and sdist from a copy of reports/ (the build writes nothing into the checkout)"
mkdir -p "$work/reports"
tar -C "$root/reports" --exclude=build --exclude=dist --exclude='*.egg-info' --exclude=__pycache__ \
  -cf - . | tar -C "$work/reports" -xf -
"$work/tools/bin/python" -m build --outdir "$work/dist" "$work/reports" >"$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2; exit 1; }
wheel=$(ls "$work"/dist/twinbench-*.whl)
sdist=$(ls "$work"/dist/twinbench-*.tar.gz)
"$work/tools/bin/python" -m twine check --strict "$wheel" "$sdist"

step "what the wheel and the sdist ship"
"$work/tools/bin/python" - "$wheel" "$sdist" <<'PY'
import sys, tarfile, zipfile
wheel, sdist = sys.argv[1:]
names = zipfile.ZipFile(wheel).namelist()
meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA"))).decode()
problems = []
if "License-Expression: Apache-2.0" not in meta:
    problems.append("wheel METADATA: no License-Expression: Apache-2.0")
if not any(n.endswith("licenses/LICENSE") for n in names):
    problems.append("wheel: no LICENSE")
if not any(n.startswith("twinbench/report/templates/") for n in names):
    problems.append("wheel: no twinbench/report/templates/")
if any(n.startswith(("reports/", "tests/")) for n in names):
    problems.append("wheel: holds a top-level reports/ or tests/")
members = tarfile.open(sdist).getnames()
for want in ("/LICENSE", "/pyproject.toml", "/src/twinbench/report/templates/"):
    if not any(want in m for m in members):
        problems.append(f"sdist: no {want}")
for p in problems:
    print("package:", p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY

step "the wheel in a fresh venv, outside the checkout"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install "${pip_quiet[@]}" "$wheel"
cd "$work"
where=$("$work/venv/bin/python" -c 'import twinbench.report as r; print(r.__file__)')
case "$where" in
  "$work/venv/"*) ;;
  *) echo "package: twinbench.report imported from $where, not from the venv" >&2; exit 1 ;;
esac
"$work/venv/bin/twinbench-report" --help >/dev/null
"$work/venv/bin/python" -m twinbench.report --help >/dev/null

step "twinbench-report render $(basename "$(dirname "$run")")/$(basename "$run")"
"$work/venv/bin/twinbench-report" render "$run" --out "$work/report"
for f in report.md report.html first-screen-speedup.png; do
  [ -s "$work/report/$f" ] || { echo "package: the render wrote no $f" >&2; exit 1; }
done
head -n 3 "$work/report/report.md" | grep -q '^\*\*' || {
  echo "package: report.md does not open with its headline" >&2; exit 1; }
step "the installed package renders a committed run"
