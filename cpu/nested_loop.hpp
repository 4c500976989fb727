#pragma once
// nested_loop: results[i] = sum over j < M of i*j*0.1, float64, for i < N (N = M). The
// articles' "compute-heavy" loop: no input, N doubles out, N*M multiply-adds, so it measures
// how fast each backend runs a long dependent chain of double adds, not memory.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::nested_loop {

constexpr std::size_t kArticleSize = 10000;  // N = M = 10000, the article's
constexpr std::size_t kQuickSize = 2000;
// The work is N^2 dependent adds and the serial reference is computed before any row is timed:
// at 1e9 adds/s (the H200 machine's Xeon) a user's --size=1000003 meant 17 minutes before the
// first sample and hours in all. Larger sizes skip with the numbers; 1e10 (N = 100000) is
// about 10 s of reference.
constexpr double kMaxInnerIterations = 1e10;
// Why n is above the cap, with the numbers ("" within it): its rows skip with it before the
// reference is computed.
inline std::string over_cap(std::size_t n) {
  const double inner = static_cast<double>(n) * static_cast<double>(n);
  if (inner <= kMaxInnerIterations) return "";
  char why[256];
  std::snprintf(why, sizeof why,
                "n = %zu is %.2g inner iterations (N^2), above the cap of %.0g (n <= %.0f): the "
                "serial reference alone would take about %.0f minutes at 1e9 iterations/s",
                n, inner, kMaxInnerIterations, std::sqrt(kMaxInnerIterations), inner / 1e9 / 60);
  return why;
}
// Sum over i < N and j < M of i*j*0.1 for N = M = 10000: 0.1 * (N(N-1)/2)^2.
constexpr double kArticleTotal = 249950002500000.0;

// Every backend adds the same M terms in the same order (i*j is exact in int64, the product
// with 0.1 is one rounding) except that nvcc contracts mul+add into an FMA, which rounds once
// less per term. The sum of M positive terms then differs by at most ~M * 2^-53 relative
// (1.1e-12 for M = 10000, 1.1e-11 for M = 100000); 1e-10 leaves room and still catches a lost
// or doubled term (a relative error of at least 1/M^2).
constexpr Tolerance kTolerance{1e-10};

// i*j*0.1 as implemented: i*j is an int64 multiply (not a FLOP), then one double multiply
// and one double add per inner iteration (an FMA on the GPU): 2 FLOP. Output: N doubles.
inline WorkModel work(std::size_t n) {
  const double inner = static_cast<double>(n) * static_cast<double>(n);
  // Compute-bound (2 N^2 FLOPs on 8 N bytes): held to the FP64 roof in the report, not to a
  // bandwidth ceiling (its 80 KB of output read as 0.2% of the write stream's).
  return {.read_bytes = 0.0,
          .written_bytes = 8.0 * n,
          .flops = 2.0 * inner,
          .items = inner,
          .held_to_ceiling = false};
}

// The article's loop for one i. Kept as a loop by every compiler here: floating-point adds are
// not associative, so without -ffast-math neither GCC nor nvcc may reorder, vectorise or turn
// the sum into the closed form 0.1 * i * M(M-1)/2. Checked: objdump -d shows a scalar
// cvtsi2sd/mulsd/addsd loop (i*j strength-reduced to an add); nvcc's PTX is the loop unrolled
// 16x, one cvt.rn.f64.s64 and one chained fma.rn.f64 per iteration.
inline double row(std::int64_t i, std::int64_t m) {
  double s = 0.0;
  for (std::int64_t j = 0; j < m; ++j) s += static_cast<double>(i * j) * 0.1;
  return s;
}

// results has n elements; m inner iterations per element.
void serial(double* results, std::size_t n, std::size_t m);
// Threads over blocks of 64 rows, each block vectorized across its rows at the host's best ISA
// level (cpu/nested_loop.cpp): every row still adds its M terms in row()'s order, so the result
// is row()'s to the FMA contraction, and the N*M work is all done (no closed form, no reordering).
void omp(double* results, std::size_t n, std::size_t m);

}  // namespace tb::nested_loop
