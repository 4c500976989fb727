#pragma once
// Launchers for black_scholes (host-callable; kernels live in black_scholes.cu).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// The market every option is priced in (the bench passes black_scholes::kRiskFree and
// kVolatility; the .cu cannot include the C++20 CPU header).
struct BlackScholesMarket {
  float risk_free;
  float volatility;
};

// The cuda variant's per-option math, written once as plain C++ so that the CPU tests can run it
// with each fast intrinsic replaced by the exact function perturbed by the intrinsic's documented
// worst-case error (tests/test_black_scholes.cpp). `ops` supplies log, exp, rcp (1/x), div,
// rsqrt and fma: the kernel passes __logf, __expf, __fdividef, rsqrtf and fmaf. constexpr makes
// it callable from device code (--expt-relaxed-constexpr); it holds no CUDA syntax.
//   d1 = (log(S/X) + mu T) / (vol sqrt(T)), d2 = d1 - vol sqrt(T), D = X exp(-rT).
//   N(d) from the upper tail Q(a) = phi(a) t P(t), t = 1 / (1 + 0.2316419 a), a = |d|
//   (Abramowitz & Stegun 26.2.17, absolute error < 7.5e-8).
// Two identities save work. S phi(d1) = D phi(d2) (exact for d2 = d1 - vol sqrt(T)), so one exp
// gives both tails already scaled: S Q(|d1|) = S phi(d1) t1 P(t1), D Q(|d2|) = S phi(d1) t2 P(t2).
// And t1 = A2 / (A1 A2), t2 = A1 / (A1 A2): one reciprocal for both (A = 1 + 0.2316419 |d|;
// A1 A2 < 2^126 unless |d| > 1e18, where phi is 0 anyway). Per option: 6 special-function-unit
// operations (rsqrt, 2 reciprocals, lg2, 2 ex2) where the previous form took 7 plus logf's
// ~15-instruction accurate polynomial.
// Why the intrinsics' errors are harmless: a common error e in d1 and d2 moves the price by
// (S phi(d1) - D phi(d2)) e = 0 to first order; what is left is of order D Q(|d2|) * (error of
// log) < 100 * 0.5 * 3.6e-7 = 1.8e-5 dollars. The emulation test bounds the total: worst
// relative error (against max(|price|, $1)) 8.3e-6 with exact functions and 3.2e-5 with every
// intrinsic at its documented worst case in every combination of directions, on 20000 benchmark
// options and a 26 x 34 x 20 grid over the input ranges; the tolerance is 1e-4 and the test
// demands < 5e-5 (nvcc's FMA contraction of the plain float operations differs from the CPU's
// rounding by ~1 ulp per operation, far below that margin).
template <class Ops>
constexpr void black_scholes_price_fast(const Ops& ops, float spot, float strike, float years,
                                        float risk_free, float volatility, float mu, float inv_vol,
                                        float& call, float& put) {
  constexpr float kP = 0.2316419f;
  constexpr float kInvSqrt2Pi = 0.39894228040143268f;
  const float rsqrt_t = ops.rsqrt(years);
  const float vol_sqrt_t = volatility * (years * rsqrt_t);
  const float d1 = ops.fma(mu, years, ops.log(ops.div(spot, strike))) * (inv_vol * rsqrt_t);
  const float d2 = d1 - vol_sqrt_t;
  const float discounted = strike * ops.exp(-risk_free * years);
  const float a1 = ops.fma(kP, d1 > 0.f ? d1 : -d1, 1.f);
  const float a2 = ops.fma(kP, d2 > 0.f ? d2 : -d2, 1.f);
  const float inv_a1a2 = ops.rcp(a1 * a2);
  const float t1 = a2 * inv_a1a2;
  const float t2 = a1 * inv_a1a2;
  // t P(t), Horner
  const auto tail_poly = [&ops](float t) {
    float poly = 1.330274429f;
    poly = ops.fma(poly, t, -1.821255978f);
    poly = ops.fma(poly, t, 1.781477937f);
    poly = ops.fma(poly, t, -0.356563782f);
    poly = ops.fma(poly, t, 0.319381530f);
    return poly * t;
  };
  const float spot_phi1 = spot * (kInvSqrt2Pi * ops.exp(-0.5f * d1 * d1));  // = D phi(d2)
  const float spot_q1 = spot_phi1 * tail_poly(t1);                          // S Q(|d1|)
  const float disc_q2 = spot_phi1 * tail_poly(t2);                          // D Q(|d2|)
  // S N(d1), S N(-d1), D N(d2), D N(-d2): the small one is the tail, never 1 - (close to 1).
  const float spot_n1 = d1 > 0.f ? spot - spot_q1 : spot_q1;
  const float spot_n1_neg = d1 > 0.f ? spot_q1 : spot - spot_q1;
  const float disc_n2 = d2 > 0.f ? discounted - disc_q2 : disc_q2;
  const float disc_n2_neg = d2 > 0.f ? disc_q2 : discounted - disc_q2;
  call = spot_n1 - disc_n2;
  put = disc_n2_neg - spot_n1_neg;
}

// One float4 group of options per thread (three 16-byte loads and two 16-byte stores), and
// black_scholes_price_fast above (fast intrinsics, polynomial CDF instead of erfcf, one exp and
// one reciprocal for both CDFs), so the math stays under the memory time. Falls back to one
// option per thread, scalar, for pointers not 16-byte aligned.
void black_scholes_cuda(const float* spot, const float* strike, const float* years, float* call,
                        float* put, std::size_t n, BlackScholesMarket market, int block,
                        cudaStream_t stream);
KernelStats black_scholes_cuda_stats(std::size_t n, int block);

// The same kernel with the library's erfcf for the normal CDF: the cost of the accurate CDF.
void black_scholes_cuda_erfc(const float* spot, const float* strike, const float* years,
                             float* call, float* put, std::size_t n, BlackScholesMarket market,
                             int block, cudaStream_t stream);
KernelStats black_scholes_cuda_erfc_stats(std::size_t n, int block);

// One option per thread, scalar loads, as many blocks as it takes, erfcf CDF (the textbook
// kernel).
void black_scholes_cuda_naive(const float* spot, const float* strike, const float* years,
                              float* call, float* put, std::size_t n, BlackScholesMarket market,
                              int block, cudaStream_t stream);
KernelStats black_scholes_cuda_naive_stats(std::size_t n, int block);

}  // namespace tb::gpu
