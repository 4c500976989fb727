#include "cpu/dot.hpp"

#include <cmath>

namespace tb::dot {

Reference reference(const float* a, const float* b, std::size_t n) {
  Reference r;
  for (std::size_t i = 0; i < n; ++i) {
    const double p = static_cast<double>(a[i]) * b[i];
    r.value += p;
    r.abs_sum += std::fabs(p);
  }
  return r;
}

double serial(const float* a, const float* b, std::size_t n) {
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

double omp(const float* a, const float* b, std::size_t n) {
  const auto count = static_cast<std::int64_t>(n);
  double sum = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < count; ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

}  // namespace tb::dot
