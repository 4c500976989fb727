#!/usr/bin/env bash
# The CPU side on aarch64, tested on this x86-64 Debian machine: a cross-build of the CPU-only
# twinbench and twinbench_tests (TWINBENCH_WITH_CUDA=OFF) with Debian's aarch64 toolchain against
# the arm64 multiarch packages, into build-aarch64/, then under qemu-aarch64 (Debian's qemu-user):
# the C++ tests, `twinbench --benchmark_list_tests` and one small real benchmark row.
# No Arm hardware is involved: this checks that the code builds and computes the right results on
# aarch64, not how fast it runs there.
#
# Installs what it needs with apt-get (as root, or through sudo): adds the arm64 architecture to
# dpkg, then g++-aarch64-linux-gnu, qemu-user and the arm64 builds of the libraries the CPU build
# links. oneDNN is left out: Debian 12's libdnnl-dev:arm64 cannot be installed beside the amd64 one
# (both ship /usr/include/oneapi/dnnl/dnnl_config.h, which differs), so its rows skip on aarch64
# with the reason, as on any machine without it.
#
# Exit status: 0 when everything passed, non-zero on any failure (a package that cannot be
# installed included: nothing here is skipped silently).
#
# Time on the 2-core machine, packages installed: the cross-build 2.5 to 3.5 min from an empty
# ccache (seconds with a warm one), the tests under qemu under a minute; each qemu step has a
# time bound. The packages take ~25 s to install.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

build="$root/build-aarch64"
t0=$SECONDS
step() { echo "== aarch64: $* ($((SECONDS - t0)) s)" >&2; }
fail() { echo "test-aarch64.sh: $*" >&2; exit 1; }

# ---- packages ----------------------------------------------------------------------------------
# nlohmann-json3-dev and googletest's sources are architecture-independent (scripts/deps.sh
# installs the first); the rest are the arm64 builds of what the CPU build links or loads.
packages=(g++-aarch64-linux-gnu qemu-user nlohmann-json3-dev
          libbenchmark-dev:arm64 libgtest-dev:arm64 libopenblas0-openmp:arm64 libgomp1:arm64)

install_packages() {
  local sudo_cmd="" missing=() p
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  local added_arch=0
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "test-aarch64.sh: adding the arm64 architecture to dpkg (multiarch)" >&2
    $sudo_cmd dpkg --add-architecture arm64 || fail "dpkg --add-architecture arm64 failed"
    added_arch=1
  fi
  for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]} == 0 && !added_arch)); then return; fi
  $sudo_cmd apt-get update -qq || fail "apt-get update failed (with arm64 added)"
  if ((${#missing[@]})); then
    echo "test-aarch64.sh: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null ||
      fail "could not install the aarch64 packages (${missing[*]}): the aarch64 tests cannot run"
  fi
}

step "packages"
install_packages
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null || fail "$tool not found after installing the packages"
done

# ---- cross-build -------------------------------------------------------------------------------
step "cross-build: twinbench and twinbench_tests in build-aarch64/"
cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchain-aarch64.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DTWINBENCH_WITH_CUDA=OFF -DTWINBENCH_BUILD_TESTS=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_dnnl=ON -DTWINBENCH_WITH_MPI=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target twinbench twinbench_tests
aarch64-linux-gnu-readelf -h "$build/twinbench" | grep 'Machine: *AArch64' >/dev/null ||
  fail "build-aarch64/twinbench is not an aarch64 binary"

# ---- tests under qemu --------------------------------------------------------------------------
# Excluded under qemu: the 38 tests of the *Mutation suites. They inject faults (dropped terms,
# wrong rates, lost blocks, swapped outputs) into copies of the kernels and check that the
# validation catches each, at full sizes and over many seeds: PoissonMutation alone draws 10M
# samples many times (minutes under qemu), and AtomicsMutation takes 25 s. What they test is the
# checkers (common/validate.hpp, the statistics), portable code that runs in scripts/test.sh's
# x86 tests; the kernels' own results on aarch64 are checked here by every other test, each
# kernel at every level.
excluded='*Mutation.*'
# Bound: the other tests take 30 to 70 s under qemu on the 2-core machine, depending on its load;
# 300 s leaves room and still stops a hang well within CI's budget.
tests_timeout=300
step "C++ tests under qemu-aarch64 (all but $excluded)"
set +e
OMP_NUM_THREADS=2 timeout "$tests_timeout" qemu-aarch64 "$build/tests/twinbench_tests" \
  --gtest_brief=1 --gtest_filter="-$excluded" 2>&1 | awk '
  /: Skipped$/ { skipped++; print; getline; print; next }
  { print }
  END { if (skipped) print "(" skipped " tests skipped under qemu-aarch64: each reason above)" }'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -eq 124 ]; then fail "the C++ tests under qemu did not finish within ${tests_timeout} s"; fi
if [ "$status" -ne 0 ]; then fail "C++ tests under qemu-aarch64 failed (exit $status)"; fi

# ---- the benchmark binary under qemu -----------------------------------------------------------
step "twinbench --benchmark_list_tests under qemu-aarch64"
list=$(timeout 60 qemu-aarch64 "$build/twinbench" --benchmark_list_tests) ||
  fail "twinbench --benchmark_list_tests failed under qemu"
rows=$(printf '%s\n' "$list" | grep -c . || true)
[ "$rows" -gt 0 ] || fail "twinbench --benchmark_list_tests listed no benchmark"
echo "$rows benchmarks listed" >&2

# One real row, validated against the serial reference (twinbench exits 1 when a validation
# fails): the OpenMP vector_add at 1M elements, without the start-up ceilings (seconds of
# bandwidth and FMA loops that an emulator makes minutes).
step "one benchmark row under qemu-aarch64 (vector_add, omp, 1M)"
out="$build/aarch64-row.json"
rm -f "$out"
timeout 120 qemu-aarch64 "$build/twinbench" --quick --no-ceilings --no-telemetry \
  --workload=vector_add --benchmark_filter='^vector_add/omp/' --benchmark_out="$out" \
  --benchmark_out_format=json ||
  fail "twinbench's vector_add row failed under qemu (exit $?)"
measured=$(grep -c '"real_time"' "$out" || true)
[ "$measured" -gt 0 ] || fail "the vector_add run under qemu wrote no measured row to $out"
grep -q '"cpu_isa_host": *"neon"' "$out" || fail "the aarch64 run's context does not say cpu_isa_host neon"
echo "$measured row(s) measured; context: $(grep -o '"cpu_isa_features": *"[^"]*"' "$out")" >&2

step "aarch64 passed"
