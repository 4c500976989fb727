#!/usr/bin/env bash
# On the H200 machine, with bundle/ and bundle/generations.tar.xz (gpu-bundle-generations.sh):
# each build for another GPU generation runs its C++ tests and the --quick suite, writing
# OUT/<arch>/ (tests.log, run.json, run.log) and one line each: exit status, rows measured and
# skipped, rows that ended in an error. sm_80 SASS runs two workloads (its GPU rows all skip).
# Bounded: each quick run stops after RUN_TIMEOUT seconds (default 170), so the three fit in one
# 10-minute call.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/gpu-out}
tar -C "$root/bundle" -xJf "$root/bundle/generations.tar.xz"
one() {  # arch, then twinbench's arguments
  local arch=$1; shift
  echo "== $arch ($(date +%T))"
  OUT="$out/$arch" RUN_NAME=run SKIP_PEERS=1 BUNDLE="bundle/$arch" bash "$root/scripts/gpu-run.sh" "$@"
  echo "$arch: exit $?; $(grep -E '^twinbench: [0-9]+ benchmarks measured' "$out/$arch/run.log");" \
       "$(grep -cE 'ERROR OCCURRED|  (validation failed|error: )' "$out/$arch/run.log") rows that ended in an error"
  grep -m1 'no GPU code' "$out/$arch/run.log"
}
SKIP_TESTS=1 one 80-real --quick --workload=vector_add,sgemm
RUN_TIMEOUT=${RUN_TIMEOUT:-170} one 75-virtual --quick
RUN_TIMEOUT=${RUN_TIMEOUT:-170} one 80-virtual --quick
