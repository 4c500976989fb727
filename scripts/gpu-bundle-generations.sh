#!/usr/bin/env bash
# Builds, beside bundle/ (scripts/gpu-bundle.sh first), three builds for other GPU generations, to
# run on the H200 machine: compute_75 PTX only (the code a Turing GPU runs, JIT-compiled by the
# driver there, so its __CUDA_ARCH__ < 800 paths run on real hardware), compute_80 PTX only
# (Ampere's paths), and sm_80 SASS only (a build without code for the GPU: every GPU row must
# skip with the rebuild command, exit 4). Their binaries travel xz-compressed in
# bundle/generations.tar.xz (the main bundle is ~50 MB of the 64 MiB that travels);
# scripts/gpu-generations-run.sh unpacks and runs them there. Each build compiles every .cu file
# once: about 10 minutes each on a 2-core machine.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[ -d "$root/bundle" ] || { echo "gpu-bundle-generations: run scripts/gpu-bundle.sh first" >&2; exit 2; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for arch in 75-virtual 80-virtual 80-real; do
  tests=1
  [ "$arch" = 80-real ] && tests=0  # its run only shows the skip: no GPU test would run
  CUDA_ARCH=$arch BUNDLE_BUILD="build-$arch" BUNDLE_OUT="bundle/$arch" BUNDLE_BINARIES_ONLY=1 \
    BUNDLE_TESTS=$tests bash "$root/scripts/gpu-bundle.sh"
  mv "$root/bundle/$arch" "$stage/"
done
tar -C "$stage" -cJf "$root/bundle/generations.tar.xz" .
du -sh "$root/bundle/generations.tar.xz" | sed 's/^/bundle: /'
