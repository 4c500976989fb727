#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root with bundle/ beside it (see gpu-bundle.sh):
# the C++ tests (GPU ones included), then the default run as scripts/run.sh makes it: the suite,
# the Numba peers (scripts/peers.sh) and the Nsight Compute profile pass (scripts/gpu-profile.sh,
# its counters merged into the results file), writing into OUT (default ./gpu-out):
#   nvidia-smi.txt, tests.log, $RUN_NAME.json and $RUN_NAME.log (progress lines, console table,
#   and the last lines: wall time and peak resident memory of the run), ncu/ (the profile's
#   files, gpu-profile.log among them).
# The machine label is the GPU's, as run.sh derives it from nvidia-smi ("NVIDIA H200" ->
# nvidia-h200, "NVIDIA H100 80GB HBM3" -> nvidia-h100); MACHINE=NAME overrides it.
# Extra arguments go to twinbench (e.g. --workload=dot --quick).
#   SKIP_TESTS=1   no C++ tests
#   SKIP_PEERS=1   no Numba peers (run them later: scripts/peers.sh OUT/RUN_NAME.json)
#   SKIP_PROFILE=1 no profile pass (PROFILE_BUDGET=S: its seconds, default 170)
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
# The label run.sh gives this GPU: its name without the memory size and type, lower case.
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
machine=${MACHINE:-$(echo "${gpu_name:-unknown-gpu}" | sed -E 's/[- ][0-9]+ ?GB.*$//' |
  tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9_.-')}
echo "gpu-run: machine label $machine (${gpu_name:-no GPU name from nvidia-smi})"
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
python3 - "$out/$name.log" "${limit[@]}" "$bin/twinbench" --machine="$machine" "$@" \
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
# Nsight Compute's counters behind the GPU rows' limiters, merged into the results file, as
# run.sh's profile pass does. Its outcome never changes the exit status: the measurements stand.
if [ "${SKIP_PROFILE:-0}" != 1 ] && [ "$status" -lt 128 ] && [ -s "$out/$name.json" ]; then
  mkdir -p "$out/ncu"
  profile_rc=0
  TWINBENCH_BIN="$bin/twinbench" bash "$root/scripts/gpu-profile.sh" "$out/$name.json" "$out/ncu" \
    > "$out/ncu/gpu-profile.log" 2>&1 || profile_rc=$?
  # gpu-profile.sh merges into a copy in its folder; the run's own file takes it.
  if [ -s "$out/ncu/$name.json" ]; then mv -f "$out/ncu/$name.json" "$out/$name.json"; fi
  summary=$(grep -E '^ncu merge:|^gpu-profile: total' "$out/ncu/gpu-profile.log" | tr '\n' ' ')
  echo "gpu-run: profile pass exit $profile_rc: ${summary:-$(grep -v '^$' "$out/ncu/gpu-profile.log" | tail -n 1)}"
fi
grep -E "VALIDATION FAILED" "$out/$name.log" | head -n 20
exit $status
