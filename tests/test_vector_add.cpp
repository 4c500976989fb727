#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/random.hpp"
#include "common/validate.hpp"
#include "cpu/vector_add.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/vector_add.hpp"
#endif

namespace tb::vector_add {
namespace {

struct Case {
  std::vector<float> a, b, ref;
  explicit Case(std::size_t n) : a(n), b(n), ref(n) {
    fill_uniform(std::span<float>(a), kSeed, -1.f, 1.f);
    fill_uniform(std::span<float>(b), kSeed + 1, -1.f, 1.f);
    serial(a.data(), b.data(), ref.data(), n);
  }
};

TEST(VectorAdd, SerialIsElementwiseSum) {
  Case c(1000);
  for (std::size_t i = 0; i < c.a.size(); ++i) ASSERT_EQ(c.ref[i], c.a[i] + c.b[i]);
}

TEST(VectorAdd, OmpMatchesSerial) {
  for (std::size_t n : test::edge_sizes()) {
    Case c(n);
    std::vector<float> out(n);
    poison(std::span<float>(out));
    omp(c.a.data(), c.b.data(), out.data(), n);
    EXPECT_TRUE(passes(compare(std::span<const float>(out), std::span<const float>(c.ref)), kTolerance)) << n;
  }
}

// Each version of the omp kernel (common/cpu_isa.hpp), on sizes that leave vector tails and
// uneven thread slices: one correctly rounded add per element, so the same bits as serial.
TEST(VectorAdd, OmpMatchesSerialAtEveryIsaLevel) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (std::size_t n : test::edge_sizes()) {
      Case c(n);
      std::vector<float> out(n);
      poison(std::span<float>(out));
      omp(c.a.data(), c.b.data(), out.data(), n);
      EXPECT_EQ(out, c.ref) << cpu_isa::name(level) << " n=" << n;
    }
  }
}

// Mutation: the check the bench runs must catch a slice left unwritten (a partition bug) or a
// last vector's tail dropped: one element of the poisoned output left as it was.
TEST(VectorAdd, CheckCatchesAnUnwrittenElement) {
  Case c(4099);
  std::vector<float> out(c.a.size());
  omp(c.a.data(), c.b.data(), out.data(), out.size());
  for (std::size_t i : {std::size_t{0}, std::size_t{2049}, out.size() - 1}) {
    std::vector<float> mutated = out;
    poison(std::span<float>(mutated).subspan(i, 1));
    EXPECT_FALSE(passes(compare(std::span<const float>(mutated), std::span<const float>(c.ref)),
                        kTolerance))
        << i;
  }
}

#if TWINBENCH_HAVE_CUDA
using Launch = void (*)(const float*, const float*, float*, std::size_t, int, cudaStream_t);

void expect_gpu_matches(Launch launch, const char* label) {
  Stream s;
  for (std::size_t n : test::edge_sizes()) {
    Case c(n);
    auto da = upload(std::span<const float>(c.a));
    auto db = upload(std::span<const float>(c.b));
    DeviceBuffer<float> dc(n);
    for (int block : test::test_blocks()) {
      CUDA_CHECK(tb::test::memset_sync(dc.data(), 0xFF, dc.bytes()));
      launch(da.data(), db.data(), dc.data(), n, block, s);
      s.synchronize();
      std::vector<float> out(n);
      download(std::span<float>(out), dc);
      EXPECT_TRUE(passes(compare(std::span<const float>(out), std::span<const float>(c.ref)), kTolerance))
          << label << " n=" << n << " block=" << block;
    }
  }
}

TEST(VectorAddGpu, CudaMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::vector_add_cuda, "cuda");
}

TEST(VectorAddGpu, ArticleKernelMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::vector_add_cuda_article, "cuda_article");
}

TEST(VectorAddGpu, ThrustMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches([](const float* a, const float* b, float* c, std::size_t n, int, cudaStream_t s) {
    gpu::vector_add_thrust(a, b, c, n, s);
  }, "thrust");
}

