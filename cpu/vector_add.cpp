#include "cpu/vector_add.hpp"

namespace tb::vector_add {

void serial(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void omp(const float* a, const float* b, float* c, std::size_t n) {
  const auto count = static_cast<std::int64_t>(n);
  // schedule(static) matches the static partition that first-touched the inputs.
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) c[i] = a[i] + b[i];
}

}  // namespace tb::vector_add
