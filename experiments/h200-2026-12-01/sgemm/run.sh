#!/usr/bin/env bash
# Builds sgemm_variants if the prebuilt binary is absent, runs it (validation at n = 4, 100, 1000,
# 1001, then validation and cold-L2 timing of every variant and cuBLAS at n = 1024, 2048, 4096),
# then, unless NCU=0, profiles the baseline and the fastest variant at n = 4096 with Nsight
# Compute (NCU_VARIANTS="a b" overrides the pair; "cublas" profiles cuBLAS's kernel).
# Output goes to $OUT when set, else to this folder: sgemm_variants.txt, ncu_<variant>_4096.ncu-rep
# and ncu_<variant>_4096.txt. Arguments go to the benchmark, e.g. `bash run.sh --samples 50`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=${OUT:-$here}
mkdir -p "$out"

if [ ! -x ./sgemm_variants ]; then
  echo "building sgemm_variants"
  nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo --resource-usage sgemm_variants.cu -lcublas \
    -o sgemm_variants || exit 1
fi

./sgemm_variants "$@" 2>&1 | tee "$out/sgemm_variants.txt"
rc=${PIPESTATUS[0]}

if [ "${NCU:-1}" != 0 ]; then
  if ! command -v ncu >/dev/null 2>&1; then
    echo "ncu not found: profiles skipped"
    exit "$rc"
  fi
  best=$(sed -n 's/^BEST n=4096: \([^ ]*\) .*/\1/p' "$out/sgemm_variants.txt" | head -n 1)
  for v in ${NCU_VARIANTS:-base ${best:-}}; do
    rep="$out/ncu_${v}_4096"
    echo "== ncu: $v at n=4096"
    # --profile mode brackets its one launch with cudaProfilerStart/Stop, so only that kernel
    # is profiled; --clock-control none leaves the clocks as the timings saw them.
    timeout 150 ncu --clock-control none --profile-from-start off --set full \
      -k 'regex:pipe|baseline|gemm' -c 1 -f -o "$rep" ./sgemm_variants --profile "$v" 4096 ||
      { echo "ncu failed for $v"; continue; }
    {
      ncu -i "$rep.ncu-rep" --page details --section SpeedOfLight --section LaunchStats \
        --section Occupancy --section ComputeWorkloadAnalysis --section SchedulerStats \
        --section WarpStateStats --section InstructionStats 2>&1 |
        grep -v -E '^ {8,}[^ ]' # drop the rule-advice paragraphs
      echo "  -- instructions, FMA pipe, issue, stall samples (smsp__pcsamp_*) --"
      ncu -i "$rep.ncu-rep" --page raw 2>&1 |
        grep -E 'smsp__inst_executed.sum |sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active|smsp__issue_active.avg.pct|l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum|smsp__pcsamp_warps_issue_stalled_[a-z_]+ ' |
        grep -v '_not_issued' | awk '$NF != "0"'
    } >"$rep.txt"
    cat "$rep.txt"
  done
fi
exit "$rc"
