#!/usr/bin/env bash
# The example project (examples/histogram) as another project uses twinbench, by running the
# code blocks of docs/using-twinbench.md as written: against the prefix that `cmake --install
# build` fills (the example configured on its own with CMAKE_PREFIX_PATH), and through
# FetchContent (the CPU side: the library's kernels would be a third CUDA build of them here).
# Then each results file must hold the example's rows alone and name the example project.
# Needs build/ configured and built (scripts/test.sh does that first).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What the blocks leave to the environment: where to install and build, and, where build/ has
# CUDA, the same nvcc and architectures (CMake reads CUDACXX and CUDAARCHS); ccache as the
# launcher where installed (CMake reads CMAKE_<LANG>_COMPILER_LAUNCHER).
export PREFIX="$work/prefix" WORK="$work"
if built_with_cuda "$root/build"; then
  CUDACXX=$(find_nvcc)
  CUDAARCHS=$(cuda_architectures)
  export CUDACXX CUDAARCHS
fi
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
fi

# The page's ```sh blocks, in order, each run as a script of its own.
"$root/.venv/bin/python" - "$root/docs/using-twinbench.md" "$work" <<'PY'
import re, sys, pathlib
text = pathlib.Path(sys.argv[1]).read_text()
blocks = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
assert len(blocks) == 2, f"expected the installed and the FetchContent blocks, found {len(blocks)}"
for i, block in enumerate(blocks):
    pathlib.Path(sys.argv[2], f"block{i}.sh").write_text(block)
PY
for block in "$work"/block*.sh; do
  echo "test-example: docs/using-twinbench.md, block $(basename "$block")" >&2
  bash -euo pipefail "$block" >"$block.log" 2>&1 || { cat "$block.log" >&2; exit 1; }
done
test ! -e "$work/fetched/_deps/twinbench-build/twinbench"  # a subproject builds no suite

for results in "$work/histogram.json" "$work/fetched.json"; do
  "$root/.venv/bin/python" - "$results" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
ctx, rows = run["context"], run["benchmarks"]
assert ctx.get("project") == "histogram_bench", ctx.get("project")
assert ctx.get("project_revision") and ctx.get("twinbench_version"), ctx
workloads = {r["name"].split("/")[0] for r in rows}
assert workloads == {"histogram"}, workloads
measured = [r for r in rows if not r.get("error_occurred")]
assert any(r["name"].startswith("histogram/serial/") for r in measured), [r["name"] for r in rows]
print(f"test-example: {sys.argv[1]}: {len(rows)} rows, {len(measured)} measured, project "
      f"{ctx['project']} {ctx['project_revision']}, twinbench {ctx['twinbench_version']}")
PY
done
test -s "$work/histogram-report/report.md"
# Its report's subject is the project; twinbench is named as the harness.
head -n 3 "$work/histogram-report/report.md" | grep -q "^# histogram_bench report"
grep -q "^Subject: histogram_bench 1.0.0, revision .*Harness: twinbench" "$work/histogram-report/report.md"

# The other examples of docs/adding-a-workload.md (a 2D image with 2D blocks, a scalar output),
# built against the same prefix and run CPU-only: every CPU row validated, the GPU rows marked as
# skips where there is no GPU, each row with its axes as fields.
for example in blur sum_squares; do
  echo "test-example: examples/$example against the installed prefix" >&2
  cmake -S "examples/$example" -B "$work/$example" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$PREFIX" >"$work/$example.log" 2>&1 &&
    cmake --build "$work/$example" -j2 >>"$work/$example.log" 2>&1 ||
    { cat "$work/$example.log" >&2; exit 1; }
  # Its --help names its program and its own workloads' axes, nothing of the suite's.
  help=$("$work/$example/${example}_bench" --help)
  grep -q "^usage: ${example}_bench " <<<"$help"
  grep -Eq "^  $example +[a-z]" <<<"$help"
  ! grep -Eq "Lucas|conv2d|progress-demo|vector_add" <<<"$help"
  "$work/$example/${example}_bench" --quick --no-ceilings --benchmark_out="$work/$example.json" \
    >>"$work/$example.log" 2>&1 || { cat "$work/$example.log" >&2; exit 1; }
  "$root/.venv/bin/python" - "$work/$example.json" "$example" <<'PY'
import json, sys
run, example = json.load(open(sys.argv[1])), sys.argv[2]
rows = run["benchmarks"]
assert run["context"].get("project") == f"{example}_bench", run["context"].get("project")
cpu = [r for r in rows if r.get("side") == "cpu"]
assert cpu and all(not r.get("error_occurred") for r in cpu), [r["name"] for r in cpu]
assert all(r.get("axes") for r in rows), [r["name"] for r in rows if not r.get("axes")]
gpu = [r for r in rows if r.get("side") == "gpu"]
assert all(r.get("skipped") for r in gpu), [r["name"] for r in gpu if not r.get("skipped")]
print(f"test-example: {example}: {len(rows)} rows, {len(cpu)} CPU rows validated and timed")
PY
done
echo "test-example: passed" >&2
