#include "cpu/black_scholes.hpp"

#include <cstdint>
#include <type_traits>

#include "common/cpu_isa.hpp"
#include "cpu/nt_store.hpp"
#include "cpu/streaming.hpp"
#include "cpu/vector_math.hpp"

namespace tb::black_scholes {
namespace {

// One vector's worth of options at a time, across the options (each lane its own option):
// price_fp32_vector (cpu/black_scholes.hpp) has no branch and no loop, so GCC turns its selects
// into masked blends and logf / expf into libmvec's vector entry points for the level compiled.
// The prices of kBlock options go to two L1-resident buffers and from there out with streamed
// stores (cpu/nt_store.hpp): 20 B of memory traffic an option instead of 28.
constexpr std::size_t kBlock = 256;

// `Erfc` picks the normal CDF: false, price_fp32_vector's polynomial (the omp row); true, the
// library's erfcf (price_fp32's formula, the omp_erfc row): what the accurate CDF costs, as
// cuda_erfc beside cuda on the GPU. The same loop and streamed stores, so that the two rows differ
// by the CDF alone.
template <class Tag, bool Erfc>
[[gnu::always_inline]] inline void price_range(Tag tag, std::bool_constant<Erfc>,
                                               const float* spot, const float* strike,
                                               const float* years, float* call, float* put,
                                               std::size_t begin, std::size_t end) {
  alignas(64) float c[kBlock], p[kBlock];
  for (std::size_t i0 = begin; i0 < end; i0 += kBlock) {
    const std::size_t m = end - i0 < kBlock ? end - i0 : kBlock;
#pragma omp simd
    for (std::size_t j = 0; j < m; ++j) {
      if constexpr (Erfc)
        price_fp32(spot[i0 + j], strike[i0 + j], years[i0 + j], c[j], p[j]);
      else
        price_fp32_vector(spot[i0 + j], strike[i0 + j], years[i0 + j], c[j], p[j]);
    }
    nt::store(tag, call + i0, c, m * sizeof(float));
    nt::store(tag, put + i0, p, m * sizeof(float));
  }
  nt::fence();
}
TB_ISA_CLONES_TAGGED(price_range_isa, price_range)

}  // namespace

void serial(const float* spot, const float* strike, const float* years, double* call, double* put,
            std::size_t n) {
  constexpr double kRsqrt2 = 0.70710678118654752440;
  const double r = kRiskFree, v = kVolatility;
  for (std::size_t i = 0; i < n; ++i) {
    const double s = spot[i], x = strike[i], t = years[i];
    const double v_sqrt_t = v * std::sqrt(t);
    const double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / v_sqrt_t;
    const double d2 = d1 - v_sqrt_t;
    const double discounted = x * std::exp(-r * t);
    call[i] = s * 0.5 * std::erfc(-d1 * kRsqrt2) - discounted * 0.5 * std::erfc(-d2 * kRsqrt2);
    put[i] = discounted * 0.5 * std::erfc(d2 * kRsqrt2) - s * 0.5 * std::erfc(d1 * kRsqrt2);
  }
}

void serial_fp32(const float* spot, const float* strike, const float* years, float* call,
                 float* put, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) price_fp32(spot[i], strike[i], years[i], call[i], put[i]);
}

// One fused pass: each option's three inputs are read and its two prices written once. Each
// thread prices the slice that schedule(static) gave it when the inputs were filled
// (common/random.cpp) and the outputs first written (bench/black_scholes.cpp), so it streams the
// pages it touched first.
// Where the limit is: 20 B per option, 200 MB for the 10M benchmark options, take 2.3 ms at the
// H200 host's measured triad bandwidth (85-89 GB/s, 16 threads; the nearest pattern: 2 reads per
// write), and 70% of that ceiling is 3.3 ms. Compute, measured on the 2-core development machine
// (CPU time of one thread per option, 1M options, noisy: other builds were running; not
// results): serial_fp32 (scalar libm erfcf) 12-14 ns; omp_erfc 4.3-4.8 ns (AVX-512), 6.2-7 ns
// (AVX2); omp 2.6-2.8 ns (AVX-512), 3.8-4.9 ns (AVX2), 9.6-12 ns (baseline SSE2). On 16 cores,
// 10M options at 2.7 ns are 1.7 ms of compute per core, under the 2.3 ms of memory traffic, so
// omp should run at the memory's pace (~2.5-3.3 ms against the 5 ms target) if the host's cores
// are as fast as these; omp_erfc's 4.5 ns (2.8 ms) puts it near the line. The divisions
// (spot / strike, / (vol sqrt(T)), 1 / (A1 A2)) and the sqrt are about a third of omp's cycles;
// folding two divisions into one (a shared reciprocal) measured no difference within this
// machine's noise, so the plain form stays.
// The stores are streamed (price_range): with plain stores the pass moved 28 B an option for
// the 20 the row counts, and the row read 60% of its ceiling on the H200 host
// (3.01 ms), which the ceiling's in-place add pass (no line read for a store) is measured against.
void omp(const float* spot, const float* strike, const float* years, float* call, float* put,
         std::size_t n) {
#pragma omp parallel
  {
    const streaming::Range r = streaming::this_thread_range(n);
    price_range_isa(std::false_type{}, spot, strike, years, call, put, r.begin, r.end);
  }
}

void omp_erfc(const float* spot, const float* strike, const float* years, float* call, float* put,
              std::size_t n) {
#pragma omp parallel
  {
    const streaming::Range r = streaming::this_thread_range(n);
    price_range_isa(std::true_type{}, spot, strike, years, call, put, r.begin, r.end);
  }
}

}  // namespace tb::black_scholes
