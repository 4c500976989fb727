#pragma once
// The statistics of A/B pairs (time_gpu_ab): plain C++, so the tests check them without a GPU.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace tb {

// A distribution-free ~95% confidence interval of the median of `v` (sorts it): the order
// statistics of ranks n/2 -+ 0.98 sqrt(n) (the binomial(n, 1/2) quantiles, normal
// approximation), clamped to the sample; with few values it widens to min..max. The reports'
// median_interval (reports/summary.py) answers the same question for a row's samples with the
// exact binomial ranks; this is the one C++ definition.
inline std::pair<double, double> median_interval(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  const double half = 0.98 * std::sqrt(n);
  const auto lo = static_cast<std::ptrdiff_t>(std::max(0.0, std::floor(n / 2 - half)));
  const auto hi = static_cast<std::ptrdiff_t>(std::min(n - 1, std::ceil(n / 2 + half)));
  return {v[static_cast<std::size_t>(lo)], v[static_cast<std::size_t>(hi)]};
}

// What the pairs of an A/B measurement say about b against a: each side's total, b's excess over
// a in percent over the totals, and the median pair's excess with its interval (robust to the odd
// pair that a poll or a clock step lands in; pairs whose a took no time are left out of it).
struct PairStats {
  long long pairs = 0;
  double a_sum = 0.0, b_sum = 0.0;
  double excess_pct = 0.0;
  bool has_median = false;
  double median_pct = 0.0, lo_pct = 0.0, hi_pct = 0.0;
};

class PairRecorder {
 public:
  void add(double t_a, double t_b) {
    ++stats_.pairs;
    stats_.a_sum += t_a;
    stats_.b_sum += t_b;
    if (t_a > 0) excess_pct_.push_back((t_b - t_a) / t_a * 100.0);
  }
  long long count() const { return stats_.pairs; }
  PairStats stats() const {
    PairStats s = stats_;
    if (s.a_sum > 0) s.excess_pct = (s.b_sum - s.a_sum) / s.a_sum * 100.0;
    if (excess_pct_.empty()) return s;
    std::vector<double> v = excess_pct_;
    const auto [lo, hi] = median_interval(v);  // sorted now
    s.has_median = true;
    s.median_pct = v[v.size() / 2];
    s.lo_pct = lo;
    s.hi_pct = hi;
    return s;
  }

 private:
  PairStats stats_;
  std::vector<double> excess_pct_;
};

}  // namespace tb
