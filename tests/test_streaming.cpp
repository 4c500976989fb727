// cpu/streaming.hpp: the per-thread slices of the streaming kernels must be exactly the ones
// OpenMP's schedule(static) gives the threads that filled the inputs (first touch).
#include <gtest/gtest.h>
#include <omp.h>

#include <cstddef>
#include <vector>

#include "cpu/streaming.hpp"

namespace tb::streaming {
namespace {

TEST(Streaming, SlicesCoverTheRangeInOrder) {
  for (std::size_t threads : {1u, 2u, 3u, 16u})
    for (std::size_t n : {0u, 1u, 15u, 16u, 17u, 1000u}) {
      std::size_t next = 0;
      for (std::size_t t = 0; t < threads; ++t) {
        const Range r = static_range(n, t, threads);
        EXPECT_EQ(r.begin, next) << n << " " << t << "/" << threads;
        EXPECT_LE(r.end - r.begin, n / threads + 1);
        next = r.end;
      }
      EXPECT_EQ(next, n) << n << " over " << threads;
    }
}

TEST(Streaming, SlicesAreOpenMpsStaticSchedule) {
  for (int threads : {1, 2, 3, 5}) {
    for (std::size_t n : {1u, 7u, 1001u}) {
      std::vector<int> by_for(n, -1), by_range(n, -1);
      const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) num_threads(threads)
      for (std::int64_t i = 0; i < count; ++i) by_for[i] = omp_get_thread_num();
#pragma omp parallel num_threads(threads)
      {
        const Range r = this_thread_range(n);
        for (std::size_t i = r.begin; i < r.end; ++i) by_range[i] = omp_get_thread_num();
      }
      EXPECT_EQ(by_range, by_for) << "n=" << n << " threads=" << threads;
    }
  }
}

}  // namespace
}  // namespace tb::streaming
