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

// Four pixels per thread along a row: three 16-byte loads bring in 12 channels (4 RGB pixels)
// and one 16-byte store writes 4 grays, so every access is a full-width contiguous transaction.
// Needs w % 4 == 0 (then every row starts 16-byte aligned); other widths take the scalar path.
__global__ void vec4_kernel(const float* __restrict__ rgb, float* __restrict__ gray, int w, int h) {
  const int col = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= h || col >= w) return;
  const std::size_t p = static_cast<std::size_t>(row) * w + col;
  if (w % 4 == 0) {
    const auto* in = reinterpret_cast<const float4*>(rgb + 3 * p);
    const float4 v0 = __ldcs(in), v1 = __ldcs(in + 1), v2 = __ldcs(in + 2);
    using grayscale::kR, grayscale::kG, grayscale::kB;
    __stcs(reinterpret_cast<float4*>(gray + p),
           make_float4(kR * v0.x + kG * v0.y + kB * v0.z, kR * v0.w + kG * v1.x + kB * v1.y,
                       kR * v1.z + kG * v1.w + kB * v2.x, kR * v2.y + kG * v2.z + kB * v2.w));
  } else {
    for (int k = 0; k < 4 && col + k < w; ++k) gray[p + k] = luma(rgb, p + k);
  }
}

unsigned blocks_for(int extent, int per_block) { return static_cast<unsigned>((extent + per_block - 1) / per_block); }

dim3 article_grid(int w, int h, Block2 b) { return {blocks_for(h, b.x), blocks_for(w, b.y)}; }
dim3 coalesced_grid(int w, int h, Block2 b) { return {blocks_for(w, b.x), blocks_for(h, b.y)}; }
dim3 vec4_grid(int w, int h, Block2 b) { return {blocks_for((w + 3) / 4, b.x), blocks_for(h, b.y)}; }

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

void grayscale_cuda_vec4(const float* rgb, float* gray, int w, int h, Block2 block, cudaStream_t stream) {
  if (w <= 0 || h <= 0) return;
  vec4_kernel<<<vec4_grid(w, h, block), dim3(block.x, block.y), 0, stream>>>(rgb, gray, w, h);
  CUDA_CHECK_LAUNCH();
}

KernelStats grayscale_cuda_vec4_stats(int w, int h, Block2 block) {
  return kernel_stats(vec4_kernel, block.threads(), count(vec4_grid(w, h, block)));
}

KernelStats grayscale_cuda_article_stats(int w, int h, Block2 block) {
  return kernel_stats(article_kernel, block.threads(), count(article_grid(w, h, block)));
}

KernelStats grayscale_cuda_coalesced_stats(int w, int h, Block2 block) {
  return kernel_stats(coalesced_kernel, block.threads(), count(coalesced_grid(w, h, block)));
}

}  // namespace tb::gpu
