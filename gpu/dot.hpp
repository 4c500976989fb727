#pragma once
// Launchers for dot (host-callable; kernels live in dot.cu). The result is a float64 in device
// memory; the launcher zeroes it first, on the same stream.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// Grid-stride float4 loads, float64 products and sums, warp-shuffle then shared-memory
// reduction, one float64 atomicAdd per block.
void dot_cuda(const float* a, const float* b, std::size_t n, double* result, int block,
              cudaStream_t stream);
KernelStats dot_cuda_stats(std::size_t n, int block);

// thrust::inner_product with the same arithmetic (float64 products and sums). Synchronises the
// stream: it returns the value to the host.
double dot_thrust(const float* a, const float* b, std::size_t n, cudaStream_t stream);

}  // namespace tb::gpu
