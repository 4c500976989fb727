#include "cpu/nested_loop.hpp"

namespace tb::nested_loop {

void serial(double* results, std::size_t n, std::size_t m) {
  const auto rows = static_cast<std::int64_t>(n);
  const auto cols = static_cast<std::int64_t>(m);
  for (std::int64_t i = 0; i < rows; ++i) results[i] = row(i, cols);
}

void omp(double* results, std::size_t n, std::size_t m) {
  const auto rows = static_cast<std::int64_t>(n);
  const auto cols = static_cast<std::int64_t>(m);
  // Every row costs the same M iterations, so a static partition balances.
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) results[i] = row(i, cols);
}

}  // namespace tb::nested_loop
