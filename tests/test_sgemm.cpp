#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/validate.hpp"
#include "cpu/sgemm.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/sgemm.hpp"
#endif

namespace tb::sgemm {
namespace {

// 1, sizes that are not multiples of any tile (8, 16, 32, 128) or of a float4, and sizes that
// are multiples of 4 but not of the 128-wide tiles (the float4 path with partial tiles).
std::vector<std::size_t> sizes() { return {1, 2, 3, 17, 33, 127, 128, 129, 132, 257}; }

struct Case {
  std::size_t n;
  std::vector<float> a, b;
  Reference ref;
  explicit Case(std::size_t n_) : n(n_), a(n * n), b(n * n) {
    fill_uniform(std::span<float>(a), kSeed, -1.f, 1.f);
    fill_uniform(std::span<float>(b), kSeed + 1, -1.f, 1.f);
    ref = reference(a.data(), b.data(), n);
  }
};

TEST(Sgemm, ReferenceIsTheProduct) {
  Case c(5);
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = 0; j < 5; ++j) {
      double sum = 0, bound = 0;
      for (std::size_t k = 0; k < 5; ++k) {
        sum += double(c.a[i * 5 + k]) * double(c.b[k * 5 + j]);
        bound += std::fabs(double(c.a[i * 5 + k]) * double(c.b[k * 5 + j]));
      }
      EXPECT_NEAR(c.ref.c[i * 5 + j], sum, 1e-12);
      EXPECT_NEAR(c.ref.bound[i * 5 + j], bound, 1e-12);
    }
  }
}

TEST(Sgemm, SerialAndOmpMatchReference) {
  for (std::size_t n : sizes()) {
    Case c(n);
    std::vector<float> out(n * n);
    poison(std::span<float>(out));
    serial(c.a.data(), c.b.data(), out.data(), n);
    const ErrorStats s = check(std::span<const float>(out), c.ref);
    EXPECT_TRUE(passes(s, tolerance(n))) << "serial n=" << n << " " << describe(s, tolerance(n));
    poison(std::span<float>(out));
    omp(c.a.data(), c.b.data(), out.data(), n);
    const ErrorStats o = check(std::span<const float>(out), c.ref);
    EXPECT_TRUE(passes(o, tolerance(n))) << "omp n=" << n << " " << describe(o, tolerance(n));
  }
}

// The tolerance must still see a product that dropped one term of a sum, as an off-by-one
// loop bound would give: drop the k = n-1 term of the element of row 0 where it is largest.
TEST(Sgemm, ToleranceCatchesADroppedTerm) {
  const std::size_t n = 257;
  Case c(n);
  std::vector<float> out(n * n);
  serial(c.a.data(), c.b.data(), out.data(), n);
  std::size_t j = 0;
  for (std::size_t x = 1; x < n; ++x)
    if (std::fabs(c.b[(n - 1) * n + x]) > std::fabs(c.b[(n - 1) * n + j])) j = x;
  out[j] -= c.a[n - 1] * c.b[(n - 1) * n + j];
  EXPECT_FALSE(passes(check(std::span<const float>(out), c.ref), tolerance(n)));
}

TEST(Sgemm, NanFails) {
  Case c(3);
  std::vector<float> out(9);
  serial(c.a.data(), c.b.data(), out.data(), 3);
  out[4] = std::nanf("");
  EXPECT_FALSE(passes(check(std::span<const float>(out), c.ref), tolerance(3)));
}

#if TWINBENCH_HAVE_CUDA
using Launch = std::function<void(const float*, const float*, float*, std::size_t, cudaStream_t)>;

void expect_gpu_matches(cudaStream_t s, const Launch& launch, const std::string& label,
                        bool tf32 = false) {
  for (std::size_t n : sizes()) {
    Case c(n);
    auto da = upload(std::span<const float>(c.a));
    auto db = upload(std::span<const float>(c.b));
    DeviceBuffer<float> dc(n * n);
    CUDA_CHECK(tb::test::memset_sync(dc.data(), 0xFF, dc.bytes()));
    launch(da.data(), db.data(), dc.data(), n, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<float> out(n * n);
    download(std::span<float>(out), dc);
    const Tolerance tol = tf32 ? tolerance_tf32(n) : tolerance(n);
    const ErrorStats e = check(std::span<const float>(out), c.ref);
    EXPECT_TRUE(passes(e, tol)) << label << " n=" << n << " " << describe(e, tol);
  }
}

std::vector<Block2> test_blocks_2d() { return {{8, 8}, {16, 16}, {32, 32}, {32, 8}}; }

TEST(SgemmGpu, NaiveMatchesReference) {
  TB_REQUIRE_GPU();
  Stream s;
  for (Block2 block : test_blocks_2d()) {
    expect_gpu_matches(
        s,
        [block](const float* a, const float* b, float* c, std::size_t n, cudaStream_t st) {
          gpu::sgemm_cuda_naive(a, b, c, n, block, st);
        },
        "naive " + std::to_string(block.x) + "x" + std::to_string(block.y));
  }
}

TEST(SgemmGpu, TiledMatchesReference) {
  TB_REQUIRE_GPU();
  Stream s;
  for (Block2 block : test_blocks_2d()) {
    if (!gpu::sgemm_cuda_tiled_supported(block)) continue;
    expect_gpu_matches(
        s,
        [block](const float* a, const float* b, float* c, std::size_t n, cudaStream_t st) {
          gpu::sgemm_cuda_tiled(a, b, c, n, block, st);
        },
        "tiled " + std::to_string(block.x));
  }
  EXPECT_FALSE(gpu::sgemm_cuda_tiled_supported({32, 8}));
}

TEST(SgemmGpu, OptimizedMatchesReference) {
  TB_REQUIRE_GPU();
  Stream s;
  expect_gpu_matches(
      s,
      [](const float* a, const float* b, float* c, std::size_t n, cudaStream_t st) {
        gpu::sgemm_cuda_optimized(a, b, c, n, st);
      },
      "optimized");
}

// A base that is not 16-byte aligned must take the scalar-load path, not fault.
TEST(SgemmGpu, OptimizedUnalignedFallsBack) {
  TB_REQUIRE_GPU();
  Stream s;
  const std::size_t n = 132;
  Case c(n);
  DeviceBuffer<float> da(n * n + 1), db(n * n + 1), dc(n * n + 1);
  CUDA_CHECK(cudaMemcpy(da.data() + 1, c.a.data(), n * n * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db.data() + 1, c.b.data(), n * n * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may return before the DMA lands
  gpu::sgemm_cuda_optimized(da.data() + 1, db.data() + 1, dc.data() + 1, n, s);
  s.synchronize();
  std::vector<float> out(n * n);
  CUDA_CHECK(cudaMemcpy(out.data(), dc.data() + 1, n * n * 4, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(passes(check(std::span<const float>(out), c.ref), tolerance(n)));
}

TEST(SgemmGpu, CublasMatchesReference) {
  TB_REQUIRE_GPU();
  if (!gpu::cublas_unavailable_reason().empty()) GTEST_SKIP() << gpu::cublas_unavailable_reason();
  Stream s;
  gpu::CublasSgemm fp32(s, false), tf32(s, true);
  expect_gpu_matches(
      s,
      [&](const float* a, const float* b, float* c, std::size_t n, cudaStream_t) {
        fp32.run(a, b, c, n);
      },
      "cublas");
  expect_gpu_matches(
      s,
      [&](const float* a, const float* b, float* c, std::size_t n, cudaStream_t) {
        tf32.run(a, b, c, n);
      },
      "cublas_tf32", true);
}
#endif

}  // namespace
}  // namespace tb::sgemm
