#pragma once
// vector_add: c = a + b in float32. The articles' first example; purely memory-bound
// (12 bytes moved per FLOP), so it measures bandwidth and, at small n, launch cost.
#include <cstddef>
#include <cstdint>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::vector_add {

constexpr std::uint64_t kSeed = 0x5eed0001;
// Each element is one correctly rounded float add on every backend: results must match exactly,
// the tolerance only allows for a compiler that keeps an intermediate in higher precision.
constexpr Tolerance kTolerance{1e-6};
constexpr std::size_t kArticleSize = std::size_t{1} << 20;  // 1M, the article's
constexpr std::size_t kLargeSize = std::size_t{1} << 28;    // 256M: 3 GiB moved, ~60x the L2
constexpr std::size_t kQuickSize = std::size_t{1} << 20;

inline WorkModel work(std::size_t n) {
  return {.read_bytes = 2.0 * sizeof(float) * n, .written_bytes = 1.0 * sizeof(float) * n, .flops = 1.0 * n, .items = 1.0 * n};
}

void serial(const float* a, const float* b, float* c, std::size_t n);
void omp(const float* a, const float* b, float* c, std::size_t n);

}  // namespace tb::vector_add
