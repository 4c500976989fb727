#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/nested_loop.hpp"

namespace tb::gpu {
namespace {

constexpr int kWarp = 32;

// Same expression and order as the CPU's nested_loop::row. nvcc contracts the multiply by 0.1
// and the add into one DFMA; the int64 product converted to double (I2F.F64) keeps the loop a
// loop: floating-point adds cannot be reassociated into the closed form without fast math.
__device__ double row(std::int64_t i, std::int64_t begin, std::int64_t end, std::int64_t step) {
  double s = 0.0;
  for (std::int64_t j = begin; j < end; j += step) s += static_cast<double>(i * j) * 0.1;
  return s;
}

__global__ void nested_loop_kernel(double* __restrict__ results, std::int64_t n, std::int64_t m) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) results[i] = row(i, 0, m, 1);
}

// Lane l sums j = l, l+32, ...; the lanes' partial sums then meet in a shuffle tree. The whole
// warp takes the same branch (i is uniform across it), so the full mask is valid.
__global__ void nested_loop_warp_kernel(double* __restrict__ results, std::int64_t n,
                                        std::int64_t m) {
  const std::int64_t i = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  if (i >= n) return;
  double s = row(i, lane, m, kWarp);
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    s += __shfl_down_sync(0xffffffffu, s, offset);
  if (lane == 0) results[i] = s;
}

long long blocks_for(std::size_t threads, int block) {
  return static_cast<long long>((threads + static_cast<std::size_t>(block) - 1) / block);
}

}  // namespace

void nested_loop_cuda(double* results, std::size_t n, std::size_t m, int block,
                      cudaStream_t stream) {
  if (n == 0) return;
  nested_loop_kernel<<<static_cast<unsigned>(blocks_for(n, block)), block, 0, stream>>>(
      results, static_cast<std::int64_t>(n), static_cast<std::int64_t>(m));
  CUDA_CHECK_LAUNCH();
}

KernelStats nested_loop_cuda_stats(std::size_t n, int block) {
  return kernel_stats(nested_loop_kernel, block, blocks_for(n, block));
}

void nested_loop_cuda_warp(double* results, std::size_t n, std::size_t m, int block,
                           cudaStream_t stream) {
  // Whole warps, one i each: a partial warp would run the shuffles with absent lanes.
  if (block <= 0 || block % kWarp != 0)
    throw std::invalid_argument("nested_loop_cuda_warp: block " + std::to_string(block) +
                                " is not a multiple of 32");
  if (n == 0) return;
  nested_loop_warp_kernel<<<static_cast<unsigned>(blocks_for(n * kWarp, block)), block, 0,
                            stream>>>(results, static_cast<std::int64_t>(n),
                                      static_cast<std::int64_t>(m));
  CUDA_CHECK_LAUNCH();
}

KernelStats nested_loop_cuda_warp_stats(std::size_t n, int block) {
  return kernel_stats(nested_loop_warp_kernel, block, blocks_for(n * kWarp, block));
}

}  // namespace tb::gpu
