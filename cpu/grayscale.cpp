#include "cpu/grayscale.hpp"

#include "common/cpu_isa.hpp"

namespace tb::grayscale {
namespace {

// Pixels [begin, end): the stride-3 channel loads vectorise as three vector loads and a few
// lane permutes per W pixels (W = 16 with AVX-512). The arithmetic (5 FLOP a pixel) is far below
// what the loads cost; the point of the wide version is to issue few, full-width memory
// operations, so that one thread's share of the memory bandwidth is reached with little work.
[[gnu::always_inline]] inline void gray_range(const float* rgb, float* gray, std::size_t begin,
                                              std::size_t end) {
#pragma omp simd
  for (std::size_t p = begin; p < end; ++p)
    gray[p] = kR * rgb[3 * p] + kG * rgb[3 * p + 1] + kB * rgb[3 * p + 2];
}
TB_ISA_CLONES(gray_range_isa, gray_range)

}  // namespace

void serial(const float* rgb, float* gray, int w, int h) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t p = static_cast<std::size_t>(y) * w + x;
      gray[p] = kR * rgb[3 * p] + kG * rgb[3 * p + 1] + kB * rgb[3 * p + 2];
    }
}

void omp(const float* rgb, float* gray, int w, int h) {
  // Rows static over the threads: the partition the bench's first touch of `gray` used (this
  // same function), and about the one of fill_uniform's parallel fill of `rgb`.
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y) {
    const std::size_t row = static_cast<std::size_t>(y) * w;
    gray_range_isa(rgb, gray, row, row + w);
  }
}

}  // namespace tb::grayscale
