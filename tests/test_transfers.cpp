#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cpu/transfers.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/transfers.hpp"
#endif

namespace tb::transfers {
namespace {

std::vector<unsigned char> pattern(std::size_t n) {
  std::vector<unsigned char> v(n);
  fill_bytes(std::span<unsigned char>(v), kSeed);
  return v;
}

TEST(Transfers, SizesArePowersOfFourFrom4KiB) {
  const auto full = sizes(false, true);
  ASSERT_EQ(full.size(), 10u);
  EXPECT_EQ(full.front(), 4096u);
  EXPECT_EQ(full.back(), std::size_t{1} << 30);
  for (std::size_t i = 1; i < full.size(); ++i) EXPECT_EQ(full[i], 4 * full[i - 1]);
  const auto default_sizes = sizes(false);  // the default run stops at 256 MiB
  ASSERT_EQ(default_sizes.size(), 9u);
  EXPECT_EQ(default_sizes.back(), std::size_t{256} << 20);
  const auto quick = sizes(true);
  EXPECT_EQ(quick.back(), std::size_t{16} << 20);
}

TEST(Transfers, PatternIsSeededAndNeverPoison) {
  const auto a = pattern(100000), b = pattern(100000);
  EXPECT_EQ(a, b);
  std::size_t distinct[256] = {};
  for (unsigned char c : a) {
    ASSERT_NE(c, kPoison);
    ++distinct[c];
  }
  EXPECT_GT(distinct[0x10], 0u);  // spread over the byte values, not constant
}

TEST(Transfers, MemcpyCopiesOddSizes) {
  for (std::size_t n : test::edge_sizes()) {
    const auto src = pattern(n);
    std::vector<unsigned char> dst(n, kPoison);
    serial_memcpy(dst.data(), src.data(), n);
    EXPECT_TRUE(passes(compare_bytes(dst.data(), src.data(), n), kExact)) << n;
  }
}

TEST(Transfers, CompareBytesCountsMismatches) {
  const auto src = pattern(64);
  auto dst = src;
  dst[5] = kPoison;
  dst[60] = kPoison;
  const ErrorStats s = compare_bytes(dst.data(), src.data(), 64);
  EXPECT_EQ(s.max_abs, 2.0);
  EXPECT_EQ(s.worst_index, 5u);
  EXPECT_FALSE(passes(s, kExact));
}

#if TWINBENCH_HAVE_CUDA
// Sizes around the 16-byte vector path, and offsets that make the pointers unaligned.
std::vector<std::size_t> gpu_sizes() {
  auto s = test::edge_sizes();
  for (std::size_t extra : {15u, 16u, 17u, 4096u, (1u << 20) + 5}) s.push_back(extra);
  return s;
}

TEST(TransfersGpu, CopyKernelDeviceToDeviceAtOddSizesAndOffsets) {
  TB_REQUIRE_GPU();
  Stream s;
  for (std::size_t n : gpu_sizes()) {
    for (std::size_t offset : {0u, 1u, 3u}) {
      const auto src = pattern(n + offset);
      auto d_src = upload(std::span<const unsigned char>(src));
      DeviceBuffer<unsigned char> d_dst(n + offset);
      CUDA_CHECK(tb::test::memset_sync(d_dst.data(), kPoison, d_dst.bytes()));
      gpu::transfers_copy(d_dst.data() + offset, d_src.data() + offset, n, 256, s);
      s.synchronize();
      std::vector<unsigned char> out(n + offset);
      download(std::span<unsigned char>(out), d_dst);
      EXPECT_TRUE(passes(compare_bytes(out.data() + offset, src.data() + offset, n), kExact))
          << "n=" << n << " offset=" << offset;
      for (std::size_t i = 0; i < offset; ++i)
        EXPECT_EQ(out[i], kPoison) << "wrote before the start";
    }
  }
}

TEST(TransfersGpu, MappedHostMemoryBothWays) {
  TB_REQUIRE_GPU();
  Stream s;
  for (std::size_t n : gpu_sizes()) {
    const auto src = pattern(n);
    PinnedBuffer<unsigned char> mapped(n, cudaHostAllocMapped);
    unsigned char* mapped_dev = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_dev), mapped.data(), 0));
    DeviceBuffer<unsigned char> dev(n);
    // h2d: the kernel reads host memory.
    std::memcpy(mapped.data(), src.data(), n);
    CUDA_CHECK(tb::test::memset_sync(dev.data(), kPoison, n));
    gpu::transfers_copy(dev.data(), mapped_dev, n, 256, s);
    s.synchronize();
    std::vector<unsigned char> out(n);
    download(std::span<unsigned char>(out), dev);
    EXPECT_TRUE(passes(compare_bytes(out.data(), src.data(), n), kExact)) << "h2d n=" << n;
    // d2h: the kernel writes host memory.
    std::memset(mapped.data(), kPoison, n);
    gpu::transfers_copy(mapped_dev, dev.data(), n, 256, s);
    s.synchronize();
    EXPECT_TRUE(passes(compare_bytes(mapped.data(), src.data(), n), kExact)) << "d2h n=" << n;
  }
}

TEST(TransfersGpu, ManagedMemoryBothWays) {
  TB_REQUIRE_GPU();
  Stream s;
  for (std::size_t n : gpu_sizes()) {  // at most ~1 MiB: far below any GPU's free memory
    const auto src = pattern(n);
    unsigned char* managed = nullptr;
    CUDA_CHECK(cudaMallocManaged(reinterpret_cast<void**>(&managed), n, cudaMemAttachGlobal));
    DeviceBuffer<unsigned char> dev(n);
    std::memcpy(managed, src.data(), n);  // touched on the host
    CUDA_CHECK(tb::test::memset_sync(dev.data(), kPoison, n));
    gpu::transfers_copy(dev.data(), managed, n, 256, s);
    s.synchronize();
    std::vector<unsigned char> out(n);
    download(std::span<unsigned char>(out), dev);
    EXPECT_TRUE(passes(compare_bytes(out.data(), src.data(), n), kExact)) << "h2d n=" << n;
    std::memset(managed, kPoison, n);
    gpu::transfers_copy(managed, dev.data(), n, 256, s);  // written on the device
    s.synchronize();
    EXPECT_TRUE(passes(compare_bytes(managed, src.data(), n), kExact)) << "d2h n=" << n;
    CUDA_CHECK(cudaFree(managed));
  }
}
#endif

}  // namespace
}  // namespace tb::transfers
