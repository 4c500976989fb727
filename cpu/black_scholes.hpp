#pragma once
// black_scholes: European call and put prices for n options (Black-Scholes closed form), the
// classic GPU example. Structure of arrays: spot, strike, years in; call, put out (float32).
// Per option 20 bytes move and ~25 operations run, several of them transcendental, so on a
// GPU it is memory-bound only if the math is cheap enough: the test of a well-built kernel.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::black_scholes {

constexpr std::uint64_t kSeed = 0x5eed0b50;
constexpr std::size_t kDefaultSize = 10'000'000;  // 200 MB moved: over 3x the H200's 60 MiB L2
constexpr std::size_t kQuickSize = 100'000;

// Input ranges and market parameters (the ranges the classic CUDA sample draws from).
constexpr float kSpotLo = 5.f, kSpotHi = 30.f;
constexpr float kStrikeLo = 1.f, kStrikeHi = 100.f;
constexpr float kYearsLo = 0.25f, kYearsHi = 10.f;
constexpr float kRiskFree = 0.02f;
constexpr float kVolatility = 0.30f;

// float32 prices against the float64 reference (same float inputs), held to an absolute $1e-4.
// Each price is a difference of terms up to ~100 (strike), so a correct fp32 kernel's error
// scales with the strike, not with the price: float32 rounding alone is ~1e-5 absolute; log/erfc
// errors (a few ulp) move d1 by <1e-6 / (vol sqrt(T)) and the price by < 30 * 0.4 * that: ~5e-5
// absolute worst case; the GPU's polynomial normal CDF (error < 2e-7) adds < 2.6e-5. Measured:
// 1.7e-5 on the host (fp32 with erfc, 10M benchmark options), 2.27e-5 on the H200 (the cuda
// variant's fast math and polynomial CDF; 1.97e-5 cuda_erfc), results/nvidia-h200/2026-12-01;
// on the host with libmvec, at every ISA level: 2.2e-5 to 2.4e-5 omp (polynomial CDF), 1.5e-5 to
// 1.9e-5 omp_erfc (tests BlackScholesCpu.OmpAtEveryIsaLevel and BlackScholesMutation).
// A bound relative to the price (the previous 1e-4 x max(price, $1)) let a one-day error in T
// pass for 29% of single options (deep in-the-money puts, where theta / 365 ~ $0.005 is under
// 1e-4 of the price). Every price is at most $100 (call <= spot <= 30, put <= strike <= 100), so
// 1e-6 relative to a $100 floor is 1e-4 absolute for every option.
constexpr double kMaxPrice = 100.0;
constexpr Tolerance kTolerance{1e-6, kMaxPrice};
static_assert(kMaxPrice >= kStrikeHi && kMaxPrice >= kSpotHi);

// Operations per option in the implemented formula, counting each of sqrt, log, exp and erfc as
// one: d1/d2 (9), two normal CDFs (3 each), discount (3), call (3), put (5).
constexpr double kFlopPerOption = 25.0;

// Read spot, strike, years (12 B), write call and put (8 B).
inline WorkModel work(std::size_t n) {
  return {.read_bytes = 12.0 * n,
          .written_bytes = 8.0 * n,
          .flops = kFlopPerOption * n,
          .items = 1.0 * n};
}

// float32 price of one option with the library's erfcf, shared by serial_fp32 and omp_erfc.
// N(-d) as 1 - N(d) (as the classic sample does): the cancellation costs at most ~1e-7 * strike,
// within the tolerance.
[[gnu::always_inline]] inline void price_fp32(float spot, float strike, float years, float& call,
                                              float& put) {
  constexpr float kRsqrt2 = 0.70710678118654752f;
  const float sqrt_t = std::sqrt(years);
  const float d1 =
      (std::log(spot / strike) + (kRiskFree + 0.5f * kVolatility * kVolatility) * years) /
      (kVolatility * sqrt_t);
  const float d2 = d1 - kVolatility * sqrt_t;
  const float n1 = 0.5f * std::erfc(-d1 * kRsqrt2);
  const float n2 = 0.5f * std::erfc(-d2 * kRsqrt2);
  const float discounted = strike * std::exp(-kRiskFree * years);
  call = spot * n1 - discounted * n2;
  put = discounted * (1.f - n2) - spot * (1.f - n1);
}

