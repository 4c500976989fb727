#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root with bundle/ beside it (see gpu-bundle.sh):
# the C++ tests (GPU ones included), then the suite, writing into OUT (default ./gpu-out):
#   nvidia-smi.txt, tests.log, $RUN_NAME.json and $RUN_NAME.log (progress lines, console table).
# Extra arguments go to twinbench (e.g. --workload=dot --quick).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$root/bundle:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export TWINBENCH_GIT_REVISION=${TWINBENCH_GIT_REVISION:-$(cat "$root/bundle/REVISION" 2>/dev/null || echo unknown)}
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  "$root/bundle/twinbench_tests" --gtest_brief=1 > "$out/tests.log" 2>&1
  echo "tests: exit $? ($(grep -c '^\[  FAILED' "$out/tests.log") failed lines)"
  tail -n 5 "$out/tests.log"
fi
# RUN_NAME names the outputs (several runs per call); RUN_TIMEOUT (seconds) bounds the run,
# and a run cut short still leaves its JSON, which the report loader reads as a partial run.
name=${RUN_NAME:-run}
limit=()
if [ -n "${RUN_TIMEOUT:-}" ]; then limit=(timeout --signal=INT "$RUN_TIMEOUT"); fi
"${limit[@]}" "$root/bundle/twinbench" --machine=h200 "$@" --benchmark_out="$out/$name.json" \
  --benchmark_out_format=json > "$out/$name.log" 2>&1
status=$?
echo "twinbench: exit $status"
grep -E "VALIDATION FAILED|ERROR OCCURRED" "$out/$name.log" | grep -v "no CUDA device" | head -n 20
exit $status
