#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
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

// ---- Mutation tests: each mutation of a correct result must fail the bench's check. ----

// TF32 as the tensor cores see an fp32 input: the low 13 mantissa bits dropped (truncation, the
// worse of truncation and rounding: cpu/sgemm.hpp).
float to_tf32(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits &= 0xffffe000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

// One element C(i, j) at any K, with what the mutations need: the float64 value and scale, a
// correct fp32 result in the serial order and one in a 32-wide k-tiled order (the tiled GPU
// kernels' shape), a TF32 result (inputs truncated, fp32 sum of 32-wide tile partials), the
// TF32 partial sum of each k-tile, and the products themselves.
struct Element {
  double c = 0, bound = 0;
  float serial = 0, tiled = 0, tf32 = 0;
  std::vector<float> tf32_tiles;
  std::vector<double> products;
};
constexpr std::size_t kTile = 32;
Element element(const std::vector<float>& a, const std::vector<float>& b, std::size_t n,
                std::size_t i, std::size_t j) {
  Element e;
  float tile = 0, tf32_tile = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const float x = a[i * n + k], y = b[k * n + j];
    const double p = static_cast<double>(x) * y;
    e.products.push_back(p);
    e.c += p;
    e.bound += std::fabs(p);
    e.serial += x * y;
    tile += x * y;
    tf32_tile += to_tf32(x) * to_tf32(y);
    if ((k + 1) % kTile == 0 || k + 1 == n) {
      e.tiled += tile;
      e.tf32 += tf32_tile;
      e.tf32_tiles.push_back(tf32_tile);
      tile = tf32_tile = 0;
    }
  }
  return e;
}

// The bench's checks, on a 1 x 1 "matrix" holding this element (both are element-wise; K
// enters through the tolerance).
bool fp32_accepts(const Element& e, double got, std::size_t k) {
  Reference r{1, HostArray<double>(1), HostArray<double>(1)};
  r.c[0] = e.c;
  r.bound[0] = e.bound;
  const float g = static_cast<float>(got);
  return passes(check(std::span<const float>(&g, 1), r), tolerance(k));
}
bool tf32_accepts(const Element& e, double got, std::size_t k) {
  Reference r{1, HostArray<double>(1), HostArray<double>(1)};
  r.c[0] = e.c;
  r.bound[0] = e.bound;
  const float g = static_cast<float>(got);
  return passes(check_tf32(std::span<const float>(&g, 1), r), tolerance_tf32(k));
}

// The default size K = 4096 analytically, element by element: a full 4096^3 float64 reference
// on this 2-core machine takes minutes, but every check is per element, so the 4096 elements
// of rows 0 and 4095 of the benchmark's own inputs stand for the matrix. Small sizes: below.
struct Rows {
  std::size_t n;
  std::vector<Element> elements;
};
const Rows& rows(std::size_t n) {
  static std::vector<std::unique_ptr<Rows>> cache;
  for (const auto& r : cache)
    if (r->n == n) return *r;
  std::vector<float> a(n * n), b(n * n);
  fill_uniform(std::span<float>(a), kSeed, -1.f, 1.f);
  fill_uniform(std::span<float>(b), kSeed + 1, -1.f, 1.f);
  auto r = std::make_unique<Rows>();
  r->n = n;
  for (std::size_t i : {std::size_t{0}, n - 1})
    for (std::size_t j = 0; j < n; ++j) r->elements.push_back(element(a, b, n, i, j));
  cache.push_back(std::move(r));
  return *cache.back();
}
std::vector<std::size_t> mutation_sizes() { return {kLargeSize, kArticleSize, 257, 33}; }

TEST(SgemmMutation, CorrectOrdersPass) {
  for (std::size_t n : mutation_sizes()) {
    for (const Element& e : rows(n).elements) {
      ASSERT_TRUE(fp32_accepts(e, e.serial, n)) << n;
      ASSERT_TRUE(fp32_accepts(e, e.tiled, n)) << n;
      ASSERT_TRUE(tf32_accepts(e, e.tf32, n)) << n;
      ASSERT_TRUE(tf32_accepts(e, e.serial, n)) << n;
    }
  }
}

