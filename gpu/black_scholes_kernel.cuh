#pragma once
// The black_scholes vec4 kernels, as templates on a progress policy (gpu/progress.cuh):
// gpu/black_scholes.cu launches them with progress::None (the report calls compile to nothing),
// gpu/progress_bench.cu the cuda variant's (black_scholes_vec4_full_kernel<FastPrice>) with each
// counting strategy, so the overhead it measures is that of the counting on this very kernel.
#include <cuda_runtime.h>

#include <cstddef>

#include "gpu/black_scholes.hpp"
#include "gpu/progress.cuh"

namespace tb::gpu::black_scholes_detail {

constexpr float kRsqrt2 = 0.70710678118654752f;

// The market in the forms the formula uses, computed once on the host.
struct Coefficients {
  float risk_free;
  float volatility;
  float mu;       // r + vol^2 / 2
  float inv_vol;  // 1 / vol
};

inline Coefficients coefficients(BlackScholesMarket m) {
  return {m.risk_free, m.volatility, m.risk_free + 0.5f * m.volatility * m.volatility,
          1.f / m.volatility};
}

// __launch_bounds__(1024): the sweep goes up to 1024 threads per block, which only launches
// if the kernel fits in 64 registers; the bound makes the compiler guarantee it.
constexpr int kMaxBlock = 1024;

// The cuda variant: black_scholes_price_fast (gpu/black_scholes.hpp) with the fast intrinsics.
// Documented worst-case errors (CUDA Math API, intrinsics), which the CPU emulation test in
// tests/test_black_scholes.cpp applies: __logf absolute 2^-21.41 for x in [0.5, 2], else 3 ulp;
// __expf 2 + floor(|1.173 x|) ulp; __fdividef 2 ulp (divisor in [2^-126, 2^126]); rsqrtf 2 ulp.
// black_scholes_price_fast is constexpr, hence __host__ __device__ under --expt-relaxed-constexpr,
// and nvcc checks its host instantiation too: the members are __host__ __device__ and only the
// device branch is ever run (the host one just compiles).
#ifdef __CUDA_ARCH__
#define TB_BS_FAST(device_expr, host_expr) return device_expr
#else
#define TB_BS_FAST(device_expr, host_expr) return host_expr
#endif
struct FastOps {
  __host__ __device__ float log(float x) const { TB_BS_FAST(__logf(x), logf(x)); }
  __host__ __device__ float exp(float x) const { TB_BS_FAST(__expf(x), expf(x)); }
  __host__ __device__ float rcp(float x) const { TB_BS_FAST(__fdividef(1.f, x), 1.f / x); }
  __host__ __device__ float div(float x, float y) const { TB_BS_FAST(__fdividef(x, y), x / y); }
  __host__ __device__ float rsqrt(float x) const { TB_BS_FAST(rsqrtf(x), 1.f / sqrtf(x)); }
  __host__ __device__ float fma(float a, float b, float c) const {
    TB_BS_FAST(fmaf(a, b, c), fmaf(a, b, c));
  }
};
#undef TB_BS_FAST

// Tag for the vec4 kernel: price<FastPrice> is black_scholes_price_fast with FastOps.
struct FastPrice {};

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

// The cuda variant's math (gpu/black_scholes.hpp). __logf is fine there although the comment
// above keeps logf for this form: a common error in d1 and d2 cancels to first order in the
// price (S phi(d1) = D phi(d2)); the rest is bounded by the emulation test.
template <>
__device__ __forceinline__ void price<FastPrice>(const Coefficients& k, float spot, float strike,
                                                 float years, float& call, float& put) {
  black_scholes_price_fast(FastOps{}, spot, strike, years, k.risk_free, k.volatility, k.mu,
                           k.inv_vol, call, put);
}

// Each step a thread loads 4 options from each input (16-byte, contiguous across the warp) and
// stores 4 calls and 4 puts. The n % 4 leftover options go to the first threads of the grid
// after the loop. Launched with one step per thread (vec4_grid): the loop only runs longer for
// grids the caller caps. Measured on the H200 (10M options, 200 back-to-back launches of
// variants of this loop, block 256): a persistent grid (2 blocks of 1024 per SM, ~9 steps a
// thread) 52.6 us, one step a thread 50.8 us; plain loads and stores 49.95 us against 50.8 us
// with the streaming hints (__ldcs/__stcs), which this kernel used to have: 93.7% of the copy
// bandwidth, and 98.8% of a kernel with the same five streams and no arithmetic (copy_pattern,
// 50.6 us with the hints). Many short-lived blocks let the block scheduler keep every SM fed to
// the end; a fixed grid ends with a tail of threads doing their last step.
// Progress (gpu/progress.cuh): every thread reports once, at the end, the options it priced,
// counted from its index rather than in the loop (with None the count is dead code, and an
// instrumented loop carries no extra register).
template <class Cdf, class Progress>
__device__ __forceinline__ void vec4_body(const float4* __restrict__ spot,
                                          const float4* __restrict__ strike,
                                          const float4* __restrict__ years,
                                          float4* __restrict__ call, float4* __restrict__ put,
                                          std::size_t n, const Coefficients& k,
                                          Progress& progress) {
  const std::size_t n4 = n / 4;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t i = tid; i < n4; i += stride) {
    const float4 s = spot[i];
    const float4 x = strike[i];
    const float4 t = years[i];
    float4 c, p;
    price<Cdf>(k, s.x, x.x, t.x, c.x, p.x);
    price<Cdf>(k, s.y, x.y, t.y, c.y, p.y);
    price<Cdf>(k, s.z, x.z, t.z, c.z, p.z);
    price<Cdf>(k, s.w, x.w, t.w, c.w, p.w);
    call[i] = c;
    put[i] = p;
  }
  const std::size_t tail = n4 * 4 + tid;
  if (tail < n) {
    const float* s = reinterpret_cast<const float*>(spot);
    const float* x = reinterpret_cast<const float*>(strike);
    const float* t = reinterpret_cast<const float*>(years);
    price<Cdf>(k, s[tail], x[tail], t[tail], reinterpret_cast<float*>(call)[tail],
               reinterpret_cast<float*>(put)[tail]);
  }
  const std::size_t steps = tid < n4 ? (n4 - 1 - tid) / stride + 1 : 0;
  progress.done(static_cast<unsigned>(4 * steps + (tail < n ? 1 : 0)));
  progress.finish();
}

