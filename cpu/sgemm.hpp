#pragma once
// sgemm: square float32 C = A * B, row-major. Compute-bound (2n^3 FLOPs on 12n^2 bytes), the
// classic test of how close a hand-written kernel gets to the vendor library.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/harness.hpp"
#include "common/host_array.hpp"
#include "common/validate.hpp"

namespace tb::sgemm {

constexpr std::uint64_t kSeed = 0x5eed0501;
constexpr std::size_t kArticleSize = 1024;  // the article's: 4 MiB per matrix, inside the L2
constexpr std::size_t kLargeSize = 4096;    // 64 MiB per matrix, 192 MiB in all (~4x the L2)
constexpr std::size_t kQuickSize = 256;
// The timed serial variant runs only up to this n: at 4096 one serial product is 137 GFLOP,
// tens of seconds on one core, and Google Benchmark runs it at least twice (validation and
// timing), past the ~60 s a single benchmark may take. The omp variant is the CPU line there.
constexpr std::size_t kSerialMaxSize = 2048;

inline WorkModel work(std::size_t n) {
  const double nd = static_cast<double>(n);
  // Minimum traffic: read A and B once, write C once. 2 FLOPs (multiply, add) per term.
  return {.read_bytes = 2.0 * sizeof(float) * nd * nd,
          .written_bytes = 1.0 * sizeof(float) * nd * nd,
          .flops = 2.0 * nd * nd * nd,
          .items = nd * nd};
}

// Tolerances are relative to the scale sum_k |a_ik * b_kj| (the `bound` of Reference), not to
// |c_ij|, which cancellation can make arbitrarily small. Every variant sums the K products of an
// element in a chain (serial, omp, naive, tiled and optimized each keep one fp32 accumulator
// per element; with or without FMA), so the depth is k = K + 1 (K additions and the rounding of
// the product). The worst-case bound gamma_k = k u / (1 - k u), u = 2^-24 (Higham, 3.1) is
// 2.4e-4 of the scale at K = 4096: 0.25 absolute, the size of a typical product, so it cannot
// see a dropped term. We use the probabilistic bound of Higham and Mary (SIAM J. Sci. Comput.
// 41(5), 2019, Thm 3.1): with rounding errors independent and of mean zero (round to nearest on
// these random-sign data), |fl(c) - c| <= (exp(lambda sqrt(k) u + k u^2 / (1 - u)) - 1) * scale
// with probability >= 1 - 2k exp(-lambda^2 (1 - u)^2 / 2) per element. lambda = 10: a false
// failure anywhere in the 4096^2 output has probability < 3e-11 (union bound). At K = 4096
// that is 3.8e-5 of the scale (0.039 absolute against ~1024): a dropped product larger than
// that fails, and 83% of the products of these inputs are (tests/test_sgemm.cpp).
inline Tolerance tolerance(std::size_t k) {
  constexpr double u = 0x1p-24, lambda = 10.0;
  const double depth = static_cast<double>(k) + 1.0;
  return {.rel = std::expm1(lambda * std::sqrt(depth) * u + depth * u * u / (1.0 - u))};
}
// TF32 tensor cores keep 10 of the 23 mantissa bits of each input, rounded or truncated; we
// assume truncation, the worse: each input a(1 + alpha) with alpha in (-2^-10, 0]. The product
// error a b (alpha + beta) is then a bias of mean -2^-11 * 2 per product, at most 2^-10 |c|
// over the element, plus a centred part with terms in +-2^-10 |a b|. Bernstein's inequality
// bounds the centred part by lambda 2^-10 sqrt(sum (ab)^2 / 2) + lambda^2 2^-10 / 3 (variance
// at most range^2 / 4 per term, |a b| <= 1) with probability >= 1 - 2 exp(-lambda^2 / 2);
// lambda = 8 (< 5e-7 for a false failure over 4096^2 elements). The inputs lie in [-1, 1), so
// sum (ab)^2 <= sum |ab| = bound. check_tf32 subtracts that input-rounding allowance from each
// element's error before dividing by the scale; what is left is the fp32 accumulation's,
// allowed twice the fp32 tolerance (tensor cores may truncate their fp32 sums too). At K = 4096
// the allowance is ~0.2 + 0.08 absolute where the worst-case bound 2^-9 * scale would be 2.0
// and the old tolerance (2^-8 + K 2^-23) 4.5: a dropped 32-wide k-tile (partial sums ~1.9 rms)
// now fails unless its sum is under ~0.3 (about 1 tile in 8 for these inputs, tested).
inline Tolerance tolerance_tf32(std::size_t k) { return {.rel = 2.0 * tolerance(k).rel}; }
// The TF32 input-rounding allowance of one element (absolute), from its exact value c and its
// scale sum |a b| (see above).
inline double tf32_input_allowance(double c, double bound) {
  constexpr double ut = 0x1p-10, lambda = 8.0;
  return ut * (std::fabs(c) + lambda * std::sqrt(bound / 2.0) + lambda * lambda / 3.0);
}

// The float64 product and the bound sum_k |a_ik * b_kj| the error is measured against.
struct Reference {
  std::size_t n = 0;
  HostArray<double> c;
  HostArray<double> bound;
};

// Float64 reference, blocked and OpenMP-parallel: the same math as the serial variant in
// higher precision, fast enough at n = 4096 (seconds, not the minutes the serial loop takes).
Reference reference(const float* a, const float* b, std::size_t n);
// max_rel is |got - c| / bound; NaN or Inf fails.
ErrorStats check(std::span<const float> got, const Reference& ref);
// For the TF32 variant: max_rel is max(0, |got - c| - tf32_input_allowance) / bound.
ErrorStats check_tf32(std::span<const float> got, const Reference& ref);

// i-k-j loop order: the inner loop walks rows of B and C contiguously.
void serial(const float* a, const float* b, float* c, std::size_t n);
// Cache-blocked, parallel over row blocks of C, inner loop vectorised over columns.
void omp(const float* a, const float* b, float* c, std::size_t n);

}  // namespace tb::sgemm
