#pragma once
// The statistics of A/B pairs (time_gpu_ab): plain C++, so the tests check them without a GPU.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "common/median_interval.hpp"

namespace tb {


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
