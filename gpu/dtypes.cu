#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

#include "common/cuda_check.hpp"
#include "gpu/dtypes.hpp"
#include "gpu/kernel_stats.cuh"

namespace tb::gpu {
namespace {

static_assert(kDtypesChains == 4, "the fma kernels below spell out four chains");

// ---- axpy ----------------------------------------------------------------------------------

__device__ __forceinline__ double axpy1(double a, double x, double y) { return fma(a, x, y); }
__device__ __forceinline__ float axpy1(float a, float x, float y) { return fmaf(a, x, y); }
__device__ __forceinline__ __half2 axpy1(__half2 a, __half2 x, __half2 y) {
  return __hfma2(a, x, y);
}
__device__ __forceinline__ __half axpy1(__half a, __half x, __half y) { return __hfma(a, x, y); }
// Saturating, not wrapping: a*x + y is at most 127*|a| + 128 in magnitude, exact in int32.
__device__ __forceinline__ std::int8_t axpy1(int a, std::int8_t x, std::int8_t y) {
  const int r = a * static_cast<int>(x) + static_cast<int>(y);
  return static_cast<std::int8_t>(max(-128, min(127, r)));
}

// One 16-byte pack of x and y per thread per step, viewed as 16 / sizeof(T) values of T.
template <class T, class S>
__global__ void axpy_vec_kernel(S a, const uint4* __restrict__ x, uint4* __restrict__ y,
                                std::size_t packs) {
  constexpr int kPer = static_cast<int>(sizeof(uint4) / sizeof(T));
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < packs;
       i += stride) {
    const uint4 xv = x[i];
    uint4 yv = y[i];
    T xs[kPer], ys[kPer];
    memcpy(xs, &xv, sizeof(xv));  // a register reinterpretation, not a copy
    memcpy(ys, &yv, sizeof(yv));
#pragma unroll
    for (int j = 0; j < kPer; ++j) ys[j] = axpy1(a, xs[j], ys[j]);
    memcpy(&yv, ys, sizeof(yv));
    y[i] = yv;
  }
}

template <class T, class S>
__global__ void axpy_scalar_kernel(S a, const T* __restrict__ x, T* __restrict__ y,
                                   std::size_t begin, std::size_t n) {
  const std::size_t i = begin + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = axpy1(a, x[i], y[i]);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <class VecT, class VecS>
long long axpy_vec_grid(std::size_t packs, int block) {
  return persistent_grid(axpy_vec_kernel<VecT, VecS>, block,
                         static_cast<long long>((packs + block - 1) / block));
}

// VecT/VecS: the types the 16-byte kernel computes in (half2 for fp16); T/S: per element.
template <class VecT, class VecS, class T, class S>
void launch_axpy(VecS va, S a, const T* x, T* y, std::size_t n, int block, cudaStream_t stream) {
  if (n == 0) return;
  constexpr std::size_t kPer = sizeof(uint4) / sizeof(T);
  const std::size_t packs = aligned16(x) && aligned16(y) ? n / kPer : 0;
  if (packs > 0) {
    const auto grid = static_cast<unsigned>(axpy_vec_grid<VecT, VecS>(packs, block));
    axpy_vec_kernel<VecT, VecS><<<grid, block, 0, stream>>>(va, reinterpret_cast<const uint4*>(x),
                                                            reinterpret_cast<uint4*>(y), packs);
    CUDA_CHECK_LAUNCH();
  }
  const std::size_t begin = packs * kPer;
  if (begin < n) {
    const auto grid = static_cast<unsigned>((n - begin + block - 1) / block);
    axpy_scalar_kernel<T, S><<<grid, block, 0, stream>>>(a, x, y, begin, n);
    CUDA_CHECK_LAUNCH();
  }
}

// ---- fma chains ----------------------------------------------------------------------------

__device__ __forceinline__ double fma_op(double v, double a, double b) { return fma(v, a, b); }
__device__ __forceinline__ float fma_op(float v, float a, float b) { return fmaf(v, a, b); }

// Four chains per thread: while one chain's FMA is in flight (~4 cycles) the others issue.
template <class T>
__global__ void fma_kernel(const T* __restrict__ x, T* __restrict__ out, std::size_t n, T a,
                           int k) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T b = x[i];
  T v0 = b, v1 = b * T(2), v2 = b * T(3), v3 = b * T(4);
#pragma unroll 8
  for (int s = 0; s < k; ++s) {
    v0 = fma_op(v0, a, b);
    v1 = fma_op(v1, a, b);
    v2 = fma_op(v2, a, b);
    v3 = fma_op(v3, a, b);
  }
  out[i] = ((v0 + v1) + v2) + v3;
}

// Eight elements per thread, as four half2 (one 16-byte load and store), each through the same
// four chains as every other element: 16 independent __hfma2 chains per thread.
//
// Why four half2 and not one: ptxas splits __hfma2 between two pipes, HFMA2 (the FMA pipe) and
// HFMA2.MMA, and with one half2 (4 chains) a thread's unrolled loop ended in runs of HFMA2.MMA
// alternating between two dependent chains, so warps stalled on that pipe; with 16 chains it
// alternates the two pipes instruction by instruction through the whole loop, as the FP16 roof
// kernel (8 chains) does. H200 (experiments/h200-2026-12-01/bandwidth, runs/run3.txt), n = 2^22,
// k = 1024: one half2 per thread 83.7 TFLOP/s, 71.4% of the measured FP16 roof of 117.2; two
// half2 86%; four half2 111.2 TFLOP/s, 94.9%, whatever the block size. ncu: warp cycles per
// issued instruction 21.5 -> 13.6, SM throughput 69% -> 89%. Each element sees the same
// operations in the same order as before (and as fma_half_kernel's lanes), so the output is bit
// for bit the one-half2 kernel's.
constexpr int kHalf2PerThread = 4;
struct alignas(16) Half2x4 {
  __half2 h[kHalf2PerThread];
};
static_assert(sizeof(Half2x4) == 16, "one 16-byte load and store per thread");

__global__ void fma_half2x4_kernel(const Half2x4* __restrict__ x, Half2x4* __restrict__ out,
                                   std::size_t groups, __half2 a, int k) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= groups) return;
  const Half2x4 b = x[g];
  const __half2 two = __float2half2_rn(2.f), three = __float2half2_rn(3.f),
                four = __float2half2_rn(4.f);
  __half2 v0[kHalf2PerThread], v1[kHalf2PerThread], v2[kHalf2PerThread], v3[kHalf2PerThread];
