#pragma once
// The collectives workload's GPU side: one rank per device in one process, each with its send
// and receive buffers and its stream, and NCCL's five collectives over them (gpu/nccl.hpp).
// Host-callable; the fill and check kernels live in collectives.cu.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/collectives.hpp"
#include "common/cuda_raii.hpp"
#include "gpu/nccl.hpp"

namespace tb::gpu::collectives {

using tb::collectives::Op;

// Rank r's buffers for one (op, size), on devices[r], sends filled with rank r's inputs.
class Buffers {
 public:
  Buffers(const std::vector<int>& devices, Op op, std::size_t bytes);
  Op op() const { return op_; }
  int ranks() const { return static_cast<int>(devices_.size()); }
  const tb::collectives::Counts& counts() const { return counts_; }

  // Enqueues the collective on every rank's stream (one NCCL group), without waiting.
  void launch(const nccl::Comms& comms);
  // Waits for every rank's stream.
  void synchronize();
  // One validation run: the receive buffers poisoned (NaN), the collective, then how many
  // received elements differ from the expected values, over every rank.
  std::uint64_t mismatches(const nccl::Comms& comms);

 private:
  std::vector<int> devices_;
  Op op_;
  tb::collectives::Counts counts_;
  std::vector<DeviceBuffer<float>> send_, recv_;
  std::vector<Stream> streams_;
  std::vector<DeviceBuffer<unsigned long long>> bad_;  // a mismatch counter per rank
};

}  // namespace tb::gpu::collectives
