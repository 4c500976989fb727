// streams benchmarks: a chunked pipeline over n floats in pinned host memory: each chunk is
// copied in, run through the compute kernel (`fma` chained FMAs per element) and copied out, the
// chunks dealt round-robin over `streams` CUDA streams; streams:1/chunks:1 is the serial
// version. Bytes model: 8 B/element over the host link (4 in, 4 out); 2*fma FLOP/element.
// Counters: overlap_efficiency = serial time / this variant's time; ideal_overlap = (sum of the
// three stages' times) / (the longest stage's time), the best overlap_efficiency possible;
// fraction_of_ideal = their ratio. The serial and stage times are measured once per size.
// CPU variants (fma:16 only: the CPU needs seconds per 2048-FMA pass) run the compute stage.
#include <twinbench/twinbench.hpp>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "cpu/streams.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/streams.hpp"
#endif

namespace tb::streams {
namespace {

void streams(twinbench::Bench& b) {
  for (std::size_t n : b.sizes({b.full() ? kFullSize : kDefaultSize}, kQuickSize)) {
    for (int fma : {kFmaLight, kFmaBalanced}) {
      const std::vector<twinbench::Axis> axes = {{"n", n}, {"fma", fma}};
      if (fma == kFmaLight) {
        twinbench::Case& c = b.add_case(axes, kSeed);
        auto in = c.input<float>("in", n);
        auto out = c.output<float>("out", n, kTolerance);
        c.work(work(n, fma));
        c.reference([=] { serial(in.host(), out.ref(), n, fma); });
        c.cpu("serial", [=] { serial(in.host(), out.host(), n, fma); });
        c.cpu("omp", [=] { omp(in.host(), out.host(), n, fma); }, {.threaded = true});
      }
#if TWINBENCH_HAVE_CUDA
      // The pipeline's copies cross PCIe: no device-memory ceiling applies to it. Its output is
      // checked by the rig (against the serial pipeline's, and the CPU's at sample points).
      twinbench::Case& c = b.add_case(axes, kSeed);
      auto in = c.input<float>("in", n);
      twinbench::Work w = work(n, fma);
      w.held_to_ceiling = false;
      c.work(w);
      const double bytes = 4.0 * static_cast<double>(n);
      c.extra_memory(3 * bytes, bytes);  // pinned in and out, the serial output; the device's out
      auto rig = c.shared<gpu::StreamsRig>(
          [=] { return std::make_unique<gpu::StreamsRig>(in.host(), in.device(), n, fma); });
      using Rig = gpu::StreamsRig;
      for (int nstreams : {1, 2, 4, 8})
        for (int chunks : Rig::kChunkCounts) {
          // More streams than chunks leaves streams idle; one chunk cannot overlap anything.
          if (chunks < nstreams || (nstreams > 1 && chunks == 1)) continue;
          const std::size_t len = gpu::streams_chunk_len(n, chunks);
          // Inline: the gate holds one stream only, and at tens of milliseconds per pipeline
          // the launch latency is noise. The counters are set once the pipeline is queued.
          c.gpu("cuda", [=](twinbench::Launch& l) {
            Rig& d = rig.get();
            d.enqueue(l.stream(), nstreams, chunks);
            for (auto [name, v] : std::initializer_list<std::pair<const char*, double>>{
                     {"streams", nstreams}, {"chunks", chunks}, {"chunk_bytes", len * 4.0},
                     {"fma", fma}, {"serial_ms", d.serial_s * 1e3}, {"h2d_ms", d.h2d_s * 1e3},
                     {"kernel_ms", d.kernel_s * 1e3}, {"d2h_ms", d.d2h_s * 1e3}})
              l.counter(name, v);
            const double longest = std::max({d.h2d_s, d.kernel_s, d.d2h_s});
            const double ideal = longest > 0 ? (d.h2d_s + d.kernel_s + d.d2h_s) / longest : 1.0;
            l.counter("ideal_overlap", ideal);
            // serial seconds x iterations / elapsed seconds = serial time / time per iteration.
            l.counter("overlap_efficiency", d.serial_s, twinbench::Counter::per_second);
            l.counter("fraction_of_ideal", d.serial_s / ideal, twinbench::Counter::per_second);
          }, {.axes = {{"streams", nstreams}, {"chunks", chunks}},
              .check = [=] { return rig.get().check(nstreams, chunks); },
              .blocks = twinbench::own_launch(), .modes = twinbench::Modes::unnamed,
              .stats = [=](const twinbench::Launch&) { return gpu::streams_compute_stats(len, Rig::kBlock); },
              .waits_for_gpu = true});
        }
#endif
    }
  }
}

}  // namespace

TWINBENCH_BENCH("streams", "chunked copy-in/kernel/copy-out pipeline over 1-8 CUDA streams", streams);

}  // namespace tb::streams
