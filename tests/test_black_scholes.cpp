#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/random.hpp"
#include "common/validate.hpp"
#include "cpu/black_scholes.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/black_scholes.hpp"
#endif

namespace tb::black_scholes {
namespace {

struct Case {
  std::size_t n;
  std::vector<float> spot, strike, years;
  std::vector<double> call, put;
  explicit Case(std::size_t n_) : n(n_), spot(n), strike(n), years(n), call(n), put(n) {
    fill_uniform(std::span<float>(spot), kSeed, kSpotLo, kSpotHi);
    fill_uniform(std::span<float>(strike), kSeed + 1, kStrikeLo, kStrikeHi);
    fill_uniform(std::span<float>(years), kSeed + 2, kYearsLo, kYearsHi);
    serial(spot.data(), strike.data(), years.data(), call.data(), put.data(), n);
  }
  ErrorStats check(const float* c, const float* p) const {
    return compare_prices(c, p, call.data(), put.data(), n);
  }
};

TEST(BlackScholes, ReferenceKnownValue) {
  // S = 100, X = 100, T = 1, r = 0.02, vol = 0.3: N(d1) with d1 = 0.2167, d2 = -0.0833.
  const float s = 100.f, x = 100.f, t = 1.f;
  double call = 0, put = 0;
  serial(&s, &x, &t, &call, &put, 1);
  EXPECT_NEAR(call, 12.8216, 1e-3);
  EXPECT_NEAR(put, 10.8414, 1e-3);
}

TEST(BlackScholes, ReferenceSatisfiesPutCallParity) {
  Case c(10007);
  for (std::size_t i = 0; i < c.n; ++i) {
    const double forward = c.spot[i] - c.strike[i] * std::exp(-double{kRiskFree} * c.years[i]);
    ASSERT_NEAR(c.call[i] - c.put[i], forward, 1e-9 * c.strike[i]) << i;
  }
}

TEST(BlackScholes, Fp32MatchesReference) {
  for (std::size_t n : test::edge_sizes()) {
    Case c(n);
    std::vector<float> call(n), put(n), call2(n), put2(n);
    poison(std::span<float>(call));
    poison(std::span<float>(put));
    poison(std::span<float>(call2));
    poison(std::span<float>(put2));
    serial_fp32(c.spot.data(), c.strike.data(), c.years.data(), call.data(), put.data(), n);
    omp(c.spot.data(), c.strike.data(), c.years.data(), call2.data(), put2.data(), n);
    EXPECT_TRUE(passes(c.check(call.data(), put.data()), kTolerance)) << "serial_fp32 n=" << n;
    EXPECT_TRUE(passes(c.check(call2.data(), put2.data()), kTolerance)) << "omp n=" << n;
  }
}

TEST(BlackScholes, SwappedOutputsFail) {
  Case c(1000);
  std::vector<float> call(c.n), put(c.n);
  serial_fp32(c.spot.data(), c.strike.data(), c.years.data(), call.data(), put.data(), c.n);
  EXPECT_FALSE(passes(c.check(put.data(), call.data()), kTolerance));
}

#if TWINBENCH_HAVE_CUDA
// Runs on the CPU (no GPU needed), but gpu/black_scholes.hpp needs the CUDA headers.
// gpu::black_scholes_price_fast (the cuda variant's math) on the CPU, with each fast intrinsic
// replaced by the exact result moved by the intrinsic's documented worst-case error (CUDA Math
// API) in the direction bit `i` of `mask` picks for the i-th call of the option:
//   __logf: absolute 2^-21.41 for x in [0.5, 2], else 3 ulp; __expf: 2 + floor(|1.173 x|) ulp;
//   __fdividef (div and rcp): 2 ulp; rsqrtf: 2 ulp. One ulp of v is taken as |v| 2^-23 (an upper
//   bound), fma is the exact fused fmaf, and the perturbed double is rounded to float once more.
// The kernel makes 6 such calls per option (rsqrt, div, log, exp, rcp, exp), so the 64 masks
// cover every combination of directions.
struct EmulatedFastOps {
  unsigned mask = 0;
  bool perturb = true;
  mutable int call = 0;
  double sign() const {
    const int bit = call++ % 6;
    return (mask >> bit) & 1u ? 1.0 : -1.0;
  }
  float rel(double exact, double ulps) const {
    const double s = sign();
    return static_cast<float>(perturb ? exact * (1.0 + s * ulps * 0x1p-23) : exact);
  }
  float log(float x) const {
    const double exact = std::log(double{x});
    const double bound =
        x >= 0.5f && x <= 2.f ? std::exp2(-21.41) : 3.0 * std::fabs(exact) * 0x1p-23;
    const double s = sign();
    return static_cast<float>(perturb ? exact + s * bound : exact);
  }
  float exp(float x) const {
    return rel(std::exp(double{x}), 2.0 + std::floor(std::fabs(1.173 * x)));
  }
  float rcp(float x) const { return rel(1.0 / x, 2.0); }
  float div(float x, float y) const { return rel(double{x} / y, 2.0); }
  float rsqrt(float x) const { return rel(1.0 / std::sqrt(double{x}), 2.0); }
  float fma(float a, float b, float c) const { return std::fmaf(a, b, c); }
};

// Worst error of the emulated fast math over all 64 error-direction masks.
ErrorStats emulated_fast_error(const std::vector<float>& spot, const std::vector<float>& strike,
                               const std::vector<float>& years, const std::vector<double>& call,
                               const std::vector<double>& put, bool perturb) {
  const float mu = kRiskFree + 0.5f * kVolatility * kVolatility;
  const float inv_vol = 1.f / kVolatility;
  const std::size_t n = spot.size();
  std::vector<float> c(n), p(n);
  ErrorStats worst;
  for (unsigned mask = 0; mask < (perturb ? 64u : 1u); ++mask) {
    for (std::size_t i = 0; i < n; ++i) {
      const EmulatedFastOps ops{.mask = mask, .perturb = perturb};
      gpu::black_scholes_price_fast(ops, spot[i], strike[i], years[i], kRiskFree, kVolatility, mu,
                                    inv_vol, c[i], p[i]);
    }
    const ErrorStats e = compare_prices(c.data(), p.data(), call.data(), put.data(), n);
    if (!e.finite || e.max_rel > worst.max_rel) worst = e;
    if (!e.finite) break;
  }
  return worst;
}

// The benchmark's random options, and a grid over the corners and interior of the input ranges.
// Passing needs a 2x margin to the tolerance, so the unmodelled rounding of the float
// arithmetic between the calls cannot tip it over.
TEST(BlackScholes, FastMathWithIntrinsicErrorsWithinTolerance) {
  Case random(20000);
  std::vector<float> s, x, t;
  for (int i = 0; i <= 25; ++i)
    for (int j = 0; j <= 33; ++j)
      for (int k = 0; k <= 19; ++k) {
        s.push_back(kSpotLo + (kSpotHi - kSpotLo) * i / 25.f);
        x.push_back(kStrikeLo + (kStrikeHi - kStrikeLo) * j / 33.f);
        t.push_back(kYearsLo + (kYearsHi - kYearsLo) * k / 19.f);
      }
  std::vector<double> grid_call(s.size()), grid_put(s.size());
  serial(s.data(), x.data(), t.data(), grid_call.data(), grid_put.data(), s.size());
  const Tolerance margin{kTolerance.rel / 2, kTolerance.scale_floor};
  for (bool perturb : {false, true}) {
    const ErrorStats e1 = emulated_fast_error(random.spot, random.strike, random.years, random.call,
                                              random.put, perturb);
    const ErrorStats e2 = emulated_fast_error(s, x, t, grid_call, grid_put, perturb);
    EXPECT_TRUE(passes(e1, margin))
        << "random, perturb=" << perturb << ": " << describe(e1, kTolerance);
    EXPECT_TRUE(passes(e2, margin))
        << "grid, perturb=" << perturb << ": " << describe(e2, kTolerance);
    RecordProperty(perturb ? "random_max_rel_perturbed" : "random_max_rel",
                   describe(e1, kTolerance));
    RecordProperty(perturb ? "grid_max_rel_perturbed" : "grid_max_rel", describe(e2, kTolerance));
  }
}

using Launch = void (*)(const float*, const float*, const float*, float*, float*, std::size_t,
                        gpu::BlackScholesMarket, int, cudaStream_t);

void expect_gpu_matches(Launch launch, const char* label) {
  Stream s;
  const gpu::BlackScholesMarket market{kRiskFree, kVolatility};
  for (std::size_t n : test::edge_sizes()) {
    Case c(n);
    auto ds = upload(std::span<const float>(c.spot));
    auto dx = upload(std::span<const float>(c.strike));
    auto dt = upload(std::span<const float>(c.years));
    DeviceBuffer<float> dc(n), dp(n);
    for (int block : test::test_blocks()) {
      CUDA_CHECK(tb::test::memset_sync(dc.data(), 0xFF, dc.bytes()));
      CUDA_CHECK(tb::test::memset_sync(dp.data(), 0xFF, dp.bytes()));
      launch(ds.data(), dx.data(), dt.data(), dc.data(), dp.data(), n, market, block, s);
      s.synchronize();
      std::vector<float> call(n), put(n);
      download(std::span<float>(call), dc);
      download(std::span<float>(put), dp);
      const ErrorStats e = c.check(call.data(), put.data());
      EXPECT_TRUE(passes(e, kTolerance))
          << label << " n=" << n << " block=" << block << ": " << describe(e, kTolerance);
    }
  }
}

TEST(BlackScholesGpu, CudaMatchesReference) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::black_scholes_cuda, "cuda");
}

