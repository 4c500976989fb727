#!/usr/bin/env bash
# Several GPUs of this machine measured one after another, one process each (twinbench measures
# one device per run: --devices=N), then each against the first side by side.
#
#   scripts/run-devices.sh [DEVICES] [scripts/run.sh options]
#
# DEVICES: a comma-separated list (0,2) or all (the default: every GPU nvidia-smi lists). Each
# device's run is scripts/run.sh with --machine=<machine>-gpu<N>, so its results and report are
# in results/<machine>-gpu<N>/; the comparisons (twinbench-report compare, first device against each
# other) are printed and written beside each later run, in compare-gpu<first>-gpu<N>/.
# The collectives and peer_copy rows of each run use the one device that run sees: run them
# once over all devices with plain scripts/run.sh --workload=collectives,peer_copy.
# Exit status: the first non-zero status of a run (the others still run), 2 bad input.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

devices=all
if (($#)) && [[ "$1" != -* ]]; then devices=$1; shift; fi
if [ "$devices" = all ]; then
  count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
  if [ "${count:-0}" -lt 1 ]; then
    echo "run-devices.sh: no GPU listed by nvidia-smi: nothing to run per device" >&2
    exit 2
  fi
  devices=$(seq -s, 0 $((count - 1)))
fi
if ! [[ "$devices" =~ ^[0-9]+(,[0-9]+)*$ ]]; then
  echo "run-devices.sh: DEVICES: a list of device numbers (0,2) or all, got '$devices'" >&2
  exit 2
fi
machine=""
args=()
for a in "$@"; do
  case "$a" in
    --machine=*) machine=${a#--machine=} ;;
    *) args+=("$a") ;;
  esac
done
if [ -z "$machine" ]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  machine=$(echo "${gpu:-$(hostname -s)}" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9_.-')
fi
# run.sh's own arguments, then twinbench's after "--" (with --devices added there).
before=() after=()
seen_dash=0
for a in "${args[@]}"; do
  if [ "$seen_dash" = 1 ]; then after+=("$a"); elif [ "$a" = -- ]; then seen_dash=1; else before+=("$a"); fi
done

status=0
first="" first_json=""
IFS=, read -ra list <<< "$devices"
for d in "${list[@]}"; do
  label="$machine-gpu$d"
  echo "== device $d: scripts/run.sh --machine=$label" >&2
  bash "$root/scripts/run.sh" "${before[@]}" --machine="$label" -- "${after[@]}" --devices="$d"
  rc=$?
  if [ "$status" -eq 0 ] && [ "$rc" -ne 0 ]; then status=$rc; fi
  json=$(ls -t "${TWINBENCH_RESULTS:-$root/results}/$label"/*.json 2>/dev/null | head -1)
  [ -n "$json" ] || continue
  if [ -z "$first_json" ]; then
    first=$d first_json=$json
  else
    "$root/.venv/bin/twinbench-report" compare "$first_json" "$json" \
        --out "$(dirname "$json")/compare-gpu$first-gpu$d" ||
      echo "run-devices.sh: the comparison of device $first and device $d failed" >&2
  fi
done
exit "$status"
