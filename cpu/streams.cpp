#include "cpu/streams.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/cpu_isa.hpp"
#include "cpu/streaming.hpp"

namespace tb::streams {
namespace {

// The serial reference, compiled per ISA level: on baseline x86-64 (no FMA instruction)
// std::fma is a libm call of a few ns, with FMA (x86-64-v3 and up) one instruction. Both round
// once, so every level gives the same bits. Its chains stay scalar, one element at a time.
[[gnu::always_inline]] inline void serial_range(const float* in, float* out, std::size_t begin,
                                                std::size_t end, int fma) {
  for (std::size_t i = begin; i < end; ++i) out[i] = element(in[i], fma);
}
TB_ISA_CLONES(serial_range_isa, serial_range)

// The OpenMP kernel: SIMD across elements, each lane running its own element's chain (the
// chain itself is sequential). Why: one element's chain is `fma` dependent FMAs, 4 cycles each,
// so a scalar loop does one FMA per 4 cycles (fma:16 then needs 64 cycles per element, far
// slower than the memory). Why blocks of kBlock elements, step by step, rather than `omp simd`
// over elements with the chain inside: GCC does not vectorize a loop with a loop inside ("control
// flow in loop"). 256 floats are 16 AVX-512 registers: 16 independent FMA chains, enough for
// two FMA ports of 4-cycle latency (AVX2 would need 32 registers of its 16 and spills to L1, still
// faster than smaller blocks). Measured on a shared 2-core Xeon (not results; best of many
// in-cache one-thread runs, fma:16): blocks of 64 / 128 / 256 floats ran 1.4 / 1.8 / 2.0-2.4 G
// elements/s per core at avx512 (0.9 / 0.9 / 1.4 at avx2; 0.02 at the baseline, whose std::fma
// is a libm call per element). The target's memory share is ~5.5 GB/s = 0.7 G elements/s per
// core (85 GB/s over 16 cores, 8 bytes an element), so fma:16 is memory-bound with ~3x to
// spare. Vector FMAs round once per lane, as std::fma does: the same bits as serial.
constexpr std::size_t kBlock = 256;

// The chains of one block: v[j] = in[j] through `fma` FMAs, j < m (lanes past m run on zeros).
[[gnu::always_inline]] inline void chain_block(const float* in, std::size_t m, int fma, float* v) {
  std::fill_n(v, kBlock, 0.f);
  std::copy_n(in, m, v);
  for (int k = 0; k < fma; ++k) {
#pragma omp simd
    for (std::size_t j = 0; j < kBlock; ++j) v[j] = std::fma(v[j], kA, kB);
  }
}

// Stores one block of results to a 64-byte aligned `out` with non-temporal stores, each level
// at its width. Why non-temporal: at the large size the output (256 MiB) is not read again
// before the caches evict it, and a plain store first reads each line into the cache (50% more
// memory traffic than the 8 bytes an element the row counts); streamed stores skip that read,
// as the CPU copy ceiling's own best pass does (common/host_ceilings.cpp).
struct Sse2 {};
struct Avx2 {};
struct Avx512 {};
#if defined(__x86_64__) && defined(__GNUC__)
inline void stream_block(Sse2, float* out, const float* v) {
  for (std::size_t j = 0; j < kBlock; j += 4) _mm_stream_ps(out + j, _mm_loadu_ps(v + j));
}
[[gnu::target("avx")]] inline void stream_block(Avx2, float* out, const float* v) {
  for (std::size_t j = 0; j < kBlock; j += 8) _mm256_stream_ps(out + j, _mm256_loadu_ps(v + j));
}
[[gnu::target("avx512f")]] inline void stream_block(Avx512, float* out, const float* v) {
  for (std::size_t j = 0; j < kBlock; j += 16) _mm512_stream_ps(out + j, _mm512_loadu_ps(v + j));
}
inline void stream_fence() { _mm_sfence(); }
#else
// aarch64: plain stores. Its non-temporal store (STNP) is only a hint that cores may ignore, and
// no Arm machine is at hand to measure whether it skips the line fill; plain stores are the
// portable choice until one is.
template <class Isa>
inline void stream_block(Isa, float* out, const float* v) {
  std::copy_n(v, kBlock, out);
}
inline void stream_fence() {}
#endif

// One thread's slice: plain stores up to out's first cache-line boundary and for the last
// partial block, streamed stores for the aligned whole blocks between.
template <class Isa>
[[gnu::always_inline]] inline void omp_range(Isa isa, const float* in, float* out,
                                             std::size_t begin, std::size_t end, int fma) {
  alignas(64) float v[kBlock];
  const auto misaligned = reinterpret_cast<std::uintptr_t>(out + begin) % 64;
  const std::size_t head_end = std::min(end, begin + (64 - misaligned) % 64 / sizeof(float));
  if (begin < head_end) {
    chain_block(in + begin, head_end - begin, fma, v);
    std::copy_n(v, head_end - begin, out + begin);
  }
  for (std::size_t i0 = head_end; i0 < end; i0 += kBlock) {
    const std::size_t m = std::min(kBlock, end - i0);
    chain_block(in + i0, m, fma, v);
    if (m == kBlock)
      stream_block(isa, out + i0, v);
    else
      std::copy_n(v, m, out + i0);
  }
  stream_fence();  // the streamed stores are visible before the threads join
}

// One version per level, each with its own stores (flatten: stream_block inlined).
[[gnu::flatten]] TB_ISA_TARGET_AVX512 void omp_range_avx512(const float* in, float* out,
                                                            std::size_t begin, std::size_t end,
                                                            int fma) {
  omp_range(Avx512{}, in, out, begin, end, fma);
}
[[gnu::flatten]] TB_ISA_TARGET_AVX2 void omp_range_avx2(const float* in, float* out,
                                                        std::size_t begin, std::size_t end,
                                                        int fma) {
  omp_range(Avx2{}, in, out, begin, end, fma);
}
void omp_range_baseline(const float* in, float* out, std::size_t begin, std::size_t end, int fma) {
  omp_range(Sse2{}, in, out, begin, end, fma);
}
void omp_range_isa(const float* in, float* out, std::size_t begin, std::size_t end, int fma) {
  switch (cpu_isa::active_level()) {
    case cpu_isa::Level::avx512:
      return omp_range_avx512(in, out, begin, end, fma);
    case cpu_isa::Level::avx2:
      return omp_range_avx2(in, out, begin, end, fma);
    default:
      return omp_range_baseline(in, out, begin, end, fma);
  }
}

}  // namespace

void serial(const float* in, float* out, std::size_t n, int fma) {
  serial_range_isa(in, out, std::size_t{0}, n, fma);
}

void omp(const float* in, float* out, std::size_t n, int fma) {
  // Each thread the slice schedule(static) gave it when `in` was filled (first touch).
#pragma omp parallel
  {
    const streaming::Range r = streaming::this_thread_range(n);
    omp_range_isa(in, out, r.begin, r.end, fma);
  }
}

}  // namespace tb::streams
