#!/usr/bin/env bash
# The regression gate a CI calls on a GPU machine: runs the reference build A and the candidate B,
# compares them, measures the suspects again in fresh processes, and exits
#   0  no confirmed regression (ambiguous suspects are listed, not failed on)
#   1  a regression confirmed in every round of the confirm step
#   2  bad input: a missing or unreadable A or B, a B that is no executable, a run that failed
#      (a validation failure included) or wrote no results, runs whose settings differ
# The Markdown summary goes to stdout (and to $GITHUB_STEP_SUMMARY when the CI sets it); every
# file is under --out (default gate-out): a.json, b.json, compare/, confirm/, gate.md, gate.json.
#
#   scripts/ci-gate.sh --a bundle-main/twinbench --b bundle/twinbench [--pct 5] [--cpu-pct 15]
#                      [--rounds 3] [--bench-args="--workload=dot,vector_add"] [--out DIR]
#   scripts/ci-gate.sh --a results/main.json --b bundle/twinbench    # B against A's samples
#
# Arguments are those of `twinbench-report gate` (twinbench/report/gate.py, docs/compare-and-gate.md).
# A bundle made by scripts/gpu-bundle.sh is made ready to run as gpu-run.sh does: its CPU
# libraries unpacked beside the binary, and its REVISION file recorded as the run's revision.
# PYTHON picks the interpreter (default: the repository's .venv when it has the twinbench
# package, else python3 with the checkout's reports/src on its path).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

python=${PYTHON:-}
if [ -z "$python" ]; then
  python=python3
  if [ -x "$root/.venv/bin/python" ] && "$root/.venv/bin/python" -c 'import twinbench.report' \
      >/dev/null 2>&1; then
    python="$root/.venv/bin/python"
  fi
fi

# The value following --a / --b (or given as --a=...), to prepare their bundles.
value_of() {
  local flag=$1; shift
  while (($#)); do
    case "$1" in
      "$flag") echo "${2:-}"; return ;;
      "$flag"=*) echo "${1#*=}"; return ;;
    esac
    shift
  done
}

extra=()
lib_path=/usr/local/cuda/lib64
for side in a b; do
  path=$(value_of "--$side" "$@")
  [ -n "$path" ] && [ -f "$path" ] && [ -x "$path" ] || continue
  dir=$(cd "$(dirname "$path")" && pwd)
  if [ -f "$dir/cpu-libs.tar.xz" ] && [ ! -f "$dir/libopenblas.so.0" ]; then
    tar -C "$dir" -xJf "$dir/cpu-libs.tar.xz" || exit 2
  fi
  lib_path="$dir:$lib_path"
  if [ -f "$dir/REVISION" ]; then
    extra+=("--$side-env" "TWINBENCH_GIT_REVISION=$(cat "$dir/REVISION")")
  fi
done
export LD_LIBRARY_PATH="$lib_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

out=$(value_of --out "$@")
out=${out:-gate-out}
PYTHONPATH="$root/reports/src${PYTHONPATH:+:$PYTHONPATH}" "$python" -m twinbench.report gate "$@" ${extra[@]+"${extra[@]}"}
status=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/gate.md" ]; then
  cat "$out/gate.md" >> "$GITHUB_STEP_SUMMARY"
fi
exit $status
