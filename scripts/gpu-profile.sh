#!/usr/bin/env bash
# Nsight Compute over a finished run's GPU kernels, on the GPU machine, from the
# repository root with bundle/ beside it (scripts/gpu-bundle.sh):
#   scripts/gpu-profile.sh RUN.json [OUT_DIR]        (OUT_DIR: default $OUT, else ./gpu-out)
# A separate pass after the timed run, never inside it: twinbench runs again, only the rows
# `python -m twinbench.report.ncu select` names (per workload, at its headline and largest sizes, the
# fastest kernel row of every GPU impl: so the fastest of each family and the articles'
# kernels), each sampled once (--min-samples=1), with TWINBENCH_NCU_WINDOW=1: the harness then
# runs each row's work once more between cudaProfilerStart/Stop inside an NVTX range named
# after the row (common/gpu_timing.hpp ncu_window). ncu --profile-from-start off profiles only
# those kernels, once each, and --nvtx writes the range beside each kernel, which is how a
# kernel maps back to its row.
#   main pass:  speed of light, memory workload, occupancy, launch, warp state (stall reasons),
#               compute workload (pipe utilisation) sections, plus DRAM/L2/L1 throughput and
#               global load/store sectors per request.
#   sweep pass: the occupancy chart's block sweeps (every block size of each swept kernel),
#               Occupancy and LaunchStats only (one replay pass each): achieved occupancy
#               beside the API's theoretical one. PROFILE_SWEEPS=0 leaves it out.
# Writes into OUT_DIR: ncu-<pass>.ncu-rep (open in Nsight Compute), ncu-<pass>.csv (the raw
# page, base units), ncu-<pass>.log (ncu's and twinbench's output), ncu-<pass>-run.json (the
# pass's own timings: profiled, so not results), ncu-<pass>.command, ncu-selected*.txt (the
# rows asked for), and RUN.json's name with the
# ncu_* keys merged into its rows and ncu's version and command in its context (that file is
# RUN.json itself when OUT_DIR is RUN.json's folder). Prints a summary table last.
# Exit 2: no ncu, no RUN.json, or no GPU kernel row in it. Exit 3: ncu may not read the
# counters (ERR_NVGPUCTRPERM). Exit 1: a pass failed or nothing merged.
#   scripts/gpu-profile.sh --check    whether this machine can profile at all, before a run is
#                       spent on it: silent, exit 0 when it can; else one line why, exit 2 (no
#                       GPU, no ncu) or 3 (the driver keeps the counters from this user:
#                       RmProfilingAdminOnly: 1 in /proc/driver/nvidia/params, not root).
#   PROFILE_BUDGET=S    seconds for both passes (default 170: the bound is 3 minutes):
#                       the main pass is stopped at S (SIGINT, then SIGKILL 20 s later), the
#                       sweep pass gets what is left and is skipped under 20 s
#   PROFILE_SWEEPS=0    main pass only
#   NCU_EXTRA="..."     more ncu options (split into words)
#   NCU=PATH            the ncu to run (default: ncu on PATH, else /usr/local/cuda/bin/ncu)
#   TWINBENCH_BIN=PATH  the twinbench to profile (default: bundle/twinbench; scripts/run.sh
#                       passes its build's)
#   NCU_MAIN_ARGS="..." / NCU_SWEEP_ARGS="..."   the passes' sections and metrics instead of
#                       the ones below (split into words)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The bundle's binaries travel xz-compressed (gpu-bundle.sh); another binary needs no unpacking.
if [ -z "${TWINBENCH_BIN:-}" ]; then
  for packed in "$root"/bundle/twinbench*.xz; do
    [ -f "$packed" ] && [ ! -f "${packed%.xz}" ] && xz -dk "$packed"
  done
fi
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}

# Why this machine cannot profile, in a few words, or nothing when it can. The driver's
# RmProfilingAdminOnly (NVreg_RestrictProfilingToAdminUsers, on by default) keeps the counters
# from every user but root: ncu then profiles nothing and says ERR_NVGPUCTRPERM. Where the
# params file cannot be read, the pass finds out itself (exit 3).
cannot_profile() {
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "no GPU (nvidia-smi finds none)"
    return 2
  fi
  if [ ! -x "$ncu" ]; then
    echo "no ncu (Nsight Compute comes with the CUDA toolkit: /usr/local/cuda/bin/ncu)"
    return 2
  fi
  local params=${NVIDIA_PARAMS:-/proc/driver/nvidia/params}
  if [ "$(id -u)" != 0 ] && grep -qs '^RmProfilingAdminOnly: *1' "$params"; then
    echo "no permission to the GPU counters (RmProfilingAdminOnly: 1 in $params: only root may read them; the driver option NVreg_RestrictProfilingToAdminUsers=0 lifts it)"
    return 3
  fi
  return 0
}
if [ "${1:-}" = --check ]; then
  cannot_profile
  exit $?
