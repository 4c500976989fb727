#pragma once
// The copy kernel of the transfers workload (host-callable; the kernel lives in transfers.cu).
// It is how zero-copy (mapped) and managed memory are moved: the GPU itself reads or writes
// host memory, or faults the pages over, as it copies.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "common/validate.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// dst[i] = src[i] for `bytes` bytes; 16-byte loads and stores when both pointers are 16-byte
// aligned, byte by byte otherwise. Grid-stride, grid sized to fill the GPU once.
void transfers_copy(void* dst, const void* src, std::size_t bytes, int block, cudaStream_t stream);
KernelStats transfers_copy_stats(std::size_t bytes, int block);

// The kinds of host memory a transfer moves bytes from or to.
enum class HostMemory { pageable, pinned, mapped, managed, managed_prefetch };
constexpr int kTransfersCopyBlock = 256;  // the copy kernel's block (mapped, managed)
// Managed d2h is driven by the host touching the pages: timed with the host clock.
inline bool transfers_host_timed(HostMemory k, bool h2d) { return k == HostMemory::managed && !h2d; }
// Whether the copy kernel runs inside the timed region (its counters are recorded then).
inline bool transfers_kernel_timed(HostMemory k, bool h2d) {
  return k == HostMemory::mapped || (h2d && (k == HostMemory::managed || k == HostMemory::managed_prefetch));
}

// The buffers of one (kind, size): `bytes` of device memory and of the kind's host side (managed
// pages migrate, so they count on both sides). Throws where the device cannot map host memory
// or has no managed memory (or cannot prefetch it), and DeviceOutOfMemory where managed memory
// would leave under 512 MiB of the GPU free.
class TransferBuffers {
 public:
  TransferBuffers(HostMemory kind, std::size_t bytes);
  ~TransferBuffers();
  // One sample: managed pages put where the transfer starts from (untimed), then one transfer,
  // timed with CUDA events (managed d2h: the host's clock). `pattern`: the bytes moved.
  double sample(bool h2d, const unsigned char* pattern);
  // One transfer into a poisoned destination (h2d: read back into `readback`), the bytes compared
  // with `pattern` (compare_bytes).
  ErrorStats check(bool h2d, const unsigned char* pattern, unsigned char* readback);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tb::gpu