#pragma unroll
  for (int p = 0; p < kHalf2PerThread; ++p) {
    v0[p] = b.h[p];
    v1[p] = __hmul2(b.h[p], two);
    v2[p] = __hmul2(b.h[p], three);
    v3[p] = __hmul2(b.h[p], four);
  }
  // Unrolled 4 (x 16 chains = 64 __hfma2 a trip): 31 registers, no spills.
#pragma unroll 4
  for (int s = 0; s < k; ++s) {
#pragma unroll
    for (int p = 0; p < kHalf2PerThread; ++p) {
      v0[p] = __hfma2(v0[p], a, b.h[p]);
      v1[p] = __hfma2(v1[p], a, b.h[p]);
      v2[p] = __hfma2(v2[p], a, b.h[p]);
      v3[p] = __hfma2(v3[p], a, b.h[p]);
    }
  }
  Half2x4 r;
#pragma unroll
  for (int p = 0; p < kHalf2PerThread; ++p)
    r.h[p] = __hadd2(__hadd2(__hadd2(v0[p], v1[p]), v2[p]), v3[p]);
  out[g] = r;
}

// Scalar half chains for elements [begin, n): the n % 8 last elements, or all of them when the
// pointers are not 16-byte aligned. __hfma rounds as one lane of __hfma2 does, so these match
// fma_half2x4_kernel's results bit for bit.
__global__ void fma_half_kernel(const __half* __restrict__ x, __half* __restrict__ out,
                                std::size_t begin, std::size_t n, __half a, int k) {
  const std::size_t i = begin + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half b = x[i];
  __half v0 = b, v1 = __hmul(b, __float2half(2.f)), v2 = __hmul(b, __float2half(3.f)),
         v3 = __hmul(b, __float2half(4.f));
#pragma unroll 8
  for (int s = 0; s < k; ++s) {
    v0 = __hfma(v0, a, b);
    v1 = __hfma(v1, a, b);
    v2 = __hfma(v2, a, b);
    v3 = __hfma(v3, a, b);
  }
  out[i] = __hadd(__hadd(__hadd(v0, v1), v2), v3);
}

// One 4-byte word of int8 inputs per thread. |dp4a(v, w, c)| <= 4 * 128 * 128 + 4, so no
// chain overflows int32 however long it runs; the byte loads cost nothing next to 4k dp4a.
__global__ void fma_dp4a_kernel(const std::int8_t* __restrict__ x, std::int32_t* __restrict__ out,
                                std::size_t n, int k) {
  const std::size_t q = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= (n + 3) / 4) return;
  unsigned bits = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (4 * q + j < n)
      bits |= static_cast<unsigned>(static_cast<std::uint8_t>(x[4 * q + j])) << (8 * j);
  const int w = static_cast<int>(bits);
  int v0 = w, v1 = w ^ 0x01010101, v2 = w ^ 0x02020202, v3 = w ^ 0x03030303;
#pragma unroll 8
  for (int s = 0; s < k; ++s) {
    v0 = __dp4a(v0, w, 1);
    v1 = __dp4a(v1, w, 2);
    v2 = __dp4a(v2, w, 3);
    v3 = __dp4a(v3, w, 4);
  }
  out[q] = v0 + v1 + v2 + v3;
}

unsigned blocks_for(std::size_t items, int block) {
  return static_cast<unsigned>((items + block - 1) / block);
}

