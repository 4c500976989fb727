#pragma once
// grayscale: an interleaved RGB float32 image (r, g, b per pixel, row-major) to one float32
// luma per pixel, gray = 0.299 r + 0.587 g + 0.114 b. Memory-bound: 12 bytes read and 4 written
// per pixel (16 B) for 5 FLOP.
#include <cstddef>
#include <cstdint>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"
#include "common/workload.hpp"

namespace tb::grayscale {

constexpr std::uint64_t kSeed = 0x5eed0003;
constexpr float kR = 0.299f, kG = 0.587f, kB = 0.114f;
// Channels are in (0, 1]: a fused multiply-add (GPU) against separate rounding (CPU) differs by
// a few ulp of the largest term, well under 1e-5 of a result of at least 1e-3.
constexpr Tolerance kTolerance{1e-5, 1e-3};
constexpr Dims2 kDefaultImage{3840, 2160};  // 4K UHD, the article's
constexpr Dims2 kQuickImage{640, 360};

inline WorkModel work(Dims2 d) {
  const double px = static_cast<double>(d.w) * d.h;
  return {.read_bytes = 12.0 * px, .written_bytes = 4.0 * px, .flops = 5.0 * px, .items = px};
}

void serial(const float* rgb, float* gray, int w, int h);
void omp(const float* rgb, float* gray, int w, int h);

}  // namespace tb::grayscale
