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
