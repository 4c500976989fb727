#include "blur.hpp"

#include <algorithm>

namespace blur {
namespace {

// The same sum in the same order on every side, so the results agree to rounding.
inline float pixel(const float* in, int w, int h, int x, int y) {
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      sum += in[std::clamp(y + dy, 0, h - 1) * w + std::clamp(x + dx, 0, w - 1)];
  return sum * (1.0f / 9.0f);
}

}  // namespace

void serial(const float* in, float* out, int w, int h) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out[y * w + x] = pixel(in, w, h, x, y);
}

void omp(const float* in, float* out, int w, int h) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out[y * w + x] = pixel(in, w, h, x, y);
}

}  // namespace blur
