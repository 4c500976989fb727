#include "cpu/black_scholes.hpp"

#include <cstdint>

namespace tb::black_scholes {

void serial(const float* spot, const float* strike, const float* years, double* call, double* put,
            std::size_t n) {
  constexpr double kRsqrt2 = 0.70710678118654752440;
  const double r = kRiskFree, v = kVolatility;
  for (std::size_t i = 0; i < n; ++i) {
    const double s = spot[i], x = strike[i], t = years[i];
    const double v_sqrt_t = v * std::sqrt(t);
    const double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / v_sqrt_t;
    const double d2 = d1 - v_sqrt_t;
    const double discounted = x * std::exp(-r * t);
    call[i] = s * 0.5 * std::erfc(-d1 * kRsqrt2) - discounted * 0.5 * std::erfc(-d2 * kRsqrt2);
    put[i] = discounted * 0.5 * std::erfc(d2 * kRsqrt2) - s * 0.5 * std::erfc(d1 * kRsqrt2);
  }
}

void serial_fp32(const float* spot, const float* strike, const float* years, float* call,
                 float* put, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) price_fp32(spot[i], strike[i], years[i], call[i], put[i]);
}

void omp(const float* spot, const float* strike, const float* years, float* call, float* put,
         std::size_t n) {
  const auto count = static_cast<std::int64_t>(n);
  // Equal work per option; static matches the partition that first-touched the arrays.
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i)
    price_fp32(spot[i], strike[i], years[i], call[i], put[i]);
}

}  // namespace tb::black_scholes
