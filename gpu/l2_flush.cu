// The L2 flush of common/l2_flush.hpp: a read of the flush buffer, so the L2 ends up holding
// clean lines of it and nothing of the benchmark's data.
#include <cuda_runtime.h>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/harness.hpp"
#include "common/l2_flush.hpp"

namespace tb {
namespace {

// Reads every 16-byte word; the sum is stored only when it equals a value it cannot take (the
// buffer is zeros), which keeps the loads without writing anything.
__global__ void l2_flush_kernel(const uint4* __restrict__ words, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 w = words[i];
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0xdeadbeefu) *sink = acc;
}

// The zeros go in on the stream of the first flush, ahead of it: a cudaMemset on the legacy
// stream would not be ordered before a flush on the suite's non-blocking streams, and a device
// synchronization here could wait on a closed launch gate (bench/progress.cpp flushes behind one).
struct FlushBuffer {
  DeviceBuffer<uint4> words;
  DeviceBuffer<unsigned> sink{1};
  int grid = 0;
  FlushBuffer(std::size_t bytes, cudaStream_t stream) : words(bytes / sizeof(uint4)) {
    CUDA_CHECK(cudaMemsetAsync(words.data(), 0, words.bytes(), stream));
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    grid = sms * 8;
  }
};

}  // namespace

void flush_l2(cudaStream_t stream) {
  // Freed with the workload's buffers (and so before exit, where a static owner would call
  // cudaFree after the runtime has shut down); made again by the next workload's first flush.
  static FlushBuffer* buffer = nullptr;
  static const bool registered = [] {
    on_workload_release([] {
      delete buffer;
      buffer = nullptr;
    });
    return true;
  }();
  (void)registered;
  if (!buffer) buffer = new FlushBuffer(l2_flush_bytes(), stream);
  if (buffer->words.size() == 0) return;
  l2_flush_kernel<<<buffer->grid, 256, 0, stream>>>(buffer->words.data(), buffer->words.size(),
                                                    buffer->sink.data());
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace tb
