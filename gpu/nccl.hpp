#pragma once
// NCCL, loaded at run time (as cuBLAS is): a build needs no NCCL headers or library, and a
// machine without libnccl.so.2 skips the collectives rows with the loader's reason. The entry
// points are declared here from NCCL's documented C API (nccl.h, stable since NCCL 2.0; ncclSend
// and ncclRecv since 2.7).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

namespace tb::gpu::nccl {

using Comm = struct ncclComm*;
using Result = int;  // ncclResult_t: 0 is ncclSuccess
constexpr int kFloat32 = 7;  // ncclDataType_t ncclFloat32
constexpr int kSum = 0;      // ncclRedOp_t ncclSum
// ncclUniqueId: the bootstrap's address, made by one rank and handed to the others (over MPI).
struct UniqueId {
  char bytes[128];  // NCCL_UNIQUE_ID_BYTES
};

struct Api {
  std::string error;     // why NCCL is not usable ("" when it is)
  std::string library;   // the file that was loaded
  int version = 0;       // ncclGetVersion: major * 10000 + minor * 100 + patch (2.9 and later)
  Result (*get_version)(int*) = nullptr;
  const char* (*error_string)(Result) = nullptr;
  Result (*comm_init_all)(Comm*, int, const int*) = nullptr;
  Result (*get_unique_id)(UniqueId*) = nullptr;
  Result (*comm_init_rank)(Comm*, int, UniqueId, int) = nullptr;
  Result (*comm_destroy)(Comm) = nullptr;
  Result (*group_start)() = nullptr;
  Result (*group_end)() = nullptr;
  Result (*all_reduce)(const void*, void*, std::size_t, int, int, Comm, cudaStream_t) = nullptr;
  Result (*all_gather)(const void*, void*, std::size_t, int, Comm, cudaStream_t) = nullptr;
  Result (*reduce_scatter)(const void*, void*, std::size_t, int, int, Comm,
                           cudaStream_t) = nullptr;
  Result (*broadcast)(const void*, void*, std::size_t, int, int, Comm, cudaStream_t) = nullptr;
  Result (*send)(const void*, std::size_t, int, int, Comm, cudaStream_t) = nullptr;
  Result (*recv)(void*, std::size_t, int, int, Comm, cudaStream_t) = nullptr;
  bool ok() const { return error.empty(); }
};

// Loads the first of `names` that opens and has every entry point; the error lists what was
// tried. The process's NCCL is api(): libnccl.so.2, then CUDA's own lib folders.
Api load(const std::vector<std::string>& names);
const Api& api();

// Throws std::runtime_error naming the call and NCCL's own message.
void check(Result r, const char* what);

// A new bootstrap address (ncclGetUniqueId), for rank 0 to hand to the others.
UniqueId unique_id();

// This process's communicators, destroyed with it, each on one of its devices and each rank
// `first_rank() + i` of `total_ranks()`.
class Comms {
 public:
  // One communicator per device of `devices`, in one process (ncclCommInitAll): ranks 0..n-1.
  explicit Comms(const std::vector<int>& devices);
  // One rank of a communicator over several processes (ncclCommInitRank, on the current
  // device): every process calls it with the same `id` and its own `rank`.
  Comms(const UniqueId& id, int rank, int total_ranks);
  Comms(const Comms&) = delete;
  Comms& operator=(const Comms&) = delete;
  ~Comms();
  Comm operator[](std::size_t local) const { return comms_[local]; }
  int local_ranks() const { return static_cast<int>(comms_.size()); }
  int first_rank() const { return first_rank_; }
  int total_ranks() const { return total_ranks_; }

 private:
  std::vector<Comm> comms_;
  int first_rank_ = 0;
  int total_ranks_ = 0;
};

}  // namespace tb::gpu::nccl
