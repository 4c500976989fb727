#include "cpu/vector_add.hpp"

#include "common/cpu_isa.hpp"
#include "cpu/nt_store.hpp"
#include "cpu/streaming.hpp"

namespace tb::vector_add {
namespace {

// One thread's slice. The loop is trivially vectorizable; compiling it per ISA level (rather
// than for baseline SSE2 only) matters little at the large size, which is memory-bound, but at
// 1M (12 MB, in the L2s and L3) one thread's SSE2 loop is slower than its share of L3.
// c goes out with streamed stores (cpu/nt_store.hpp says why) from a block of kBlock sums that
// stays in L1: 256 floats = 1 KiB, 16 lines, enough to amortise the loop around the copy.
constexpr std::size_t kBlock = 256;

template <class Tag>
[[gnu::always_inline]] inline void add_range(Tag tag, const float* a, const float* b, float* c,
                                             std::size_t begin, std::size_t end) {
  alignas(64) float sum[kBlock];
  for (std::size_t i0 = begin; i0 < end; i0 += kBlock) {
    const std::size_t m = end - i0 < kBlock ? end - i0 : kBlock;
#pragma omp simd
    for (std::size_t j = 0; j < m; ++j) sum[j] = a[i0 + j] + b[i0 + j];
    nt::store(tag, c + i0, sum, m * sizeof(float));
  }
  nt::fence();
}
TB_ISA_CLONES_TAGGED(add_range_isa, add_range)

}  // namespace

void serial(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void omp(const float* a, const float* b, float* c, std::size_t n) {
  // Each thread the slice schedule(static) gave it when the inputs were filled (first touch).
#pragma omp parallel
  {
    const streaming::Range r = streaming::this_thread_range(n);
    add_range_isa(a, b, c, r.begin, r.end);
  }
}

}  // namespace tb::vector_add
