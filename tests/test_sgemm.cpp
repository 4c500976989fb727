#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/random.hpp"
#include "common/validate.hpp"
#include "cpu/blas.hpp"
#include "cpu/sgemm.hpp"
#include "cpu/sgemm_libs.hpp"
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

// The omp kernel's edges: sizes around its 8 x 48 register tile, below and above one 512-deep k
// slice (600: a full slice and a partial one), and more threads than row tiles (n < 8 x threads).
std::vector<std::size_t> omp_sizes() {
  std::vector<std::size_t> ns = sizes();
  ns.insert(ns.end(), {7, 8, 9, 47, 48, 49, 100, 600});
  return ns;
}

// serial and omp at every ISA level this machine runs (the level the tests force with set_limit
// is the one the dispatchers pick).
TEST(SgemmOmp, EveryLevelMatchesReference) {
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (std::size_t n : omp_sizes()) {
      Case c(n);
      std::vector<float> out(n * n);
      poison(std::span<float>(out));
      omp(c.a.data(), c.b.data(), out.data(), n);
      const ErrorStats o = check(std::span<const float>(out), c.ref);
      EXPECT_TRUE(passes(o, tolerance(n)))
          << "omp " << cpu_isa::name(level) << " n=" << n << " " << describe(o, tolerance(n));
      if (n > 257) continue;  // the serial loop is slow at the baseline; its sizes are above
      poison(std::span<float>(out));
      serial(c.a.data(), c.b.data(), out.data(), n);
      const ErrorStats e = check(std::span<const float>(out), c.ref);
      EXPECT_TRUE(passes(e, tolerance(n)))
          << "serial " << cpu_isa::name(level) << " n=" << n << " " << describe(e, tolerance(n));
    }
  }
  cpu_isa::clear_limit();
}

// A second call on the same output overwrites it (the first k slice stores, it does not add), and
// a call at a smaller size after a larger one reuses the packing buffers correctly.
TEST(SgemmOmp, RepeatedCallsOverwrite) {
  for (std::size_t n : {std::size_t{600}, std::size_t{49}, std::size_t{600}}) {
    Case c(n);
    std::vector<float> out(n * n, 1e6f);
    omp(c.a.data(), c.b.data(), out.data(), n);
    omp(c.a.data(), c.b.data(), out.data(), n);
    EXPECT_TRUE(passes(check(std::span<const float>(out), c.ref), tolerance(n))) << n;
  }
}

// The libraries' rows: OpenBLAS (FP32), oneDNN FP32 and BF16; each skips where its library is
// absent, as its benchmark row does.
TEST(SgemmLibs, OpenblasMatchesReference) {
  std::string why;
  const blas::OpenBlas* lib = blas::openblas(why);
  if (!lib) GTEST_SKIP() << why;
  for (std::size_t n : omp_sizes()) {
    Case c(n);
    std::vector<float> out(n * n);
    poison(std::span<float>(out));
    openblas(*lib, c.a.data(), c.b.data(), out.data(), n);
    const ErrorStats e = check(std::span<const float>(out), c.ref);
    EXPECT_TRUE(passes(e, tolerance(n))) << lib->corename << " n=" << n << " "
                                         << describe(e, tolerance(n));
  }
}

std::vector<std::uint16_t> bf16_of(const std::vector<float>& x) {
  std::vector<std::uint16_t> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = to_bf16(x[i]);
  return y;
}

