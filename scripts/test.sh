#!/usr/bin/env bash
# Every test: the C++ tests (GoogleTest; GPU tests skip without a device, saying why once), the
# CLI's behaviour on bad input, the Python reports (pytest), report.html in headless Chromium
# (tests/browser; deps.sh --tests installs Debian's chromium) and the Numba peers' runner.
#
# Time: it builds in build/, the folder scripts/run.sh builds in, so after run.sh only the tests
# compile (ccache, installed by deps.sh, also shares objects between folders). Where nvcc is
# found, build/ has the CUDA variants and a second, CPU-only, build checks that the
# TWINBENCH_WITH_CUDA=OFF code still compiles and runs (its twinbench alone: the tests are the
# same sources); without nvcc, build/ is that build and nothing more is built.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

t0=$SECONDS
step() { echo "== $* ($((SECONDS - t0)) s)" >&2; }

bash "$root/scripts/deps.sh" --tests
step "build: twinbench, twinbench_tests and twinbench_mutations in build/"
configure_and_build "$root/build" -DTWINBENCH_BUILD_TESTS=ON --target twinbench twinbench_tests \
  twinbench_mutations
cpu_bin="$root/build/twinbench"
if built_with_cuda "$root/build"; then
  step "build: the CPU-only twinbench in build-cpu/ (TWINBENCH_WITH_CUDA=OFF)"
  CPU_ONLY=1 configure_and_build "$root/build-cpu" -DTWINBENCH_BUILD_TESTS=OFF --target twinbench
  cpu_bin="$root/build-cpu/twinbench"
fi

# The test binary directly, not ctest: one process instead of one per test (ctest -j starts
# ~700, each loading the CUDA runtime and the CPU libraries), and it can say why tests skip
# (ctest prints "***Skipped" alone). --gtest_brief prints failures and each skip with its
# message; the skips (92 GPU tests on a machine without a GPU, all for one reason, printed once
# by tests/test_util.hpp) are folded into a count.
step "C++ tests (build/tests/twinbench_tests)"
set +e
"$root/build/tests/twinbench_tests" --gtest_brief=1 2>&1 | awk '
  /: Skipped$/ { skipped++; drop_message = 1; next }
  drop_message { drop_message = 0; next }
  /^\[  SKIPPED \] [A-Za-z0-9_\/.]+$/ { next }
  { print }
  END { if (skipped) print "(" skipped " skips folded: their reason is printed above; --gtest_filter shows each)" }'
cxx_status=${PIPESTATUS[0]}
set -e
if [ "$cxx_status" -ne 0 ]; then
  echo "test.sh: C++ tests failed (exit $cxx_status)" >&2
  exit "$cxx_status"
fi

# aarch64: the CPU side cross-built and its C++ tests run under qemu-aarch64 (installs its arm64
# packages; fails, never skips, when it cannot: docs/machines-cpu.md).
step "aarch64: cross-build and C++ tests under qemu (scripts/test-aarch64.sh)"
bash "$root/scripts/test-aarch64.sh"

# twinbench as another project uses it: installed to a prefix and found with find_package, and
# through FetchContent (the code blocks of docs/using-twinbench.md, run as written).
step "the example project against the installed library and with FetchContent (scripts/test-example.sh)"
bash "$root/scripts/test-example.sh"

export TWINBENCH_BIN="$root/build/twinbench" TWINBENCH_CPU_BIN="$cpu_bin"
export TWINBENCH_TESTS_BIN="$root/build/tests/twinbench_tests"
export TWINBENCH_MUTATIONS_BIN="$root/build/tests/twinbench_mutations"
# deps.sh --tests installed chromium: the browser tests fail rather than skip without it.
export TWINBENCH_REQUIRE_BROWSER=1
cd "$root"
step "Python: reports, the twinbench CLI and report.html in Chromium (pytest tests/python tests/cli tests/browser)"
"$root/.venv/bin/python" -m pytest -q tests/python tests/cli tests/browser
# A process of its own: tests/peers and tests/python each have a conftest.py.
step "Python: the Numba peers' runner (pytest tests/peers)"
"$root/.venv/bin/python" -m pytest -q tests/peers
# The Numba live-progress helper as a user gets it: its wheel and sdist built, checked by twine,
# the wheel installed by its plain command into a fresh venv outside the checkout, and its tests
# (which choose Numba's CUDA simulator before numba is imported) run against it (needs PyPI).
step "Python: kernel-progress as a user installs it (scripts/test-kernel-progress.sh)"
bash "$root/scripts/test-kernel-progress.sh"
# The Python API for a user's own Numba pairs, from its wheel in a fresh venv: the docs' example
# under the CUDA simulator, its report, a planted bug refused, tests/pyapi against the package.
step "Python: twinbench.bench as a user installs it (scripts/test-pyapi.sh)"
bash "$root/scripts/test-pyapi.sh"
# The reports as a user installs them: wheel and sdist (twine check --strict), installed into a
# fresh venv outside the checkout, a committed run rendered by its own twinbench-report.
step "Python: the reports as a user installs them (scripts/test-reports-package.sh)"
bash "$root/scripts/test-reports-package.sh"
step "all tests passed"