// fma fp16: elements per fma_half2x4_kernel thread, and how many such groups of 8 it does (none
// unless both pointers are 16-byte aligned).
constexpr std::size_t kFp16PerGroup = 2 * kHalf2PerThread;
std::size_t fp16_fma_groups(const void* x, const void* out, std::size_t n) {
  return aligned16(x) && aligned16(out) ? n / kFp16PerGroup : 0;
}

}  // namespace

void dtypes_axpy_cuda(double a, const double* x, double* y, std::size_t n, int block,
                      cudaStream_t stream) {
  launch_axpy<double, double>(a, a, x, y, n, block, stream);
}

void dtypes_axpy_cuda(float a, const float* x, float* y, std::size_t n, int block,
                      cudaStream_t stream) {
  launch_axpy<float, float>(a, a, x, y, n, block, stream);
}

void dtypes_axpy_cuda(float a, const std::uint16_t* x_fp16, std::uint16_t* y_fp16, std::size_t n,
                      int block, cudaStream_t stream) {
  launch_axpy<__half2, __half2>(__float2half2_rn(a), __float2half(a),
                                reinterpret_cast<const __half*>(x_fp16),
                                reinterpret_cast<__half*>(y_fp16), n, block, stream);
}

void dtypes_axpy_cuda(int a, const std::int8_t* x, std::int8_t* y, std::size_t n, int block,
                      cudaStream_t stream) {
  launch_axpy<std::int8_t, int>(a, a, x, y, n, block, stream);
}

KernelStats dtypes_axpy_cuda_stats(DtypeId dtype, std::size_t n, int block) {
  switch (dtype) {
    case DtypeId::fp64:
      return kernel_stats(axpy_vec_kernel<double, double>, block,
                          axpy_vec_grid<double, double>(n / 2, block));
    case DtypeId::fp32:
      return kernel_stats(axpy_vec_kernel<float, float>, block,
                          axpy_vec_grid<float, float>(n / 4, block));
    case DtypeId::fp16:
      return kernel_stats(axpy_vec_kernel<__half2, __half2>, block,
                          axpy_vec_grid<__half2, __half2>(n / 8, block));
    case DtypeId::int8:
      return kernel_stats(axpy_vec_kernel<std::int8_t, int>, block,
                          axpy_vec_grid<std::int8_t, int>(n / 16, block));
  }
  return {};
}

void dtypes_fma_cuda(double a, const double* x, double* out, std::size_t n, int k, int block,
                     cudaStream_t stream) {
  if (n == 0) return;
  fma_kernel<double><<<blocks_for(n, block), block, 0, stream>>>(x, out, n, a, k);
  CUDA_CHECK_LAUNCH();
}

void dtypes_fma_cuda(float a, const float* x, float* out, std::size_t n, int k, int block,
                     cudaStream_t stream) {
  if (n == 0) return;
  fma_kernel<float><<<blocks_for(n, block), block, 0, stream>>>(x, out, n, a, k);
  CUDA_CHECK_LAUNCH();
}

void dtypes_fma_cuda(float a, const std::uint16_t* x_fp16, std::uint16_t* out_fp16, std::size_t n,
                     int k, int block, cudaStream_t stream) {
  if (n == 0) return;
  const auto* x = reinterpret_cast<const __half*>(x_fp16);
  auto* out = reinterpret_cast<__half*>(out_fp16);
  const std::size_t groups = fp16_fma_groups(x, out, n);
  if (groups > 0) {
    fma_half2x4_kernel<<<blocks_for(groups, block), block, 0, stream>>>(
        reinterpret_cast<const Half2x4*>(x), reinterpret_cast<Half2x4*>(out), groups,
        __float2half2_rn(a), k);
    CUDA_CHECK_LAUNCH();
  }
  const std::size_t begin = kFp16PerGroup * groups;
  if (begin < n) {
    fma_half_kernel<<<blocks_for(n - begin, block), block, 0, stream>>>(x, out, begin, n,
                                                                        __float2half(a), k);
    CUDA_CHECK_LAUNCH();
  }
}

void dtypes_fma_cuda(int /*unused_a*/, const std::int8_t* x, std::int32_t* out, std::size_t n,
                     int k, int block, cudaStream_t stream) {
  if (n == 0) return;
  fma_dp4a_kernel<<<blocks_for((n + 3) / 4, block), block, 0, stream>>>(x, out, n, k);
  CUDA_CHECK_LAUNCH();
}

KernelStats dtypes_fma_cuda_stats(DtypeId dtype, std::size_t n, int block) {
  switch (dtype) {
    case DtypeId::fp64:
      return kernel_stats(fma_kernel<double>, block, blocks_for(n, block));
    case DtypeId::fp32:
      return kernel_stats(fma_kernel<float>, block, blocks_for(n, block));
    case DtypeId::fp16:
      return kernel_stats(fma_half2x4_kernel, block, blocks_for(n / kFp16PerGroup, block));
    case DtypeId::int8:
      return kernel_stats(fma_dp4a_kernel, block, blocks_for((n + 3) / 4, block));
  }
  return {};
}

}  // namespace tb::gpu
