#include "cpu/conv2d.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "common/random.hpp"

namespace tb::conv2d {
namespace {

int clamp_to(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

// Output row y. The interior x in [r, w - r) needs no clamping; accumulating the whole row
// tap by tap keeps each pixel's sum in (dy, dx) order and lets the x loop vectorise.
void filter_row(const float* in, float* out_row, int w, int h, int y, const float* filter, int f) {
  const int r = f / 2;
  const int x_begin = std::min(r, w);
  const int x_end = std::max(x_begin, w - r);
  std::fill(out_row, out_row + w, 0.f);
  for (int dy = 0; dy < f; ++dy) {
    const float* src = in + static_cast<std::size_t>(clamp_to(y + dy - r, h - 1)) * w;
    for (int dx = 0; dx < f; ++dx) {
      const float k = filter[dy * f + dx];
      for (int x = 0; x < x_begin; ++x) out_row[x] += k * src[clamp_to(x + dx - r, w - 1)];
      const int shift = dx - r;
#pragma omp simd
      for (int x = x_begin; x < x_end; ++x) out_row[x] += k * src[x + shift];
      for (int x = x_end; x < w; ++x) out_row[x] += k * src[clamp_to(x + dx - r, w - 1)];
    }
  }
}

void check_args(int w, int h, int f) {
  if (w <= 0 || h <= 0 || f <= 0 || f % 2 == 0)
    throw std::invalid_argument("conv2d: need a non-empty image and an odd filter size");
}

}  // namespace

std::vector<float> random_filter(int f, std::uint64_t seed) {
  std::vector<float> k(static_cast<std::size_t>(f) * f);
  fill_uniform(std::span<float>(k), seed, 0.05f, 1.f);
  const double sum = std::accumulate(k.begin(), k.end(), 0.0);
  for (float& v : k) v = static_cast<float>(v / sum);
  return k;
}

std::vector<float> gaussian_1d(int f) {
  const int r = f / 2;
  const double sigma = f / 4.0;
  std::vector<double> g(f);
  for (int i = 0; i < f; ++i) g[i] = std::exp(-0.5 * (i - r) * (i - r) / (sigma * sigma));
  const double sum = std::accumulate(g.begin(), g.end(), 0.0);
  std::vector<float> out(f);
  for (int i = 0; i < f; ++i) out[i] = static_cast<float>(g[i] / sum);
  return out;
}

std::vector<float> outer(const std::vector<float>& g) {
  const std::size_t f = g.size();
  std::vector<float> k(f * f);
  for (std::size_t i = 0; i < f; ++i)
    for (std::size_t j = 0; j < f; ++j) k[i * f + j] = g[i] * g[j];
  return k;
}

void serial(const float* in, float* out, int w, int h, const float* filter, int f) {
  check_args(w, h, f);
  for (int y = 0; y < h; ++y)
    filter_row(in, out + static_cast<std::size_t>(y) * w, w, h, y, filter, f);
}

void omp(const float* in, float* out, int w, int h, const float* filter, int f) {
  check_args(w, h, f);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y)
    filter_row(in, out + static_cast<std::size_t>(y) * w, w, h, y, filter, f);
}

}  // namespace tb::conv2d
