#!/usr/bin/env bash
# Every test: C++ (GoogleTest through ctest; GPU tests skip without a device), the CLI's
# behaviour on bad input, the Python reports (pytest), and report.html in headless Chromium
# (tests/browser; deps.sh --tests installs Debian's chromium). Also builds the no-CUDA
# configuration, so that path cannot rot.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bash "$root/scripts/deps.sh" --tests
configure_and_build "$root/build-ci"
(cd "$root/build-ci" && ctest --output-on-failure -j"$(nproc)")

echo "== CPU-only build (TWINBENCH_WITH_CUDA=OFF)" >&2
cmake -S "$root" -B "$root/build-cpu" -DCMAKE_BUILD_TYPE=Release -DTWINBENCH_WITH_CUDA=OFF \
  -DTWINBENCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build-cpu" -j"$(nproc)" --target twinbench

export TWINBENCH_BIN="$root/build-ci/twinbench" TWINBENCH_CPU_BIN="$root/build-cpu/twinbench"
# deps.sh --tests installed chromium: the browser tests fail rather than skip without it.
export TWINBENCH_REQUIRE_BROWSER=1
cd "$root"
"$root/.venv/bin/python" -m pytest -q tests/python tests/cli tests/browser
# A process of its own: tests/peers and tests/python each have a conftest.py.
"$root/.venv/bin/python" -m pytest -q tests/peers
