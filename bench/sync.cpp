// sync benchmarks: microseconds per launch (counter us_per_launch) of a one-thread kernel under
// different synchronisation patterns, and the CPU's analogues. Host wall-clock time: a launch
// is CPU time spent in the driver and a synchronize is the host waiting to be told the device
// is done; CUDA events would only see the device side (see common/host_api_timing.hpp). Bytes
// model: none; items = launches. Validation: every kernel adds 1 to a device counter, which must
// equal the number of launches, once before timing and again after the timed loop.
#include "bench/twinbench.hpp"

#include "cpu/sync.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/host_api_timing.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/sync.hpp"
#endif

namespace tb::sync {
namespace {

constexpr Tolerance kExact{0.0};

// Items: the launches (or calls, or parallel regions) of one iteration.
WorkModel launches_work(int launches) { return {.items = static_cast<double>(launches)}; }

void finish(benchmark::State& state, int launches) {
  state.counters["launches_per_iter"] = launches;
}

double count_error(std::uint64_t got, std::uint64_t expected) {
  return got > expected ? static_cast<double>(got - expected) : static_cast<double>(expected - got);
}

// K calls of an out-of-line function: what a "launch" costs when no other processor is involved.
void add_serial(const RunConfig& cfg) {
  const auto spec = bench_spec("sync", "serial_call", {{"launches", kLaunches}});
  add_cpu_benchmark(cfg, spec, launches_work(kLaunches), [](benchmark::State& state) {
    const auto check = [] { return count_errors(count_error(serial_calls(kLaunches), kLaunches)); };
    run_checked(state, kExact, check, [&] {
      timed_loop(state, "us_per_launch", kLaunches,
                 [] { benchmark::DoNotOptimize(serial_calls(kLaunches)); });
      finish(state, kLaunches);
    });
  });
}

// K OpenMP parallel regions: fork, one tiny task, join. The CPU twin of cuda_launch_sync.
void add_omp(const RunConfig& cfg) {
  const auto spec =
      bench_spec("sync", "omp_fork_join", {{"launches", kLaunches}}).on_threads(omp_threads());
  add_cpu_benchmark(cfg, spec, launches_work(kLaunches), [](benchmark::State& state) {
    const auto check = [] {
      return count_errors(count_error(omp_fork_join(kLaunches), kLaunches));
    };
    run_checked(state, kExact, check, [&] {
      timed_loop(state, "us_per_launch", kLaunches,
                 [] { benchmark::DoNotOptimize(omp_fork_join(kLaunches)); });
      finish(state, kLaunches);
    });
  });
}

#if TWINBENCH_HAVE_CUDA
// A stream of our own (non-blocking) and the device counter the kernels increment.
struct SyncData {
  Stream stream;
  DeviceBuffer<unsigned> counter{1};

