#pragma once
// The interval of a median: one C++ definition, used by the A/B pairs (common/pair_stats.hpp)
// and by each row's samples (common/sampler.cpp: the slow end a row's limit check reads).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace tb {

// A distribution-free ~95% confidence interval of the median of `v` (sorts it): the order
// statistics of ranks n/2 -+ 0.98 sqrt(n) (the binomial(n, 1/2) quantiles, normal
// approximation), clamped to the sample; with few values it widens to min..max. The reports'
// median_interval (reports/src/twinbench/report/summary.py) answers the same question for a row's samples with the
// exact binomial ranks; this is the one C++ definition.
inline std::pair<double, double> median_interval(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  const double half = 0.98 * std::sqrt(n);
  const auto lo = static_cast<std::ptrdiff_t>(std::max(0.0, std::floor(n / 2 - half)));
  const auto hi = static_cast<std::ptrdiff_t>(std::min(n - 1, std::ceil(n / 2 + half)));
  return {v[static_cast<std::size_t>(lo)], v[static_cast<std::size_t>(hi)]};
}

}  // namespace tb
