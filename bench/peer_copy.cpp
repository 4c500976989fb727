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
#include "bench/twinbench.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/transfers.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/gpu_context.hpp"
#include "common/gpu_links.hpp"
#include "common/host_api_timing.hpp"
#include "common/row_fields.hpp"
#endif

namespace tb::peer_copy {
namespace {

#if TWINBENCH_HAVE_CUDA
using transfers::compare_bytes;
using transfers::fill_bytes;
using transfers::kPoison;

constexpr std::uint64_t kSeed = 0x5eedb2b;

// 8 B (latency), 64 KiB, 4 MiB, 256 MiB (quick: the first two).
std::vector<std::size_t> sizes(bool quick) {
  if (quick) return {8, std::size_t{64} << 10};
  return {8, std::size_t{64} << 10, std::size_t{4} << 20, std::size_t{256} << 20};
}

WorkModel work(double bytes) {
  return {.read_bytes = bytes, .items = 1.0, .held_to_ceiling = false};
}

struct Pair {
  int src, dst;
};

// Every ordered pair of the devices the process sees.
std::vector<Pair> ordered_pairs(int devices) {
  std::vector<Pair> out;
  for (int s = 0; s < devices; ++s)
    for (int d = 0; d < devices; ++d)
      if (s != d) out.push_back({s, d});
  return out;
}

// Turns peer access between a and b on or off, both ways. Throws when `on` and the devices
// cannot reach each other.
void set_peer_access(int a, int b, bool on) {
  int can_ab = 0, can_ba = 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&can_ab, a, b));
  CUDA_CHECK(cudaDeviceCanAccessPeer(&can_ba, b, a));
  if (on && !(can_ab && can_ba))
    throw std::runtime_error("devices " + std::to_string(a) + " and " + std::to_string(b) +
                             " cannot access each other (cudaDeviceCanAccessPeer)");
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    const DeviceScope scope(from);
    const cudaError_t e = on ? cudaDeviceEnablePeerAccess(to, 0) : cudaDeviceDisablePeerAccess(to);
    (void)cudaGetLastError();
    // Already in the state asked for: not an error here.
    if (e != cudaErrorPeerAccessAlreadyEnabled && e != cudaErrorPeerAccessNotEnabled) CUDA_CHECK(e);
  }
}

// One buffer and one stream per device, `bytes` each, the sources filled with the pattern.
struct DeviceData {
  std::size_t bytes;
  HostArray<unsigned char> pattern, check;
  std::vector<DeviceBuffer<unsigned char>> src, dst;
  std::vector<Stream> streams;
  DeviceData(std::size_t b, int devices) : bytes(b), pattern(b), check(b) {
    fill_bytes(pattern.span(), kSeed);
    for (int d = 0; d < devices; ++d) {
      const DeviceScope scope(d);
      src.emplace_back(bytes);
      dst.emplace_back(bytes);
      streams.emplace_back();
      CUDA_CHECK(cudaMemcpy(src.back().data(), pattern.data(), bytes, cudaMemcpyHostToDevice));
    }
  }
  // A source and a destination per device (device 0's share; the others alike), and the host's
  // pattern and readback.
  static Footprint weight(std::size_t b, int) {
    return {.host_bytes = 2.0 * b, .device_bytes = 2.0 * b};
  }
  void copy(Pair p) { copy(p, streams[p.src]); }
  void copy(Pair p, cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyPeerAsync(dst[p.dst].data(), p.dst, src[p.src].data(), p.src, bytes, s));
  }
  ErrorStats check_copy(Pair p) {
    {
      const DeviceScope scope(p.dst);
      CUDA_CHECK(cudaMemset(dst[p.dst].data(), kPoison, bytes));
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    copy(p);
    streams[p.src].synchronize();
    std::memset(check.data(), 0, bytes);
    CUDA_CHECK(cudaMemcpy(check.data(), dst[p.dst].data(), bytes, cudaMemcpyDeviceToHost));
    return compare_bytes(check.data(), pattern.data(), bytes);
  }
};

void record_link(benchmark::State& state, Pair p) {
  if (const std::string link = links::pair_link(pci_bus_id(p.src), pci_bus_id(p.dst)); !link.empty())
    set_row_field(current_benchmark(), "link", link);
  int rank = 0, atomics = 0;
  if (cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, p.src, p.dst) == cudaSuccess)
    state.counters["p2p_perf_rank"] = rank;
  if (cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, p.src, p.dst) ==
      cudaSuccess)
    state.counters["p2p_native_atomics"] = atomics;
  (void)cudaGetLastError();
}

