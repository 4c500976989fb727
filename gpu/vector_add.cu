#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/vector_add.hpp"
#include "gpu/vector_add_kernel.cuh"

namespace tb::gpu {
namespace {

using vector_add_detail::tile_grid;
using vector_add_detail::tile_smem_bytes;

__global__ void vector_add_article_kernel(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

}  // namespace

// Unaligned pointers need no fallback: the kernel then loads instead of bulk-copying.
void vector_add_cuda(const float* a, const float* b, float* c, std::size_t n, int block,
                     cudaStream_t stream) {
  vector_add_detail::launch(a, b, c, n, block, stream, progress::None{});
}

// The bulk-copy path is compiled only into sm_90 code (vector_add_kernel.cuh); older code, or
// compute_80 PTX JIT-compiled on an sm_90 GPU, loads and stores.
KernelStats vector_add_cuda_stats(std::size_t n, int block) {
  KernelStats s = kernel_stats(vector_add_detail::tile_kernel<progress::None>, block,
                               tile_grid(n, block), tile_smem_bytes(block));
  s.path = s.code_arch >= 90 ? "tma_bulk" : "loads";
  return s;
}

void vector_add_cuda_article(const float* a, const float* b, float* c, std::size_t n, int block,
                             cudaStream_t stream) {
  if (n == 0) return;
  const auto grid = static_cast<unsigned>((n + block - 1) / block);
  vector_add_article_kernel<<<grid, block, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH();
}

KernelStats vector_add_cuda_article_stats(std::size_t n, int block) {
  return kernel_stats(vector_add_article_kernel, block, static_cast<long long>((n + block - 1) / block));
}

void vector_add_thrust(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  thrust::transform(thrust::cuda::par_nosync.on(stream), a, a + n, b, c, thrust::plus<float>());
  CUDA_CHECK_LAUNCH();
}

}  // namespace tb::gpu