// float32 price of one option as the omp row computes it: the algorithm of the GPU's cuda variant
// (black_scholes_price_fast, gpu/black_scholes.hpp) with correctly rounded sqrt and division and
// libmvec's logf and expf in place of the GPU's fast intrinsics. The normal CDF is the
// polynomial upper tail Q(a) = phi(a) t P(t), t = 1 / (1 + 0.2316419 a), a = |d| (Abramowitz &
// Stegun 26.2.17, absolute error < 7.5e-8), and two identities save work: S phi(d1) = D phi(d2)
// (exact for d2 = d1 - vol sqrt(T)), so one exp gives both tails already scaled, and
// t1 = A2 / (A1 A2), t2 = A1 / (A1 A2), one division for both.
// Why this CDF rather than erfcf on the CPU too: with libmvec's erfcf the option takes ~1.7x as
// long at AVX-512 (omp_erfc; measured in the comment of omp, cpu/black_scholes.cpp), enough to
// leave the memory's pace on 16 cores, and the polynomial is what the GPU's fastest row (cuda)
// runs, so the two FP32 rows compare one algorithm (omp_erfc pairs with cuda_erfc).
// Error, beside the header's bound above: the CDF's 7.5e-8 on the S and D tails (S <= 30,
// D <= 100) adds < 1e-5; libmvec's logf and expf are within 4 ulp (glibc's manual): an error in
// log(S/X) moves d1 and d2 together, which moves the price by (S phi(d1) - D phi(d2)) e = 0 to
// first order; exp(-rT) in [0.82, 1] off by 4 ulp (2.4e-7 relative) moves D N(d2) by < 2.4e-5;
// exp(-d1^2/2) off by 4 ulp moves both tails (< $15 and < $50) by < 1.6e-5. Worst case in all
// ~6e-5 of the $1e-4 bound; the tests measure it (BlackScholesCpu.OmpAtEveryIsaLevel records
// the worst error at each level).
// Branch-free (the selects become blends), so `#pragma omp simd` vectorizes it across options.
[[gnu::always_inline]] inline void price_fp32_vector(float spot, float strike, float years,
                                                     float& call, float& put) {
  constexpr float kP = 0.2316419f;
  constexpr float kInvSqrt2Pi = 0.39894228040143268f;
  constexpr float kMu = kRiskFree + 0.5f * kVolatility * kVolatility;
  const float vol_sqrt_t = kVolatility * std::sqrt(years);
  const float d1 = (std::log(spot / strike) + kMu * years) / vol_sqrt_t;
  const float d2 = d1 - vol_sqrt_t;
  const float discounted = strike * std::exp(-kRiskFree * years);
  const float a1 = 1.f + kP * std::fabs(d1);
  const float a2 = 1.f + kP * std::fabs(d2);
  const float inv_a1a2 = 1.f / (a1 * a2);
  const float t1 = a2 * inv_a1a2;
  const float t2 = a1 * inv_a1a2;
  // t P(t), Horner, the coefficients of A&S 26.2.17.
  const auto tail_poly = [](float t) {
    float poly = 1.330274429f;
    poly = poly * t - 1.821255978f;
    poly = poly * t + 1.781477937f;
    poly = poly * t - 0.356563782f;
    poly = poly * t + 0.319381530f;
    return poly * t;
  };
  // exp's argument floored at -80: past |d1| = 12.6 the tails are under 1e-33 dollars either way,
  // and the floor keeps exp's result and the products after it out of the subnormal range,
  // where each operation takes a microcode assist and libmvec's expf a scalar fallback.
  // Selects without a floating-point comparison: GCC keeps floating-point exceptions
  // (-ftrapping-math) and so will not turn a select on `x < y` into a blend for AVX2 and the
  // baseline (the loop stays scalar: measured here 25 ns per option instead of ~5); the floor
  // compares the bits of a non-negative float as an integer (same order), and the tails' selects
  // test the sign bit.
  const float half_d1_sq = 0.5f * d1 * d1;
  const auto half_d1_sq_bits = std::bit_cast<std::int32_t>(half_d1_sq);
  constexpr auto kFloorBits = std::bit_cast<std::int32_t>(80.f);
  const float exponent =
      -std::bit_cast<float>(half_d1_sq_bits < kFloorBits ? half_d1_sq_bits : kFloorBits);
  const float spot_phi1 = spot * (kInvSqrt2Pi * std::exp(exponent));  // = D phi(d2)
  const float spot_q1 = spot_phi1 * tail_poly(t1);                    // S Q(|d1|)
  const float disc_q2 = spot_phi1 * tail_poly(t2);                    // D Q(|d2|)
  // S N(d1), S N(-d1), D N(d2), D N(-d2): the small one is the tail, never 1 - (close to 1).
  // Both sides of each select are computed before it, so the select is a blend.
  const float spot_big = spot - spot_q1;
  const float disc_big = discounted - disc_q2;
  const bool d1_negative = std::signbit(d1);
  const bool d2_negative = std::signbit(d2);
  const float spot_n1 = d1_negative ? spot_q1 : spot_big;
  const float spot_n1_neg = d1_negative ? spot_big : spot_q1;
  const float disc_n2 = d2_negative ? disc_q2 : disc_big;
  const float disc_n2_neg = d2_negative ? disc_big : disc_q2;
  call = spot_n1 - disc_n2;
  put = disc_n2_neg - spot_n1_neg;
}

