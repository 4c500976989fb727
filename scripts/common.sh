# Shared by run.sh and test.sh: which build to make on this machine.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# ccache (CMakeLists.txt uses it where installed) hashes paths relative to the checkout, so a
# fresh clone in another folder reuses the objects an earlier build of the same sources made.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

# nvcc builds the CUDA variants even where no GPU is present; without it, CPU variants only.
find_nvcc() {
  if command -v nvcc >/dev/null 2>&1; then command -v nvcc; return; fi
  if [ -x /usr/local/cuda/bin/nvcc ]; then echo /usr/local/cuda/bin/nvcc; return; fi
  return 1
}

# Prints the reason there is no usable GPU, or nothing when there is one.
gpu_absent_reason() {
  if ! command -v nvidia-smi >/dev/null 2>&1; then echo "nvidia-smi not found (no NVIDIA driver)"; return; fi
  if ! nvidia-smi -L >/dev/null 2>&1; then echo "nvidia-smi finds no GPU"; return; fi
}

# The CUDA architectures the scripts build: CUDA_ARCH when set (any CMAKE_CUDA_ARCHITECTURES
# value: "native", "80", "75-real;90-real", ...); else the GPUs nvidia-smi sees; else Turing and
# Hopper SASS, the two ends of the kernels' __CUDA_ARCH__ guards, so that ptxas checks both sides
# of each in CI (the portable set of cmake/cuda_architectures.cmake adds sm_80 SASS and compute_90
# PTX: two more compilations of every .cu file, ~10 minutes on a 2-core machine). Always passed
# explicitly, so that a build folder configured on another machine follows this one.
cuda_architectures() {
  if [ -n "${CUDA_ARCH:-}" ]; then echo "$CUDA_ARCH"; return; fi
  local caps
  if caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null) && [ -n "$caps" ]; then
    echo "$caps" | tr -d ' .' | sort -u | sed 's/$/-real/' | paste -sd';'
    return
  fi
  echo "75-real;90-real"
}

# $1 = build dir, then extra cmake args, then optionally "--target T..." (default: all targets).
# CPU_ONLY=1 builds without CUDA even where nvcc is found.
configure_and_build() {
  local dir=$1; shift
  local cmake_args=() targets=()
  while (($#)); do
    if [ "$1" = --target ]; then shift; targets=("$@"); break; fi
    cmake_args+=("$1"); shift
  done
  local cuda_args=(-DTWINBENCH_WITH_CUDA=OFF)
  if [ "${CPU_ONLY:-0}" != 1 ]; then
    if nvcc_path=$(find_nvcc); then
      cuda_args=(-DTWINBENCH_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc_path"
                 -DCMAKE_CUDA_ARCHITECTURES="$(cuda_architectures)")
    else
      echo "twinbench: nvcc not found: building the CPU variants only" >&2
    fi
  fi
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" "${cmake_args[@]}" >/dev/null
  cmake --build "$dir" -j"$(nproc)" ${targets[@]+--target "${targets[@]}"}
}

# Whether a build folder was configured with CUDA.
built_with_cuda() { grep -q '^TWINBENCH_WITH_CUDA:BOOL=ON' "$1/CMakeCache.txt" 2>/dev/null; }
