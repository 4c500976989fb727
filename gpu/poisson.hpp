#pragma once
// Launchers for poisson (host-callable; kernels in poisson.cu / poisson_kernel.cuh).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/poisson_sampler.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// Fast: inverse transform over the integer CDF table in shared memory; bit-identical to
// tb::poisson::serial.
void poisson_cuda(std::int32_t* out, std::size_t n, std::uint64_t seed,
                  const tb::poisson::CdfTable& table, int block, cudaStream_t stream);
KernelStats poisson_cuda_stats(std::size_t n, int block);

// The article's algorithm (pow and tgamma at every step of the walk), launched as the article
// launches it: one thread per generator.
void poisson_cuda_article(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate,
                          int block, cudaStream_t stream);
KernelStats poisson_cuda_article_stats(std::size_t n, int block);

// cuRAND's device API: curand_poisson on a Philox4_32_10 state per stream (subsequence t).
void poisson_curand(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate, int block,
                    cudaStream_t stream);
KernelStats poisson_curand_stats(std::size_t n, int block);

}  // namespace tb::gpu
