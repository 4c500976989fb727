#include "cpu/atomics.hpp"

namespace tb::atomics {

std::int64_t serial(const std::int32_t* in, std::size_t n) {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += in[i];
  return sum;
}

std::int64_t omp_atomic(const std::int32_t* in, std::size_t n) {
  const auto count = static_cast<std::int64_t>(n);
  std::int64_t sum = 0;
  // Deliberately one atomic per element: the cost of a contended cache line is what this shows.
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
#pragma omp atomic
    sum += in[i];
  }
  return sum;
}

std::int64_t omp_reduction(const std::int32_t* in, std::size_t n) {
  const auto count = static_cast<std::int64_t>(n);
  std::int64_t sum = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < count; ++i) sum += in[i];
  return sum;
}

}  // namespace tb::atomics
