#!/usr/bin/env bash
# The main job: install what is missing, build, run the suite on this machine (CPU always, GPU
# when a CUDA device is present), write results/<machine>/<timestamp>.json and its report.
#
#   scripts/run.sh [--quick] [--workload=a,b] [--machine=NAME] [--peers|--no-peers] [--no-profile]
#                  [-- twinbench flags]
#
# The articles' Numba programs (scripts/peers.sh) run beside the C++ rows where there is a GPU
# (--no-peers leaves them out); without a GPU only with --peers (their CPU rows add 4-5 minutes
# on a 2-core machine), or later: scripts/peers.sh results/<machine>/<timestamp>.json.
#
# Where a GPU and Nsight Compute are here and the driver lets this user read the counters, a
# profile pass follows the run (scripts/gpu-profile.sh: the fastest kernel of every GPU impl,
# each once, at most PROFILE_BUDGET seconds, default 170; 110 s on the H200) and its counters
# go into the results file, so the report names each profiled GPU row's limiter from them;
# elsewhere one line says why not, and the report names the limiters by its rules.
# --no-profile leaves the pass out; its files are in results/<machine>/<timestamp>/ncu/.
#
# Exit status: twinbench's (0 ok, 1 a validation failed, 2 bad input, 3 results not written);
# 130/143 interrupted (SIGINT/SIGTERM), 137 killed (SIGKILL: out of memory, most often). A run
# cut short still renders the report of what it measured, whose first line says it is partial.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

quick=() workload=() machine="" extra=() peers="" profile=1
while (($#)); do
  case "$1" in
    --quick) quick=(--quick) ;;
    --workload=*) workload=("$1") ;;
    --machine=*) machine=${1#--machine=} ;;
    --peers) peers=1 ;;
    --no-peers) peers=0 ;;
    --no-profile) profile=0 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$machine" ] && ! [[ "$machine" =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]]; then
  echo "run.sh: --machine: use letters, digits, '.', '_' and '-' (got '$machine')" >&2
  exit 2
fi

# TWINBENCH_BIN: a twinbench already built (the tests use it; nothing is installed or built).
# TWINBENCH_RESULTS: where results/ is (default: the repository's).
bin=${TWINBENCH_BIN:-}
if [ -z "$bin" ]; then
  bash "$root/scripts/deps.sh" $([ "$peers" = 1 ] && echo --peers)
  # Configured with the tests, built without them: scripts/test.sh builds them in this folder
  # afterwards and reuses everything else.
  configure_and_build "$root/build" -DTWINBENCH_BUILD_TESTS=ON --target twinbench
  bin="$root/build/twinbench"
elif [ ! -x "$root/.venv/bin/python" ]; then
  bash "$root/scripts/deps.sh" --python-only
fi

if reason=$(gpu_absent_reason) && [ -n "$reason" ]; then
  echo "twinbench: no GPU on this machine ($reason): running the CPU variants; GPU variants are skipped" >&2
  if [ -z "$peers" ]; then
    peers=0
    echo "twinbench: the Numba peers are left out without a GPU (--peers runs their CPU rows too)" >&2
  fi
fi
peers=${peers:-1}
if [ -z "$machine" ]; then
  # The GPU's name without its memory size and type ("NVIDIA H100 80GB HBM3" -> nvidia-h100, as
  # results/ names its folders; scripts/gpu-run.sh derives it the same way), else the host's.
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
  gpu=$(echo "$gpu" | sed -E 's/[- ][0-9]+ ?GB.*$//')
  machine=$(echo "${gpu:-$(hostname -s)}" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9_.-')
fi
out="${TWINBENCH_RESULTS:-$root/results}/$machine"
mkdir -p "$out"
# A stamp to the second plus the process id: two runs started together never share a file.
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)-$$
json="$out/$stamp.json"

