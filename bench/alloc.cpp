// alloc benchmarks: microseconds to get and release `bytes` of memory, once per iteration
// (counter us_per_alloc; host wall-clock time: these are host-side API costs, see
// common/host_api_timing.hpp). Bytes model: none (nothing is streamed); items = 1 allocation.
// Every device variant does the same tiny work per iteration (one one-warp kernel that writes the
// first and last word of the buffer, then a stream synchronize), so cuda_reuse is the baseline
// and the other rows minus it are the cost of allocating.
#include "bench/twinbench.hpp"

#include "cpu/alloc.hpp"

#include <cstdint>
#include <cstdlib>
#include <new>

#include "common/host_api_timing.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/alloc.hpp"
#endif

namespace tb::alloc {
namespace {

constexpr Tolerance kExact{0.0};

// One allocation (and its free) per iteration.
constexpr WorkModel kOneAlloc{.items = 1};

void finish(benchmark::State& state, std::size_t bytes) {
  state.counters["alloc_bytes"] = static_cast<double>(bytes);
}

// malloc + free of an untouched block: glibc serves small sizes from its arenas and large ones
// (above its mmap threshold) with mmap/munmap, so this is either a few ns or a system call.
void add_malloc(const RunConfig& cfg, std::size_t bytes) {
  const auto spec = bench_spec("alloc", "serial_malloc", {{"bytes", bytes}}).of_algorithm("malloc");
  add_cpu_benchmark(cfg, spec, kOneAlloc, [bytes](benchmark::State& state) {
    // A failed malloc is out of memory (a skip), not a wrong result (a validation failure).
    const auto check = [&] {
      if (!malloc_free(bytes)) throw std::bad_alloc();
      return count_errors(0);
    };
    run_checked(state, kExact, check, [&] {
      timed_loop(state, "us_per_alloc", 1, [&] { malloc_free(bytes); });
      finish(state, bytes);
    });
  });
}

// malloc + one write per page + free: fresh pages are mapped (and zeroed by the kernel) on first
// touch, which is the real cost of new host memory. But glibc raises its mmap threshold to the
// size of the last mmapped block it freed (up to 32 MiB), so below that a loop gets the same,
// already mapped, heap block back and touching costs only the writes; from 64 MiB every malloc
// is a fresh mmap and every page faults. (With transparent huge pages set to "always", large
// blocks fault once per 2 MiB instead.)
void add_malloc_touch(const RunConfig& cfg, std::size_t bytes) {
  const auto spec =
      bench_spec("alloc", "serial_malloc_touch", {{"bytes", bytes}}).of_algorithm("malloc");
  add_cpu_benchmark(cfg, spec, kOneAlloc, [bytes](benchmark::State& state) {
    const auto check = [&] {
      auto* p = static_cast<unsigned char*>(std::malloc(bytes));
      if (!p) throw std::bad_alloc();  // out of memory: a skip, not a validation failure
      touch_pages(p, bytes);
      const auto bad = untouched_pages(p, bytes);
      std::free(p);
      return count_errors(static_cast<double>(bad));
    };
    run_checked(state, kExact, check, [&] {
      timed_loop(state, "us_per_alloc", 1, [&] { malloc_touch_free(bytes); });
      finish(state, bytes);
    });
  });
}

#if TWINBENCH_HAVE_CUDA
constexpr std::uint32_t kValue = 0xC0FFEEu;

// Reads back the two words the touch kernel wrote: both must hold kValue.
ErrorStats check_ends(const void* p, std::size_t bytes) {
  const auto* w = static_cast<const std::uint32_t*>(p);
  const std::size_t count = bytes / sizeof(std::uint32_t);
  std::uint32_t first = 0, last = 0;
  CUDA_CHECK(cudaMemcpy(&first, w, sizeof first, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&last, w + count - 1, sizeof last, cudaMemcpyDeviceToHost));
  return count_errors((first != kValue) + (last != kValue));
}

bool check_size(benchmark::State& state, std::size_t bytes) {
  if (bytes >= sizeof(std::uint32_t)) return true;
  skip(state, "the device variants need at least 4 bytes");
  return false;
}

// One iteration of each device variant. The stream is a non-blocking one we own.
void malloc_free_iteration(std::size_t bytes, cudaStream_t s, bool validate, ErrorStats* err) {
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, bytes));
  gpu::alloc_touch_ends(p, bytes, kValue, s);
  CUDA_CHECK(cudaStreamSynchronize(s));
  if (validate) *err = check_ends(p, bytes);
  CUDA_CHECK(cudaFree(p));
}

void malloc_async_iteration(std::size_t bytes, cudaStream_t s, bool validate, ErrorStats* err) {
  void* p = nullptr;
  CUDA_CHECK(cudaMallocAsync(&p, bytes, s));
  gpu::alloc_touch_ends(p, bytes, kValue, s);
  if (validate) {
    CUDA_CHECK(cudaStreamSynchronize(s));
    *err = check_ends(p, bytes);
  }
  CUDA_CHECK(cudaFreeAsync(p, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
}

// The device's default memory pool with its release threshold raised to "never", so memory
// freed by cudaFreeAsync stays in the pool across the stream synchronizes (the default
// threshold, 0, hands it back to the driver at every synchronize and each iteration would pay
// for a fresh mapping). Restored, and the pool trimmed, when the benchmark ends.
class KeepPoolMemory {
 public:
  KeepPoolMemory() {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &old_));
    std::uint64_t keep = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep));
  }
  KeepPoolMemory(const KeepPoolMemory&) = delete;
  KeepPoolMemory& operator=(const KeepPoolMemory&) = delete;
  ~KeepPoolMemory() {
    CUDA_CHECK_NOEXCEPT(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &old_));
    CUDA_CHECK_NOEXCEPT(cudaMemPoolTrimTo(pool_, 0));
  }

 private:
  cudaMemPool_t pool_ = nullptr;
  std::uint64_t old_ = 0;
};

