#include "common/random.hpp"

#include <cstdint>

namespace tb {
namespace {

template <class T>
void fill_real(std::span<T> out, std::uint64_t seed, T lo, T hi) {
  const std::uint64_t base = mix64(seed);
  const T span = hi - lo;
  const T tiny = span * T(1.0 / (1 << 26));
  const std::int64_t n = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t r = mix64(base + static_cast<std::uint64_t>(i));
    const double u = static_cast<double>(r >> 11) * 0x1.0p-53;  // [0, 1)
    T v = lo + static_cast<T>(u * static_cast<double>(span));
    out[static_cast<std::size_t>(i)] = v == T(0) ? tiny : v;
  }
}

}  // namespace

void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi) {
  fill_real(out, seed, lo, hi);
}
void fill_uniform(std::span<double> out, std::uint64_t seed, double lo, double hi) {
  fill_real(out, seed, lo, hi);
}
void fill_uniform(std::span<std::int32_t> out, std::uint64_t seed, std::int32_t lo, std::int32_t hi) {
  const std::uint64_t base = mix64(seed);
  const std::uint64_t range = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo);
  const std::int64_t n = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t r = mix64(base + static_cast<std::uint64_t>(i));
    std::int32_t v = static_cast<std::int32_t>(lo + static_cast<std::int64_t>(r % range));
    out[static_cast<std::size_t>(i)] = v == 0 ? 1 : v;
  }
}

}  // namespace tb
