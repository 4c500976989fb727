#include "cpu/conv2d.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "common/cpu_isa.hpp"
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

// ---- omp: register-blocked, SIMD across pixels ----
//
// Why this shape: a 7x7 filter is 49 FMAs per pixel and the 4K image is 8.3 M pixels, 0.8
// GFLOP; the row-at-a-time kernel above streams the whole output row through L1 once per tap
// (49 loads and 49 stores of every output pixel), so it runs at the load/store ports' speed,
// not the FMA units'. Here a block of kBlockRows output rows x kStrip pixels stays in vector
// registers while all its taps are added, and each input vector loaded is used by every output
// row of the block that needs it (up to kBlockRows of them): per output vector, f^2 FMAs
// against (kBlockRows + f - 1) f / kBlockRows loads and one store.
//
// Bounds at 3840x2160, 7x7 on the target host (16 cores, AVX-512): 0.81 GFLOP at the measured
// ~1.2 TFLOP/s FP32 roof is 0.68 ms; 8 B/pixel (66 MB, less than its 300 MiB L3) at the ~85-99
// GB/s of DRAM is 0.7-0.8 ms, so 2 ms asks ~35% of the FMA roof. Measured on the 2-core dev
// machine (1 thread, CPU time, a loaded machine: rough comparisons, not results): AVX-512 7x7
// 12-14 ms (57-69 GFLOP/s; 5x5 61-65, 3x3 25: there the single thread's memory bandwidth
// binds), AVX2 18-21 ms (39-45), the SSE baseline 45-65 ms (12-18), against the row-at-a-time
// kernel's 65 ms (12 GFLOP/s). 16 cores at the AVX-512 rate would take ~0.9 ms.
// Tried: 6 rows x 2 vectors and 4 rows x 3 vectors (12 accumulators): no better at 7x7 and
// worse at AVX2 (spills).
//
// oneDNN 2.6 (Debian), measured for this single-channel filter (1 thread, same machine, 3x3 /
// 5x5 / 7x7 on 4K): plain nchw tensors get "x64:gemm:jit" (im2col + GEMM) at 1.3 / 1.1 GFLOP/s
// and "ref:any" at 7x7 (19 s); letting it choose the layout (format any) gets
// "brgconv:avx512_core" at 8.1 / 8.8 / 9.0 GFLOP/s, its blocked layout padding the one channel to
// 16, before the reorders in and out. It is built for many channels; so no onednn row.

// W floats, one register of the level that runs it: 16 with AVX-512, 8 with AVX2, 4 with SSE
// (a generic vector wider than the registers would be split by GCC, and the accumulators below
// would no longer fit in 16 AVX2/SSE registers).
// (An alias template would drop the attribute: GCC keeps it only on a typedef in a class.)
template <int W>
struct VecOf {
  typedef float type __attribute__((vector_size(4 * W)));
};
template <int W>
using Vec = typename VecOf<W>::type;
static_assert(sizeof(Vec<16>) == 64 && sizeof(Vec<4>) == 16);
// Two vectors a row: kBlockRows x kVecs = 8 independent accumulators cover the FMA latency x
// throughput (4 cycles x 2 ports) and leave registers for the loaded vectors and the weight,
// even with the 16 registers of AVX2 and SSE.
constexpr int kVecs = 2;

// By reference: a vector passed by value would change the ABI between the ISA levels.
template <int W>
[[gnu::always_inline]] inline void load_vec(Vec<W>& v, const float* p) {
  std::memcpy(&v, p, sizeof v);  // an unaligned vector load
}

template <int W>
[[gnu::always_inline]] inline void store_vec(float* p, const Vec<W>& v) {
  std::memcpy(p, &v, sizeof v);
}

