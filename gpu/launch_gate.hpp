#pragma once
// A one-thread kernel that holds a stream until the host opens the gate (host-callable launcher;
// the kernel lives in gpu/launch_gate.cu). The harness queues the timed work behind it, so
// the work's launches reach the GPU before the first one runs and the events around them time
// the GPU's execution, not the host's launch latency (nvbench's blocking kernel does the same).
#include <cuda_runtime_api.h>

namespace tb::gpu {

// Spins until *open (mapped pinned host memory, device pointer) is non-zero, or until
// `timeout_ns` have passed, in which case it sets *timed_out (mapped too) and exits: a host
// that waits for the stream while the gate is closed is then stalled for the timeout, not
// forever.
void launch_gate(const unsigned* open, unsigned* timed_out, unsigned long long timeout_ns,
                 cudaStream_t stream);

}  // namespace tb::gpu
