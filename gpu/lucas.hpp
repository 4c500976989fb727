#pragma once
// Launchers for lucas (host-callable; kernels live in lucas.cu). out has n + 1 elements.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// One thread per index i, each walking the naive recursion's whole call tree for L(i) (an
// explicit stack in registers instead of device recursion). n <= 62.
void lucas_cuda_recursive(std::int64_t* out, int n, int block, cudaStream_t stream);
KernelStats lucas_cuda_recursive_stats(int n, int block);

// One thread per index i, each iterating i - 1 additions. n <= 90.
void lucas_cuda_iterative(std::int64_t* out, int n, int block, cudaStream_t stream);
KernelStats lucas_cuda_iterative_stats(int n, int block);

}  // namespace tb::gpu
