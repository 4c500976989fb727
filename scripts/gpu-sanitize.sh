#!/usr/bin/env bash
# Runs NVIDIA's compute-sanitizer over the GPU code, on the GPU machine, from the repository root
# with bundle/ beside it (scripts/gpu-bundle.sh): memcheck (with the leak check), racecheck,
# synccheck and initcheck over the C++ tests, and with SANITIZE_SUITE=1 over the `--quick`
# suite too. Writes OUT/sanitize-<tool>-<target>.log for each and prints one line per run with
# the sanitizer's error count; exits non-zero when any run reports an error.
#   SANITIZE_TOOLS="memcheck initcheck"   the tools to run (default: all four)
#   SANITIZE_FILTER=GTEST_FILTER          the tests to run (default: all of them)
#   SANITIZE_SUITE=1                      also the --quick suite (minutes per tool)
#   SANITIZE_TIMEOUT=SECONDS              stop each run after this long (default: no limit)
#   SANITIZE_FULL_TESTS=1                 racecheck too runs every case of the heaviest tests
#   SANITIZE_SUITE_ARGS="..."             more twinbench arguments for the suite runs (e.g. a
#                                         --benchmark_filter=... to split a long racecheck run)
# The runs go one after another. All eight at once on the H200 (tried): the three
# suite runs that finished took 248-310 s, and none of the five over the tests finished in 330 s,
# where alone memcheck takes 56 s, initcheck and synccheck under 30 s.
# The logs are many files: they also go into OUT/sanitize-logs.tar.gz, one file to copy back.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The bundle's binaries travel xz-compressed (gpu-bundle.sh).
for packed in "$root"/bundle/twinbench*.xz; do
  [ -f "$packed" ] && [ ! -f "${packed%.xz}" ] && xz -dk "$packed"
done
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$root/bundle:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$sanitizer" ]; then
  echo "gpu-sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)" >&2
  exit 2
fi
tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
filter=${SANITIZE_FILTER:-*}
failed=0

# tool-specific options: memcheck also reports device allocations never freed.
options_for() {
  case "$1" in
    memcheck) echo "--leak-check full" ;;
    *) echo "" ;;
  esac
}

run_one() {  # tool, target name, command...
  local tool=$1 name=$2
  shift 2
  local log="$out/sanitize-$tool-$name.log"
  local t0=$SECONDS
  local limit=()
  [ -n "${SANITIZE_TIMEOUT:-}" ] && limit=(timeout "$SANITIZE_TIMEOUT")
  # shellcheck disable=SC2046
  "${limit[@]}" "$sanitizer" --tool "$tool" $(options_for "$tool") --error-exitcode 99 --print-limit 50 \
    "$@" > "$log" 2>&1
  local rc=$?
  local summary
  summary=$(grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 2 | tr '\n' ' ')
  [ "$rc" -eq 124 ] && summary="stopped by SANITIZE_TIMEOUT=${SANITIZE_TIMEOUT:-}; $summary"
  echo "gpu-sanitize: $tool $name: exit $rc, $((SECONDS - t0)) s: ${summary:-no summary (see $log)}"
  [ "$rc" -eq 0 ]
}

runs=()  # "tool target"
for tool in $tools; do
  runs+=("$tool tests")
  [ "${SANITIZE_SUITE:-0}" = 1 ] && runs+=("$tool suite")
done

run_target() {  # tool, target
  case "$2" in
    # Not --gtest_brief: a run stopped by SANITIZE_TIMEOUT then still says which tests it
    # finished (racecheck over SgemmGpu and ProgressGpu takes minutes).
    # Under racecheck the heaviest GPU tests keep one case per kernel path and edge
    # (tests/test_util.hpp reduced(); SANITIZE_FULL_TESTS=1 runs them all).
    tests)
      local reduced=0
      [ "$1" = racecheck ] && [ "${SANITIZE_FULL_TESTS:-0}" != 1 ] && reduced=1
      TWINBENCH_TEST_REDUCED=$reduced run_one "$1" tests "$root/bundle/twinbench_tests" \
        --gtest_filter="$filter" ;;
    # One sample a row (after its validation run): the tools check every kernel and copy the
    # suite makes, not its timing, and racecheck runs kernels ~100x slower. No ceilings: under
    # racecheck their kernels alone ran past 160 s on the H200 (the tests check those kernels).
    # SANITIZE_SUITE_ARGS is split into words on purpose.
    # shellcheck disable=SC2086
    suite) run_one "$1" suite "$root/bundle/twinbench" --quick --no-telemetry --no-ceilings \
      --min-samples=1 --min-time=1e-9 --max-time=1e-9 ${SANITIZE_SUITE_ARGS:-} \
      --benchmark_out="$out/sanitize-$1-suite.json" --benchmark_out_format=json ;;
  esac
}

for r in "${runs[@]}"; do
  # shellcheck disable=SC2086
  run_target $r || failed=1
done
(cd "$out" && tar czf sanitize-logs.tar.gz sanitize-*.log)
exit $failed