// One product dropped from one element. The tolerance at K = 4096 is 3.8e-5 of a scale ~1024,
// 0.039 absolute: products under that (17% of them) are legitimately inside the fp32 rounding,
// which no bound can tell apart. The old tolerance (K 2^-23: 0.5 absolute) let 85% through.
// Every product of at least twice the tolerance must fail; so must the median one.
TEST(SgemmMutation, DroppedProductFails) {
  for (std::size_t n : mutation_sizes()) {
    std::size_t missed = 0, tried = 0;
    for (const Element& e : rows(n).elements) {
      const double edge = tolerance(n).rel * e.bound;
      for (double p : e.products) {
        if (std::fabs(p) < 2 * edge) continue;
        ++tried;
        missed += fp32_accepts(e, e.serial - p, n) ? 1 : 0;
      }
    }
    EXPECT_GT(tried, 0u);
    EXPECT_EQ(missed, 0u) << "n=" << n << ": " << missed << " of " << tried << " pass";
    // The median |product| of the first element.
    const Element& e = rows(n).elements.front();
    std::vector<double> mags;
    for (double p : e.products) mags.push_back(std::fabs(p));
    std::nth_element(mags.begin(), mags.begin() + mags.size() / 2, mags.end());
    const double median = mags[mags.size() / 2];
    for (double p : e.products) {
      if (std::fabs(p) == median) {
        EXPECT_FALSE(fp32_accepts(e, e.serial - p, n)) << n;
      }
    }
  }
}

// One ulp of the scale (1.2e-4 at K = 4096) is inside the bound (the bound spans ~300 ulp), so
// the smallest change outside is the tolerance itself: just under passes, just over fails.
TEST(SgemmMutation, SmallestChangeOutsideTheBoundFails) {
  for (std::size_t n : mutation_sizes()) {
    const Element& e = rows(n).elements.front();
    const double edge = tolerance(n).rel * e.bound;
    const double ulp =
        std::nextafter(static_cast<float>(e.bound), 1e30f) - static_cast<float>(e.bound);
    if (n == kLargeSize) {
      EXPECT_LT(ulp, edge);
    }
    // float32 results: compare against the nearest floats on either side of the edge.
    const float inside = static_cast<float>(e.c + 0.9 * edge);
    const float outside = std::nextafter(static_cast<float>(e.c + edge), 1e30f);
    EXPECT_TRUE(fp32_accepts(e, inside, n)) << n;
    EXPECT_FALSE(fp32_accepts(e, outside, n)) << n;
  }
}

// TF32: one 32-wide k-tile dropped from one element. The TF32 allowance at K = 4096 is ~0.3
// absolute; a tile whose partial sum is smaller (about 1 in 8 here) is within what truncated
// inputs can legitimately do. Every tile of at least 1.5 times the allowance must fail (the old
// tolerance, 4.5 absolute, let nearly all through), and at least 80% of all tiles.
TEST(SgemmMutation, Tf32DroppedKTileFails) {
  for (std::size_t n : mutation_sizes()) {
    if (n < 2 * kTile) continue;  // one tile: dropping it is the whole sum
    std::size_t missed = 0, tried = 0, caught = 0, all = 0;
    for (const Element& e : rows(n).elements) {
      const double allow = tf32_input_allowance(e.c, e.bound) + tolerance_tf32(n).rel * e.bound;
      for (float t : e.tf32_tiles) {
        const bool pass = tf32_accepts(e, e.tf32 - t, n);
        ++all;
        caught += pass ? 0 : 1;
        if (std::fabs(t) < 1.5 * allow) continue;
        ++tried;
        missed += pass ? 1 : 0;
      }
    }
    EXPECT_EQ(missed, 0u) << "n=" << n << ": " << missed << " of " << tried << " pass";
    EXPECT_GE(caught, all * 8 / 10) << "n=" << n << ": only " << caught << " of " << all;
    RecordProperty("tf32_tiles_caught_n" + std::to_string(n),
                   std::to_string(caught) + " of " + std::to_string(all));
  }
}