TEST(SgemmLibs, OnednnMatchesReference) {
  if (!onednn_unavailable_reason().empty()) GTEST_SKIP() << onednn_unavailable_reason();
  for (std::size_t n : omp_sizes()) {
    Case c(n);
    std::vector<float> out(n * n);
    OnednnMatmul f32(n, false);
    poison(std::span<float>(out));
    f32.run(c.a.data(), c.b.data(), out.data());
    const ErrorStats e = check(std::span<const float>(out), c.ref);
    EXPECT_TRUE(passes(e, tolerance(n)))
        << "onednn " << f32.impl() << " n=" << n << " " << describe(e, tolerance(n));
    if (!onednn_bf16_unavailable_reason().empty()) continue;  // FP32 checked; BF16 below
    OnednnMatmul bf16(n, true);
    const std::vector<std::uint16_t> a16 = bf16_of(c.a), b16 = bf16_of(c.b);
    poison(std::span<float>(out));
    bf16.run(a16.data(), b16.data(), out.data());
    const ErrorStats h = check_bf16(std::span<const float>(out), c.ref);
    EXPECT_TRUE(passes(h, tolerance_bf16(n)))
        << "onednn_bf16 " << bf16.impl() << " n=" << n << " " << describe(h, tolerance_bf16(n));
    // BF16 inputs are not FP32 ones: at sizes with enough terms the FP32 check must reject the
    // BF16 result, or the BF16 rows would not need their own check.
    if (n >= 100) {
      EXPECT_FALSE(passes(check(std::span<const float>(out), c.ref), tolerance(n))) << n;
    }
  }
  if (!onednn_bf16_unavailable_reason().empty()) GTEST_SKIP() << onednn_bf16_unavailable_reason();
}