void add_pair(const RunConfig& cfg, Pair p, std::size_t bytes, bool peer_access, int devices) {
  const auto spec = bench_spec("peer_copy", "cuda",
                               {{"src", p.src}, {"dst", p.dst},
                                {"bytes", bytes}, {"peer_access", peer_access ? "on" : "off"}});
  add_gpu_benchmark(cfg, spec, work(static_cast<double>(bytes)), [=](benchmark::State& state) {
    if (!require_gpus(state, 2)) return;
    set_peer_access(p.src, p.dst, peer_access);
    DeviceData& d = inputs<DeviceData>(bytes, devices);
    run_checked(state, transfers::kExact, [&] { return d.check_copy(p); }, [&] {
      d.copy(p);  // warm-up
      d.streams[p.src].synchronize();
      const DeviceScope scope(p.src);  // the events belong to the device of the source's stream
      Event start, stop;
      measure(state, [&] {
        start.record(d.streams[p.src]);
        d.copy(p);
        stop.record(d.streams[p.src]);
        stop.synchronize();
        return stop.seconds_since(start);
      });
      state.counters["us_per_transfer"] = benchmark::Counter(
          1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
      record_link(state, p);
    });
  });
}

void add_all_pairs(const RunConfig& cfg, std::size_t bytes, int devices) {
  const auto pairs = ordered_pairs(devices);
  const auto spec = bench_spec("peer_copy", "cuda",
                               {{"src", "all"}, {"dst", "all"}, {"bytes", bytes},
                                {"peer_access", "on"}});
  const double total = static_cast<double>(bytes) * static_cast<double>(pairs.size());
  add_host_timed_gpu_benchmark(cfg, spec, work(total), [=](benchmark::State& state) {
    if (!require_gpus(state, 2)) return;
    for (Pair p : pairs)
      if (p.src < p.dst) set_peer_access(p.src, p.dst, true);
    DeviceData& d = inputs<DeviceData>(bytes, devices);
    // A stream per pair, on its source device: a device's copies to its peers run at once, as
    // they would in an all-to-all, not one after another on one stream.
    std::vector<Stream> streams;
    for (Pair p : pairs) {
      const DeviceScope scope(p.src);
      streams.emplace_back();
    }
    // Each pair copies into the destination's one buffer: concurrent pairs into one device
    // write the same bytes, so the check is each pair's own copy, one after another.
    const auto check = [&] {
      ErrorStats worst;
      for (Pair p : pairs) {
        const ErrorStats e = d.check_copy(p);
        if (e.max_abs > worst.max_abs) worst = e;
      }
      return worst;
    };
    run_checked(state, transfers::kExact, check, [&] {
      timed_loop(state, "us_per_round", 1.0, [&] {
        for (std::size_t i = 0; i < pairs.size(); ++i) d.copy(pairs[i], streams[i]);
        for (auto& s : streams) s.synchronize();
      });
      state.counters["pairs"] = static_cast<double>(pairs.size());
    });
  });
}

// Pinned host memory holding the pattern, one buffer per device (each device's copy reads its
// own, as the ranks of a data-parallel job would), and a destination on every device.
struct HostToAll {
  std::size_t bytes;
  std::vector<PinnedBuffer<unsigned char>> host;
  std::vector<DeviceBuffer<unsigned char>> dst;
  std::vector<Stream> streams;
  HostArray<unsigned char> check;
  HostToAll(std::size_t b, int devices) : bytes(b), check(b) {
    for (int d = 0; d < devices; ++d) {
      const DeviceScope scope(d);
      host.emplace_back(bytes, cudaHostAllocPortable);
      fill_bytes(std::span(host.back().data(), bytes), kSeed);
      dst.emplace_back(bytes);
      streams.emplace_back();
    }
  }
  static Footprint weight(std::size_t b, int devices) {
    return {.host_bytes = (devices + 1.0) * b, .device_bytes = 1.0 * b};
  }
  void copy_all() {
    for (std::size_t d = 0; d < dst.size(); ++d)
      CUDA_CHECK(cudaMemcpyAsync(dst[d].data(), host[d].data(), bytes, cudaMemcpyHostToDevice,
                                 streams[d]));
    for (auto& s : streams) s.synchronize();
  }
  ErrorStats check_all() {
    for (std::size_t d = 0; d < dst.size(); ++d) {
      const DeviceScope scope(static_cast<int>(d));
      CUDA_CHECK(cudaMemset(dst[d].data(), kPoison, bytes));
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    copy_all();
    ErrorStats worst;
    for (std::size_t d = 0; d < dst.size(); ++d) {
      std::memset(check.data(), 0, bytes);
      CUDA_CHECK(cudaMemcpy(check.data(), dst[d].data(), bytes, cudaMemcpyDeviceToHost));
      const ErrorStats e = compare_bytes(check.data(), host[d].data(), bytes);
      if (e.max_abs > worst.max_abs) worst = e;
    }
    return worst;
  }
};

void add_host_to_all(const RunConfig& cfg, std::size_t bytes) {
  const auto spec = bench_spec("peer_copy", "cuda",
                               {{"src", "host"}, {"dst", "all"}, {"bytes", bytes}});
  const int devices = std::max(gpu_info().device_count, 1);
  const double total = static_cast<double>(bytes) * devices;
  add_host_timed_gpu_benchmark(cfg, spec, work(total), [=](benchmark::State& state) {
    HostToAll& d = inputs<HostToAll>(bytes, devices);
    run_checked(state, transfers::kExact, [&] { return d.check_all(); }, [&] {
      d.copy_all();  // warm-up
      timed_loop(state, "us_per_round", 1.0, [&] { d.copy_all(); });
      state.counters["devices"] = devices;
    });
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
#if TWINBENCH_HAVE_CUDA
  // Fewer than two GPUs: the rows of the pair (0, 1), which skip and say why.
  const int devices = std::max(gpu_info().device_count, 2);
  const std::vector<std::size_t> all =
      cfg.size ? std::vector<std::size_t>{*cfg.size} : sizes(cfg.quick);
  for (std::size_t bytes : all) {
    for (Pair p : ordered_pairs(devices))
      for (bool on : {true, false}) add_pair(cfg, p, bytes, on, devices);
    add_all_pairs(cfg, bytes, devices);
    add_host_to_all(cfg, bytes);
  }
#else
  (void)cfg;
#endif
}

}  // namespace

TWINBENCH_WORKLOAD("peer_copy",
                   "GPU-to-GPU copies for every ordered pair, with and without peer access, and "
                   "all pairs at once",
                   register_benchmarks);

}  // namespace tb::peer_copy