// Whole matrices at small sizes through check() itself: a product dropped from one element, a
// k-tile dropped from one TF32 element.
TEST(SgemmMutation, WholeMatrixAtSmallSize) {
  const std::size_t n = 129;
  Case c(n);
  std::vector<float> out(n * n);
  serial(c.a.data(), c.b.data(), out.data(), n);
  ASSERT_TRUE(passes(check(std::span<const float>(out), c.ref), tolerance(n)));
  ASSERT_TRUE(passes(check_tf32(std::span<const float>(out), c.ref), tolerance_tf32(n)));
  const std::size_t i = 5, j = 77, k = 64;
  std::vector<float> dropped = out;
  dropped[i * n + j] -= c.a[i * n + k] * c.b[k * n + j];
  EXPECT_FALSE(passes(check(std::span<const float>(dropped), c.ref), tolerance(n)));
  std::vector<float> tile = out;
  for (std::size_t kk = 32; kk < 64; ++kk) tile[i * n + j] -= c.a[i * n + kk] * c.b[kk * n + j];
  EXPECT_FALSE(passes(check_tf32(std::span<const float>(tile), c.ref), tolerance_tf32(n)));
}

#if TWINBENCH_HAVE_CUDA
using Launch = std::function<void(const float*, const float*, float*, std::size_t, cudaStream_t)>;

void expect_gpu_matches(cudaStream_t s, const Launch& launch, const std::string& label,
                        bool tf32 = false, const std::vector<std::size_t>& ns = sizes()) {
  for (std::size_t n : ns) {
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
    const std::span<const float> got(out);
    const ErrorStats e = tf32 ? check_tf32(got, c.ref) : check(got, c.ref);
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

using gpu::SgemmOptimizedKernel;

std::string kernel_name(SgemmOptimizedKernel k) {
  switch (k) {
    case SgemmOptimizedKernel::split_k:
      return "split_k";
    case SgemmOptimizedKernel::two_stage:
      return "two_stage";
    case SgemmOptimizedKernel::fallback:
      break;
  }
  return "fallback";
}

// sizes() and sizes that take each of sgemm_cuda_optimized's kernels on the H200 (132 SMs), with
// whole tiles and with tiles that stick out of the matrix (in m, n and k):
// split_k (fewer 128 x 128 tiles than SMs, n % 4 == 0): 4 (one of the 2 blocks gets no k-tile),
//   100, 1000, 1024 (the article's size), 1028 (33 k-tiles: the split is 16 + 17);
// two_stage (more tiles): 2000, 2048;
// fallback (n % 4 != 0): 1001, and the odd sizes of sizes().
std::vector<std::size_t> optimized_sizes() {
  std::vector<std::size_t> ns = sizes();
  if (!test::reduced()) {
    ns.insert(ns.end(), {4, 100, 1000, 1001, 1024, 1028, 2000, 2048});
    return ns;
  }
  // Reduced (test::reduced): one size per kernel and edge. two_stage from the smallest square of
  // tiles that is not below the SM count, its last tile 4 short (1532 on the H200's 132 SMs).
  int side = 1;
  while (side * side < gpu_info().sms) ++side;
  ns.insert(ns.end(), {4, 100, 1001, 1028, static_cast<std::size_t>(side) * 128 - 4});
  return ns;
}

TEST(SgemmGpu, OptimizedMatchesReference) {
  TB_REQUIRE_GPU();
  Stream s;
  for (std::size_t n : optimized_sizes()) {
    expect_gpu_matches(s,
                       [](const float* a, const float* b, float* c, std::size_t n,
                          cudaStream_t st) { gpu::sgemm_cuda_optimized(a, b, c, n, st); },
                       "optimized " + kernel_name(gpu::sgemm_cuda_optimized_kernel(n)), false, {n});
  }
}

// The sizes above reach every kernel, so the test above covers each; and the suite's own sizes
// take the kernels the experiment chose.
TEST(SgemmGpu, OptimizedSizesTakeEveryKernel) {
  TB_REQUIRE_GPU();
  std::set<SgemmOptimizedKernel> taken;
  for (std::size_t n : optimized_sizes()) taken.insert(gpu::sgemm_cuda_optimized_kernel(n));
  EXPECT_TRUE(taken.count(SgemmOptimizedKernel::fallback));
  EXPECT_TRUE(taken.count(SgemmOptimizedKernel::two_stage));
  EXPECT_EQ(gpu::sgemm_cuda_optimized_kernel(1001), SgemmOptimizedKernel::fallback);
  EXPECT_EQ(gpu::sgemm_cuda_optimized_kernel(kLargeSize), SgemmOptimizedKernel::two_stage);
  if (gpu_info().cc_major < 9) GTEST_SKIP() << "split-K needs thread-block clusters (sm_90)";
  EXPECT_TRUE(taken.count(SgemmOptimizedKernel::split_k));
  constexpr int kArticleTiles = (kArticleSize / 128) * (kArticleSize / 128);
  EXPECT_EQ(gpu::sgemm_cuda_optimized_kernel(kArticleSize), gpu_info().sms > kArticleTiles
                                                                ? SgemmOptimizedKernel::split_k
                                                                : SgemmOptimizedKernel::two_stage);
}

// The bench records the figures of the kernel that runs at n: its grid (2 blocks a tile with
// split-K), and an occupancy queried after its shared memory (over 48 KB) was allowed.
TEST(SgemmGpu, OptimizedStatsDescribeTheLaunchedKernel) {
  TB_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1001}, kArticleSize, std::size_t{2048}}) {
    const SgemmOptimizedKernel k = gpu::sgemm_cuda_optimized_kernel(n);
    const gpu::KernelStats st = gpu::sgemm_cuda_optimized_stats(n);
    const long long tiles = static_cast<long long>((n + 127) / 128) * ((n + 127) / 128);
    const std::string at = kernel_name(k) + " n=" + std::to_string(n);
    EXPECT_EQ(st.block_threads, gpu::kSgemmOptimizedThreads) << at;
    EXPECT_EQ(st.grid_blocks, k == SgemmOptimizedKernel::split_k ? 2 * tiles : tiles) << at;
    EXPECT_GE(st.active_blocks_per_sm, 1) << at;
    EXPECT_GT(st.regs_per_thread, 0) << at;
    if (k != SgemmOptimizedKernel::split_k) {
      EXPECT_LE(st.regs_per_thread, 128) << at;  // 2 blocks of 256 threads per SM
    }
  }
}