// to_bf16 rounds to nearest, ties to even, within 2^-8 relative (the allowance's u).
TEST(SgemmBf16, RoundsToNearestEven) {
  auto bits = [](std::uint32_t b) {
    float x;
    std::memcpy(&x, &b, 4);
    return x;
  };
  EXPECT_EQ(to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(to_bf16(bits(0x3f808000u)), 0x3f80);  // tie, even below
  EXPECT_EQ(to_bf16(bits(0x3f818000u)), 0x3f82);  // tie, even above
  EXPECT_EQ(to_bf16(bits(0x3f808001u)), 0x3f81);  // just over the tie
  EXPECT_EQ(to_bf16(bits(0xbf807fffu)), 0xbf80);  // just under, negative
  EXPECT_EQ(from_bf16(to_bf16(-2.5f)), -2.5f);
  EXPECT_TRUE(std::isnan(from_bf16(to_bf16(std::nanf("")))));
  std::vector<float> x(100000);
  fill_uniform(std::span<float>(x), kSeed, -1.f, 1.f);
  for (float v : x) {
    ASSERT_LE(std::fabs(from_bf16(to_bf16(v)) - v), 0x1p-8 * std::fabs(v)) << v;
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
  float serial = 0, tiled = 0, tf32 = 0, bf16 = 0;
  std::vector<float> tf32_tiles, bf16_tiles;
  std::vector<double> products;
};
float bf16_round(float x) { return from_bf16(to_bf16(x)); }
constexpr std::size_t kTile = 32;
Element element(const std::vector<float>& a, const std::vector<float>& b, std::size_t n,
                std::size_t i, std::size_t j) {
  Element e;
  float tile = 0, tf32_tile = 0, bf16_tile = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const float x = a[i * n + k], y = b[k * n + j];
    const double p = static_cast<double>(x) * y;
    e.products.push_back(p);
    e.c += p;
    e.bound += std::fabs(p);
    e.serial += x * y;
    tile += x * y;
    tf32_tile += to_tf32(x) * to_tf32(y);
    bf16_tile += bf16_round(x) * bf16_round(y);
    if ((k + 1) % kTile == 0 || k + 1 == n) {
      e.tiled += tile;
      e.tf32 += tf32_tile;
      e.bf16 += bf16_tile;
      e.tf32_tiles.push_back(tf32_tile);
      e.bf16_tiles.push_back(bf16_tile);
      tile = tf32_tile = bf16_tile = 0;
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

bool bf16_accepts(const Element& e, double got, std::size_t k) {
  Reference r{1, HostArray<double>(1), HostArray<double>(1)};
  r.c[0] = e.c;
  r.bound[0] = e.bound;
  const float g = static_cast<float>(got);
  return passes(check_bf16(std::span<const float>(&g, 1), r), tolerance_bf16(k));
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
      ASSERT_TRUE(bf16_accepts(e, e.bf16, n)) << n;
      ASSERT_TRUE(bf16_accepts(e, e.serial, n)) << n;
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

// BF16: one 32-wide k-tile dropped from one element. The allowance (cpu/sgemm.hpp) is ~2.0
// absolute at K = 4096 and ~0.5 at 257: a tile whose partial sum is smaller is within what
// rounded inputs can legitimately do. Every tile of at least 1.5 times the allowance must fail;
// the share of all tiles caught is recorded (and must be most of them at the small sizes).
TEST(SgemmMutation, Bf16DroppedKTileFails) {
  for (std::size_t n : mutation_sizes()) {
    if (n < 2 * kTile) continue;
    std::size_t missed = 0, tried = 0, caught = 0, all = 0;
    for (const Element& e : rows(n).elements) {
      const double allow = bf16_input_allowance(e.bound) + tolerance_bf16(n).rel * e.bound;
      for (float t : e.bf16_tiles) {
        const bool pass = bf16_accepts(e, e.bf16 - t, n);
        ++all;
        caught += pass ? 0 : 1;
        if (std::fabs(t) < 1.5 * allow) continue;
        ++tried;
        missed += pass ? 1 : 0;
      }
    }
    EXPECT_GT(tried, 0u) << n;
    EXPECT_EQ(missed, 0u) << "n=" << n << ": " << missed << " of " << tried << " pass";
    if (n <= 257) {
      EXPECT_GE(caught, all * 6 / 10) << "n=" << n << ": only " << caught << " of " << all;
    }
    RecordProperty("bf16_tiles_caught_n" + std::to_string(n),
                   std::to_string(caught) + " of " + std::to_string(all));
    std::printf("bf16 dropped tiles caught at n=%zu: %zu of %zu\n", n, caught, all);
  }
}

// One element changed by just over the allowance plus the tolerance fails check_bf16; just under
// passes.
TEST(SgemmMutation, Bf16SmallestChangeOutsideTheBoundFails) {
  for (std::size_t n : mutation_sizes()) {
    const Element& e = rows(n).elements.front();
    const double edge = bf16_input_allowance(e.bound) + tolerance_bf16(n).rel * e.bound;
    EXPECT_TRUE(bf16_accepts(e, static_cast<float>(e.c + 0.9 * edge), n)) << n;
    EXPECT_FALSE(bf16_accepts(e, std::nextafter(static_cast<float>(e.c + edge), 1e30f), n)) << n;
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

// The omp kernel's own result, mutated as a broken kernel would leave it: one wrong element (the
// last of the matrix, in the partial tiles), a dropped k-tile in one element. check() and, on a
// BF16 result (the inputs rounded, then the omp kernel), check_bf16() must reject each.
TEST(SgemmMutation, BrokenOmpResultFails) {
  const std::size_t n = 257;
  Case c(n);
  std::vector<float> out(n * n);
  omp(c.a.data(), c.b.data(), out.data(), n);
  ASSERT_TRUE(passes(check(std::span<const float>(out), c.ref), tolerance(n)));
  std::vector<float> a16(n * n), b16(n * n);
  for (std::size_t x = 0; x < n * n; ++x) {
    a16[x] = bf16_round(c.a[x]);
    b16[x] = bf16_round(c.b[x]);
  }
  std::vector<float> out16(n * n);
  omp(a16.data(), b16.data(), out16.data(), n);
  ASSERT_TRUE(passes(check_bf16(std::span<const float>(out16), c.ref), tolerance_bf16(n)));
  ASSERT_FALSE(passes(check(std::span<const float>(out16), c.ref), tolerance(n)));

  const std::size_t last = n * n - 1;
  std::vector<float> wrong = out;
  wrong[last] += 0.01f;
  EXPECT_FALSE(passes(check(std::span<const float>(wrong), c.ref), tolerance(n)));
  wrong = out16;
  wrong[last] += 2.f * static_cast<float>(bf16_input_allowance(c.ref.bound[last]));
  EXPECT_FALSE(passes(check_bf16(std::span<const float>(wrong), c.ref), tolerance_bf16(n)));

  // The k-tile with the largest partial sum of element (3, 200).
  const std::size_t i = 3, j = 200;
  auto tile_sum = [&](const std::vector<float>& a, const std::vector<float>& b, std::size_t k0) {
    float sum = 0;
    for (std::size_t k = k0; k < std::min(n, k0 + kTile); ++k) sum += a[i * n + k] * b[k * n + j];
    return sum;
  };
  std::size_t worst = 0;
  for (std::size_t k0 = 0; k0 < n; k0 += kTile)
    if (std::fabs(tile_sum(c.a, c.b, k0)) > std::fabs(tile_sum(c.a, c.b, worst))) worst = k0;
  std::vector<float> dropped = out;
  dropped[i * n + j] -= tile_sum(c.a, c.b, worst);
  EXPECT_FALSE(passes(check(std::span<const float>(dropped), c.ref), tolerance(n)));
  dropped = out16;
  dropped[i * n + j] -= tile_sum(a16, b16, worst);
  EXPECT_FALSE(passes(check_bf16(std::span<const float>(dropped), c.ref), tolerance_bf16(n)));
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
  if (const std::string why = gpu::sgemm_split_k_missing(); !why.empty())
    GTEST_SKIP() << "split-K " << why;
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

// The device's BF16 rounding is to_bf16's, bit for bit; cublas_bf16 passes check_bf16 (and, with
// enough terms, fails the FP32 check: it really ran on BF16 inputs).
TEST(SgemmGpu, CublasBf16MatchesReference) {
  TB_REQUIRE_GPU();
  if (!gpu::cublas_unavailable_reason().empty()) GTEST_SKIP() << gpu::cublas_unavailable_reason();
  Stream s;
  gpu::CublasSgemm handle(s, false);
  for (std::size_t n : sizes()) {
    Case c(n);
    auto da = upload(std::span<const float>(c.a));
    auto db = upload(std::span<const float>(c.b));
    DeviceBuffer<std::uint16_t> a16(n * n), b16(n * n);
    DeviceBuffer<float> dc(n * n);
    CUDA_CHECK(tb::test::memset_sync(dc.data(), 0xFF, dc.bytes()));
    gpu::round_to_bf16(da.data(), a16.data(), n * n, s);
    gpu::round_to_bf16(db.data(), b16.data(), n * n, s);
    handle.run_bf16(a16.data(), b16.data(), dc.data(), n);
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<std::uint16_t> got16(n * n);
    CUDA_CHECK(cudaMemcpy(got16.data(), a16.data(), a16.bytes(), cudaMemcpyDeviceToHost));
    const std::vector<std::uint16_t> want16 = bf16_of(c.a);
    std::size_t differ = 0;
    for (std::size_t x = 0; x < want16.size(); ++x) differ += got16[x] != want16[x] ? 1 : 0;
    EXPECT_EQ(differ, 0u) << "device rounding differs from to_bf16 at n=" << n;
    std::vector<float> out(n * n);
    download(std::span<float>(out), dc);
    const ErrorStats e = check_bf16(std::span<const float>(out), c.ref);
    EXPECT_TRUE(passes(e, tolerance_bf16(n)))
        << "cublas_bf16 n=" << n << " " << describe(e, tolerance_bf16(n));
    if (n >= 100) {
      EXPECT_FALSE(passes(check(std::span<const float>(out), c.ref), tolerance(n))) << n;
    }
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
