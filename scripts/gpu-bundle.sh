#!/usr/bin/env bash
# Builds, on this machine, a folder to carry to a GPU machine that has the NVIDIA driver but no
# Google Benchmark (the H200 machine): bundle/ holds twinbench, twinbench_tests and the shared
# libraries they need beside them (the binaries' RPATH is $ORIGIN). Run it there with
# scripts/gpu-run.sh. CUDA architecture 90 unless CUDA_ARCH says otherwise; BUNDLE_BUILD and
# BUNDLE_OUT name other folders, for builds of other GPU generations carried beside it (e.g.
# CUDA_ARCH=75-virtual BUNDLE_BUILD=build-bundle-75v BUNDLE_OUT=bundle/75v: only compute_75 PTX,
# which the H200's driver JIT-compiles, so the code Turing would run runs on real hardware).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export CUDA_ARCH=${CUDA_ARCH:-90}
build="$root/${BUNDLE_BUILD:-build-bundle}"
bash "$root/scripts/deps.sh"
# Without MPI: the GPU machine has no Open MPI to run it with (nor to load its libraries).
# BUNDLE_TESTS=0: twinbench alone (a build that only shows what a run does on a GPU it lacks).
if [ "${BUNDLE_TESTS:-1}" = 1 ]; then
  configure_and_build "$build" -DTWINBENCH_BUILD_TESTS=ON -DTWINBENCH_WITH_MPI=OFF --target twinbench twinbench_tests
  binaries=("$build/twinbench" "$build/tests/twinbench_tests")
else
  configure_and_build "$build" -DTWINBENCH_BUILD_TESTS=OFF -DTWINBENCH_WITH_MPI=OFF --target twinbench
  binaries=("$build/twinbench")
fi
out="$root/${BUNDLE_OUT:-bundle}"
mkdir -p "$out"
cp "${binaries[@]}" "$out/"
copies=()
for b in "${binaries[@]}"; do copies+=("$out/$(basename "$b")"); done
strip "${copies[@]}"
# xz-compressed (11.6 and 13.3 MB stripped become 2.5 and 2.9 MB): the working tree and the bundle
# travel to the GPU machine within 64 MiB, of which the tracked files take half. gpu-run.sh
# unpacks them there.
xz -f -T0 "${copies[@]}"
# The revision built, read by gpu-run.sh as the run's (each build carries its own).
git -C "$root" describe --always --dirty --abbrev=12 > "$out/REVISION" 2>/dev/null || true
# A build for another GPU generation, carried beside the main bundle, shares its libraries.
if [ "${BUNDLE_BINARIES_ONLY:-0}" = 1 ]; then
  du -sh "$out"/twinbench*.xz | sed 's/^/bundle: /'
  exit 0
fi
# Libraries the GPU machine may lack: Debian's Google Benchmark, and the OpenMP runtime.
for lib in libbenchmark.so.1debian libgomp.so.1; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')" "$out/"
done
# The CPU libraries (OpenBLAS's OpenMP build, oneDNN, and what they link that the GPU machine
# may lack), xz-compressed: 90 MB as they are, over the 64 MiB that travels to the GPU machine.
# gpu-run.sh unpacks them beside the binaries.
cpu_libs=(libdnnl.so.2 libOpenCL.so.1 libgfortran.so.5 libquadmath.so.0)
stage=$(mktemp -d)
for lib in "${cpu_libs[@]}"; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')" "$stage/"
done
cp -L /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0 "$stage/"
tar -C "$stage" -cJf "$out/cpu-libs.tar.xz" .
rm -rf "$stage"
du -sh "$out"/twinbench*.xz "$out"/*.so* "$out"/cpu-libs.tar.xz | sed 's/^/bundle: /'
