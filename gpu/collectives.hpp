#pragma once
// The collectives workload's GPU side: one rank per device in one process, each with its send
// and receive buffers and its stream, and NCCL's five collectives over them (gpu/nccl.hpp).
// Host-callable; the fill and check kernels live in collectives.cu.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/collectives.hpp"
#include "common/cuda_raii.hpp"
#include "gpu/nccl.hpp"

namespace tb::gpu::collectives {

using tb::collectives::Op;

// This process's ranks' buffers for one (op, size): local rank i is rank first_rank + i of
// total_ranks, on devices[i], its send buffer filled with that rank's inputs.
class Buffers {
 public:
  // Every rank in this process: ranks 0..devices.size()-1.
  Buffers(const std::vector<int>& devices, Op op, std::size_t bytes)
      : Buffers(devices, 0, static_cast<int>(devices.size()), op, bytes) {}
  Buffers(const std::vector<int>& devices, int first_rank, int total_ranks, Op op,
          std::size_t bytes);
  Op op() const { return op_; }
  int local_ranks() const { return static_cast<int>(devices_.size()); }
  int ranks() const { return total_ranks_; }
  const tb::collectives::Counts& counts() const { return counts_; }

  // Enqueues the collective on every rank's stream (one NCCL group), without waiting.
  void launch(const nccl::Comms& comms);
  // Waits for every rank's stream.
  void synchronize();
  // One validation run: the receive buffers poisoned (NaN), the collective, then how many
  // received elements differ from the expected values, over this process's ranks.
  std::uint64_t mismatches(const nccl::Comms& comms);

 private:
  std::vector<int> devices_;
  int first_rank_;
  int total_ranks_;
  Op op_;
  tb::collectives::Counts counts_;
  std::vector<DeviceBuffer<float>> send_, recv_;
  std::vector<Stream> streams_;
  std::vector<DeviceBuffer<unsigned long long>> bad_;  // a mismatch counter per rank
};

// Every device the process sees (at least one), as ranks 0..n-1.
std::vector<int> all_devices();

// This rank's communicator across processes, one rank per process and GPU, bootstrapped
// through MPI as nccl-tests does it (rank 0's ncclGetUniqueId broadcast, ncclCommInitRank on
// every rank). Every rank first agrees whether all of them have a GPU and NCCL, so that none
// waits in NCCL's bootstrap for a rank that skipped: `problem` says why not, on every rank.
// Made by every rank at the same point.
struct RankComms {
  std::string problem;
  std::unique_ptr<nccl::Comms> comms;
  RankComms();
};

}  // namespace tb::gpu::collectives