# The progress lines' estimate of the time left weighs each row by its time in a previous run
# (common/progress_eta.hpp): this machine's last complete run, else the committed reference run.
# The reference run is compressed (results/README.md); twinbench reads plain JSON, so it gets a
# decompressed copy for the length of the run.
reference_run="$root/results/nvidia-h200/2026-12-02b/run.json.gz"  # as twinbench/report/reference.py
if [ -z "${TWINBENCH_PREVIOUS_RESULTS:-}" ]; then
  previous=$(ls -t "$out"/*.json 2>/dev/null | head -1 || true)
  if [ -z "$previous" ] && [ -f "$reference_run" ]; then
    previous=$(mktemp -t twinbench-reference-run.XXXXXX.json)
    trap 'rm -f "$previous"' EXIT
    gzip -dc "$reference_run" > "$previous"
  fi
  [ -n "$previous" ] && export TWINBENCH_PREVIOUS_RESULTS="$previous"
fi

# The cgroup's count of OOM kills, where the kernel exposes it: tells an OOM kill from another
# SIGKILL.
oom_kills() { awk '$1 == "oom_kill" {print $2}' /sys/fs/cgroup/memory.events 2>/dev/null || echo 0; }
oom_before=$(oom_kills)

# twinbench runs in the background so that an interrupt reaches this script while it runs:
# the script stops it and still renders the partial results below. (A background job of a
# script ignores SIGINT, so both signals are passed on as SIGTERM.)
interrupted=""
"$bin" "${quick[@]}" "${workload[@]}" --machine="$machine" \
  --benchmark_out="$json" --benchmark_out_format=json "${extra[@]}" &
child=$!
trap 'interrupted=INT; kill -TERM $child 2>/dev/null || true' INT
trap 'interrupted=TERM; kill -TERM $child 2>/dev/null || true' TERM
status=0
while :; do
  wait "$child" && status=0 || status=$?
  # wait returns early (status > 128) when a trapped signal arrives; wait again for the child.
  if kill -0 "$child" 2>/dev/null; then continue; fi
  break
done
trap - INT TERM

why=""
case "$status" in
  0|1) ;;
  2) why="bad input (see the message above)" ;;
  3) why="the results could not be written" ;;
  130) why="interrupted (SIGINT)" ;;
  143) why="terminated (SIGTERM)" ;;
  137)
    if [ "$(oom_kills)" -gt "$oom_before" ] 2>/dev/null; then
      why="killed by the kernel's OOM killer (out of memory)"
    else
      why="killed (SIGKILL; running out of memory is the usual cause)"
    fi ;;
  *) if ((status > 128)); then why="killed by signal $((status - 128))"; else why="exit $status"; fi ;;
esac
if [ -n "$interrupted" ]; then
  why="interrupted (SIG$interrupted)"
  status=$([ "$interrupted" = INT ] && echo 130 || echo 143)
fi

if [ ! -s "$json" ]; then
  echo "twinbench: no results written${why:+: $why} (exit $status)" >&2
  exit $((status ? status : 3))
fi
# The articles' Numba programs beside the C++ rows (README: "The articles' Numba code beside the
# C++"): their rows go into the same results file before the report reads it. Not after a run cut
# short; peers.sh exits 0 when numba is missing (the results file says why).
if [ -z "$why" ] && ((peers)); then
  echo "twinbench: running the articles' Numba programs beside the C++ rows (scripts/peers.sh;" \
       "run.sh --no-peers leaves them out)" >&2
  peers_status=0
  bash "$root/scripts/peers.sh" "$json" || peers_status=$?
  case "$peers_status" in
    0) ;;
    1) echo "twinbench: a Numba peer failed validation (see above)" >&2
       if [ "$status" -eq 0 ]; then status=1; fi ;;
    130|143) why="the Numba peers were interrupted"; status=$peers_status ;;
    *) echo "twinbench: the Numba peers exited $peers_status (see above)" >&2 ;;
  esac
fi
# Nsight Compute's counters behind the GPU rows' limiters (header above). Its outcome never
# changes the exit status: the measurements stand either way.
profile_pass() {  # results file, folder for ncu's files
  local json=$1 dir=$2 reason rc=0
  if ! reason=$(bash "$root/scripts/gpu-profile.sh" --check); then
    echo "twinbench: no profile pass: $reason; the report names the GPU limiters by its rules" >&2
    return 0
  fi
  mkdir -p "$dir"
  echo "twinbench: profile pass over the fastest GPU kernels (Nsight Compute, at most" \
       "${PROFILE_BUDGET:-170} s; run.sh --no-profile leaves it out)" >&2
  TWINBENCH_BIN="$bin" PYTHON="$root/.venv/bin/python" \
    bash "$root/scripts/gpu-profile.sh" "$json" "$dir" > "$dir/gpu-profile.log" 2>&1 || rc=$?
  # gpu-profile.sh merges into a copy in its folder; the run's own file takes it.
  if [ -s "$dir/$(basename "$json")" ]; then mv -f "$dir/$(basename "$json")" "$json"; fi
  local log="$dir/gpu-profile.log" last rows seconds
  last=$(grep -v '^$' "$log" | tail -n 1 || true)
  rows=$(sed -n 's/^ncu merge: \([0-9]*\) rows merged.*/\1/p' "$log" | head -n 1 || true)
  seconds=$(sed -n 's/^gpu-profile: total \([0-9]*\) s.*/\1/p' "$log" | head -n 1 || true)
  case "$rc" in
    0) echo "twinbench: profile pass: the counters of ${rows:-?} GPU rows merged into $json" \
            "(${seconds:-?} s)" >&2 ;;
    3) echo "twinbench: profile pass refused: the driver keeps the GPU counters from this user" \
            "(ERR_NVGPUCTRPERM; run as root, or set NVreg_RestrictProfilingToAdminUsers=0)" >&2 ;;
    2) echo "twinbench: no profile pass: ${last#gpu-profile: }" >&2 ;;
    *) echo "twinbench: the profile pass ended early (exit $rc; $log): the counters of" \
            "${rows:-0} GPU rows merged" >&2 ;;
  esac
}
if [ -z "$why" ] && ((profile)); then
  profile_pass "$json" "$out/$stamp/ncu"
fi
"$root/.venv/bin/twinbench-report" render "$json" --out "$out/$stamp" || {
  echo "twinbench: the report could not be rendered from $json" >&2
  exit 3
}
echo "results: $json"
echo "report:  $out/$stamp/report.md"
if [ -n "$why" ]; then
  echo "twinbench: the run was cut short: $why; the report above is partial (exit $status)" >&2
fi
exit "$status"
