#include "cpu/poisson.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace tb::poisson {
namespace {

// Streams are generated in chunks: a chunk's states stay in L2 while its samples are written
// row by row (sample t + row * kStreams), so each row writes a contiguous 16 KiB run.
constexpr std::uint64_t kChunk = 4096;

template <class Sample>
void generate_chunk(std::int32_t* out, std::size_t n, std::uint64_t seed, std::uint64_t first,
                    Sample&& sample) {
  const std::uint64_t streams = std::min<std::uint64_t>(n, kStreams);
  const std::uint64_t last = std::min(first + kChunk, streams);
  if (first >= last) return;
  std::vector<rng::Xoroshiro128p> states(last - first);
  for (std::uint64_t t = first; t < last; ++t) states[t - first] = rng::seed_stream(seed, t);
  for (std::size_t base = 0; base < n; base += kStreams) {
    const std::uint64_t end = std::min<std::uint64_t>(last, n - base);
    for (std::uint64_t t = first; t < end; ++t) out[base + t] = sample(states[t - first]);
  }
}

std::int64_t chunks(std::size_t n) {
  const std::uint64_t streams = std::min<std::uint64_t>(n, kStreams);
  return static_cast<std::int64_t>((streams + kChunk - 1) / kChunk);
}

template <class Sample>
void generate_serial(std::int32_t* out, std::size_t n, std::uint64_t seed, Sample sample) {
  for (std::int64_t c = 0; c < chunks(n); ++c) generate_chunk(out, n, seed, c * kChunk, sample);
}

template <class Sample>
void generate_omp(std::int32_t* out, std::size_t n, std::uint64_t seed, Sample sample) {
  // dynamic: the article sampler's cost per sample varies with k.
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < chunks(n); ++c) generate_chunk(out, n, seed, c * kChunk, sample);
}

}  // namespace

CdfTable make_table(double rate) {
  CdfTable t{};
  t.tail.rate = rate;
  double p = std::exp(-rate);
  double c = p;
  for (int k = 0; k < kTableSize; ++k) {
    if (k > 0) {
      p = p * rate / k;  // same order of operations as sample_tail
      c = c + p;
    }
    const double scaled = std::ceil(std::ldexp(c, 53));
    t.thr[k] = scaled >= 0x1.0p64 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(scaled);
    t.tail.p_last = p;
    t.tail.cdf_last = c;
  }
  // guide[j]: the smallest k whose threshold exceeds the bucket's first u (CdfTable).
  int k = 0;
  for (int j = 0; j < kGuideSize; ++j) {
    const std::uint64_t first = static_cast<std::uint64_t>(j) << kGuideShift;
    while (k < kTableSize && first >= t.thr[k]) ++k;
    t.guide[j] = static_cast<std::uint8_t>(k);
  }
  return t;
}

const CdfTable& default_table() {
  static const CdfTable t = make_table(kRate);
  return t;
}

void serial(std::int32_t* out, std::size_t n, std::uint64_t seed, const CdfTable& table) {
  generate_serial(out, n, seed, [&table](rng::Xoroshiro128p& s) {
    return sample_fast(s, table.thr, table.guide, table.tail);
  });
}

void omp(std::int32_t* out, std::size_t n, std::uint64_t seed, const CdfTable& table) {
  generate_omp(out, n, seed, [&table](rng::Xoroshiro128p& s) {
    return sample_fast(s, table.thr, table.guide, table.tail);
  });
}

void serial_article(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate) {
  generate_serial(out, n, seed, [rate](rng::Xoroshiro128p& s) { return sample_article(s, rate); });
}

void omp_article(std::int32_t* out, std::size_t n, std::uint64_t seed, double rate) {
  generate_omp(out, n, seed, [rate](rng::Xoroshiro128p& s) { return sample_article(s, rate); });
}

double chi2_quantile_wh(int dof, double z) {
  const double k = dof;
  const double a = 2.0 / (9.0 * k);
  const double c = 1.0 - a + z * std::sqrt(a);
  return k * c * c * c;
}

double SampleStats::score() const {
  if (negative > 0 || n == 0) return 1e30;
  double s = std::max(std::fabs(z_mean), std::fabs(z_var)) / 4.0;
  if (dof > 0) s = std::max(s, chi2 / chi2_limit);
  return s;
}

SampleStats sample_stats(std::span<const std::int32_t> x, double rate) {
  SampleStats st;
  st.n = x.size();
  if (x.empty()) return st;
  std::vector<std::size_t> hist(kChi2Bins, 0);
  // Two passes in long double would be exact enough; one pass of integer sums is exact.
  std::int64_t sum = 0;
  for (auto v : x) {
    if (v < 0) {
      ++st.negative;
      continue;
    }
    sum += v;
    ++hist[std::min(v, kChi2Bins - 1)];
  }
  const double n = static_cast<double>(x.size());
  st.mean = static_cast<double>(sum) / n;
  double m2 = 0.0;
  for (auto v : x) m2 += (v - st.mean) * (v - st.mean);
  st.variance = x.size() > 1 ? m2 / (n - 1.0) : 0.0;
  st.z_mean = (st.mean - rate) / std::sqrt(rate / n);
  // Var(s^2) ~ (mu4 - sigma^4) / n with mu4 = rate (1 + 3 rate) for a Poisson variable.
  st.z_var = x.size() > 1 ? (st.variance - rate) / std::sqrt((rate + 2.0 * rate * rate) / n) : 0.0;
  if (x.size() >= kChi2MinSize) {
    double p = std::exp(-rate);
    double below = 0.0;
    for (int k = 0; k < kChi2Bins; ++k) {
      if (k > 0) p *= rate / k;
      const double prob = k == kChi2Bins - 1 ? std::max(1.0 - below, 0.0) : p;
      below += p;
      const double expected = n * prob;
      const double d = static_cast<double>(hist[k]) - expected;
      st.chi2 += d * d / expected;
    }
    st.dof = kChi2Bins - 1;
    st.chi2_limit = chi2_quantile_wh(st.dof, kZ999);
  }
  return st;
}

ErrorStats check_samples(std::span<const std::int32_t> got,
                         std::span<const std::int32_t> bitwise_ref, double rate) {
  ErrorStats e;
  if (!bitwise_ref.empty() && bitwise_ref.size() != got.size()) {
    e.size_matches = false;
    return e;
  }
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < bitwise_ref.size(); ++i) {
    if (got[i] == bitwise_ref[i]) continue;
    if (mismatches++ == 0) e.worst_index = i;
    e.max_abs = std::max(e.max_abs, std::fabs(static_cast<double>(got[i]) - bitwise_ref[i]));
  }
  const SampleStats st = sample_stats(got, rate);
  e.max_rel = st.score();
  if (mismatches > 0) {
    e.max_rel = std::max(e.max_rel, 2.0);
    std::fprintf(stderr,
                 "poisson: %zu of %zu samples differ from the serial fast samples (first at %zu)\n",
                 mismatches, got.size(), e.worst_index);
  }
  if (st.score() > 1.0)
    std::fprintf(stderr,
                 "poisson: statistics fail: n=%zu mean=%.6f (z=%.2f) var=%.6f (z=%.2f) chi2=%.2f "
                 "(limit %.2f, dof %d) negative=%zu\n",
                 st.n, st.mean, st.z_mean, st.variance, st.z_var, st.chi2, st.chi2_limit, st.dof,
                 st.negative);
  return e;
}

}  // namespace tb::poisson
