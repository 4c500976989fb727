#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>

#include <cstdint>

#include "common/cuda_check.hpp"
#include "gpu/dot.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/thrust_scratch.cuh"

namespace tb::gpu {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}

__device__ double product4(float4 x, float4 y) {
  return static_cast<double>(x.x) * y.x + static_cast<double>(x.y) * y.y +
         static_cast<double>(x.z) * y.z + static_cast<double>(x.w) * y.w;
}

// a and b are read as float4 (n4 of them); the n % 4 tail is added by the first threads of
// block 0. Requires blockDim.x to be a multiple of 32 (checked by the harness).
__global__ void dot_kernel(const float* __restrict__ a, const float* __restrict__ b, std::size_t n,
                           double* __restrict__ result) {
  const std::size_t n4 = n / 4;
  const auto* a4 = reinterpret_cast<const float4*>(a);
  const auto* b4 = reinterpret_cast<const float4*>(b);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  double sum = 0.0;
  // Two independent loads per array per trip keep more bytes in flight per thread.
  for (; i + stride < n4; i += 2 * stride) {
    const float4 x0 = __ldcs(a4 + i), y0 = __ldcs(b4 + i);
    const float4 x1 = __ldcs(a4 + i + stride), y1 = __ldcs(b4 + i + stride);
    sum += product4(x0, y0) + product4(x1, y1);
  }
  if (i < n4) sum += product4(__ldcs(a4 + i), __ldcs(b4 + i));
  if (blockIdx.x == 0 && threadIdx.x < n % 4) {
    const std::size_t t = n4 * 4 + threadIdx.x;
    sum += static_cast<double>(a[t]) * b[t];
  }

  __shared__ double warp_sums[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0;
    sum = warp_sum(sum);
    if (lane == 0) atomicAdd(result, sum);
  }
}

long long dot_grid(std::size_t n, int block) {
  return persistent_grid(dot_kernel, block, static_cast<long long>((n / 4 + block - 1) / block));
}

struct ProductToDouble {
  __host__ __device__ double operator()(float x, float y) const {
    return static_cast<double>(x) * y;
  }
};

}  // namespace

void dot_cuda(const float* a, const float* b, std::size_t n, double* result, int block,
              cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(double), stream));
  if (n == 0) return;
  // float4 loads need 16-byte alignment; cudaMalloc gives 256.
  if (reinterpret_cast<std::uintptr_t>(a) % 16 != 0 || reinterpret_cast<std::uintptr_t>(b) % 16 != 0)
    throw std::invalid_argument("dot_cuda: inputs must be 16-byte aligned");
  dot_kernel<<<static_cast<unsigned>(dot_grid(n, block)), block, 0, stream>>>(a, b, n, result);
  CUDA_CHECK_LAUNCH();
}

KernelStats dot_cuda_stats(std::size_t n, int block) {
  return kernel_stats(dot_kernel, block, dot_grid(n, block));
}

double dot_thrust(const float* a, const float* b, std::size_t n, cudaStream_t stream) {
  ThrustScratch scratch;  // no cudaMalloc/cudaFree per call inside the timed region
  const double r = thrust::inner_product(thrust::cuda::par(scratch).on(stream), a, a + n, b, 0.0,
                                         thrust::plus<double>(), ProductToDouble());
  CUDA_CHECK_LAUNCH();
  return r;
}

}  // namespace tb::gpu
