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
// flow in loop"). 64 floats are 4 AVX-512 registers (8 AVX2): 4 or more independent FMA chains,
// ~1 vector FMA a cycle, while a core's share of the memory bandwidth (~5 GB/s, 0.7 G elements)
// needs 16 FMA x 0.7 G / 16 lanes = 0.7 G vector FMA/s: memory-bound. Vector FMAs round once per
// lane, as std::fma does: the same bits as serial. (The baseline has no vector FMA: std::fma
// stays a libm call per element there.)
constexpr std::size_t kBlock = 64;

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
