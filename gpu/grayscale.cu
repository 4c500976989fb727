#include "common/cuda_check.hpp"
#include "cpu/grayscale.hpp"
#include "gpu/grayscale.hpp"
#include "gpu/kernel_stats.cuh"

namespace tb::gpu {
namespace {

__device__ float luma(const float* __restrict__ rgb, std::size_t p) {
  return grayscale::kR * rgb[3 * p] + grayscale::kG * rgb[3 * p + 1] + grayscale::kB * rgb[3 * p + 2];
}

__global__ void article_kernel(const float* __restrict__ rgb, float* __restrict__ gray, int w, int h) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < h && col < w) {
    const std::size_t p = static_cast<std::size_t>(row) * w + col;
    gray[p] = luma(rgb, p);
  }
}

__global__ void coalesced_kernel(const float* __restrict__ rgb, float* __restrict__ gray, int w, int h) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < h && col < w) {
    const std::size_t p = static_cast<std::size_t>(row) * w + col;
    gray[p] = luma(rgb, p);
  }
}

unsigned blocks_for(int extent, int per_block) { return static_cast<unsigned>((extent + per_block - 1) / per_block); }

dim3 article_grid(int w, int h, Block2 b) { return {blocks_for(h, b.x), blocks_for(w, b.y)}; }
dim3 coalesced_grid(int w, int h, Block2 b) { return {blocks_for(w, b.x), blocks_for(h, b.y)}; }

long long count(dim3 g) { return static_cast<long long>(g.x) * g.y * g.z; }

}  // namespace

void grayscale_cuda_article(const float* rgb, float* gray, int w, int h, Block2 block, cudaStream_t stream) {
  if (w <= 0 || h <= 0) return;
  article_kernel<<<article_grid(w, h, block), dim3(block.x, block.y), 0, stream>>>(rgb, gray, w, h);
  CUDA_CHECK_LAUNCH();
}

void grayscale_cuda_coalesced(const float* rgb, float* gray, int w, int h, Block2 block, cudaStream_t stream) {
  if (w <= 0 || h <= 0) return;
  coalesced_kernel<<<coalesced_grid(w, h, block), dim3(block.x, block.y), 0, stream>>>(rgb, gray, w, h);
  CUDA_CHECK_LAUNCH();
}

KernelStats grayscale_cuda_article_stats(int w, int h, Block2 block) {
  return kernel_stats(article_kernel, block.threads(), count(article_grid(w, h, block)));
}

KernelStats grayscale_cuda_coalesced_stats(int w, int h, Block2 block) {
  return kernel_stats(coalesced_kernel, block.threads(), count(coalesced_grid(w, h, block)));
}

}  // namespace tb::gpu