// The reference: float64 throughout, both tails from erfc (no cancellation).
void serial(const float* spot, const float* strike, const float* years, double* call, double* put,
            std::size_t n);
void serial_fp32(const float* spot, const float* strike, const float* years, float* call,
                 float* put, std::size_t n);
// OpenMP threads over slices of the options, each slice vectorized across options at the
// host's best ISA level: omp with price_fp32_vector (the GPU cuda variant's polynomial CDF),
// omp_erfc with price_fp32 (libmvec's erfcf, as cuda_erfc).
void omp(const float* spot, const float* strike, const float* years, float* call, float* put,
         std::size_t n);
void omp_erfc(const float* spot, const float* strike, const float* years, float* call, float* put,
              std::size_t n);

// Worst error over both outputs, relative to max(|reference|, kTolerance.scale_floor): with the
// $100 floor, the absolute error / $100.
template <class T>
ErrorStats compare_prices(const T* call, const T* put, const double* ref_call,
                          const double* ref_put, std::size_t n) {
  const ErrorStats c = compare(std::span<const T>(call, n), std::span<const double>(ref_call, n),
                               kTolerance.scale_floor);
  const ErrorStats p = compare(std::span<const T>(put, n), std::span<const double>(ref_put, n),
                               kTolerance.scale_floor);
  if (!c.finite || !c.size_matches) return c;
  if (!p.finite || !p.size_matches) return p;
  ErrorStats s = c.max_rel >= p.max_rel ? c : p;
  s.max_abs = std::fmax(c.max_abs, p.max_abs);
  return s;
}

// One output of float32 prices (call or put) against the float64 reference's: compare_prices'
// rule for one of its two outputs (the bench checks each output on its own).
inline ErrorStats compare_price(const float* got, const double* ref, std::size_t n) {
  return compare(std::span<const float>(got, n), std::span<const double>(ref, n),
                 kTolerance.scale_floor);
}

}  // namespace tb::black_scholes
