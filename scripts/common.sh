# Shared by run.sh and test.sh: which build to make on this machine.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

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
      cuda_args=(-DTWINBENCH_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc_path")
    else
      echo "twinbench: nvcc not found: building the CPU variants only" >&2
    fi
  fi
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" "${cmake_args[@]}" >/dev/null
  cmake --build "$dir" -j"$(nproc)" ${targets[@]+--target "${targets[@]}"}
}

# Whether a build folder was configured with CUDA.
built_with_cuda() { grep -q '^TWINBENCH_WITH_CUDA:BOOL=ON' "$1/CMakeCache.txt" 2>/dev/null; }
