#include "cpu/aos_soa.hpp"

#include <cmath>

namespace tb::aos_soa {
namespace {

// GCC keeps sqrtf scalar unless errno is off (-fno-math-errno, which the suite does not set),
// so on the CPU both layouts run scalar square roots: the layouts differ in how the loads are
// served, and with OpenMP the large size is bound by memory bandwidth either way.
inline float norm(float x, float y, float z) { return std::sqrt(x * x + y * y + z * z); }

}  // namespace

void serial_aos(const float* xyz, float* out, std::size_t n) {
  const auto* p = reinterpret_cast<const Point*>(xyz);
  for (std::size_t i = 0; i < n; ++i) out[i] = norm(p[i].x, p[i].y, p[i].z);
}

void serial_soa(const float* x, const float* y, const float* z, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = norm(x[i], y[i], z[i]);
}

void omp_aos(const float* xyz, float* out, std::size_t n) {
  const auto* p = reinterpret_cast<const Point*>(xyz);
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = norm(p[i].x, p[i].y, p[i].z);
}

void omp_soa(const float* x, const float* y, const float* z, float* out, std::size_t n) {
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) out[i] = norm(x[i], y[i], z[i]);
}

}  // namespace tb::aos_soa
