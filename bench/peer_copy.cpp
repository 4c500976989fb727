// peer_copy benchmarks: the links between GPUs. One cudaMemcpyPeerAsync of `bytes` per sample
// from device src to device dst, for every ordered pair, with peer access enabled both ways
// (peer_access:on: the copy goes over NVLink or PCIe peer-to-peer) and disabled (off: the driver
// stages it through host memory); and all pairs at once (src:all, dst:all: every ordered pair
// copying concurrently, host-timed from the first launch to the last wait), whose bytes are the
// sum over pairs, the bisection figure. Bytes model: the bytes copied once (a link's GB/s);
// us_per_transfer at 8 B is the link's latency. Validated once per row: the destination poisoned,
// one copy, the bytes compared with the source. With fewer than two GPUs the rows of the pair
// (0, 1) skip, saying how many the process sees. Counters: p2p_perf_rank and p2p_native_atomics
// from cudaDeviceGetP2PAttribute (the driver's ranking of the link: 0 is its best); field link:
// what joins the pair, in nvidia-smi topo -m's words from NVML (common/gpu_links.hpp).
// src:host, dst:all: the host's pinned memory copied to every device at once, each device's copy
// on its own stream, host-timed: the host's own limit (its PCIe root ports and memory) when
// several GPUs pull at once, beside the transfers workload's one-device h2d rows. Runs with one
// GPU too.
#include <twinbench/twinbench.hpp>

#include <algorithm>
#include <memory>
#include <optional>

#include "cpu/transfers.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/peer_copy.hpp"
#endif

namespace tb::peer_copy {
namespace {

#if TWINBENCH_HAVE_CUDA
using namespace gpu::peer_copy;
using twinbench::Counter;
using twinbench::Row;

constexpr std::uint64_t kSeed = 0x5eedb2b;

twinbench::Work work(double bytes) { return {.read_bytes = bytes, .items = 1.0, .held_to_ceiling = false}; }

void peer_copy(twinbench::Bench& b) {
  // Fewer than two GPUs: the rows of the pair (0, 1), which skip and say why.
  const int devices = std::max(b.gpus(), 2), host_devices = std::max(b.gpus(), 1);
  const std::vector<std::size_t> quick = {8, std::size_t{64} << 10};
  const std::vector<std::size_t> all = {8, std::size_t{64} << 10, std::size_t{4} << 20,
                                        std::size_t{256} << 20};  // 8 B: the latency
  const auto pairs = ordered_pairs(devices);
  const double n_pairs = static_cast<double>(pairs.size());
  for (std::size_t bytes : b.size_given() ? b.sizes({}, 0) : b.quick() ? quick : all) {
    const auto size = static_cast<double>(bytes);
    twinbench::Case& c = b.add_case({});
    c.work(work(size));
    // A source and a destination per device (device 0's share; the others alike), and the
    // host's pattern and readback.
    c.extra_memory(2 * size, 2 * size);
    auto d = c.shared<PeerBuffers>([=] { return std::make_unique<PeerBuffers>(bytes, devices, kSeed); });
    for (Pair p : pairs)
      for (bool on : {true, false}) {
        auto info = std::make_shared<std::optional<LinkInfo>>();
        c.sampled("cuda", [=](Row& r) {
          if (!*info) *info = link_info(p);
          if (!(*info)->link.empty()) r.field("link", (*info)->link);
          if ((*info)->perf_rank >= 0) r.counter("p2p_perf_rank", (*info)->perf_rank);
          if ((*info)->native_atomics >= 0) r.counter("p2p_native_atomics", (*info)->native_atomics);
          r.counter("us_per_transfer", 1e-6, Counter::seconds_per);
          return d.get().sample(p);
        }, {.axes = {{"src", p.src}, {"dst", p.dst}, {"bytes", bytes}, {"peer_access", on ? "on" : "off"}},
            .check = [=] {
              set_peer_access(p.src, p.dst, on);
              return transfers::verdict(d.get().check(p));
            }, .side = twinbench::Side::gpu, .gpus = 2, .gpu_events = true});
      }
    twinbench::Case& every = b.add_case({{"src", "all"}, {"dst", "all"}, {"bytes", bytes}});
    every.work(work(size * n_pairs));
    every.extra_memory(2 * size, 2 * size);
    auto e = every.shared<PeerBuffers>([=] { return std::make_unique<PeerBuffers>(bytes, devices, kSeed); });
    every.sampled("cuda", [=](Row& r) {
      r.counter("us_per_round", 1e-6, Counter::seconds_per);
      r.counter("pairs", n_pairs);
      return e.get().round(pairs);
    }, {.axes = {{"peer_access", "on"}}, .check = [=] { return transfers::verdict(e.get().check_all(pairs)); },
        .side = twinbench::Side::gpu, .gpus = 2});
    twinbench::Case& host = b.add_case({{"src", "host"}, {"dst", "all"}, {"bytes", bytes}});
    host.work(work(size * host_devices));
    host.extra_memory((host_devices + 1.0) * size, size);
    auto h = host.shared<HostToAll>([=] { return std::make_unique<HostToAll>(bytes, host_devices, kSeed); });
    host.sampled("cuda", [=](Row& r) {
      r.counter("us_per_round", 1e-6, Counter::seconds_per);
      r.counter("devices", host_devices);
      return h.get().round();
    }, {.check = [=] { return transfers::verdict(h.get().check()); }, .side = twinbench::Side::gpu});
  }
}
#else
void peer_copy(twinbench::Bench&) {}
#endif

}  // namespace

TWINBENCH_BENCH("peer_copy",
                "GPU-to-GPU copies for every ordered pair, with and without peer access, and "
                "all pairs at once",
                peer_copy);

}  // namespace tb::peer_copy
