#include "cpu/black_scholes.hpp"

#include <cstdint>

#include "common/cpu_isa.hpp"
#include "cpu/streaming.hpp"
#include "cpu/vector_math.hpp"

namespace tb::black_scholes {
namespace {

// One vector's worth of options at a time, across the options (each lane its own option):
// price_fp32_vector (cpu/black_scholes.hpp) has no branch and no loop, so GCC turns its selects
// into masked blends and logf / expf into libmvec's vector entry points for the level compiled.
[[gnu::always_inline]] inline void price_range(const float* spot, const float* strike,
                                               const float* years, float* call, float* put,
                                               std::size_t begin, std::size_t end) {
#pragma omp simd
  for (std::size_t i = begin; i < end; ++i)
    price_fp32_vector(spot[i], strike[i], years[i], call[i], put[i]);
}
TB_ISA_CLONES(price_range_isa, price_range)

// The same loop with the library's erfcf for the normal CDF (price_fp32's formula): what the
// accurate CDF costs, as cuda_erfc beside cuda on the GPU.
[[gnu::always_inline]] inline void price_range_erfc(const float* spot, const float* strike,
                                                    const float* years, float* call, float* put,
                                                    std::size_t begin, std::size_t end) {
#pragma omp simd
  for (std::size_t i = begin; i < end; ++i)
    price_fp32(spot[i], strike[i], years[i], call[i], put[i]);
}
TB_ISA_CLONES(price_range_erfc_isa, price_range_erfc)

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
// Plain stores, not streamed (non-temporal) ones: a plain store first reads the line, so the
// pass moves 28 B per option for the 20 the row counts, like the plain-store triad it is held to
// (32 B for 24: at the same memory rate the row reads ~95% of that ceiling). Streamed stores
// would cut the traffic to 20 B, but against a plain-store triad (common/host_ceilings.cpp streams
// only its write and copy passes) the row would then read up to 4/3 of its ceiling. Worth doing
// together with a streamed-store triad ceiling, if the H200 run shows omp under 70% of triad.
void omp(const float* spot, const float* strike, const float* years, float* call, float* put,
         std::size_t n) {
#pragma omp parallel
  {
    const streaming::Range r = streaming::this_thread_range(n);
    price_range_isa(spot, strike, years, call, put, r.begin, r.end);
  }
}

void omp_erfc(const float* spot, const float* strike, const float* years, float* call, float* put,
              std::size_t n) {
#pragma omp parallel
  {
    const streaming::Range r = streaming::this_thread_range(n);
    price_range_erfc_isa(spot, strike, years, call, put, r.begin, r.end);
  }
}

}  // namespace tb::black_scholes