// R output rows (outs[0 .. R)), pixels [x, x + W kVecs), all of them interior: src[i] is the
// input row of output row i - r (clamped already), so row j takes its tap row dy from
// src[j + dy]. The loops unroll completely (F, R, kVecs are constants), so acc lives in
// registers; each pixel's taps are still added in (dy, dx) order, as the reference adds them.
template <int W, int F, int R>
[[gnu::always_inline]] inline void strip(const float* const* src, float* const* outs, int x,
                                         const float* k) {
  constexpr int r = F / 2;
  // An empty asm that "changes" the weights' pointer: without it GCC hoists all f^2 weight
  // broadcasts out of the strip loop, runs out of registers and then reloads the input (a
  // cache-line-split load) for every FMA instead of reusing it across the block's rows. With it
  // the weights come as broadcast loads and each input vector is loaded once per strip row.
  asm("" : "+r"(k));
  Vec<W> acc[R][kVecs] = {};
#pragma GCC unroll 16
  for (int iy = 0; iy < R + F - 1; ++iy) {
#pragma GCC unroll 8
    for (int dx = 0; dx < F; ++dx) {
      Vec<W> v[kVecs];
#pragma GCC unroll 4
      for (int u = 0; u < kVecs; ++u) load_vec<W>(v[u], src[iy] + x + dx - r + u * W);
#pragma GCC unroll 16
      for (int j = 0; j < R; ++j) {
        const int dy = iy - j;
        if (dy < 0 || dy >= F) continue;  // resolved at compile time once unrolled
        const float kv = k[dy * F + dx];
#pragma GCC unroll 4
        for (int u = 0; u < kVecs; ++u) acc[j][u] += kv * v[u];
      }
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < R; ++j)
#pragma GCC unroll 4
    for (int u = 0; u < kVecs; ++u) store_vec<W>(outs[j] + x + u * W, acc[j][u]);
}

// One output pixel with clamped columns (the border columns, and interiors narrower than a
// strip): taps in (dy, dx) order. src[dy] is the (clamped) input row of tap row dy.
template <int F>
[[gnu::always_inline]] inline float clamped_pixel(const float* const* src, int x, int w,
                                                  const float* k) {
  constexpr int r = F / 2;
  float sum = 0.f;
  for (int dy = 0; dy < F; ++dy)
    for (int dx = 0; dx < F; ++dx) sum += k[dy * F + dx] * src[dy][clamp_to(x + dx - r, w - 1)];
  return sum;
}

// R output rows, interior columns [r, w - r): whole strips, the last one shifted left to end at
// w - r (it recomputes a few pixels of its neighbour, with the same result) so that no pixel
// needs a scalar tail.
template <int W, int F, int R>
[[gnu::always_inline]] inline void interior_rows(const float* const* src, float* const* outs, int w,
                                                 const float* k) {
  constexpr int r = F / 2, kStrip = W * kVecs;
  const int x_end = w - r;
  if (x_end - r < kStrip) {
    for (int j = 0; j < R; ++j)
      for (int x = r; x < x_end; ++x) outs[j][x] = clamped_pixel<F>(src + j, x, w, k);
    return;
  }
  int x = r;
  for (; x + kStrip <= x_end; x += kStrip) strip<W, F, R>(src, outs, x, k);
  if (x < x_end) strip<W, F, R>(src, outs, x_end - kStrip, k);
}

// Row block b: output rows [b kBlockRows, + kBlockRows) (fewer in the last block). The input
// rows it reads are clamped once, as pointers, so no vertical clamp is left in the loops.
template <int W, int F>
[[gnu::always_inline]] inline void block_f(const float* in, float* out, int w, int h, int b,
                                           const float* k) {
  constexpr int r = F / 2;
  const int y0 = b * kBlockRows;
  const int rows = std::min(kBlockRows, h - y0);
  const float* src[kBlockRows + F - 1];
  for (int i = 0; i < kBlockRows + F - 1; ++i)
    src[i] = in + static_cast<std::size_t>(clamp_to(y0 + i - r, h - 1)) * w;
  float* outs[kBlockRows];
  for (int j = 0; j < kBlockRows; ++j) outs[j] = out + static_cast<std::size_t>(y0 + j) * w;
  if (rows == kBlockRows) {
    interior_rows<W, F, kBlockRows>(src, outs, w, k);
  } else {
    for (int j = 0; j < rows; ++j) interior_rows<W, F, 1>(src + j, outs + j, w, k);
  }
  // Border columns, clamped as the reference clamps them (all columns when w <= 2r).
  const int left_end = std::min(r, w);
  const int right_begin = std::max(left_end, w - r);
  for (int j = 0; j < rows; ++j) {
    for (int x = 0; x < left_end; ++x) outs[j][x] = clamped_pixel<F>(src + j, x, w, k);
    for (int x = right_begin; x < w; ++x) outs[j][x] = clamped_pixel<F>(src + j, x, w, k);
  }
}

template <int W>
[[gnu::always_inline]] inline void filter_block(const float* in, float* out, int w, int h, int b,
                                                const float* k, int f) {
  switch (f) {
    case 3:
      return block_f<W, 3>(in, out, w, h, b, k);
    case 5:
      return block_f<W, 5>(in, out, w, h, b, k);
    default:
      return block_f<W, 7>(in, out, w, h, b, k);
  }
}
// Each level runs the vector width of its registers: the clones of filter_block<16> for
// AVX-512, <8> for AVX2, <4> for the SSE baseline (the other clones are never instantiated).
TB_ISA_CLONES(filter_block16, filter_block<16>)
TB_ISA_CLONES(filter_block8, filter_block<8>)
TB_ISA_CLONES(filter_block4, filter_block<4>)

void filter_block_isa(const float* in, float* out, int w, int h, int b, const float* k, int f) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
  switch (cpu_isa::active_level()) {
    case cpu_isa::Level::avx512:
      return filter_block16_avx512(in, out, w, h, b, k, f);
    case cpu_isa::Level::avx2:
      return filter_block8_avx2(in, out, w, h, b, k, f);
    default:
      return filter_block4_baseline(in, out, w, h, b, k, f);
  }
#else
  return filter_block4(in, out, w, h, b, k, f);
#endif
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
  if (f != 3 && f != 5 && f != 7) {
    // Other odd sizes (no benchmark uses them) keep the row-at-a-time kernel.
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; ++y)
      filter_row(in, out + static_cast<std::size_t>(y) * w, w, h, y, filter, f);
    return;
  }
  const int blocks = row_blocks(h);
  // The same static partition of row blocks as first_touch(), so that each thread writes the
  // output pages it placed.
#pragma omp parallel for schedule(static)
  for (int b = 0; b < blocks; ++b) filter_block_isa(in, out, w, h, b, filter, f);
}

int row_blocks(int h) { return (h + kBlockRows - 1) / kBlockRows; }

void first_touch(float* image, int w, int h) {
  const int blocks = row_blocks(h);
#pragma omp parallel for schedule(static)
  for (int b = 0; b < blocks; ++b) {
    const int y0 = b * kBlockRows, y1 = std::min(h, y0 + kBlockRows);
    std::fill(image + static_cast<std::size_t>(y0) * w, image + static_cast<std::size_t>(y1) * w,
              0.f);
  }
}

}  // namespace tb::conv2d
