#include "common/cuda_check.hpp"
#include "gpu/launch_gate.hpp"

namespace tb::gpu {
namespace {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// volatile: every poll must read host memory again, not a cached or hoisted copy. The sleep
// keeps the poll from flooding PCIe with reads; 1 us between polls adds at most ~1 us before
// the timed work starts, which is outside the events.
__global__ void gate_kernel(const volatile unsigned* open, volatile unsigned* timed_out,
                            unsigned long long timeout_ns) {
  const unsigned long long start = global_ns();
  while (*open == 0u) {
    if (global_ns() - start > timeout_ns) {
      *timed_out = 1u;
      return;
    }
    __nanosleep(1000);
  }
}

}  // namespace

void launch_gate(const unsigned* open, unsigned* timed_out, unsigned long long timeout_ns,
                 cudaStream_t stream) {
  gate_kernel<<<1, 1, 0, stream>>>(open, timed_out, timeout_ns);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tb::gpu
