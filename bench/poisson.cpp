// poisson benchmarks: n samples of Poisson(5) as int32, one xoroshiro128+ stream per each of
// kStreams "threads". Bytes model: 4 B written per sample (no input); compute-bound, so the
// fast cuda variant is judged by pct_copy_bw (target: within 3x of the time to write the output
// at the measured copy bandwidth, i.e. pct_copy_bw >= 33). n = 10M (the article's; 40 MB, about
// the L2) and 100M (400 MB).
#include "cpu/poisson.hpp"

#include <span>
#include <twinbench/twinbench.hpp>
#if TWINBENCH_HAVE_CUDA
#include "gpu/poisson.hpp"
#endif

namespace tb::poisson {
namespace {

// check_samples' verdict (an empty bitwise_ref: on statistics alone), its score as max_rel.
twinbench::Found verdict(std::span<const std::int32_t> got,
                         std::span<const std::int32_t> bitwise_ref) {
  const ErrorStats e = check_samples(got, bitwise_ref, kRate);
  return {passes(e, kTolerance) ? "" : describe(e, kTolerance), e.max_abs, e.max_rel};
}

void poisson(twinbench::Bench& b) {
  const CdfTable* table = &default_table();
  for (std::size_t n : b.sizes({kDefaultSize, kLargeSize}, kQuickSize)) {
    twinbench::Case& c = b.add_case({{"n", n}});
    // serial, omp and cuda must reproduce the serial samples bit for bit; the article's
    // variants and cuRAND pass on statistics alone.
    auto out = c.output<std::int32_t>("samples", n);
    out.checked_by([=](const std::int32_t* got) { return verdict({got, n}, {out.ref(), n}); });
    const auto statistics = out.check_with([n](const std::int32_t* got) {
      return verdict({got, n}, {});
    });
    c.work(work(n));
    c.reference([=] { serial(out.ref(), n, kSeed, *table); });
    c.cpu("serial", [=] { serial(out.host(), n, kSeed, *table); });
    c.cpu("omp", [=] { omp(out.host(), n, kSeed, *table); }, {.threaded = true});
    if (n <= kArticleCpuMaxSize) {
      // One core at ~0.3 us a sample: 3-5 s a sample at 10M, 22 s of the default run on the
      // H200 for its 5 samples; the OpenMP version stays, the serial one is in --full.
      if (b.full() || b.size_given())
        c.cpu("serial_article", [=] { serial_article(out.host(), n, kSeed, kRate); },
              {.algorithm = "article", .checks = {statistics}});
      c.cpu("omp_article", [=] { omp_article(out.host(), n, kSeed, kRate); },
            {.algorithm = "article", .checks = {statistics}, .threaded = true});
    }
#if TWINBENCH_HAVE_CUDA
    // No inputs to upload: e2e is the kernel plus the download of the samples.
    c.gpu("cuda",
          [=](twinbench::Launch& l) {
            gpu::poisson_cuda(out.device(), n, kSeed, *table, l.block(), l.stream());
          },
          {.stats = [n](const twinbench::Launch& l) {
            return gpu::poisson_cuda_stats(n, l.block());
          }});
    c.gpu(
        "cuda_article",
        [=](twinbench::Launch& l) {
          gpu::poisson_cuda_article(out.device(), n, kSeed, kRate, l.block(), l.stream());
        },
        {.algorithm = "article", .checks = {statistics}, .stats = [n](const twinbench::Launch& l) {
           return gpu::poisson_cuda_article_stats(n, l.block());
         }});
    c.gpu("cuda_curand",
          [=](twinbench::Launch& l) {
            gpu::poisson_curand(out.device(), n, kSeed, kRate, l.block(), l.stream());
          },
          {.checks = {statistics}, .stats = [n](const twinbench::Launch& l) {
             return gpu::poisson_curand_stats(n, l.block());
           }});
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("poisson", "Poisson(5) samples, int32: compute-bound RNG + inverse transform",
                poisson);

}  // namespace tb::poisson
