// black_scholes benchmarks: call and put prices of n options, float32 (serial is the float64
// reference). Bytes model: 20 B per option (spot, strike, years read; call, put written);
// FLOP model: 25 per option, counting sqrt, log, exp and the normal CDF's erfc as one each;
// items = options.
// n = 10M (200 MB, 4x the GPU's L2): a well-built GPU kernel runs at the copy bandwidth.
// CPU rows: serial (float64 reference), serial_fp32 (scalar, erfcf), omp (threads + SIMD across
// options, the GPU cuda variant's polynomial CDF), omp_erfc (the same with libmvec's erfcf, as
// cuda_erfc on the GPU).
#include <twinbench/twinbench.hpp>

#include "cpu/black_scholes.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/black_scholes.hpp"
#endif

namespace tb::black_scholes {
namespace {

struct Quotes {
  twinbench::Input<float> spot, strike, years;
};

// Inputs 0, 1, 2 of the case: seeds kSeed, kSeed + 1, kSeed + 2.
Quotes quotes(twinbench::Case& c, std::size_t n) {
  return {c.input<float>("spot", n, twinbench::uniform(kSpotLo, kSpotHi)),
          c.input<float>("strike", n, twinbench::uniform(kStrikeLo, kStrikeHi)),
          c.input<float>("years", n, twinbench::uniform(kYearsLo, kYearsHi))};
}

void black_scholes(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({kDefaultSize}, kQuickSize)) {
    // The float64 reference as a row: float64 prices, a case of its own. The model stays 20 B
    // per option, so the rates compare the same task.
    {
      twinbench::Case& c = b.add_case({{"n", n}}, kSeed);
      const Quotes in = quotes(c, n);
      auto call = c.output<double>("call", n, kTolerance), put = c.output<double>("put", n, kTolerance);
      c.work(work(n));
      c.reference([=] { serial(in.spot.host(), in.strike.host(), in.years.host(), call.ref(), put.ref(), n); });
      c.cpu("serial", [=] { serial(in.spot.host(), in.strike.host(), in.years.host(), call.host(), put.host(), n); });
    }
    // float32 prices held to the float64 ones (compare_prices' rule, each output on its own).
    twinbench::Case& c = b.add_case({{"n", n}}, kSeed);
    const Quotes in = quotes(c, n);
    auto ref_call = c.scratch<double>("ref_call", n), ref_put = c.scratch<double>("ref_put", n);
    const auto held_to = [n](twinbench::Scratch<double> ref) {
      return [=](const float* got) {
        const ErrorStats e = compare_price(got, ref.host(), n);
        return twinbench::Found{passes(e, kTolerance) ? "" : describe(e, kTolerance), e.max_abs, e.max_rel};
      };
    };
    auto call = c.output<float>("call", n).checked_by(held_to(ref_call));
    auto put = c.output<float>("put", n).checked_by(held_to(ref_put));
    c.work(work(n));
    c.reference([=] { serial(in.spot.host(), in.strike.host(), in.years.host(), ref_call.host(), ref_put.host(), n); });
    using CpuImpl = void (*)(const float*, const float*, const float*, float*, float*, std::size_t);
    const auto cpu = [&](const char* impl, CpuImpl run, twinbench::Options o) {
      c.cpu(impl, [=] { run(in.spot.host(), in.strike.host(), in.years.host(), call.host(), put.host(), n); }, o);
    };
    cpu("serial_fp32", serial_fp32, {.precision = "fp32"});
    cpu("omp", omp, {.threaded = true});
    cpu("omp_erfc", omp_erfc, {.algorithm = "erfc", .threaded = true});
#if TWINBENCH_HAVE_CUDA
    using Launcher = void (*)(const float*, const float*, const float*, float*, float*, std::size_t,
                              gpu::BlackScholesMarket, int, cudaStream_t);
    using Stats = gpu::KernelStats (*)(std::size_t, int);
    const auto kernel = [&](const char* impl, Launcher launch, Stats stats, const char* algorithm = "") {
      c.gpu(impl, [=](twinbench::Launch& l) {
        launch(in.spot.device(), in.strike.device(), in.years.device(), call.device(), put.device(), n,
               {kRiskFree, kVolatility}, l.block(), l.stream());
      }, {.algorithm = algorithm, .stats = [=](const twinbench::Launch& l) { return stats(n, l.block()); }});
    };
    kernel("cuda", gpu::black_scholes_cuda, gpu::black_scholes_cuda_stats);
    kernel("cuda_erfc", gpu::black_scholes_cuda_erfc, gpu::black_scholes_cuda_erfc_stats, "erfc");
    kernel("cuda_naive", gpu::black_scholes_cuda_naive, gpu::black_scholes_cuda_naive_stats);
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("black_scholes",
                "Black-Scholes call and put prices, float32: transcendental-heavy streaming",
                black_scholes);

}  // namespace tb::black_scholes
