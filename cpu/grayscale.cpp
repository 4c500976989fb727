#include "cpu/grayscale.hpp"

#include "common/cpu_isa.hpp"

namespace tb::grayscale {
namespace {

// Pixels [begin, end): the stride-3 channel loads vectorise as three vector loads and a few
// lane permutes per W pixels (W = 16 with AVX-512). The arithmetic (5 FLOP a pixel) is far below
// what the loads cost; the point of the wide version is to issue few, full-width memory
// operations, so that one thread's share of the memory bandwidth is reached with little work.
// Bound at 3840x2160 on the target host: 16 B a pixel (133 MB; 166 MB with the write-allocate
// of gray) at the ~85-89 GB/s triad-like bandwidth is 1.5-1.9 ms, so 70% of that ceiling is
// ~2.2-2.7 ms. (rgb + gray fit in its 300 MiB L3, so warm samples can beat it.) Measured on
// the dev machine (1 thread, CPU time, loaded: rough, not results): AVX-512 11-12 ms (11-12
// GB/s), AVX2 13.5-14 ms, the baseline 17 ms, the former loop (compiled for the baseline)
// 17-18 ms. Streaming stores were not used: the pair fits the L3, and the next sample reads it.
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
