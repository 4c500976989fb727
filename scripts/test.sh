#!/usr/bin/env bash
# Every test: C++ (GoogleTest through ctest; GPU tests skip without a device), the CLI's
# behaviour on bad input, and the Python reports (pytest). Also builds the no-CUDA
# configuration, so that path cannot rot.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

bash "$root/scripts/deps.sh"
configure_and_build "$root/build-ci"
(cd "$root/build-ci" && ctest --output-on-failure -j"$(nproc)")

echo "== CPU-only build (TWINBENCH_WITH_CUDA=OFF)" >&2
cmake -S "$root" -B "$root/build-cpu" -DCMAKE_BUILD_TYPE=Release -DTWINBENCH_WITH_CUDA=OFF \
  -DTWINBENCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build-cpu" -j"$(nproc)" --target twinbench

export TWINBENCH_BIN="$root/build-ci/twinbench" TWINBENCH_CPU_BIN="$root/build-cpu/twinbench"
cd "$root"
"$root/.venv/bin/python" -m pytest -q tests/python tests/cli
