#pragma once
// Launchers for sync (host-callable; kernels live in sync.cu).
#include <cuda_runtime_api.h>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// `count` back-to-back launches of a one-thread kernel that adds 1 to *counter (so the launches
// can be counted afterwards); nothing else. Launch errors are checked once after the loop (a
// failed launch leaves its error for cudaGetLastError; later successes do not clear it), not
// after each launch, so the loop times the launches alone.
void sync_increment(unsigned* counter, int count, cudaStream_t stream);
KernelStats sync_increment_stats();

}  // namespace tb::gpu

// ---- The GPU rows' state (host code, moved from bench/sync.cpp): a non-blocking stream of
// their own, the device counter every launch adds 1 to, and the launches each row repeats.
#include <cstdint>
#include <memory>

#include "common/cuda_raii.hpp"

namespace tb::gpu {

// K launches captured once into a CUDA graph (capture and instantiation happen here, outside
// the timed region); launch() replays all K with one call.
class LaunchGraph {
 public:
  LaunchGraph(unsigned* counter, int count, cudaStream_t stream) {
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      sync_increment(counter, count, stream);
    } catch (...) {
      cudaGraph_t broken = nullptr;
      if (cudaStreamEndCapture(stream, &broken) == cudaSuccess && broken) cudaGraphDestroy(broken);
      throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    const cudaError_t err = cudaGraphInstantiate(&exec_, graph_, 0);
    if (err != cudaSuccess) {
      cudaGraphDestroy(graph_);
      CUDA_CHECK(err);
    }
  }
  LaunchGraph(const LaunchGraph&) = delete;
  LaunchGraph& operator=(const LaunchGraph&) = delete;
  ~LaunchGraph() {
    if (exec_) CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(exec_));
    if (graph_) CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph_));
  }
  void launch(cudaStream_t stream) const { CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

enum class SyncPattern { launch_sync, launch_batch, graph, implicit_memcpy, implicit_malloc };

struct SyncRig {
  Stream stream;
  DeviceBuffer<unsigned> counter{1};
  unsigned expected = 0;  // launches issued since the counter was zeroed (wrapping as it does)
  std::unique_ptr<LaunchGraph> graph;
  KernelStats stats = sync_increment_stats();

  SyncRig() {
    CUDA_CHECK(cudaMemset(counter.data(), 0, sizeof(unsigned)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  // The variants use our stream or the legacy default stream; a device-wide synchronize puts
  // the read after all of them.
  unsigned read() const {
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned v = 0;
    CUDA_CHECK(cudaMemcpy(&v, counter.data(), sizeof v, cudaMemcpyDeviceToHost));
    return v;
  }
  // Setup outside the timed region (the graph's capture and instantiation).
  void prepare(SyncPattern p, int launches) {
    if (p == SyncPattern::graph && !graph)
      graph = std::make_unique<LaunchGraph>(counter.data(), launches, stream);
  }
  // One iteration of `launches` launches in pattern `p`.
  void iteration(SyncPattern p, int launches) {
    expected += static_cast<unsigned>(launches);
    switch (p) {
      // Launch + synchronize, one at a time (launches = 1): the round-trip latency a dependent
      // host loop pays. launch_batch: K launches back to back, one synchronize: launch
      // throughput (the queue hides the latency).
      case SyncPattern::launch_sync:
      case SyncPattern::launch_batch:
        sync_increment(counter.data(), launches, stream);
        stream.synchronize();
        break;
      // The same K launches as one CUDA graph, replayed: one API call submits them all.
      case SyncPattern::graph:
        graph->launch(stream);
        stream.synchronize();
        break;
      // K launches on the legacy default stream, each followed by a 4-byte device-to-host
      // cudaMemcpy (of the counter, into pageable memory) on that stream: the copy waits for the
      // kernel and the host waits for the copy, so every launch pays the full round trip.
      case SyncPattern::implicit_memcpy: {
        unsigned host = 0;
        for (int i = 0; i < launches; ++i) {
          sync_increment(counter.data(), 1, cudaStreamLegacy);
          CUDA_CHECK(cudaMemcpy(&host, counter.data(), sizeof host, cudaMemcpyDeviceToHost));
        }
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
        break;
      }
      // K launches on the legacy default stream, each followed by cudaMalloc + cudaFree of 256
      // bytes: cudaFree synchronizes the device, so this too serialises host and GPU per
      // launch, and adds the allocator's own cost.
      case SyncPattern::implicit_malloc:
        for (int i = 0; i < launches; ++i) {
          sync_increment(counter.data(), 1, cudaStreamLegacy);
          void* p = nullptr;
          CUDA_CHECK(cudaMalloc(&p, 256));
          CUDA_CHECK(cudaFree(p));
        }
        CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
        break;
    }
  }
};

}  // namespace tb::gpu
