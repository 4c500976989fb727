#include "histogram.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

namespace histogram {

void serial(const std::int32_t* keys, std::uint32_t* bins, std::size_t n) {
  std::fill(bins, bins + kBins, 0u);
  for (std::size_t i = 0; i < n; ++i) ++bins[keys[i]];
}

// Private bins per thread, summed at the end: no atomics, no false sharing while counting.
void omp(const std::int32_t* keys, std::uint32_t* bins, std::size_t n) {
  std::vector<std::uint32_t> all(kBins * static_cast<std::size_t>(omp_get_max_threads()), 0u);
#pragma omp parallel
  {
    std::uint32_t* mine = all.data() + kBins * static_cast<std::size_t>(omp_get_thread_num());
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < n; ++i) ++mine[keys[i]];
  }
  std::fill(bins, bins + kBins, 0u);
  for (std::size_t t = 0; t < all.size(); t += kBins)
    for (std::size_t b = 0; b < kBins; ++b) bins[b] += all[t + b];
}

}  // namespace histogram