fi

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: scripts/gpu-profile.sh RUN.json [OUT_DIR]   or: scripts/gpu-profile.sh --check" >&2
  exit 2
fi
run_json=$1
out=${2:-${OUT:-$root/gpu-out}}
if [ ! -s "$run_json" ]; then
  echo "gpu-profile: $run_json: no such run file" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
run_json=$(cd "$(dirname "$run_json")" && pwd)/$(basename "$run_json")
export LD_LIBRARY_PATH="$root/bundle:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
if [ -f "$root/bundle/cpu-libs.tar.xz" ] && [ ! -f "$root/bundle/libopenblas.so.0" ]; then
  tar -C "$root/bundle" -xJf "$root/bundle/cpu-libs.tar.xz"
fi
app_bin=${TWINBENCH_BIN:-$root/bundle/twinbench}
if [ ! -x "$ncu" ]; then
  echo "gpu-profile: ncu not found (Nsight Compute comes with the CUDA toolkit: /usr/local/cuda/bin/ncu)" >&2
  exit 2
fi
python=${PYTHON:-python3}
# The checkout's package, installed or not: ncu.py needs only the standard library, so a GPU
# machine's plain python3 runs it.
export PYTHONPATH="$root/reports/src${PYTHONPATH:+:$PYTHONPATH}"
cd "$root" || exit 2
t_start=$SECONDS

# Which rows: a filter regex per pass, and their names for the merge's "asked for, no kernel"
# check (the sweep pass: none with PROFILE_SWEEPS=0, or when the run has no block sweep).
sweeps=(--sweeps)
[ "${PROFILE_SWEEPS:-1}" = 0 ] && sweeps=()
if ! "$python" -m twinbench.report.ncu select "$run_json" --write "$out" "${sweeps[@]}"; then
  echo "gpu-profile: $run_json has no GPU kernel rows to profile" >&2
  exit 2
fi
main_filter=$(cat "$out/ncu-main.filter")
sweep_filter=$(cat "$out/ncu-sweep.filter")
cat "$out/ncu-selected-main.txt" "$out/ncu-selected-sweep.txt" > "$out/ncu-selected.txt"
version=$("$ncu" --version 2>&1 | tail -n 1)
# The run's sizes: a --quick or --full run has rows that a default one does not.
size_args=()
read -r -a size_args <<< "$("$python" -c 'import json, sys
c = json.load(open(sys.argv[1])).get("context", {})
print(" ".join(f"--{k}" for k in ("quick", "full") if str(c.get(k)).lower() == "true"))' "$run_json")"

main_sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy
               --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis
               --metrics "dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,dram__bytes.sum.per_second,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
sweep_sections=(--section Occupancy --section LaunchStats)
# Overrides, should this ncu lack a section or metric (ncu stops at the first unknown one).
[ -n "${NCU_MAIN_ARGS:-}" ] && read -r -a main_sections <<< "$NCU_MAIN_ARGS"
[ -n "${NCU_SWEEP_ARGS:-}" ] && read -r -a sweep_sections <<< "$NCU_SWEEP_ARGS"

declare -A pass_rc pass_s pass_kernels
permission=0
csvs=()

