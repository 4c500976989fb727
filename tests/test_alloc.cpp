#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "cpu/alloc.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/alloc.hpp"
#endif

namespace tb::alloc {
namespace {

TEST(Alloc, SizesArePowersOfFourFrom4KiB) {
  RunConfig cfg;
  const auto full = sizes(cfg);
  ASSERT_EQ(full.size(), 10u);
  EXPECT_EQ(full.front(), std::size_t{4096});
  EXPECT_EQ(full.back(), std::size_t{1} << 30);
  for (std::size_t i = 1; i < full.size(); ++i) EXPECT_EQ(full[i], 4 * full[i - 1]);
  cfg.quick = true;
  EXPECT_EQ(sizes(cfg).back(), std::size_t{16} << 20);
  cfg.size = 12345;
  EXPECT_EQ(sizes(cfg), std::vector<std::size_t>{12345});
}

TEST(Alloc, TouchMarksEveryPage) {
  for (std::size_t bytes :
       {std::size_t{1}, std::size_t{4095}, std::size_t{4097}, std::size_t{3} * page_bytes() + 5}) {
    std::vector<unsigned char> buf(bytes, 0);
    EXPECT_GT(untouched_pages(buf.data(), bytes), 0u) << bytes;
    touch_pages(buf.data(), bytes);
    EXPECT_EQ(untouched_pages(buf.data(), bytes), 0u) << bytes;
  }
}

TEST(Alloc, MallocVariantsSucceed) {
  for (std::size_t bytes : {std::size_t{4096}, std::size_t{1} << 20, std::size_t{16} << 20}) {
    EXPECT_TRUE(malloc_free(bytes));
    EXPECT_TRUE(malloc_touch_free(bytes));
  }
}

#if TWINBENCH_HAVE_CUDA
TEST(AllocGpu, TouchEndsWritesFirstAndLastWord) {
  TB_REQUIRE_GPU();
  Stream s;
  for (std::size_t bytes : {std::size_t{4}, std::size_t{4099}, std::size_t{1} << 20}) {
    DeviceBuffer<unsigned char> buf(bytes);
    CUDA_CHECK(tb::test::memset_sync(buf.data(), 0, bytes));
    gpu::alloc_touch_ends(buf.data(), bytes, 0xABCD1234u, s);
    s.synchronize();
    const std::size_t words = bytes / 4;
    std::vector<std::uint32_t> host(words);
    CUDA_CHECK(cudaMemcpy(host.data(), buf.data(), words * 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(host.front(), 0xABCD1234u) << bytes;
    EXPECT_EQ(host.back(), 0xABCD1234u) << bytes;
    if (words > 2) {
      EXPECT_EQ(host[1], 0u) << bytes;
    }
  }
}

TEST(AllocGpu, MallocAsyncFromDefaultPool) {
  TB_REQUIRE_GPU();
  Stream s;
  void* p = nullptr;
  CUDA_CHECK(cudaMallocAsync(&p, 1 << 20, s));
  gpu::alloc_touch_ends(p, 1 << 20, 7u, s);
  std::uint32_t first = 0;
  CUDA_CHECK(cudaMemcpyAsync(&first, p, 4, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaFreeAsync(p, s));
  s.synchronize();
  EXPECT_EQ(first, 7u);
}
#endif

}  // namespace
}  // namespace tb::alloc
