#pragma once
// Launchers for vector_add (host-callable, in vector_add.cu; the kernels live in
// vector_add_kernel.cuh, which gpu/progress_bench.cu instruments too).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// cub's transform shape: a tile of 3 * block elements per block, brought into shared memory by
// TMA bulk copies, 3 scalar floats per thread (gpu/vector_add_kernel.cuh says why and what it
// measured). Any n, block and alignment.
void vector_add_cuda(const float* a, const float* b, float* c, std::size_t n, int block,
                     cudaStream_t stream);
KernelStats vector_add_cuda_stats(std::size_t n, int block);

// The article's kernel: one element per thread, as many blocks as it takes.
void vector_add_cuda_article(const float* a, const float* b, float* c, std::size_t n, int block,
                             cudaStream_t stream);
KernelStats vector_add_cuda_article_stats(std::size_t n, int block);

void vector_add_thrust(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);

}  // namespace tb::gpu
