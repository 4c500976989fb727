// The peer_copy workload's host code: per-device buffers and streams, peer copies, their checks.
#include "gpu/peer_copy.hpp"

#include <chrono>
#include <cstring>
#include <span>
#include <stdexcept>
#include <utility>

#include "common/cuda_raii.hpp"
#include "common/gpu_context.hpp"
#include "common/gpu_links.hpp"
#include "common/host_array.hpp"
#include "cpu/transfers.hpp"

namespace tb::gpu::peer_copy {
namespace {

using transfers::compare_bytes;
using transfers::kPoison;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

ErrorStats worse(const ErrorStats& a, const ErrorStats& b) { return b.max_abs > a.max_abs ? b : a; }

}  // namespace

std::vector<Pair> ordered_pairs(int devices) {
  std::vector<Pair> out;
  for (int s = 0; s < devices; ++s)
    for (int d = 0; d < devices; ++d)
      if (s != d) out.push_back({s, d});
  return out;
}

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

LinkInfo link_info(Pair p) {
  LinkInfo info;
  info.link = links::pair_link(pci_bus_id(p.src), pci_bus_id(p.dst));
  int value = 0;
  if (cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, p.src, p.dst) == cudaSuccess)
    info.perf_rank = value;
  if (cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrNativeAtomicSupported, p.src, p.dst) ==
      cudaSuccess)
    info.native_atomics = value;
  (void)cudaGetLastError();
  return info;
}

struct PeerBuffers::Impl {
  std::size_t bytes;
  HostArray<unsigned char> pattern, readback;
  std::vector<DeviceBuffer<unsigned char>> src, dst;
  std::vector<Stream> streams;
  std::vector<Event> start, stop;  // each device's, for its stream
  std::vector<Stream> pair_streams;  // round(): one per pair, on its source device

  Impl(std::size_t b, int devices, std::uint64_t seed) : bytes(b), pattern(b), readback(b) {
    transfers::fill_bytes(pattern.span(), seed);
    for (int d = 0; d < devices; ++d) {
      const DeviceScope scope(d);
      src.emplace_back(bytes);
      dst.emplace_back(bytes);
      streams.emplace_back();
      start.emplace_back();
      stop.emplace_back();
      CUDA_CHECK(cudaMemcpy(src.back().data(), pattern.data(), bytes, cudaMemcpyHostToDevice));
    }
  }
  void copy(Pair p, cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyPeerAsync(dst[p.dst].data(), p.dst, src[p.src].data(), p.src, bytes, s));
  }
  ErrorStats check_copy(Pair p) {
    {
      const DeviceScope scope(p.dst);
      CUDA_CHECK(cudaMemset(dst[p.dst].data(), kPoison, bytes));
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    copy(p, streams[p.src]);
    streams[p.src].synchronize();
    std::memset(readback.data(), 0, bytes);
    CUDA_CHECK(cudaMemcpy(readback.data(), dst[p.dst].data(), bytes, cudaMemcpyDeviceToHost));
    return compare_bytes(readback.data(), pattern.data(), bytes);
  }
};

PeerBuffers::PeerBuffers(std::size_t bytes, int devices, std::uint64_t seed)
    : impl_(std::make_unique<Impl>(bytes, devices, seed)) {}
PeerBuffers::~PeerBuffers() = default;

double PeerBuffers::sample(Pair p) {
  Impl& d = *impl_;
  const DeviceScope scope(p.src);  // the events belong to the device of the source's stream
  d.start[p.src].record(d.streams[p.src]);
  d.copy(p, d.streams[p.src]);
  d.stop[p.src].record(d.streams[p.src]);
  d.stop[p.src].synchronize();
  return d.stop[p.src].seconds_since(d.start[p.src]);
}

ErrorStats PeerBuffers::check(Pair p) {
  const ErrorStats e = impl_->check_copy(p);
  impl_->copy(p, impl_->streams[p.src]);  // warm-up
  impl_->streams[p.src].synchronize();
  return e;
}

double PeerBuffers::round(const std::vector<Pair>& pairs) {
  Impl& d = *impl_;
  if (d.pair_streams.empty())
    for (Pair p : pairs) {
      const DeviceScope scope(p.src);
      d.pair_streams.emplace_back();
    }
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < pairs.size(); ++i) d.copy(pairs[i], d.pair_streams[i]);
  for (auto& s : d.pair_streams) s.synchronize();
  return seconds_since(t0);
}

ErrorStats PeerBuffers::check_all(const std::vector<Pair>& pairs) {
  for (Pair p : pairs)
    if (p.src < p.dst) set_peer_access(p.src, p.dst, true);
  ErrorStats worst;
  for (Pair p : pairs) worst = worse(worst, impl_->check_copy(p));
  return worst;
}

struct HostToAll::Impl {
  std::size_t bytes;
  std::vector<PinnedBuffer<unsigned char>> host;
  std::vector<DeviceBuffer<unsigned char>> dst;
  std::vector<Stream> streams;
  HostArray<unsigned char> readback;
  Impl(std::size_t b, int devices, std::uint64_t seed) : bytes(b), readback(b) {
    for (int d = 0; d < devices; ++d) {
      const DeviceScope scope(d);
      host.emplace_back(bytes, cudaHostAllocPortable);
      transfers::fill_bytes(std::span(host.back().data(), bytes), seed);
      dst.emplace_back(bytes);
      streams.emplace_back();
    }
  }
  void copy_all() {
    for (std::size_t d = 0; d < dst.size(); ++d)
      CUDA_CHECK(cudaMemcpyAsync(dst[d].data(), host[d].data(), bytes, cudaMemcpyHostToDevice,
                                 streams[d]));
    for (auto& s : streams) s.synchronize();
  }
};

HostToAll::HostToAll(std::size_t bytes, int devices, std::uint64_t seed)
    : impl_(std::make_unique<Impl>(bytes, devices, seed)) {}
HostToAll::~HostToAll() = default;

double HostToAll::round() {
  const auto t0 = std::chrono::steady_clock::now();
  impl_->copy_all();
  return seconds_since(t0);
}

ErrorStats HostToAll::check() {
  Impl& d = *impl_;
  for (std::size_t i = 0; i < d.dst.size(); ++i) {
    const DeviceScope scope(static_cast<int>(i));
    CUDA_CHECK(cudaMemset(d.dst[i].data(), kPoison, d.bytes));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  d.copy_all();
  ErrorStats worst;
  for (std::size_t i = 0; i < d.dst.size(); ++i) {
    std::memset(d.readback.data(), 0, d.bytes);
    CUDA_CHECK(cudaMemcpy(d.readback.data(), d.dst[i].data(), d.bytes, cudaMemcpyDeviceToHost));
    worst = worse(worst, compare_bytes(d.readback.data(), d.host[i].data(), d.bytes));
  }
  d.copy_all();  // warm-up
  return worst;
}

}  // namespace tb::gpu::peer_copy
