#!/usr/bin/env bash
# The main job: install what is missing, build, run the suite on this machine (CPU always, GPU
# when a CUDA device is present), write results/<machine>/<timestamp>.json and its report.
#
#   scripts/run.sh [--quick] [--workload=a,b] [--machine=NAME] [-- extra twinbench flags]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

quick=() workload=() machine="" extra=()
while (($#)); do
  case "$1" in
    --quick) quick=(--quick) ;;
    --workload=*) workload=("$1") ;;
    --machine=*) machine=${1#--machine=} ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

bash "$root/scripts/deps.sh"
configure_and_build "$root/build" -DTWINBENCH_BUILD_TESTS=OFF

if reason=$(gpu_absent_reason) && [ -n "$reason" ]; then
  echo "twinbench: no GPU on this machine ($reason): running the CPU variants; GPU variants are skipped" >&2
fi
if [ -z "$machine" ]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
  machine=$(echo "${gpu:-$(hostname -s)}" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9_.-')
fi
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
out="$root/results/$machine"
mkdir -p "$out"
json="$out/$stamp.json"

set +e
"$root/build/twinbench" "${quick[@]}" "${workload[@]}" --machine="$machine" \
  --benchmark_out="$json" --benchmark_out_format=json "${extra[@]}"
status=$?
set -e
if [ ! -s "$json" ]; then
  echo "twinbench: no results written (exit $status)" >&2
  exit "$status"
fi
"$root/.venv/bin/python" -m reports render "$json" --out "$out/$stamp"
echo "results: $json"
echo "report:  $out/$stamp/report.md"
exit "$status"