void add_cuda_malloc_free(const RunConfig& cfg, std::size_t bytes) {
  const auto spec =
      bench_spec("alloc", "cuda_malloc_free", {{"bytes", bytes}}).of_algorithm("malloc");
  add_host_timed_gpu_benchmark(cfg, spec, kOneAlloc, [bytes](benchmark::State& state) {
    if (!check_size(state, bytes)) return;
    Stream s;
    ErrorStats err;
    const auto check = [&] {
      malloc_free_iteration(bytes, s, true, &err);
      return err;
    };
    run_checked(state, kExact, check, [&] {
      malloc_free_iteration(bytes, s, false, nullptr);  // warm-up
      timed_loop(state, "us_per_alloc", 1,
                 [&] { malloc_free_iteration(bytes, s, false, nullptr); });
      finish(state, bytes);
    });
  });
}

void add_cuda_malloc_async(const RunConfig& cfg, std::size_t bytes) {
  const auto spec =
      bench_spec("alloc", "cuda_malloc_async", {{"bytes", bytes}}).of_algorithm("malloc");
  add_host_timed_gpu_benchmark(cfg, spec, kOneAlloc, [bytes](benchmark::State& state) {
    if (!check_size(state, bytes)) return;
    KeepPoolMemory keep;
    Stream s;
    ErrorStats err;
    const auto check = [&] {
      malloc_async_iteration(bytes, s, true, &err);
      return err;
    };
    run_checked(state, kExact, check, [&] {
      malloc_async_iteration(bytes, s, false, nullptr);  // warm-up: the pool now holds the block
      timed_loop(state, "us_per_alloc", 1,
                 [&] { malloc_async_iteration(bytes, s, false, nullptr); });
      finish(state, bytes);
    });
  });
}

void add_cuda_reuse(const RunConfig& cfg, std::size_t bytes) {
  const auto spec = bench_spec("alloc", "cuda_reuse", {{"bytes", bytes}});
  add_host_timed_gpu_benchmark(cfg, spec, kOneAlloc, [bytes](benchmark::State& state) {
    if (!check_size(state, bytes)) return;
    Stream s;
    DeviceBuffer<unsigned char> buf(bytes);
    const auto check = [&] {
      // On s, not the legacy stream: a non-blocking stream is not ordered after cudaMemset.
      CUDA_CHECK(cudaMemsetAsync(buf.data(), 0, bytes, s));
      gpu::alloc_touch_ends(buf.data(), bytes, kValue, s);
      s.synchronize();
      return check_ends(buf.data(), bytes);
    };
    run_checked(state, kExact, check, [&] {
      gpu::alloc_touch_ends(buf.data(), bytes, kValue, s);  // warm-up
      s.synchronize();
      timed_loop(state, "us_per_alloc", 1, [&] {
        gpu::alloc_touch_ends(buf.data(), bytes, kValue, s);
        s.synchronize();
      });
      finish(state, bytes);  // us_per_alloc here is the baseline: the same work, no allocation
    });
  });
}

// Pinned host memory: cudaHostAlloc maps and page-locks every page (and registers them with
// the device) before it returns, so its cost grows with the size; the two writes are trivial.
void add_cuda_host_alloc(const RunConfig& cfg, std::size_t bytes) {
  const auto spec = bench_spec("alloc", "cuda_host_alloc", {{"bytes", bytes}});
  add_host_timed_gpu_benchmark(cfg, spec, kOneAlloc, [bytes](benchmark::State& state) {
    if (bytes == 0) {
      skip(state, "size must be positive");
      return;
    }
    auto iteration = [bytes](bool validate) -> std::size_t {
      unsigned char* p = nullptr;
      CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&p), bytes, cudaHostAllocDefault));
      p[0] = 1;
      p[bytes - 1] = 1;
      benchmark::DoNotOptimize(p);
      const std::size_t bad = validate ? (p[0] != 1) + (p[bytes - 1] != 1) : 0;
      CUDA_CHECK(cudaFreeHost(p));
      return bad;
    };
    run_checked(
        state, kExact, [&] { return count_errors(static_cast<double>(iteration(true))); },
        [&] {
          timed_loop(state, "us_per_alloc", 1, [&] { iteration(false); });
          finish(state, bytes);
        });
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  for (std::size_t bytes : sizes(cfg)) {
#if TWINBENCH_HAVE_CUDA
    add_cuda_reuse(cfg, bytes);
    add_cuda_malloc_free(cfg, bytes);
    add_cuda_malloc_async(cfg, bytes);
    add_cuda_host_alloc(cfg, bytes);
#endif
    add_malloc(cfg, bytes);
    add_malloc_touch(cfg, bytes);
  }
}

}  // namespace

TWINBENCH_WORKLOAD("alloc",
                   "cost of cudaMalloc, the stream-ordered pool, pinned and host malloc vs reuse",
                   register_benchmarks);

}  // namespace tb::alloc
