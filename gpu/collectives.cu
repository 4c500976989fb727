#include "gpu/collectives.hpp"

#include <stdexcept>

#include "common/cuda_check.hpp"

namespace tb::gpu::collectives {
namespace {

using tb::collectives::expected_value;
using tb::collectives::input_value;

constexpr int kBlock = 256;

unsigned grid_for(std::size_t n) {
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  return static_cast<unsigned>(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

__global__ void fill_kernel(float* send, std::size_t n, int rank) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    send[i] = input_value(rank, i);
}

__global__ void check_kernel(const float* recv, std::size_t n, Op op, int rank, int ranks,
                             std::size_t chunk, unsigned long long* bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    mine += recv[i] != expected_value(op, rank, ranks, i, chunk);  // NaN never equals
  if (mine) atomicAdd(bad, mine);
}

void enqueue(Op op, const float* send, float* recv, const tb::collectives::Counts& c, int ranks,
             nccl::Comm comm, cudaStream_t s) {
  const nccl::Api& a = nccl::api();
  switch (op) {
    case Op::all_reduce:
      nccl::check(a.all_reduce(send, recv, c.send, nccl::kFloat32, nccl::kSum, comm, s),
                  "ncclAllReduce");
      return;
    case Op::all_gather:
      nccl::check(a.all_gather(send, recv, c.send, nccl::kFloat32, comm, s), "ncclAllGather");
      return;
    case Op::reduce_scatter:
      nccl::check(a.reduce_scatter(send, recv, c.recv, nccl::kFloat32, nccl::kSum, comm, s),
                  "ncclReduceScatter");
      return;
    case Op::broadcast:
      nccl::check(a.broadcast(send, recv, c.send, nccl::kFloat32, tb::collectives::kRoot, comm, s),
                  "ncclBroadcast");
      return;
    case Op::all_to_all:  // as nccl-tests does it: a send and a receive per peer, in one group
      for (int peer = 0; peer < ranks; ++peer) {
        nccl::check(a.send(send + peer * c.chunk, c.chunk, nccl::kFloat32, peer, comm, s),
                    "ncclSend");
        nccl::check(a.recv(recv + peer * c.chunk, c.chunk, nccl::kFloat32, peer, comm, s),
                    "ncclRecv");
      }
      return;
  }
}

}  // namespace

Buffers::Buffers(const std::vector<int>& devices, int first_rank, int total_ranks, Op op,
                 std::size_t bytes)
    : devices_(devices), first_rank_(first_rank), total_ranks_(total_ranks), op_(op),
      counts_(tb::collectives::counts(op, bytes, total_ranks)) {
  if (counts_.send == 0 || counts_.recv == 0)
    throw std::invalid_argument("collectives: " + std::to_string(bytes) +
                                " bytes is under one float per rank");
  for (int r = 0; r < local_ranks(); ++r) {
    DeviceScope scope(devices_[r]);
    send_.emplace_back(counts_.send);
    recv_.emplace_back(counts_.recv);
    streams_.emplace_back();
    bad_.emplace_back(1);
    fill_kernel<<<grid_for(counts_.send), kBlock, 0, streams_[r]>>>(send_[r].data(), counts_.send,
                                                                    first_rank_ + r);
    CUDA_CHECK(cudaGetLastError());
  }
  synchronize();
}

void Buffers::launch(const nccl::Comms& comms) {
  nccl::check(nccl::api().group_start(), "ncclGroupStart");
  for (int r = 0; r < local_ranks(); ++r)
    enqueue(op_, send_[r].data(), recv_[r].data(), counts_, ranks(), comms[r], streams_[r]);
  nccl::check(nccl::api().group_end(), "ncclGroupEnd");
}

void Buffers::synchronize() {
  for (auto& s : streams_) s.synchronize();
}

std::uint64_t Buffers::mismatches(const nccl::Comms& comms) {
  for (int r = 0; r < local_ranks(); ++r) {
    DeviceScope scope(devices_[r]);
    CUDA_CHECK(cudaMemsetAsync(recv_[r].data(), 0xFF, recv_[r].bytes(), streams_[r]));
    CUDA_CHECK(cudaMemsetAsync(bad_[r].data(), 0, sizeof(unsigned long long), streams_[r]));
  }
  launch(comms);
  std::uint64_t total = 0;
  for (int r = 0; r < local_ranks(); ++r) {
    DeviceScope scope(devices_[r]);
    check_kernel<<<grid_for(counts_.recv), kBlock, 0, streams_[r]>>>(
        recv_[r].data(), counts_.recv, op_, first_rank_ + r, ranks(), counts_.chunk,
        bad_[r].data());
    CUDA_CHECK(cudaGetLastError());
    unsigned long long bad = 0;
    CUDA_CHECK(cudaMemcpyAsync(&bad, bad_[r].data(), sizeof bad, cudaMemcpyDeviceToHost,
                               streams_[r]));
    streams_[r].synchronize();
    total += bad;
  }
  return total;
}

}  // namespace tb::gpu::collectives

// ---- Host code: the devices and the communicator across processes.
#include <algorithm>
#include <numeric>

#include "common/gpu_context.hpp"
#include "common/mpi_run.hpp"

namespace tb::gpu::collectives {
namespace {

// Why this rank cannot take part in NCCL across processes ("" when it can).
std::string rank_problem() {
  if (!nccl::api().ok()) return nccl::api().error;
  if (!gpu_info().available) return gpu_info().status;
  return "";
}

// Whether every rank can: "" or, on every rank, why not (this rank's reason, or how many others
// have one). Called by every rank at the same point.
std::string ranks_problem() {
  const std::string mine = rank_problem();
  const int failing = static_cast<int>(mpi::sum_over_ranks(mine.empty() ? 0.0 : 1.0));
  if (failing == 0) return "";
  const std::string count = std::to_string(failing) + " of " + std::to_string(mpi::size()) +
                            " ranks cannot run NCCL (each rank needs a GPU of its own: mpirun -np "
                            "N with N at most the GPUs per node)";
  return mine.empty() ? count : "rank " + std::to_string(mpi::rank()) + ": " + mine + "; " + count;
}

}  // namespace

std::vector<int> all_devices() {
  std::vector<int> d(static_cast<std::size_t>(std::max(gpu_info().device_count, 1)));
  std::iota(d.begin(), d.end(), 0);
  return d;
}

RankComms::RankComms() : problem(ranks_problem()) {
  if (!problem.empty()) return;
  nccl::UniqueId id{};
  if (mpi::rank() == 0) id = nccl::unique_id();
  mpi::from_root(&id, sizeof id);
  comms = std::make_unique<nccl::Comms>(id, mpi::rank(), mpi::size());
}

}  // namespace tb::gpu::collectives
