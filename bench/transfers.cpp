// transfers benchmarks: one host-to-device (dir:h2d) or device-to-host (dir:d2h) transfer of
// `bytes` per iteration, 4 KiB to 1 GiB, for each kind of host memory: pageable (malloc),
// pinned (cudaHostAlloc), mapped (zero-copy: a kernel reads or writes host memory through the
// mapped pointer), managed (cudaMallocManaged, pages migrate on fault) and managed_prefetch
// (cudaMemPrefetchAsync moves them in bulk), beside serial_memcpy, a host memcpy of the same
// size. Bytes model: the bytes transferred, once (a link's GB/s); items = transfers; the
// us_per_transfer counter is the latency that dominates the small sizes.
#include <twinbench/twinbench.hpp>

#include "cpu/transfers.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/transfers.hpp"
#endif

namespace tb::transfers {
namespace {

// The bytes every transfer moves: seeded, never kPoison.
twinbench::Input<unsigned char> pattern(twinbench::Case& c, std::size_t bytes) {
  return c.input_from<unsigned char>("pattern", bytes, [](unsigned char* p, std::size_t n) {
    fill_bytes({p, n}, kSeed);
  });
}

void transfers(twinbench::Bench& b) {
  for (std::size_t bytes : b.size_given() ? b.sizes({}, 0) : sizes(b.quick(), b.full())) {
    // work(bytes) is held to no memory ceiling: the device's own copy bandwidth (HBM) is not the
    // ceiling of a host link, so that percentage would mislead; the GPU rows name their link.
    twinbench::Case& c = b.add_case({{"bytes", bytes}});
    auto src = pattern(c, bytes);
    auto dst = c.output<unsigned char>("copy", bytes);
    c.work(work(bytes));
    c.reference([=] { serial_memcpy(dst.ref(), src.host(), bytes); });
    c.cpu("serial_memcpy", [=](twinbench::Row& r) {
      serial_memcpy(dst.host(), src.host(), bytes);
      r.counter("us_per_transfer", 1e-6, twinbench::Counter::seconds_per);
    });
#if TWINBENCH_HAVE_CUDA
    using gpu::HostMemory;
    static const char* const kNames[] = {"cuda_pageable", "cuda_pinned", "cuda_mapped",
                                         "cuda_managed", "cuda_managed_prefetch"};
    for (HostMemory kind : {HostMemory::pageable, HostMemory::pinned, HostMemory::mapped,
                            HostMemory::managed, HostMemory::managed_prefetch}) {
      twinbench::Case& t = b.add_case({});
      auto from = pattern(t, bytes);
      auto readback = t.scratch<unsigned char>("readback", bytes);
      // dev (`bytes` on the GPU) and the kind's host side; managed pages count on both sides.
      const bool managed = kind == HostMemory::managed || kind == HostMemory::managed_prefetch;
      t.extra_memory(static_cast<double>(bytes), (managed ? 2.0 : 1.0) * static_cast<double>(bytes));
      auto d = t.shared<gpu::TransferBuffers>(
          [=] { return std::make_unique<gpu::TransferBuffers>(kind, bytes); });
      for (bool h2d : {true, false}) {
        // Every kind crosses the host-device link in the row's direction (mapped and managed
        // memory too): held to that link's bandwidth, measured at start with pinned copies.
        twinbench::Work w = work(bytes);
        w.link = h2d ? twinbench::Link::h2d : twinbench::Link::d2h;
        t.sampled(kNames[static_cast<int>(kind)], [=](twinbench::Row& r) {
          r.counter("us_per_transfer", 1e-6, twinbench::Counter::seconds_per);
          if (gpu::transfers_kernel_timed(kind, h2d))
            r.stats(gpu::transfers_copy_stats(bytes, gpu::kTransfersCopyBlock));
          r.counter("host_timed", gpu::transfers_host_timed(kind, h2d) ? 1 : 0);
          return d.get().sample(h2d, from.host());
        }, {.axes = {{"dir", h2d ? "h2d" : "d2h"}, {"bytes", bytes}},
            .check = [=] {
              const std::string why = verdict(d.get().check(h2d, from.host(), readback.host()));
              d.get().sample(h2d, from.host());  // warm-up
              return why;
            }, .work = w, .side = twinbench::Side::gpu, .gpu_events = true});
      }
    }
#endif
  }
}

}  // namespace

TWINBENCH_BENCH("transfers", "host<->device copies: pageable, pinned, mapped, managed vs memcpy",
                transfers);

}  // namespace tb::transfers
