#include "cpu/streams.hpp"

#include <algorithm>
#include <cmath>

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

[[gnu::always_inline]] inline void omp_range(const float* in, float* out, std::size_t begin,
                                             std::size_t end, int fma) {
  for (std::size_t i0 = begin; i0 < end; i0 += kBlock) {
    const std::size_t m = std::min(kBlock, end - i0);
    float v[kBlock] = {};
    std::copy_n(in + i0, m, v);
    for (int k = 0; k < fma; ++k) {
#pragma omp simd
      for (std::size_t j = 0; j < kBlock; ++j) v[j] = std::fma(v[j], kA, kB);
    }
    std::copy_n(v, m, out + i0);
  }
}
TB_ISA_CLONES(omp_range_isa, omp_range)

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
