#include "cpu/grayscale.hpp"

namespace tb::grayscale {

void serial(const float* rgb, float* gray, int w, int h) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t p = static_cast<std::size_t>(y) * w + x;
      gray[p] = kR * rgb[3 * p] + kG * rgb[3 * p + 1] + kB * rgb[3 * p + 2];
    }
}

void omp(const float* rgb, float* gray, int w, int h) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y)
#pragma omp simd
    for (int x = 0; x < w; ++x) {
      const std::size_t p = static_cast<std::size_t>(y) * w + x;
      gray[p] = kR * rgb[3 * p] + kG * rgb[3 * p + 1] + kB * rgb[3 * p + 2];
    }
}

}  // namespace tb::grayscale
