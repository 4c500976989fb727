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

// Upper tail Q(a) = 1 - N(a) for a >= 0 from the 5-term polynomial of Abramowitz & Stegun
// 26.2.17: Q(a) = pdf(a) * t * P(t), t = 1 / (1 + 0.2316419 a), absolute error < 7.5e-8. With
// __expf and an approximate reciprocal it is ~12 instructions against ~35 for erfcf, which keeps
// the kernel under the memory time. Its error moves a price by < (S + X) * 2e-7 = 2.6e-5 worst
// case (measured on the benchmark's inputs, emulated in float on the CPU: 1e-5 relative).
__device__ __forceinline__ float upper_tail(float a) {
  constexpr float kP = 0.2316419f;
  constexpr float kInvSqrt2Pi = 0.39894228040143268f;
  const float t = __fdividef(1.f, fmaf(kP, a, 1.f));
  float poly = 1.330274429f;
  poly = fmaf(poly, t, -1.821255978f);
  poly = fmaf(poly, t, 1.781477937f);
  poly = fmaf(poly, t, -0.356563782f);
  poly = fmaf(poly, t, 0.319381530f);
  return kInvSqrt2Pi * __expf(-0.5f * a * a) * (poly * t);
}

// N(d) and N(-d) from one tail: neither is computed as 1 minus a number close to 1.
struct PolyCdf {
  __device__ __forceinline__ static void eval(float d, float& cdf, float& cdf_neg) {
    const float q = upper_tail(fabsf(d));
    cdf = d > 0.f ? 1.f - q : q;
    cdf_neg = d > 0.f ? q : 1.f - q;
  }
};

// The library's erfcf (4 ulp), N(-d) as 1 - N(d) like the CPU's fp32 variants.
struct ErfcCdf {
  __device__ __forceinline__ static void eval(float d, float& cdf, float& cdf_neg) {
    cdf = 0.5f * erfcf(-d * kRsqrt2);
    cdf_neg = 1.f - cdf;
  }
};

// Intrinsics where their error is far inside the tolerance (see cpu/black_scholes.hpp):
// rsqrtf (2 ulp) gives 1/sqrt(T) and sqrt(T) = T/sqrt(T) without a division; __fdividef(S, X)
// (2 ulp, X in [1, 100]) feeds logf; __expf on -rT in [-0.2, 0] is within a few ulp. logf stays
// the accurate library version: d1 amplifies log's absolute error by 1/(vol sqrt(T)) (up to
// 6.7x), and __logf's 2^-21 absolute error near 1 would eat a third of the tolerance.
template <class Cdf>
__device__ __forceinline__ void price(const Coefficients& k, float spot, float strike, float years,
                                      float& call, float& put) {
  const float rsqrt_t = rsqrtf(years);
  const float vol_sqrt_t = k.volatility * (years * rsqrt_t);
  const float d1 = (logf(__fdividef(spot, strike)) + k.mu * years) * (k.inv_vol * rsqrt_t);
  const float d2 = d1 - vol_sqrt_t;
  float n1, n1_neg, n2, n2_neg;
  Cdf::eval(d1, n1, n1_neg);
  Cdf::eval(d2, n2, n2_neg);
  const float discounted = strike * __expf(-k.risk_free * years);
  call = spot * n1 - discounted * n2;
  put = discounted * n2_neg - spot * n1_neg;
}

// Each step a thread loads 4 options from each input (16-byte, contiguous across the warp) and
// stores 4 calls and 4 puts. __ldcs/__stcs: every byte is touched once, so keep it out of the
// caches. The n % 4 leftover options go to the first threads of the grid after the loop.
template <class Cdf>
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
    price<Cdf>(k, s.x, x.x, t.x, c.x, p.x);
    price<Cdf>(k, s.y, x.y, t.y, c.y, p.y);
    price<Cdf>(k, s.z, x.z, t.z, c.z, p.z);
    price<Cdf>(k, s.w, x.w, t.w, c.w, p.w);
    __stcs(call + i, c);
    __stcs(put + i, p);
  }
  const std::size_t tail = n4 * 4 + tid;
  if (tail < n) {
    const float* s = reinterpret_cast<const float*>(spot);
    const float* x = reinterpret_cast<const float*>(strike);
    const float* t = reinterpret_cast<const float*>(years);
    price<Cdf>(k, s[tail], x[tail], t[tail], reinterpret_cast<float*>(call)[tail],
               reinterpret_cast<float*>(put)[tail]);
  }
}