TEST(BlackScholesGpu, CudaErfcMatchesReference) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::black_scholes_cuda_erfc, "cuda_erfc");
}

TEST(BlackScholesGpu, CudaNaiveMatchesReference) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::black_scholes_cuda_naive, "cuda_naive");
}

TEST(BlackScholesGpu, UnalignedPointersFallBack) {
  TB_REQUIRE_GPU();
  Stream s;
  Case c(1001);
  auto ds = upload(std::span<const float>(c.spot));
  auto dx = upload(std::span<const float>(c.strike));
  auto dt = upload(std::span<const float>(c.years));
  DeviceBuffer<float> dc(1001), dp(1001);
  // Element 0 is never written: poisoned, so the downloads copy no uninitialised memory.
  CUDA_CHECK(tb::test::memset_sync(dc.data(), 0xFF, dc.bytes()));
  CUDA_CHECK(tb::test::memset_sync(dp.data(), 0xFF, dp.bytes()));
  gpu::black_scholes_cuda(ds.data() + 1, dx.data() + 1, dt.data() + 1, dc.data() + 1, dp.data() + 1,
                          1000, {kRiskFree, kVolatility}, 256, s);
  s.synchronize();
  std::vector<float> call(1001), put(1001);
  download(std::span<float>(call), dc);
  download(std::span<float>(put), dp);
  const ErrorStats e =
      compare_prices(call.data() + 1, put.data() + 1, c.call.data() + 1, c.put.data() + 1, 1000);
  EXPECT_TRUE(passes(e, kTolerance)) << describe(e, kTolerance);
}
#endif

}  // namespace
}  // namespace tb::black_scholes
