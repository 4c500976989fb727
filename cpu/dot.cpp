#include "cpu/dot.hpp"

#include <cmath>

#include "common/cpu_isa.hpp"
#include "cpu/streaming.hpp"

namespace tb::dot {
namespace {

// kLanes independent float64 partial sums, lane j taking elements begin + j, begin + j + kLanes,
// ... Why several: one running sum is a chain of dependent adds (4 cycles each), i.e. one
// element per 4 cycles, ~5 GB/s of floats at 2.5 GHz, below one core's share of the memory
// bandwidth (~15 GB/s). 32 lanes are four AVX-512 registers of doubles (eight AVX2, sixteen
// SSE2), enough independent adds to hide the latency at every level; GCC keeps `acc` in
// registers once the inner loop is vectorized and unrolled.
// Error: lane j's chain is at most ceil((end - begin) / kLanes) + 1 adds deep, then a 5-level
// tree: within depth_omp's per-thread term (a plain loop over the slice), so tolerance(depth_omp)
// still holds; tests/test_dot.cpp checks a dropped element or lane fails it.
// Measured on a shared 2-core Xeon (not results; best of many in-cache one-thread runs): 4.1 G
// elements/s per core at avx512, 3.7 at avx2, 2.1 at the baseline (SSE2), against the target's
// memory share of ~0.8 G elements/s per core (99 GB/s read over 16 cores, 8 bytes an element).
constexpr std::size_t kLanes = 32;

[[gnu::always_inline]] inline double dot_range(const float* a, const float* b, std::size_t begin,
                                               std::size_t end) {
  double acc[kLanes] = {};
  std::size_t i = begin;
  for (; i + kLanes <= end; i += kLanes) {
#pragma omp simd
    for (std::size_t j = 0; j < kLanes; ++j)
      acc[j] += static_cast<double>(a[i + j]) * static_cast<double>(b[i + j]);
  }
  for (std::size_t j = 0; i < end; ++i, ++j) acc[j] += static_cast<double>(a[i]) * b[i];
  for (std::size_t w = kLanes / 2; w > 0; w /= 2)
    for (std::size_t j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0];
}
TB_ISA_CLONES(dot_range_isa, dot_range)

}  // namespace

// Neumaier's compensated sum: the reference must be far more accurate than the tolerance it
// anchors, or its own rounding (gamma_n S for a plain loop, 2 absolute at 256M) would hide the
// errors the tolerance is meant to see.
Reference reference(const float* a, const float* b, std::size_t n) {
  Reference r;
  double sum = 0.0, carry = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double p = static_cast<double>(a[i]) * b[i];
    const double t = sum + p;
    carry += std::fabs(sum) >= std::fabs(p) ? (sum - t) + p : (p - t) + sum;
    sum = t;
    r.abs_sum += std::fabs(p);
  }
  r.value = sum + carry;
  return r;
}

double serial(const float* a, const float* b, std::size_t n) {
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

double omp(const float* a, const float* b, std::size_t n) {
  double sum = 0.0;
  // Each thread sums the slice schedule(static) gave it when the inputs were filled (first
  // touch); the thread sums are then added in any order (depth_omp counts them).
#pragma omp parallel reduction(+ : sum)
  {
    const streaming::Range r = streaming::this_thread_range(n);
    sum += dot_range_isa(a, b, r.begin, r.end);
  }
  return sum;
}

}  // namespace tb::dot
