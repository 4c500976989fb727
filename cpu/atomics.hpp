#pragma once
// atomics: the sum of N int32 values, done with atomics at different granularities (one per
// element, per warp, per block, spread over K addresses) beside library reductions and the CPU's
// serial loop, OpenMP atomic and OpenMP reduction. The point is the cost of contention.
//
// Why int32 inputs summed into 64 bits: integer addition is associative, so every summation
// order (atomics arrive in any order, tree reductions regroup) gives the same bits and the
// validation is exact (tolerance 0). float32 would make each order round differently and blur
// the comparison. The accumulator is 64-bit because the int32 sum of 256M values can overflow
// 32 bits; on the GPU it is an unsigned long long (the type atomicAdd supports), whose modular
// arithmetic is exactly the two's-complement signed sum.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/bench_spec.hpp"
#include "common/validate.hpp"

namespace tb::atomics {

constexpr std::uint64_t kSeed = 0x5eed0a70;
constexpr std::int32_t kLo = -1000;  // inputs in [kLo, kHi), zeros replaced by fill_uniform
constexpr std::int32_t kHi = 1000;
constexpr Tolerance kExact{0.0};                            // integer sums: bit-exact
constexpr std::size_t kDefaultSize = std::size_t{1} << 28;  // 256M: 1 GiB read, 20x the L2
constexpr std::size_t kQuickSize = std::size_t{1} << 20;
// omp_atomic serialises every element on one cache line (tens of ns each): at 256M that is
// tens of seconds per run, so by default it runs at most this many elements (--size overrides).
constexpr std::size_t kOmpAtomicMax = std::size_t{1} << 25;

// Bytes model: each input read once (4 B/element); one add per element.
inline WorkModel work(std::size_t n) {
  return {.read_bytes = 4.0 * static_cast<double>(n), .written_bytes = 0.0, .flops = 0.0, .items = static_cast<double>(n)};
}

std::int64_t serial(const std::int32_t* in, std::size_t n);
// Every element does `#pragma omp atomic` on one shared counter: the CPU twin of the GPU's
// atomic per thread.
std::int64_t omp_atomic(const std::int32_t* in, std::size_t n);
std::int64_t omp_reduction(const std::int32_t* in, std::size_t n);

// Exact comparison of two integer sums, in the harness's error terms (max_rel 1 = wrong).
inline ErrorStats compare_exact(std::int64_t got, std::int64_t ref) {
  ErrorStats s;
  const double diff = static_cast<double>(got) - static_cast<double>(ref);
  s.max_abs = got == ref ? 0.0 : (diff < 0 ? -diff : diff);
  s.max_rel = got == ref ? 0.0 : 1.0;
  return s;
}

}  // namespace tb::atomics
