#pragma once
// dot: sum of a_i * b_i over float32 inputs. Memory-bound (8 bytes read per 2 FLOP).
//
// Accumulation: every variant forms the product of two floats in float64 (exact: a float has a
// 24-bit significand, so the product fits in float64's 53 bits) and sums in float64. The only
// rounding is then in the float64 additions, bounded by n * 2^-53 * sum|a_i b_i| (3e-8 relative
// at n = 256M even in the worst order), so the result does not depend on the reduction order of
// each backend. Float64 costs nothing measurable here: the kernel moves 8 bytes per 2 FLOP.
#include <cstddef>
#include <cstdint>

#include "common/harness.hpp"
#include "common/validate.hpp"

namespace tb::dot {

constexpr std::uint64_t kSeed = 0x5eed0002;
// Error relative to sum|a_i b_i| (not to the result, which cancellation can make tiny). 1e-6 is
// 30x the float64 worst case above, yet a float32 accumulator over same-sign data (tested) or a
// lost block fails it.
constexpr Tolerance kTolerance{1e-6};
constexpr std::size_t kArticleSize = std::size_t{1} << 20;
constexpr std::size_t kLargeSize = std::size_t{1} << 28;
constexpr std::size_t kQuickSize = std::size_t{1} << 20;

inline WorkModel work(std::size_t n) {
  return {.read_bytes = 2.0 * sizeof(float) * n, .written_bytes = 0.0, .flops = 2.0 * n, .items = 1.0 * n};
}

struct Reference {
  double value = 0.0;
  double abs_sum = 0.0;  // sum |a_i b_i|: the scale the rounding error is proportional to
};

Reference reference(const float* a, const float* b, std::size_t n);
double serial(const float* a, const float* b, std::size_t n);
double omp(const float* a, const float* b, std::size_t n);

}  // namespace tb::dot
