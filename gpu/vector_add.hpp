#pragma once
// Launchers for vector_add (host-callable; kernels live in vector_add.cu).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// 16-byte vector loads, four float4 per thread; scalar tail for n % 4.
void vector_add_cuda(const float* a, const float* b, float* c, std::size_t n, int block,
                     cudaStream_t stream);
KernelStats vector_add_cuda_stats(std::size_t n, int block);

// The article's kernel: one element per thread, as many blocks as it takes.
void vector_add_cuda_article(const float* a, const float* b, float* c, std::size_t n, int block,
                             cudaStream_t stream);
KernelStats vector_add_cuda_article_stats(std::size_t n, int block);

void vector_add_thrust(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);

}  // namespace tb::gpu
