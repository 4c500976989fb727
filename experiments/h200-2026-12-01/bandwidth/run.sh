#!/usr/bin/env bash
# Issue 18 experiment: runs bw_variants (prebuilt; built here only if absent) and, with
# PROFILE=1, Nsight Compute on the baseline and the fastest transpose and fp16 kernels.
# From the repository root:  OUT=/some/dir [PROFILE=1] bash experiments/h200-2026-12-01/bandwidth/run.sh
# Extra arguments go to bw_variants (e.g. --only transpose, --samples 10).
# Writes (when OUT is set): $OUT/bw_variants.txt, $OUT/nvidia-smi.txt, $OUT/ncu_<variant>.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
out=${OUT:-}
if [[ -n $out ]]; then
  mkdir -p "$out"
  log=$out/bw_variants.txt
else
  log=$(mktemp)
fi

if [[ ! -x ./bw_variants ]]; then
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  echo "bw_variants not found: building it with $nvcc"
  "$nvcc" -O3 -std=c++17 -arch=sm_90 -lineinfo bw_variants.cu -o bw_variants || exit 1
fi

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv 2>&1 | tee ${out:+"$out/nvidia-smi.txt"}

timeout 240 ./bw_variants "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo "bw_variants exit status: $status"

if [[ ${PROFILE:-0} == 1 ]]; then
  ncu=$(command -v ncu || true)
  if [[ -z $ncu ]]; then
    for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
      if [[ -x $c ]]; then ncu=$c; break; fi
    done
  fi
  if [[ -z $ncu ]]; then
    echo "PROFILE=1: ncu not found, profiling skipped"
  else
    # "PROFILE_TARGET <group> <baseline|best> <variant> <kernel>" lines from the run; defaults if
    # the run printed none (e.g. it stopped early).
    mapfile -t targets < <(awk '$1 == "PROFILE_TARGET" && ($2 == "transpose" || $2 == "fma_fp16") \
      { print $4 " " $5 }' "$log" | awk '!seen[$1]++')
    if [[ ${#targets[@]} -eq 0 ]]; then
      targets=("tp_suite_diag32 tp_suite_tiled_1d" "tp_swz64_diag tp_swz_kernel"
               "fp16_suite_b64 fp16_suite_kernel" "fp16_ilp4_b128 fp16_ilp_kernel")
    fi
    start=$SECONDS
    for t in "${targets[@]}"; do
      read -r variant kernel <<<"$t"
      if (( SECONDS - start > 75 )); then
        echo "== ncu: skipping $variant (profiling budget of ~90 s spent) =="
        continue
      fi
      echo "== ncu: $variant (kernel regex $kernel) =="
      timeout 45 "$ncu" --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section Occupancy --section WarpStateStats -k "regex:$kernel" -c 1 \
        ./bw_variants --profile "$variant" 2>&1 | tee ${out:+"$out/ncu_$variant.txt"}
    done
  fi
fi
exit "$status"