template <class Cdf, class Progress>
__global__ void __launch_bounds__(kMaxBlock)
    black_scholes_vec4_kernel(const float4* __restrict__ spot, const float4* __restrict__ strike,
                              const float4* __restrict__ years, float4* __restrict__ call,
                              float4* __restrict__ put, std::size_t n, Coefficients k,
                              Progress progress) {
  Progress p = progress;
  p.start();
  vec4_body<Cdf>(spot, strike, years, call, put, n, k, p);
}

// The cuda variant: the same loop with price<FastPrice>, and at least 2 blocks of kMaxBlock
// threads per SM, i.e. <= 32 registers and full occupancy (2048 threads per SM, no spills per
// ptxas). Without the bound ptxas interleaves the 4 options at 44 registers, which caps the SM
// at 1280 threads. (Adding the bound to black_scholes_vec4_kernel would change the erfc
// variant: with an explicit minimum of 1 block ptxas gives it 61 registers instead of 32.)
template <class Cdf, class Progress>
__global__ void __launch_bounds__(kMaxBlock, 2)
    black_scholes_vec4_full_kernel(const float4* __restrict__ spot,
                                   const float4* __restrict__ strike,
                                   const float4* __restrict__ years, float4* __restrict__ call,
                                   float4* __restrict__ put, std::size_t n, Coefficients k,
                                   Progress progress) {
  Progress p = progress;
  p.start();
  vec4_body<Cdf>(spot, strike, years, call, put, n, k, p);
}

// Blocks for the vec4 kernels: one float4 group per thread, at least one block so that the
// tail (n < 4) still has a thread.
inline long long vec4_grid(std::size_t n, int block) {
  const auto groups = static_cast<long long>((n / 4 + block - 1) / block);
  return groups > 0 ? groups : 1;
}

}  // namespace tb::gpu::black_scholes_detail
