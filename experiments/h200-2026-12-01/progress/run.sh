#!/usr/bin/env bash
# Profiles the Poisson progress kernels at 10M samples (device counter, block 256): the
# uninstrumented fast_kernel<None> against per_warp and per_block, with Nsight Compute, to see
# where the instrumented kernels' +1-3% goes. Run from the repository root on the GPU machine,
# with bundle/ (scripts/gpu-bundle.sh). Writes to $OUT.
set -uo pipefail
out=${OUT:-/tmp}
export LD_LIBRARY_PATH="$PWD/bundle:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for s in per_warp per_block; do
  "$ncu" --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    --section SchedulerStats --section InstructionStats -k regex:fast_kernel -c 6 \
    bundle/twinbench --no-telemetry --min-samples=1 --min-time=1e-9 --max-time=1e-9 \
    --benchmark_filter="progress/cuda/target:poisson/strategy:$s/counter:device/n:10000000/" \
    > "$out/ncu-progress-$s.txt" 2>&1
  echo "progress ncu $s: exit $?"
done
grep -E "fast_kernel|Duration|Executed Instructions  |Issue Slots Busy|Stall|Achieved Occupancy|Registers Per|Waves Per SM" \
  "$out/ncu-progress-per_block.txt" | head -60
