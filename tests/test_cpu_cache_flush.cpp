// The cold CPU sample's pieces (common/cpu_cache_flush.hpp): the HostArray registry that lets the
// flush evict a row's own arrays, and a flush that runs with arrays live. Whether a flush makes a
// read cold is timing, measured at start by the binary (cpu_cache_flush in the context), not here.
#include <gtest/gtest.h>

#include <utility>

#include "common/cpu_cache_flush.hpp"
#include "common/host_array.hpp"

namespace tb {
namespace {

TEST(CpuCacheFlush, HostArraysAreTrackedWhileTheyLive) {
  const std::size_t before = host_arrays::tracked_bytes();
  {
    HostArray<float> a(1000);  // 4000 bytes, rounded up to 64-byte lines: 4032
    EXPECT_EQ(host_arrays::tracked_bytes(), before + 4032);
    HostArray<double> b(1 << 20);  // 8 MiB, 2 MiB aligned
    EXPECT_EQ(host_arrays::tracked_bytes(), before + 4032 + (std::size_t{8} << 20));
    HostArray<double> moved = std::move(b);  // a move keeps one registration
    EXPECT_EQ(host_arrays::tracked_bytes(), before + 4032 + (std::size_t{8} << 20));
  }
  EXPECT_EQ(host_arrays::tracked_bytes(), before);
  HostArray<int> empty(0);
  EXPECT_EQ(host_arrays::tracked_bytes(), before);
}

TEST(CpuCacheFlush, FlushRunsWithLiveArraysAndKeepsTheirContents) {
  HostArray<float> a(12345);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  flush_cpu_caches();  // the read pass, then clflush of every live array's lines
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], static_cast<float>(i));
  EXPECT_NE(cpu_cache_flush_description().find("HostArray"), std::string::npos);
  release_cpu_flush_buffer();
}

}  // namespace
}  // namespace tb
