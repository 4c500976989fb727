#pragma once
// The peer_copy workload's GPU side (host code, in peer_copy.cu): buffers on every device, copies
// between them with cudaMemcpyPeerAsync, and what joins two devices.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/validate.hpp"

namespace tb::gpu::peer_copy {

struct Pair {
  int src, dst;
};

// Every ordered pair of `devices` devices.
std::vector<Pair> ordered_pairs(int devices);

// Turns peer access between a and b on or off, both ways. Throws when `on` and the devices
// cannot reach each other.
void set_peer_access(int a, int b, bool on);

// What joins a pair: nvidia-smi topo -m's words from NVML ("" unknown), and the driver's
// cudaDeviceGetP2PAttribute performance rank and native atomics (-1 where it does not say).
struct LinkInfo {
  std::string link;
  int perf_rank = -1, native_atomics = -1;
};
LinkInfo link_info(Pair p);

// One source and one destination buffer and one stream per device, `bytes` each, the sources
// filled with the seeded pattern (transfers::fill_bytes).
class PeerBuffers {
 public:
  PeerBuffers(std::size_t bytes, int devices, std::uint64_t seed);
  ~PeerBuffers();
  // One copy of the pair on the source's stream, timed with the source device's events.
  double sample(Pair p);
  // The destination poisoned, one copy, the bytes compared with the pattern; then a warm-up copy.
  ErrorStats check(Pair p);
  // Every pair at once, each on a stream of its own on its source device (as in an all-to-all),
  // from the first launch to the last wait, on the host's clock. `pairs` fixed by the first call.
  double round(const std::vector<Pair>& pairs);
  // Each pair's own copy, one after another (concurrent pairs into one device write the same
  // bytes), peer access turned on first: the worst.
  ErrorStats check_all(const std::vector<Pair>& pairs);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Pinned host memory holding the pattern, one buffer per device (each device's copy reads its
// own, as the ranks of a data-parallel job would), and a destination on every device.
class HostToAll {
 public:
  HostToAll(std::size_t bytes, int devices, std::uint64_t seed);
  ~HostToAll();
  // Every device's copy at once, each on its own stream, on the host's clock.
  double round();
  // The destinations poisoned, one round, each compared with its source; then a warm-up round.
  ErrorStats check();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tb::gpu::peer_copy