  // The variants use our stream or the legacy default stream; a device-wide synchronize puts
  // the reset and the read after all of them.
  void reset() const {
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemset(counter.data(), 0, sizeof(unsigned)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  unsigned read() const {
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned v = 0;
    CUDA_CHECK(cudaMemcpy(&v, counter.data(), sizeof v, cudaMemcpyDeviceToHost));
    return v;
  }
};

// K launches captured once into a CUDA graph (capture and instantiation happen here, outside
// the timed region); launch() replays all K with one call.
class LaunchGraph {
 public:
  LaunchGraph(unsigned* counter, int count, cudaStream_t stream) {
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      gpu::sync_increment(counter, count, stream);
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

void record_kernel_shape(benchmark::State& state) {
  const gpu::KernelStats k = gpu::sync_increment_stats();
  state.counters["block"] = k.block_threads;
  state.counters["regs_per_thread"] = k.regs_per_thread;
}

using Iteration = std::function<void()>;
// Builds one iteration's work from the data (any setup, such as a graph, happens here).
using MakeIteration = std::function<Iteration(SyncData&)>;

void add_cuda(const RunConfig& cfg, const char* impl, int launches, MakeIteration make) {
  const auto spec = bench_spec("sync", impl, {{"launches", launches}});
  add_host_timed_gpu_benchmark(cfg, spec, launches_work(launches), [=](benchmark::State& state) {
    SyncData d;
    const Iteration iteration = make(d);
    const auto check = [&] {
      d.reset();
      iteration();
      return count_errors(count_error(d.read(), static_cast<std::uint64_t>(launches)));
    };
    run_checked(state, kExact, check, [&] {
      d.reset();  // the check may have skipped its run (a later repetition): a defined count
      iteration();  // warm-up
      d.reset();
      const long long calls = timed_loop(state, "us_per_launch", launches, iteration);
      // Every timed launch must have run: the counter wraps at 2^32 like the device's.
      const auto expected = static_cast<unsigned>(static_cast<std::uint64_t>(calls) *
                                                  static_cast<std::uint64_t>(launches));
      const unsigned got = d.read();
      if (got != expected) {
        skip(state, "counter after the timed loop is " + std::to_string(got) + ", expected " +
                        std::to_string(expected));
        return;
      }
      finish(state, launches);
      record_kernel_shape(state);
    });
  });
}

void register_cuda(const RunConfig& cfg) {
  // Launch + synchronize, one at a time: the round-trip latency a dependent host loop pays.
  add_cuda(cfg, "cuda_launch_sync", 1, [](SyncData& d) -> Iteration {
    return [&d] {
      gpu::sync_increment(d.counter.data(), 1, d.stream);
      d.stream.synchronize();
    };
  });
  // K launches back to back, one synchronize: launch throughput (the queue hides the latency).
  add_cuda(cfg, "cuda_launch_batch", kLaunches, [](SyncData& d) -> Iteration {
    return [&d] {
      gpu::sync_increment(d.counter.data(), kLaunches, d.stream);
      d.stream.synchronize();
    };
  });
  // The same K launches as one CUDA graph, replayed: one API call submits them all.
  add_cuda(cfg, "cuda_graph", kLaunches, [](SyncData& d) -> Iteration {
    auto graph = std::make_shared<LaunchGraph>(d.counter.data(), kLaunches, d.stream);
    return [&d, graph] {
      graph->launch(d.stream);
      d.stream.synchronize();
    };
  });
  // K launches on the legacy default stream, each followed by a 4-byte device-to-host
  // cudaMemcpy (of the counter, into pageable memory) on that stream: the copy waits for the
  // kernel and the host waits for the copy, so every launch pays the full round trip.
  add_cuda(cfg, "cuda_implicit_memcpy", kLaunches, [](SyncData& d) -> Iteration {
    return [&d] {
      unsigned host = 0;
      for (int i = 0; i < kLaunches; ++i) {
        gpu::sync_increment(d.counter.data(), 1, cudaStreamLegacy);
        CUDA_CHECK(cudaMemcpy(&host, d.counter.data(), sizeof host, cudaMemcpyDeviceToHost));
      }
      benchmark::DoNotOptimize(host);
      CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    };
  });
  // K launches on the legacy default stream, each followed by cudaMalloc + cudaFree of 256
  // bytes: cudaFree synchronizes the device, so this too serialises host and GPU per launch,
  // and adds the allocator's own cost.
  add_cuda(cfg, "cuda_implicit_malloc", kLaunches, [](SyncData& d) -> Iteration {
    return [&d] {
      for (int i = 0; i < kLaunches; ++i) {
        gpu::sync_increment(d.counter.data(), 1, cudaStreamLegacy);
        void* p = nullptr;
        CUDA_CHECK(cudaMalloc(&p, 256));
        CUDA_CHECK(cudaFree(p));
      }
      CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    };
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  add_serial(cfg);
  add_omp(cfg);
#if TWINBENCH_HAVE_CUDA
  register_cuda(cfg);
#endif
}

}  // namespace

TWINBENCH_WORKLOAD("sync",
                   "cost of kernel launches, synchronisation, CUDA graphs and implicit syncs",
                   register_benchmarks);

}  // namespace tb::sync
