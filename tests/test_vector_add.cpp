#include <gtest/gtest.h>

#include <vector>

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
