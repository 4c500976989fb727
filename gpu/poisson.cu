#include <curand_kernel.h>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/poisson.hpp"
#include "gpu/poisson_kernel.cuh"
#include "gpu/progress.cuh"

namespace tb::gpu {
namespace {

using poisson_detail::article_grid;
using poisson_detail::article_kernel;
using poisson_detail::fast_kernel;
using poisson_detail::stream_blocks;
using progress::None;
using tb::poisson::kStreams;

// Same stream layout as the others; Philox's subsequence t gives stream t its own 2^64-long
// slice, and its initialisation is a few integer ops (unlike XORWOW's skip-ahead).
__global__ void poisson_curand_kernel(std::int32_t* __restrict__ out, std::size_t n,
                                      std::uint64_t seed, double rate) {
  const std::uint64_t streams = n < kStreams ? n : kStreams;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       t < streams; t += stride) {
    curandStatePhilox4_32_10_t state;
    curand_init(seed, t, 0, &state);
    for (std::size_t i = t; i < n; i += kStreams)
      out[i] = static_cast<std::int32_t>(curand_poisson(&state, rate));
  }
}

template <class Kernel>
unsigned grid_for(Kernel kernel, std::size_t n, int block) {
  return static_cast<unsigned>(
      persistent_grid(kernel, block, static_cast<long long>(stream_blocks(n, block))));
}

}  // namespace

void poisson_cuda(std::int32_t* out, std::size_t n, std::uint64_t seed,
                  const tb::poisson::CdfTable& table, int block, cudaStream_t stream) {
  if (n == 0) return;
  auto* kernel = fast_kernel<None>;
  kernel<<<grid_for(kernel, n, block), block, 0, stream>>>(out, n, seed, table, 1u, None{});
  CUDA_CHECK_LAUNCH();
}

KernelStats poisson_cuda_stats(std::size_t n, int block) {
  return kernel_stats(fast_kernel<None>, block, grid_for(fast_kernel<None>, n, block));
}

void poisson_cuda_article(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate,
                          int block, cudaStream_t stream) {
  if (n == 0) return;
  article_kernel<None><<<article_grid(n, block), block, 0, stream>>>(out, n, seed, rate, 1u, None{});
  CUDA_CHECK_LAUNCH();
}

KernelStats poisson_cuda_article_stats(std::size_t n, int block) {
  return kernel_stats(article_kernel<None>, block, article_grid(n, block));
}

void poisson_curand(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate, int block,
                    cudaStream_t stream) {
  if (n == 0) return;
  poisson_curand_kernel<<<grid_for(poisson_curand_kernel, n, block), block, 0, stream>>>(
      out, n, seed, rate);
  CUDA_CHECK_LAUNCH();
}

KernelStats poisson_curand_stats(std::size_t n, int block) {
  return kernel_stats(poisson_curand_kernel, block, grid_for(poisson_curand_kernel, n, block));
}

}  // namespace tb::gpu