# One pass: ncu over twinbench with the filter, then the raw page of its report as CSV.
profile_pass() {  # name, seconds, filter, sections...
  local name=$1 limit=$2 filter=$3
  shift 3
  local rep="$out/ncu-$name" log="$out/ncu-$name.log" csv="$out/ncu-$name.csv"
  local t0=$SECONDS
  local extra=()
  read -r -a extra <<< "${NCU_EXTRA:-}"
  local cmd=("$ncu" --profile-from-start off --nvtx --target-processes all "$@" "${extra[@]}"
             -f -o "$rep")
  # The pass's own run: no ceilings or telemetry (minutes of their own, nothing to profile),
  # one sample a row (its timings are not results), no re-exec for pinning under ncu.
  local app=("$app_bin" "${size_args[@]}" --no-ceilings --no-telemetry --min-samples=1
             --min-time=1e-9 --max-time=1e-9 "--benchmark_filter=$filter"
             "--benchmark_out=$out/ncu-$name-run.json" --benchmark_out_format=json)
  # The command as run, the filter by name (ncu-<pass>.filter holds it: thousands of characters).
  echo "${cmd[*]} ${app[*]}" | sed "s|--benchmark_filter=[^ ]*|--benchmark_filter=\$(cat ncu-$name.filter)|" \
    > "$out/ncu-$name.command"
  TWINBENCH_NCU_WINDOW=1 TWINBENCH_NO_PIN=1 \
    timeout --signal=INT --kill-after=20 "$limit" "${cmd[@]}" "${app[@]}" > "$log" 2>&1
  local rc=$?
  [ "$rc" -eq 124 ] && echo "gpu-profile: $name pass stopped after ${limit} s (PROFILE_BUDGET=$budget)" | tee -a "$log"
  if grep -q ERR_NVGPUCTRPERM "$log"; then
    permission=1
    echo "gpu-profile: ERR_NVGPUCTRPERM: this user may not read the GPU counters (driver option NVreg_RestrictProfilingToAdminUsers=1: run as root, or set it to 0)" | tee -a "$log"
  fi
  if [ -s "$rep.ncu-rep" ]; then
    "$ncu" --import "$rep.ncu-rep" --csv --page raw --print-units base > "$csv" 2>> "$log"
    # Older ncu versions print the NVTX columns only on request; the rename is the last resort
    # (the range then stands in for the kernel's name, which twinbench.report.ncu accepts).
    if ! grep -q 'tb\[' "$csv"; then
      "$ncu" --import "$rep.ncu-rep" --csv --page raw --print-units base --print-nvtx-rename kernel \
        > "$csv" 2>> "$log"
    fi
    csvs+=("$csv")
  fi
  pass_rc[$name]=$rc
  pass_s[$name]=$((SECONDS - t0))
  pass_kernels[$name]=0
  [ -f "$csv" ] && pass_kernels[$name]=$(grep -c 'tb\[' "$csv")
}

budget=${PROFILE_BUDGET:-170}
profile_pass main "$budget" "$main_filter" "${main_sections[@]}"
left=$((budget - (SECONDS - t_start)))
if [ -n "$sweep_filter" ] && [ "$permission" = 0 ]; then
  if [ "$left" -ge 20 ]; then
    profile_pass sweep "$left" "$sweep_filter" "${sweep_sections[@]}"
  else
    echo "gpu-profile: sweep pass skipped: ${left} s left of PROFILE_BUDGET=$budget"
  fi
fi

merged_json="$out/$(basename "$run_json")"
[ "$merged_json" != "$run_json" ] && cp "$run_json" "$merged_json"
# Merged even when no pass left a CSV: the run's context then says what ncu said (a refusal).
command_line=$(cat "$out"/ncu-*.command | tr '\n' ';' | sed 's/;$//')
logs=()
for p in "$out"/ncu-*.log; do logs+=(--log "$p"); done
"$python" -m twinbench.report.ncu merge "$merged_json" "${csvs[@]}" --version "$version" \
  --command "$command_line" --selected "$out/ncu-selected.txt" "${logs[@]}"
merge_status=$?

echo "gpu-profile: $version"
printf 'gpu-profile: %-6s %6s %8s %8s %5s\n' pass rows kernels seconds exit
for name in main sweep; do
  [ -n "${pass_rc[$name]:-}" ] || continue
  rows=$(grep -c . "$out/ncu-selected-$name.txt")
  printf 'gpu-profile: %-6s %6s %8s %8s %5s\n' "$name" "$rows" "${pass_kernels[$name]}" "${pass_s[$name]}" "${pass_rc[$name]}"
done
echo "gpu-profile: total $((SECONDS - t_start)) s; merged into $merged_json (merge exit $merge_status)"
[ "$permission" = 1 ] && exit 3
for name in "${!pass_rc[@]}"; do
  rc=${pass_rc[$name]}
  # 124: stopped by the time limit; what ncu saved is merged, but the pass is not whole.
  [ "$rc" -ne 0 ] && exit 1
done
[ "$merge_status" -eq 0 ] || exit 1
exit 0
