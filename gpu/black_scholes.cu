#include <cstdint>

#include "common/cuda_check.hpp"
#include "gpu/black_scholes.hpp"
#include "gpu/kernel_stats.cuh"

namespace tb::gpu {
namespace {

constexpr float kRsqrt2 = 0.70710678118654752f;

// The market in the forms the formula uses, computed once on the host.
struct Coefficients {
  float risk_free;
  float volatility;
  float mu;       // r + vol^2 / 2
  float inv_vol;  // 1 / vol
};

Coefficients coefficients(BlackScholesMarket m) {
  return {m.risk_free, m.volatility, m.risk_free + 0.5f * m.volatility * m.volatility,
          1.f / m.volatility};
}

// __launch_bounds__(1024): the sweep goes up to 1024 threads per block, which only launches
// if the kernel fits in 64 registers; the bound makes the compiler guarantee it.
constexpr int kMaxBlock = 1024;

// Intrinsics where their error is far inside the tolerance (see cpu/black_scholes.hpp):
// rsqrtf (2 ulp) gives 1/sqrt(T) and sqrt(T) = T/sqrt(T) without a division; __fdividef(S, X)
// (2 ulp, X in [1, 100]) feeds logf; __expf on -rT in [-0.2, 0] is within a few ulp. logf and
// erfcf stay the accurate library versions: d1 amplifies log's absolute error by
// 1/(vol sqrt(T)) (up to 6.7x) and the CDF's error lands directly on the price.
__device__ __forceinline__ void price(const Coefficients& k, float spot, float strike,
                                      float years, float& call, float& put) {
  const float rsqrt_t = rsqrtf(years);
  const float vol_sqrt_t = k.volatility * (years * rsqrt_t);
  const float d1 = (logf(__fdividef(spot, strike)) + k.mu * years) * (k.inv_vol * rsqrt_t);
  const float d2 = d1 - vol_sqrt_t;
  const float n1 = 0.5f * erfcf(-d1 * kRsqrt2);
  const float n2 = 0.5f * erfcf(-d2 * kRsqrt2);
  const float discounted = strike * __expf(-k.risk_free * years);
  call = spot * n1 - discounted * n2;
  put = discounted * (1.f - n2) - spot * (1.f - n1);
}

// Each step a thread loads 4 options from each input (16-byte, contiguous across the warp) and
// stores 4 calls and 4 puts. __ldcs/__stcs: every byte is touched once, so keep it out of the
// caches. The n % 4 leftover options go to the first threads of the grid after the loop.
__global__ void __launch_bounds__(kMaxBlock)
    black_scholes_vec4_kernel(const float4* __restrict__ spot, const float4* __restrict__ strike,
                              const float4* __restrict__ years, float4* __restrict__ call,
                              float4* __restrict__ put, std::size_t n, Coefficients k) {
  const std::size_t n4 = n / 4;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t i = tid; i < n4; i += stride) {
    const float4 s = __ldcs(spot + i);
    const float4 x = __ldcs(strike + i);
    const float4 t = __ldcs(years + i);
    float4 c, p;
    price(k, s.x, x.x, t.x, c.x, p.x);
    price(k, s.y, x.y, t.y, c.y, p.y);
    price(k, s.z, x.z, t.z, c.z, p.z);
    price(k, s.w, x.w, t.w, c.w, p.w);
    __stcs(call + i, c);
    __stcs(put + i, p);
  }
  const std::size_t tail = n4 * 4 + tid;
  if (tail < n) {
    const float* s = reinterpret_cast<const float*>(spot);
    const float* x = reinterpret_cast<const float*>(strike);
    const float* t = reinterpret_cast<const float*>(years);
    price(k, s[tail], x[tail], t[tail], reinterpret_cast<float*>(call)[tail],
          reinterpret_cast<float*>(put)[tail]);
  }
}

__global__ void __launch_bounds__(kMaxBlock)
    black_scholes_naive_kernel(const float* __restrict__ spot, const float* __restrict__ strike,
                               const float* __restrict__ years, float* __restrict__ call,
                               float* __restrict__ put, std::size_t n, Coefficients k) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) price(k, spot[i], strike[i], years[i], call[i], put[i]);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// At least one block, so that the tail (n < 4) still has a thread.
long long vec4_grid(std::size_t n, int block) {
  const auto groups = static_cast<long long>((n / 4 + block - 1) / block);
  return persistent_grid(black_scholes_vec4_kernel, block, groups > 0 ? groups : 1);
}

long long naive_grid(std::size_t n, int block) {
  return static_cast<long long>((n + block - 1) / block);
}

}  // namespace

void black_scholes_cuda(const float* spot, const float* strike, const float* years, float* call,
                        float* put, std::size_t n, BlackScholesMarket market, int block,
                        cudaStream_t stream) {
  if (n == 0) return;
  if (!aligned16(spot) || !aligned16(strike) || !aligned16(years) || !aligned16(call) ||
      !aligned16(put)) {
    black_scholes_cuda_naive(spot, strike, years, call, put, n, market, block, stream);
    return;
  }
  black_scholes_vec4_kernel<<<static_cast<unsigned>(vec4_grid(n, block)), block, 0, stream>>>(
      reinterpret_cast<const float4*>(spot), reinterpret_cast<const float4*>(strike),
      reinterpret_cast<const float4*>(years), reinterpret_cast<float4*>(call),
      reinterpret_cast<float4*>(put), n, coefficients(market));
  CUDA_CHECK_LAUNCH();
}

KernelStats black_scholes_cuda_stats(std::size_t n, int block) {
  return kernel_stats(black_scholes_vec4_kernel, block, vec4_grid(n, block));
}

void black_scholes_cuda_naive(const float* spot, const float* strike, const float* years,
                              float* call, float* put, std::size_t n,
                              BlackScholesMarket market, int block, cudaStream_t stream) {
  if (n == 0) return;
  black_scholes_naive_kernel<<<static_cast<unsigned>(naive_grid(n, block)), block, 0, stream>>>(
      spot, strike, years, call, put, n, coefficients(market));
  CUDA_CHECK_LAUNCH();
}

KernelStats black_scholes_cuda_naive_stats(std::size_t n, int block) {
  return kernel_stats(black_scholes_naive_kernel, block, naive_grid(n, block));
}

}  // namespace tb::gpu