// A base that is not 16-byte aligned must take the scalar-load path, not fault: 132 and 1024
// would otherwise take the 16-byte copies of split_k (two_stage on a GPU without clusters).
TEST(SgemmGpu, OptimizedUnalignedFallsBack) {
  TB_REQUIRE_GPU();
  Stream s;
  for (std::size_t n : {std::size_t{132}, test::reduced() ? std::size_t{260} : kArticleSize}) {
    Case c(n);
    DeviceBuffer<float> da(n * n + 1), db(n * n + 1), dc(n * n + 1);
    CUDA_CHECK(cudaMemcpy(da.data() + 1, c.a.data(), n * n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db.data() + 1, c.b.data(), n * n * 4, cudaMemcpyHostToDevice));
    // NaN, so an unwritten output fails; the sync also waits for the pageable copies' DMA.
    CUDA_CHECK(tb::test::memset_sync(dc.data(), 0xFF, dc.bytes()));
    gpu::sgemm_cuda_optimized(da.data() + 1, db.data() + 1, dc.data() + 1, n, s);
    s.synchronize();
    std::vector<float> out(n * n);
    CUDA_CHECK(cudaMemcpy(out.data(), dc.data() + 1, n * n * 4, cudaMemcpyDeviceToHost));
    const ErrorStats e = check(std::span<const float>(out), c.ref);
    EXPECT_TRUE(passes(e, tolerance(n))) << "n=" << n << " " << describe(e, tolerance(n));
  }
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
