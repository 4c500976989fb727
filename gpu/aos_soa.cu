#include <cstdint>

#include "common/cuda_check.hpp"
#include "gpu/aos_soa.hpp"
#include "gpu/kernel_stats.cuh"

namespace tb::gpu {
namespace {

// sqrtf is IEEE-rounded here (no --use_fast_math); nvcc may fuse the adds into FMAs, which the
// tolerance allows for.
__device__ __forceinline__ float norm3(float x, float y, float z) {
  return sqrtf(x * x + y * y + z * z);
}

__global__ void aos_kernel(const float* __restrict__ xyz, float* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = norm3(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
}

__global__ void soa_kernel(const float* __restrict__ x, const float* __restrict__ y,
                           const float* __restrict__ z, float* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = norm3(x[i], y[i], z[i]);
}

// Thread q: points 4q .. 4q+3, i.e. floats 12q .. 12q+11 = float4s 3q, 3q+1, 3q+2.
__global__ void aos_vec_kernel(const float4* __restrict__ xyz4, float4* __restrict__ out4,
                               std::size_t quads) {
  const std::size_t q = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= quads) return;
  const float4 a = xyz4[3 * q];      // x0 y0 z0 x1
  const float4 b = xyz4[3 * q + 1];  // y1 z1 x2 y2
  const float4 c = xyz4[3 * q + 2];  // z2 x3 y3 z3
  out4[q] = make_float4(norm3(a.x, a.y, a.z), norm3(a.w, b.x, b.y), norm3(b.z, b.w, c.x),
                        norm3(c.y, c.z, c.w));
}

// The last n % 4 points of the vectorised kernel.
__global__ void aos_tail_kernel(const float* __restrict__ xyz, float* __restrict__ out,
                                std::size_t begin, std::size_t n) {
  const std::size_t i = begin + threadIdx.x;
  if (i < n) out[i] = norm3(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
}

long long blocks_for(std::size_t items, int block) {
  return static_cast<long long>((items + block - 1) / block);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void aos_soa_cuda_aos(const float* xyz, float* out, std::size_t n, int block, cudaStream_t stream) {
  if (n == 0) return;
  aos_kernel<<<static_cast<unsigned>(blocks_for(n, block)), block, 0, stream>>>(xyz, out, n);
  CUDA_CHECK_LAUNCH();
}

KernelStats aos_soa_cuda_aos_stats(std::size_t n, int block) {
  return kernel_stats(aos_kernel, block, blocks_for(n, block));
}

void aos_soa_cuda_soa(const float* x, const float* y, const float* z, float* out, std::size_t n,
                      int block, cudaStream_t stream) {
  if (n == 0) return;
  soa_kernel<<<static_cast<unsigned>(blocks_for(n, block)), block, 0, stream>>>(x, y, z, out, n);
  CUDA_CHECK_LAUNCH();
}

KernelStats aos_soa_cuda_soa_stats(std::size_t n, int block) {
  return kernel_stats(soa_kernel, block, blocks_for(n, block));
}

void aos_soa_cuda_aos_vec(const float* xyz, float* out, std::size_t n, int block,
                          cudaStream_t stream) {
  if (n == 0) return;
  if (!aligned16(xyz) || !aligned16(out)) {
    aos_soa_cuda_aos(xyz, out, n, block, stream);
    return;
  }
  const std::size_t quads = n / 4;
  if (quads > 0) {
    aos_vec_kernel<<<static_cast<unsigned>(blocks_for(quads, block)), block, 0, stream>>>(
        reinterpret_cast<const float4*>(xyz), reinterpret_cast<float4*>(out), quads);
    CUDA_CHECK_LAUNCH();
  }
  if (n % 4 != 0) {
    aos_tail_kernel<<<1, 32, 0, stream>>>(xyz, out, quads * 4, n);
    CUDA_CHECK_LAUNCH();
  }
}

KernelStats aos_soa_cuda_aos_vec_stats(std::size_t n, int block) {
  return kernel_stats(aos_vec_kernel, block, blocks_for(n / 4, block));
}

}  // namespace tb::gpu
