#include "cpu/dot.hpp"

#include <cmath>

namespace tb::dot {

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
  const auto count = static_cast<std::int64_t>(n);
  double sum = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < count; ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

}  // namespace tb::dot
