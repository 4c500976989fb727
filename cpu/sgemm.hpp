#pragma once
// sgemm: square float32 C = A * B, row-major. Compute-bound (2n^3 FLOPs on 12n^2 bytes), the
// classic test of how close a hand-written kernel gets to the vendor library.
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
          .flops = 2.0 * nd * nd * nd, .items = nd * nd};
}

// Tolerances are relative to the error bound sum_k |a_ik * b_kj| (the `bound` of Reference),
// not to |c_ij|, which cancellation can make arbitrarily small. Any fp32 summation of K
// products, in any order, with or without FMA, satisfies |fl(c) - c| <= gamma_K * bound with
// gamma_K = K*u/(1-K*u), u = 2^-24 (Higham, Accuracy and Stability, 3.1). K * 2^-23 = 2*K*u
// covers gamma_K with a factor ~2 to spare (and the rounding of the float64 reference, ~1e-16,
// is negligible). It stays tight enough to catch a dropped term: one missing |a*b| of ~1
// against a bound of ~K/4 (inputs uniform in [-1, 1)) is an error of ~4/K, above K * 2^-23
// for every K below ~5800, and bounds bugs show at the small and odd sizes the tests use.
inline Tolerance tolerance(std::size_t k) { return {.rel = static_cast<double>(k) * 0x1p-23}; }
// TF32 tensor cores keep 10 mantissa bits of each input (rounded or truncated: up to 2^-10
// relative each), so each product is off by up to ~2 * 2^-10 relative before the fp32
// accumulation adds its own K-dependent share. 2^-8 is that per-product bound with a factor 2
// to spare; the fp32 term is the same as above.
inline Tolerance tolerance_tf32(std::size_t k) {
  return {.rel = 0x1p-8 + static_cast<double>(k) * 0x1p-23};
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

// i-k-j loop order: the inner loop walks rows of B and C contiguously.
void serial(const float* a, const float* b, float* c, std::size_t n);
// Cache-blocked, parallel over row blocks of C, inner loop vectorised over columns.
void omp(const float* a, const float* b, float* c, std::size_t n);

}  // namespace tb::sgemm
