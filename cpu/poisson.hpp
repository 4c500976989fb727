#pragma once
// poisson: n samples of Poisson(rate = 5) as int32, one xoroshiro128+ stream per "thread" of a
// fixed set of kStreams streams (common/poisson_sampler.hpp), so the CPU and the GPU produce
// bit-identical samples with the fast algorithm. Compute-bound: 4 bytes written per sample.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "common/bench_spec.hpp"
#include "common/poisson_sampler.hpp"
#include "common/validate.hpp"

namespace tb::poisson {

constexpr std::uint64_t kSeed = 0x5eed0007;
constexpr double kRate = 5.0;
constexpr std::size_t kDefaultSize = 10'000'000;  // 10M: 40 MB of output, about the L2
constexpr std::size_t kLargeSize = 100'000'000;   // 100M: 400 MB, 8x the L2
constexpr std::size_t kQuickSize = 100'000;
// The article's variants recompute pow/tgamma at every step (~1 us a sample on one core): on
// the CPU they only run up to this size.
constexpr std::size_t kArticleCpuMaxSize = 16'000'000;

// Validation: ErrorStats::max_rel holds a score, the worst of |mean z| / 4, |variance z| / 4 and
// chi2 / chi2_0.999(dof), plus 2 when a variant that must be bit-identical is not; 1 is the
// limit. With fixed seeds every variant is deterministic, so a pass is reproducible.
constexpr Tolerance kTolerance{1.0};

inline WorkModel work(std::size_t n) {
  return {.read_bytes = 0.0,
          .written_bytes = 4.0 * static_cast<double>(n),
          .flops = 0.0,
          .items = static_cast<double>(n)};
}

// The CDF thresholds of Poisson(rate), built with the pmf recurrence in float64 on the host.
CdfTable make_table(double rate);
const CdfTable& default_table();  // make_table(kRate), built once

// Fast: inverse transform over the integer CDF table. Article: pow/tgamma at every step.
void serial(std::int32_t* out, std::size_t n, std::uint64_t seed, const CdfTable& table);
// omp: the same samples as serial, bit for bit; streams in SIMD lanes, a branch-free search of
// the first thresholds, multiversioned (cpu/poisson.cpp says why and what it measured).
void omp(std::int32_t* out, std::size_t n, std::uint64_t seed, const CdfTable& table);
// Tests only: omp with one deliberate bug, so that the mutation tests show the bench's check
// catches a bug in this kernel. no_fallback: lanes past the searched thresholds keep the capped
// count; stream_offset: every batch seeded from the next stream; tail_dropped: the last m % 8
// lanes of a row (the scalar remainder of the vector loop) are not drawn.
enum class OmpFault { none, no_fallback, stream_offset, tail_dropped };
// How omp stores the samples on AVX-512: non-temporal stores above the last-level cache's size
// (automatic), or as the test asks, so that both paths are tested at small sizes.
enum class Stores { automatic, cached, streaming };
void omp_with_fault(std::int32_t* out, std::size_t n, std::uint64_t seed, const CdfTable& table,
                    OmpFault fault, Stores stores = Stores::automatic);
void serial_article(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate);
void omp_article(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate);

// Statistics of a sample against Poisson(rate).
struct SampleStats {
  std::size_t n = 0;
  double mean = 0.0;
  double variance = 0.0;  // unbiased
  double z_mean = 0.0;    // (mean - rate) / sqrt(rate / n)
  double z_var = 0.0;     // (variance - rate) / sqrt((rate + 2 rate^2) / n)
  double chi2 = 0.0;      // bins 0..15, the last one holding k >= 15; 0 when not computed
  int dof = 0;            // 0 when n is too small for the chi-square test
  double chi2_limit = 0.0;
  std::size_t negative = 0;  // samples below zero (never valid: poison, unwritten)
  double score() const;      // <= 1 passes
};
constexpr int kChi2Bins = 16;
constexpr std::size_t kChi2MinSize = 10'000;  // below, the merged tail bin expects < 5 counts

SampleStats sample_stats(std::span<const std::int32_t> x, double rate);
// Wilson-Hilferty approximation of the chi-square quantile for `dof` degrees of freedom at
// the standard normal quantile z (3.0902 for 0.999).
double chi2_quantile_wh(int dof, double z);
constexpr double kZ999 = 3.090232306167813;

// The check every variant passes: statistics, and (when `bitwise_ref` is not empty) equality
// with the serial fast samples.
ErrorStats check_samples(std::span<const std::int32_t> got,
                         std::span<const std::int32_t> bitwise_ref, double rate);

}  // namespace tb::poisson
