#pragma once
// Launchers for grayscale (host-callable; kernels live in grayscale.cu).
#include <cuda_runtime_api.h>

#include "common/workload.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// The article's index order: the row index comes from threadIdx.x, so the 32 threads of a warp
// touch 32 different rows (strided by a whole row: uncoalesced).
void grayscale_cuda_article(const float* rgb, float* gray, int w, int h, Block2 block, cudaStream_t stream);
// Column index on threadIdx.x: a warp reads 32 consecutive pixels (384 contiguous bytes).
void grayscale_cuda_coalesced(const float* rgb, float* gray, int w, int h, Block2 block, cudaStream_t stream);

// Coalesced, four pixels per thread with 16-byte loads and stores (scalar when w % 4 != 0).
void grayscale_cuda_vec4(const float* rgb, float* gray, int w, int h, Block2 block, cudaStream_t stream);

KernelStats grayscale_cuda_vec4_stats(int w, int h, Block2 block);
KernelStats grayscale_cuda_article_stats(int w, int h, Block2 block);
KernelStats grayscale_cuda_coalesced_stats(int w, int h, Block2 block);

}  // namespace tb::gpu
