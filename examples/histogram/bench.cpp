// histogram: 256 bins of n int32 keys. Reads 4 B a key and writes the bins; exact counts.
#include <twinbench/twinbench.hpp>

#include "histogram.hpp"

void histogram_bench(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({1 << 20, 1 << 26}, /*quick=*/1 << 16)) {
    twinbench::Case& c = b.add_case({{"n", n}});
    auto keys = c.input<std::int32_t>("keys", n, twinbench::uniform(0, histogram::kBins));
    auto bins = c.output<std::uint32_t>("bins", histogram::kBins);  // exact: tolerance 0
    c.work({.read_bytes = 4.0 * n, .written_bytes = 4.0 * histogram::kBins, .items = 1.0 * n});
    c.reference([=] { histogram::serial(keys.host(), bins.ref(), n); });
    c.cpu("serial", [=] { histogram::serial(keys.host(), bins.host(), n); });
    c.cpu("omp", [=] { histogram::omp(keys.host(), bins.host(), n); }, {.threaded = true});
#if TWINBENCH_HAVE_CUDA
    c.gpu("cuda_shared", [=](twinbench::Launch& l) {
      histogram::cuda_shared(keys.device(), bins.device(), n, l.block(), l.stream());
    }, {.stats = [n](const twinbench::Launch& l) { return histogram::cuda_shared_stats(n, l.block()); }});
#endif
  }
}
TWINBENCH_BENCH("histogram", "256-bin histogram of int32 keys: atomics in shared memory on the GPU",
                histogram_bench);