template <class Cdf>
__global__ void __launch_bounds__(kMaxBlock)
    black_scholes_naive_kernel(const float* __restrict__ spot, const float* __restrict__ strike,
                               const float* __restrict__ years, float* __restrict__ call,
                               float* __restrict__ put, std::size_t n, Coefficients k) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) price<Cdf>(k, spot[i], strike[i], years[i], call[i], put[i]);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// At least one block, so that the tail (n < 4) still has a thread.
template <class Cdf>
long long vec4_grid(std::size_t n, int block) {
  const auto groups = static_cast<long long>((n / 4 + block - 1) / block);
  return persistent_grid(black_scholes_vec4_kernel<Cdf>, block, groups > 0 ? groups : 1);
}

long long naive_grid(std::size_t n, int block) {
  return static_cast<long long>((n + block - 1) / block);
}

template <class Cdf>
void launch_naive(const float* spot, const float* strike, const float* years, float* call,
                  float* put, std::size_t n, BlackScholesMarket market, int block,
                  cudaStream_t stream) {
  if (n == 0) return;
  black_scholes_naive_kernel<Cdf>
      <<<static_cast<unsigned>(naive_grid(n, block)), block, 0, stream>>>(
          spot, strike, years, call, put, n, coefficients(market));
  CUDA_CHECK_LAUNCH();
}

// Unaligned pointers (a sub-range of a buffer) cannot take float4 loads: same math, scalar.
template <class Cdf>
void launch_vec4(const float* spot, const float* strike, const float* years, float* call,
                 float* put, std::size_t n, BlackScholesMarket market, int block,
                 cudaStream_t stream) {
  if (n == 0) return;
  if (!aligned16(spot) || !aligned16(strike) || !aligned16(years) || !aligned16(call) ||
      !aligned16(put)) {
    launch_naive<Cdf>(spot, strike, years, call, put, n, market, block, stream);
    return;
  }
  black_scholes_vec4_kernel<Cdf>
      <<<static_cast<unsigned>(vec4_grid<Cdf>(n, block)), block, 0, stream>>>(
          reinterpret_cast<const float4*>(spot), reinterpret_cast<const float4*>(strike),
          reinterpret_cast<const float4*>(years), reinterpret_cast<float4*>(call),
          reinterpret_cast<float4*>(put), n, coefficients(market));
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void black_scholes_cuda(const float* spot, const float* strike, const float* years, float* call,
                        float* put, std::size_t n, BlackScholesMarket market, int block,
                        cudaStream_t stream) {
  launch_vec4<PolyCdf>(spot, strike, years, call, put, n, market, block, stream);
}

KernelStats black_scholes_cuda_stats(std::size_t n, int block) {
  return kernel_stats(black_scholes_vec4_kernel<PolyCdf>, block, vec4_grid<PolyCdf>(n, block));
}

void black_scholes_cuda_erfc(const float* spot, const float* strike, const float* years,
                             float* call, float* put, std::size_t n, BlackScholesMarket market,
                             int block, cudaStream_t stream) {
  launch_vec4<ErfcCdf>(spot, strike, years, call, put, n, market, block, stream);
}

KernelStats black_scholes_cuda_erfc_stats(std::size_t n, int block) {
  return kernel_stats(black_scholes_vec4_kernel<ErfcCdf>, block, vec4_grid<ErfcCdf>(n, block));
}

void black_scholes_cuda_naive(const float* spot, const float* strike, const float* years,
                              float* call, float* put, std::size_t n, BlackScholesMarket market,
                              int block, cudaStream_t stream) {
  launch_naive<ErfcCdf>(spot, strike, years, call, put, n, market, block, stream);
}

KernelStats black_scholes_cuda_naive_stats(std::size_t n, int block) {
  return kernel_stats(black_scholes_naive_kernel<ErfcCdf>, block, naive_grid(n, block));
}

}  // namespace tb::gpu
