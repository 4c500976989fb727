#include "cpu/transpose.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "common/cpu_isa.hpp"

namespace tb::transpose {

void serial(const float* in, float* out, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

namespace {

// ---- omp: W x W blocks transposed in registers ----
//
// Why: the tiled scalar loop moves one float per load and per store, and its strided side
// touches a new cache line for every element. Here a thread takes a strip of 16 input rows and
// walks along it: W vector loads give a W x W block, log2(W) rounds of two-register shuffles
// transpose it, and W vector stores write it out (W = 16 with AVX-512: one cache line per load
// and per store). Every load and store is a full vector; the 16 input rows are 16 sequential
// streams, which the hardware prefetchers follow.
// Bound at 8192^2 on the target host: 512 MiB moved (256 read + 256 written with streaming
// stores) at ~85-99 GB/s is 5.4-6.3 ms; 10 ms needs 54 GB/s, ~60% of the copy ceiling.

// W floats, one register of the level that runs it: 16 with AVX-512, 8 with AVX2, 4 with SSE.
// (An alias template would drop the attribute: GCC keeps it only on a typedef in a class.)
// A strip: 16 input rows, so that each output row receives one whole cache line per block column.
constexpr std::size_t kStripRows = 16;

template <int W>
struct VecOf {
  typedef float f __attribute__((vector_size(4 * W)));
  typedef int i __attribute__((vector_size(4 * W)));
};
template <int W>
using Vec = typename VecOf<W>::f;
template <int W>
using Mask = typename VecOf<W>::i;

// One round of the block transpose: rows a (index bit S clear) and b = a + S exchange the
// off-diagonal S x S sub-blocks of every 2S x 2S block: lo takes b's left half of each 2S
// group into its right half, hi takes a's right half into its left half. Rounds S = W/2, ...,
// 1 transpose the whole block (the 2 x 2 block-matrix identity, applied recursively).
template <int W, int S, bool Hi, class Lanes = std::make_integer_sequence<int, W>>
struct SwapMask;
template <int W, int S, bool Hi, int... J>
struct SwapMask<W, S, Hi, std::integer_sequence<int, J...>> {
  static constexpr Mask<W> value{(Hi ? ((J & S) ? W + J : J + S) : ((J & S) ? W + J - S : J))...};
};

template <int W, int S>
[[gnu::always_inline]] inline void swap_round(Vec<W>* v) {
  constexpr Mask<W> lo = SwapMask<W, S, false>::value;
  constexpr Mask<W> hi = SwapMask<W, S, true>::value;
#pragma GCC unroll 16
  for (int a = 0; a < W; ++a) {
    if (a & S) continue;
    const Vec<W> x = v[a], y = v[a + S];
    v[a] = __builtin_shuffle(x, y, lo);
    v[a + S] = __builtin_shuffle(x, y, hi);
  }
}

template <int W>
[[gnu::always_inline]] inline void transpose_block(Vec<W>* v) {
  if constexpr (W >= 16) swap_round<W, 8>(v);
  if constexpr (W >= 8) swap_round<W, 4>(v);
  swap_round<W, 2>(v);
  swap_round<W, 1>(v);
}

// A streaming store writes the line without reading it first (no read-for-ownership: 8 instead
// of 12 bytes of traffic per element) and does not fight for the cache sets: the W output lines
// of a block lie a row of the output apart (32 KiB at 8192, 16 KiB at 4096), all in one L1 set,
// so cached stores of 16 of them miss a 12-way L1 again and again. Measured on the dev machine
// (Xeon with AVX-512, 1 thread, CPU time; not results): 8192^2 67 ms streaming, 124 ms cached,
// 169 ms for the former 64 x 64 scalar tiles; 4096^2 10 ms, 29 ms, 32 ms; 2048^2 2.1, 7.7,
// 7.9 ms; 1024^2 0.53, 0.87, 1.9 ms. So streaming wherever the output allows it, even when
// in + out would fit in the last-level cache. Only whole-line (16-float, AVX-512) streaming
// stores: 16- or 32-byte ones (SSE, AVX2) leave partial write-combining buffers, measured 3-5x
// slower than cached stores.
#if defined(__x86_64__) && defined(__GNUC__)
constexpr bool kHaveStreamingStores = true;
// Not always_inline, and with the intrinsic's own target: GCC inlines it into the AVX-512 clone
// that calls it (the callee's ISA is a subset of the caller's), while an
// always_inline helper would be inlined first into generic code and fail there.
[[gnu::target("avx512f")]] inline void stream16(float* p, const Vec<16>& v) {
  _mm512_stream_ps(p, reinterpret_cast<const __m512&>(v));
}
inline void stream_fence() { _mm_sfence(); }
#else
constexpr bool kHaveStreamingStores = false;
inline void stream16(float*, const Vec<16>&) {}
inline void stream_fence() {}
#endif

template <int W, bool Stream>
[[gnu::always_inline]] inline void store_vec(float* p, const Vec<W>& v) {
  if constexpr (Stream && W == 16 && kHaveStreamingStores)
    stream16(p, v);
  else
    std::memcpy(p, &v, sizeof v);
}

// Input rows [r0, r0 + kStripRows) (all present): along the strip, kStripRows x W pieces (a
// stack of kStripRows / W blocks of W x W, so that every output row gets one whole 64-byte line
// at a time, never a line in pieces from several strips), then the last cols % W columns element
// by element.
template <int W, bool Stream>
[[gnu::always_inline]] inline void strip_w(const float* in, float* out, std::size_t rows,
                                           std::size_t cols, std::size_t r0) {
  std::size_t c0 = 0;
  for (; c0 + W <= cols; c0 += W) {
#pragma GCC unroll 4
    for (std::size_t rb = r0; rb < r0 + kStripRows; rb += W) {
      Vec<W> v[W];
#pragma GCC unroll 16
      for (int i = 0; i < W; ++i) std::memcpy(&v[i], in + (rb + i) * cols + c0, sizeof v[i]);
      transpose_block<W>(v);
#pragma GCC unroll 16
      for (int j = 0; j < W; ++j) store_vec<W, Stream>(out + (c0 + j) * rows + rb, v[j]);
    }
  }
  for (std::size_t c = c0; c < cols; ++c)
    for (std::size_t r = r0; r < r0 + kStripRows; ++r) out[c * rows + r] = in[r * cols + c];
}

template <int W>
[[gnu::always_inline]] inline void strip(const float* in, float* out, std::size_t rows,
                                         std::size_t cols, std::size_t r0, bool stream) {
  if (stream)
    strip_w<W, true>(in, out, rows, cols, r0);
  else
    strip_w<W, false>(in, out, rows, cols, r0);
}
// Each level runs the width of its registers (the other clones are never instantiated).
TB_ISA_CLONES(strip16, strip<16>)
TB_ISA_CLONES(strip8, strip<8>)
TB_ISA_CLONES(strip4, strip<4>)

int strip_width() {
  switch (cpu_isa::active_level()) {
    case cpu_isa::Level::avx512:
      return 16;
    case cpu_isa::Level::avx2:
      return 8;
    default:
      return 4;
  }
}

void strip_isa(int width, const float* in, float* out, std::size_t rows, std::size_t cols,
               std::size_t r0, bool stream) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (width == 16) return strip16_avx512(in, out, rows, cols, r0, stream);
  if (width == 8) return strip8_avx2(in, out, rows, cols, r0, stream);
  return strip4_baseline(in, out, rows, cols, r0, stream);
#else
  (void)width;
  return strip4(in, out, rows, cols, r0, stream);
#endif
}

// Streaming stores need every vector store to fill a whole, aligned cache line: 16 floats, the
// output 64-byte aligned and each output row a whole number of lines.
bool can_stream(const float* out, std::size_t rows, int width) {
  return kHaveStreamingStores && width == 16 && reinterpret_cast<std::uintptr_t>(out) % 64 == 0 &&
         rows % 16 == 0;
}

}  // namespace

void omp_with(const float* in, float* out, std::size_t rows, std::size_t cols, Stores stores) {
  const int width = strip_width();
  const bool stream = stores == Stores::streaming && can_stream(out, rows, width);
  const auto strips = static_cast<std::int64_t>(rows / kStripRows);
  // Strips of 16 input rows, static over the threads: each thread reads its own rows
  // sequentially and writes one 64-byte line of every output row per block column.
#pragma omp parallel
  {
#pragma omp for schedule(static) nowait
    for (std::int64_t s = 0; s < strips; ++s)
      strip_isa(width, in, out, rows, cols, static_cast<std::size_t>(s) * kStripRows, stream);
    // Streaming stores are weakly ordered: each thread drains its own before the region ends.
    if (stream) stream_fence();
  }
  // The last rows % 16 input rows (less than one strip), element by element.
  for (std::size_t r = static_cast<std::size_t>(strips) * kStripRows; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

void omp(const float* in, float* out, std::size_t rows, std::size_t cols) {
  omp_with(in, out, rows, cols, Stores::streaming);
}

}  // namespace tb::transpose