// Floats past n that a launch must leave alone (64 KiB).
constexpr std::size_t kGuardFloats = 16384;

// The cuda kernel at n on a poisoned output of n + kGuardFloats: c must match the reference and
// the guard must still hold the poison (0xFF bytes).
void expect_cuda_at(const float* a_dev, const float* b_dev, const Case& c, int block,
                    const Stream& s) {
  const std::size_t n = c.ref.size();
  DeviceBuffer<float> dc(n + kGuardFloats);
  CUDA_CHECK(tb::test::memset_sync(dc.data(), 0xFF, dc.bytes()));
  gpu::vector_add_cuda(a_dev, b_dev, dc.data(), n, block, s);
  s.synchronize();
  std::vector<float> out(n + kGuardFloats);
  download(std::span<float>(out), dc);
  EXPECT_TRUE(passes(compare(std::span<const float>(out).first(n), std::span<const float>(c.ref)),
                     kTolerance))
      << "n=" << n << " block=" << block;
  std::vector<std::uint32_t> bits(kGuardFloats);
  std::memcpy(bits.data(), out.data() + n, kGuardFloats * sizeof(float));
  EXPECT_EQ(std::count(bits.begin(), bits.end(), 0xFFFFFFFFu),
            static_cast<std::ptrdiff_t>(kGuardFloats))
      << "written past n: n=" << n << " block=" << block;
}

// Sizes that are not multiples of a tile (3 * block) nor of 4 floats, at every block size a
// sweep can pick (--sweep=all: each multiple of 32): whole tiles take the bulk copies, the last
// partial one the loads.
TEST(VectorAddGpu, CudaOddSizesEveryBlock) {
  TB_REQUIRE_GPU();
  Stream s;
  for (std::size_t n :
       {std::size_t{5}, std::size_t{77}, std::size_t{1000003}, (std::size_t{1} << 22) + 13}) {
    Case c(n);
    auto da = upload(std::span<const float>(c.a));
    auto db = upload(std::span<const float>(c.b));
    for (int block = 32; block <= 1024; block += 32)
      expect_cuda_at(da.data(), db.data(), c, block, s);
  }
}

// No bulk copies: blocks that are not a multiple of 4 (a tile is then not a whole number of
// 16-byte units), and one input off 16-byte alignment (the other, and c, aligned).
TEST(VectorAddGpu, CudaWithoutBulkCopies) {
  TB_REQUIRE_GPU();
  Stream s;
  const std::size_t n = 1000003;
  Case c(n);
  auto da = upload(std::span<const float>(c.a));
  auto db = upload(std::span<const float>(c.b));
  for (int block : {1, 33, 97, 1023}) expect_cuda_at(da.data(), db.data(), c, block, s);
  std::vector<float> b_shifted(n + 1, 1.0f);
  std::copy(c.b.begin(), c.b.end(), b_shifted.begin() + 1);
  auto db1 = upload(std::span<const float>(b_shifted));
  for (int block : {64, 256, 1024}) expect_cuda_at(da.data(), db1.data() + 1, c, block, s);
}

TEST(VectorAddGpu, UnalignedPointersFallBack) {
  TB_REQUIRE_GPU();
  Stream s;
  Case c(1001);
  auto da = upload(std::span<const float>(c.a));
  auto db = upload(std::span<const float>(c.b));
  DeviceBuffer<float> dc(1001);
  // Element 0 is never written: poisoned, so the download copies no uninitialised memory
  // (compute-sanitizer's initcheck).
  CUDA_CHECK(tb::test::memset_sync(dc.data(), 0xFF, dc.bytes()));
  gpu::vector_add_cuda(da.data() + 1, db.data() + 1, dc.data() + 1, 1000, 256, s);
  s.synchronize();
  std::vector<float> out(1001);
  download(std::span<float>(out), dc);
  for (std::size_t i = 1; i < 1001; ++i) ASSERT_EQ(out[i], c.ref[i]) << i;
}
#endif

}  // namespace
}  // namespace tb::vector_add
