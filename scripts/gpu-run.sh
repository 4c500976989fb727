#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root with bundle/ beside it (see gpu-bundle.sh):
# the C++ tests (GPU ones included), then the suite and the Numba peers (scripts/peers.sh),
# writing into OUT (default ./gpu-out):
#   nvidia-smi.txt, tests.log, $RUN_NAME.json and $RUN_NAME.log (progress lines, console table,
#   and the last lines: wall time and peak resident memory of the run).
# Extra arguments go to twinbench (e.g. --workload=dot --quick).
#   SKIP_TESTS=1   no C++ tests
#   SKIP_PEERS=1   no Numba peers (run them later: scripts/peers.sh OUT/RUN_NAME.json)
#   RUN_NAME=run   names the outputs (several runs per call)
#   RUN_TIMEOUT=S  stops the run after S seconds (SIGTERM): its JSON is then partial, and says so
#   BUNDLE=bundle/75v  the binaries of a build for another GPU generation (gpu-bundle.sh with
#                  BUNDLE_BINARIES_ONLY=1), run with the main bundle's libraries
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$root/bundle:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
# The CPU libraries travel compressed (gpu-bundle.sh).
if [ -f "$root/bundle/cpu-libs.tar.xz" ] && [ ! -f "$root/bundle/libopenblas.so.0" ]; then
  tar -C "$root/bundle" -xJf "$root/bundle/cpu-libs.tar.xz"
fi
bin="$root/${BUNDLE:-bundle}"
# The binaries travel xz-compressed too (gpu-bundle.sh).
for packed in "$bin"/twinbench*.xz; do
  [ -f "$packed" ] && [ ! -f "${packed%.xz}" ] && xz -dk "$packed"
done
# The revision of the binaries that run: a build for another GPU generation carries its own.
revision_file="$bin/REVISION"
[ -f "$revision_file" ] || revision_file="$root/bundle/REVISION"
export TWINBENCH_GIT_REVISION=${TWINBENCH_GIT_REVISION:-$(cat "$revision_file" 2>/dev/null || echo unknown)}
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  "$bin/twinbench_tests" --gtest_brief=1 > "$out/tests.log" 2>&1
  echo "tests: exit $? ($(grep -c '^\[  FAILED' "$out/tests.log") failed lines)"
  tail -n 3 "$out/tests.log"
fi
name=${RUN_NAME:-run}
limit=()
if [ -n "${RUN_TIMEOUT:-}" ]; then limit=(timeout --signal=TERM "$RUN_TIMEOUT"); fi
# Peak resident memory of the run (the suite's 8 GiB bound) from the kernel's accounting of the
# finished child, whether or not /usr/bin/time is installed.
python3 - "$out/$name.log" "${limit[@]}" "$bin/twinbench" --machine=nvidia-h200 "$@" \
  --benchmark_out="$out/$name.json" --benchmark_out_format=json <<'EOF'
import resource, subprocess, sys, time
log = open(sys.argv[1], "w")
t0 = time.monotonic()
rc = subprocess.call(sys.argv[2:], stdout=log, stderr=subprocess.STDOUT)
wall = time.monotonic() - t0
peak_gib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
line = f"gpu-run: exit {rc}, wall {wall:.1f} s, peak RSS {peak_gib:.2f} GiB"
print(line, file=log)
print(line)
sys.exit(rc if rc >= 0 else 128 - rc)
EOF
status=$?
# The articles' Numba programs beside the C++ rows, into the same results file (this machine's
# python3 has numba and numba-cuda); their lines go to the log, failures into the grep below.
if [ "${SKIP_PEERS:-0}" != 1 ] && [ "$status" -lt 128 ] && [ -s "$out/$name.json" ]; then
  bash "$root/scripts/peers.sh" "$out/$name.json" >> "$out/$name.log" 2>&1
  peers_status=$?
  grep '^numba peers:' "$out/$name.log" | tail -1
  if [ "$status" -eq 0 ] && [ "$peers_status" -ne 0 ]; then status=$peers_status; fi
fi
grep -E "VALIDATION FAILED" "$out/$name.log" | head -n 20
exit $status
