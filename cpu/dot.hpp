#pragma once
// dot: sum of a_i * b_i over float32 inputs. Memory-bound (8 bytes read per 2 FLOP).
//
// Accumulation: every variant forms the product of two floats in float64 (exact: a float has a
// 24-bit significand, so the product fits in float64's 53 bits) and sums in float64. Float64
// costs nothing measurable here: the kernel moves 8 bytes per 2 FLOP.
//
// Error bound (Higham, Accuracy and Stability, 4.2): a sum whose summation tree puts at most k
// additions between any product and the result satisfies |fl(s) - s| <= gamma_k * S, with
// S = sum |a_i b_i|, gamma_k = k u / (1 - k u) and u = 2^-53 (the products are exact, so only
// the additions round). The reference is a compensated sum, within 2u|s| + gamma_n^2 S of s,
// so a variant of depth k passes when |got - ref| <= (gamma_k + 4u) S (tolerance(k)). k per
// variant (`depth_*` below): the serial loop n; OpenMP n / threads per thread plus the merge;
// dot_kernel (gpu/dot.cu) ceil(n / (4 block grid)) float4 trips per thread, 4 adds inside a
// trip, 5 + 5 shuffle levels, the n % 4 tail, then one float64 atomicAdd per block in any
// order (up to grid deep): ceil(n / (4 block grid)) + grid + 16. Thrust's order is CUB's, not
// pinned here, so it gets the any-order depth n.
// At n = 256M on an H200 (block 256, grid 1056) k = 1320: tolerance 1.5e-13 S = 1e-5 absolute
// (S = 6.7e7, result -422.8), where the smallest of the 1056 block partial sums is ~0.1 and a
// typical product 0.25: a lost block or a lost product fails (tests/test_dot.cpp proves it
// for every block of the H200 grids at 256, 1024 and 64 threads). The serial depth n gives
// 3e-8 S (2.0 absolute): that is the worst case of the plain loop, and the serial variant has
// no blocks to lose.
#include <cstddef>
#include <cstdint>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::dot {

constexpr std::uint64_t kSeed = 0x5eed0002;
constexpr std::size_t kArticleSize = std::size_t{1} << 20;
constexpr std::size_t kLargeSize = std::size_t{1} << 28;
constexpr std::size_t kQuickSize = std::size_t{1} << 20;

inline WorkModel work(std::size_t n) {
  return {.read_bytes = 2.0 * sizeof(float) * n,
          .written_bytes = 0.0,
          .flops = 2.0 * n,
          .items = 1.0 * n};
}

// Error relative to sum|a_i b_i| (not to the result, which cancellation can make tiny) for a
// summation tree at most `depth` additions deep: gamma_depth + 4u (see above).
inline Tolerance tolerance(std::size_t depth) {
  constexpr double u = 0x1p-53;
  const double ku = static_cast<double>(depth) * u;
  return {.rel = ku / (1.0 - ku) + 4.0 * u};
}
inline std::size_t depth_serial(std::size_t n) { return n; }
// Each thread's contiguous chunk (its SIMD lanes are shorter chains), then the thread merge;
// 64 covers the lane reduction.
inline std::size_t depth_omp(std::size_t n, int threads) {
  const auto t = static_cast<std::size_t>(threads < 1 ? 1 : threads);
  return (n + t - 1) / t + t + 64;
}
inline std::size_t depth_cuda(std::size_t n, int block, long long grid) {
  const auto threads = static_cast<std::size_t>(block) * static_cast<std::size_t>(grid);
  return (n + 4 * threads - 1) / (4 * threads) + static_cast<std::size_t>(grid) + 16;
}

struct Reference {
  double value = 0.0;    // compensated (Neumaier) sum: within 2u|s| + gamma_n^2 S of the exact s
  double abs_sum = 0.0;  // sum |a_i b_i|: the scale the rounding error is proportional to
};

Reference reference(const float* a, const float* b, std::size_t n);
double serial(const float* a, const float* b, std::size_t n);
double omp(const float* a, const float* b, std::size_t n);

}  // namespace tb::dot
