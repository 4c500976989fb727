#pragma once
// conv2d: a single-channel float32 image filtered by an f x f kernel (f = 3, 5, 7), borders
// clamp-to-edge (a tap outside the image reads the nearest edge pixel). Computed as a
// correlation: out(y, x) = sum_{dy, dx} k(dy, dx) * in(y + dy - r, x + dx - r), r = f / 2.
// Memory-bound on the GPU for these filter sizes (25 FMAs per 8 bytes at 5x5), compute-bound
// on the CPU.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"
#include "common/workload.hpp"

namespace tb::conv2d {

constexpr std::uint64_t kSeed = 0x5eed0601;
// 4K UHD, the article's: 33 MB per image, 66 MB read + written: about the H200's 60 MiB L2
// (62.9 MB), so kernel rows are measured cold (the L2 flushed before each sample).
constexpr Dims2 kImage{3840, 2160};
constexpr Dims2 kQuickImage{256, 128};
constexpr int kFilterSizes[] = {3, 5, 7};  // 5 is the article's
constexpr int kMaxFilter = 7;

// Inputs lie in (0, 1) and every filter has non-negative weights summing to 1, so
// sum |k| * |in| <= 1 for every pixel: a fp32 sum of f^2 <= 49 products is within
// gamma_49 ~ 49 * 2^-24 ~ 3e-6 of the exact value in absolute terms, whatever the order of the
// taps or the use of FMA (the separable pass adds one more such bound, and the 2D weights of the
// separable reference are one rounding away from the outer product: both ~1e-7). A relative
// 1e-5 with a floor of 1 (that bound on sum |k * in|) leaves a factor ~3, while a dropped or
// misplaced tap (weights ~1/f^2, pixel differences ~0.5) shows as ~1e-2.
constexpr Tolerance kTolerance{.rel = 1e-5, .scale_floor = 1.0};

inline WorkModel work(Dims2 d, int f) {
  const double px = static_cast<double>(d.w) * d.h;
  // One read and one write per pixel (8 bytes): the halo is re-read from cache, not DRAM.
  // 2 FLOPs per tap of the direct 2D filter (the separable variant does fewer; its FLOP rate is
  // the 2D-equivalent rate).
  return {
      .read_bytes = 4.0 * px, .written_bytes = 4.0 * px, .flops = 2.0 * f * f * px, .items = px};
}

// Weights seeded and random in [0.05, 1), normalised to sum 1 (f x f, row-major).
std::vector<float> random_filter(int f, std::uint64_t seed);
// A sampled Gaussian with sigma = f / 4 (so the tails of the 3 to 7 taps are not negligible),
// normalised to sum 1.
std::vector<float> gaussian_1d(int f);
// outer(g)(i, j) = g(i) * g(j): the 2D filter the separable variant computes in two passes.
std::vector<float> outer(const std::vector<float>& g);

// An image against a reference image of as many pixels, under kTolerance's floor: the rows'
// check, for cuda_separable against the serial filter with outer(g).
inline ErrorStats compare_image(const float* got, const float* ref, std::size_t pixels) {
  return compare(std::span<const float>(got, pixels), std::span<const float>(ref, pixels), kTolerance);
}

// The reference: one output row at a time, a vectorisable interior (no clamping) and clamped
// borders, the taps summed in (dy, dx) order for every pixel.
void serial(const float* in, float* out, int w, int h, const float* filter, int f);
// Blocks of kBlockRows output rows over the threads (static); inside a block, strips of 32
// pixels x kBlockRows rows accumulated in vector registers, the border columns apart (clamped
// as serial clamps them). Still each pixel's taps in (dy, dx) order, but with fused
// multiply-adds at the AVX2 and AVX-512 levels, so it agrees with serial within kTolerance,
// not bitwise. Run-time ISA dispatch (common/cpu_isa.hpp); f = 3, 5, 7 (other odd f take the
// row-at-a-time kernel in parallel).
void omp(const float* in, float* out, int w, int h, const float* filter, int f);

// omp's partition: row blocks of kBlockRows rows, static over the threads.
constexpr int kBlockRows = 4;
int row_blocks(int h);
// Zeroes a w x h image with omp's partition, so that its pages are placed by the threads that
// will write (or read) them.
void first_touch(float* image, int w, int h);

}  // namespace tb::conv2d
