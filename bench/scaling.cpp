// scaling benchmarks: work spread over G GPUs in one process, against the same on one GPU.
// target:sgemm: C = A B in FP32 (cuBLAS, n = 4096) split by rows: GPU g holds B and its rows of A
// and computes its rows of C (strong: n/G rows each; weak: every GPU the whole product), checked
// against the float64 reference with the sgemm workload's tolerance.
// target:poisson: Poisson sampling (the poisson workload's cuda kernel) with independent streams per GPU: GPU g
// draws its share from seed kSeed + g, so the shares are independent sets of xoroshiro128+
// streams and each is bit-identical to the CPU's sampler for that seed. Strong scaling
// (scaling:strong): 100M samples in all, n/G per GPU; weak (scaling:weak): 100M per GPU.
// Timed on the host from the first launch to the last GPU's end (every share runs concurrently,
// each on its own device's stream), so the time includes the launches. Counters: gpus, and
// efficiency against the one-GPU row of the same mode registered before it (strong:
// t1 / (G tG); weak: t1 / tG), 1 on the one-GPU row by definition. gpus runs 1, 2, 4, ... and
// the count of GPUs the process sees (CUDA_VISIBLE_DEVICES narrows it). Validated once per
// row: every share against the CPU sampler (omp, bit-identical to serial) for its seed.
#include <twinbench/twinbench.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#if TWINBENCH_HAVE_CUDA
#include "gpu/scaling.hpp"
#include "gpu/sgemm.hpp"
#endif

namespace tb::scaling {
namespace {

#if TWINBENCH_HAVE_CUDA
using namespace gpu::scaling;
using twinbench::Counter;
using twinbench::Row;

// The poisson workload's large size, so that the one-GPU row is its poisson/cuda row.
constexpr std::size_t kSamples = 100'000'000;
constexpr std::size_t kQuickSamples = 1'000'000;
constexpr std::size_t kGemmN = 4096;  // the sgemm workload's large size
constexpr std::size_t kQuickGemmN = 256;

// The one-GPU row's samples of a (target, mode, size), for the efficiency of the rows after it.
using Samples = std::shared_ptr<std::vector<double>>;
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// A row of G GPUs: its samples (the one-GPU row's kept in `base`), its efficiency against the
// one-GPU row (strong: t1 / (G tG); weak: t1 / tG; 1 on the one-GPU row), gpus, us_per_run
// and the check's errors.
template <class Shares>
void add_row(twinbench::Case& c, const char* impl, twinbench::Shared<Shares> d, Mode m, int gpus,
             Samples base, bool needs_cublas) {
  c.sampled(impl, [=](Row& r) {
    if (needs_cublas && !gpu::cublas_unavailable_reason().empty())
      return r.skip(gpu::cublas_unavailable_reason()), 0.0;
    Shares& s = d.get();
    r.counter("us_per_run", 1e-6, Counter::seconds_per);
    r.counter("gpus", gpus);
    r.counter("max_abs_err", s.checked().max_abs);
    r.counter("max_rel_err", s.checked().max_rel);
    if (gpus == 1)
      r.counter("efficiency", 1.0);
    else if (!base->empty())
      r.counter("efficiency", median(*base) / (m == Mode::strong ? gpus : 1), Counter::per_second);
    const double t = s.run();
    if (gpus == 1) base->push_back(t);
    return t;
  }, {.check = [=] {
        if (gpus == 1) base->clear();  // the check's run is not a sample
        return d.get().check();
      }, .side = twinbench::Side::gpu, .gpus = gpus});
}

void scaling(twinbench::Bench& b) {
  const int devices = std::max(b.gpus(), 1);
  const std::size_t total = b.sizes({kSamples}, kQuickSamples).front();
  std::vector<int> counts;
  for (int gpus = 1; gpus <= devices; gpus *= 2) counts.push_back(gpus);
  if (counts.back() != devices) counts.push_back(devices);
  for (Mode m : {Mode::strong, Mode::weak}) {
    const Samples base = std::make_shared<std::vector<double>>();
    for (int gpus : counts) {
      twinbench::Case& c = b.add_case({{"target", "poisson"}, {"scaling", mode_name(m)},
                                       {"gpus", gpus}, {"n", total}});
      const double samples = static_cast<double>(m == Mode::weak ? total * gpus : total);
      c.work({.written_bytes = 4.0 * samples, .items = samples, .held_to_ceiling = false});
      // Device 0's share (the others alike, or smaller).
      c.extra_memory(0, 4.0 * static_cast<double>(share(m, total, 0, gpus)));
      add_row(c, "cuda", c.shared<PoissonShares>([=] { return std::make_unique<PoissonShares>(m, total, gpus); }),
              m, gpus, base, false);
    }
  }
  const std::size_t n = b.quick() ? kQuickGemmN : kGemmN;
  const auto inputs = b.shared<GemmInputs>([n] { return std::make_unique<GemmInputs>(n); });
  const double dn = static_cast<double>(n);
  for (Mode m : {Mode::strong, Mode::weak}) {
    const Samples base = std::make_shared<std::vector<double>>();
    for (int gpus : counts) {
      twinbench::Case& c = b.add_case({{"target", "sgemm"}, {"scaling", mode_name(m)},
                                       {"gpus", gpus}, {"n", n}});
      c.work({.flops = 2.0 * dn * dn * dn * (m == Mode::weak ? gpus : 1), .held_to_ceiling = false});
      // Device 0's B and rows of A and C (the others alike, or fewer rows).
      c.extra_memory(0, 4.0 * (2.0 * static_cast<double>(share(m, n, 0, gpus)) * dn + dn * dn));
      add_row(c, "cublas", c.shared<GemmShares>([=] { return std::make_unique<GemmShares>(m, inputs.get(), gpus); }),
              m, gpus, base, true);
    }
  }
}
#else
void scaling(twinbench::Bench&) {}
#endif

}  // namespace

TWINBENCH_BENCH("scaling",
                "Poisson sampling and sgemm (split by rows) spread over 1, 2, 4, ... GPUs: "
                "strong and weak scaling efficiency against one GPU",
                scaling);

}  // namespace tb::scaling
