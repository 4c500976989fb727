// transfers benchmarks: one host-to-device (dir:h2d) or device-to-host (dir:d2h) transfer of
// `bytes` per iteration, 4 KiB to 1 GiB, for each kind of host memory: pageable (malloc),
// pinned (cudaHostAlloc), mapped (zero-copy: a kernel reads or writes host memory through the
// mapped pointer), managed (cudaMallocManaged, pages migrate on fault) and managed_prefetch
// (cudaMemPrefetchAsync moves them in bulk), beside serial_memcpy, a host memcpy of the same
// size. Bytes model: the bytes transferred, once (a link's GB/s); items = transfers; the
// us_per_transfer counter is the latency that dominates the small sizes.
#include "bench/twinbench.hpp"

#include "cpu/transfers.hpp"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#if TWINBENCH_HAVE_CUDA
#include "gpu/transfers.hpp"
#endif

namespace tb::transfers {
namespace {

struct HostData {
  std::size_t bytes;
  HostArray<unsigned char> pattern, check;  // the bytes every transfer moves; a readback buffer
  explicit HostData(std::size_t b) : bytes(b), pattern(b), check(b) {
    fill_bytes(pattern.span(), kSeed);
    std::memset(check.data(), 0, bytes);  // first touch here, not in a timed region
  }
  // pattern and check: `bytes` each.
  static Footprint weight(std::size_t bytes) { return {.host_bytes = 2.0 * bytes}; }
};

// work(bytes) is held to no memory ceiling: the device's own copy bandwidth (HBM) is not the
// ceiling of a host link, so that percentage would mislead; the GPU rows name their link.
void add_counters(benchmark::State& state) {
  // Microseconds per transfer: Google Benchmark divides by the time, kInvert flips it.
  state.counters["us_per_transfer"] = benchmark::Counter(
      1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void add_memcpy(const RunConfig& cfg, std::size_t bytes) {
  const auto spec = bench_spec("transfers", "serial_memcpy", {{"bytes", bytes}});
  add_cpu_benchmark(cfg, spec, work(bytes), [bytes](benchmark::State& state) {
    HostData& h = inputs<HostData>(bytes);
    const auto check = [&] {
      std::memset(h.check.data(), kPoison, bytes);
      serial_memcpy(h.check.data(), h.pattern.data(), bytes);
      return compare_bytes(h.check.data(), h.pattern.data(), bytes);
    };
    run_checked(state, kExact, check, [&] {
      measure_cpu(state, [&] {
        serial_memcpy(h.check.data(), h.pattern.data(), bytes);
        benchmark::DoNotOptimize(h.check.data());
      });
      add_counters(state);
    });
  });
}

#if TWINBENCH_HAVE_CUDA
constexpr int kCopyBlock = 256;  // the copy kernel's block (mapped, managed); not what is studied
// Managed memory is never allowed to take the GPU's last free memory (oversubscribing it can
// hang the device, not only this process): this much stays free.
constexpr std::size_t kManagedHeadroom = std::size_t{512} << 20;

enum class Kind { pageable, pinned, mapped, managed, managed_prefetch };
enum class Dir { h2d, d2h };
constexpr Kind kKinds[] = {Kind::pageable, Kind::pinned, Kind::mapped, Kind::managed,
                           Kind::managed_prefetch};

const char* impl_name(Kind k) {
  switch (k) {
    case Kind::pageable:
      return "cuda_pageable";
    case Kind::pinned:
      return "cuda_pinned";
    case Kind::mapped:
      return "cuda_mapped";
    case Kind::managed:
      return "cuda_managed";
    case Kind::managed_prefetch:
      return "cuda_managed_prefetch";
  }
  return "?";
}
bool is_managed(Kind k) { return k == Kind::managed || k == Kind::managed_prefetch; }

int device_attribute(cudaDeviceAttr attr) {
  int device = 0, value = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

class ManagedBuffer {
 public:
  ManagedBuffer() = default;
  explicit ManagedBuffer(std::size_t bytes) {
    std::size_t free = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free, &total));
    if (bytes + kManagedHeadroom > free)
      throw DeviceOutOfMemory(cudaErrorMemoryAllocation,
                              "managed buffer of " + std::to_string(bytes) +
                                  " bytes would leave less than " +
                                  std::to_string(kManagedHeadroom >> 20) + " MiB of the GPU free");
    CUDA_CHECK(cudaMallocManaged(reinterpret_cast<void**>(&ptr_), bytes, cudaMemAttachGlobal));
  }
  ManagedBuffer(ManagedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
  ManagedBuffer& operator=(ManagedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
    }
    return *this;
  }
  ManagedBuffer(const ManagedBuffer&) = delete;
  ManagedBuffer& operator=(const ManagedBuffer&) = delete;
  ~ManagedBuffer() { release(); }
  unsigned char* data() const { return ptr_; }

 private:
  void release() noexcept {
    if (ptr_) CUDA_CHECK_NOEXCEPT(cudaFree(ptr_));
    ptr_ = nullptr;
  }
  unsigned char* ptr_ = nullptr;
};

// CUDA 13 takes a cudaMemLocation and flags; earlier runtimes a device ordinal.
void prefetch(const void* p, std::size_t bytes, bool to_device, cudaStream_t stream) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
#if CUDART_VERSION >= 13000
  cudaMemLocation loc{};
  loc.type = to_device ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
  loc.id = to_device ? device : 0;
  CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, loc, 0, stream));
#else
  CUDA_CHECK(cudaMemPrefetchAsync(p, bytes, to_device ? device : cudaCpuDeviceId, stream));
#endif
}

// The buffers of one (kind, size): device memory and the kind's host-side memory.
struct DeviceData {
  Kind kind;
  std::size_t bytes;
  bool concurrent_managed = false;  // the device can take prefetches and concurrent host access
  Stream stream;
  DeviceBuffer<unsigned char> dev;
  HostArray<unsigned char> pageable;
  PinnedBuffer<unsigned char> pinned;
  ManagedBuffer managed;
  unsigned char* host = nullptr;      // the host side as the CPU sees it
  unsigned char* host_dev = nullptr;  // the host side as a kernel sees it (mapped, managed)

  DeviceData(Kind k, std::size_t b) : kind(k), bytes(b), dev(b) {
    switch (kind) {
      case Kind::pageable:
        pageable = HostArray<unsigned char>(bytes);
        host = pageable.data();
        std::memset(host, 0, bytes);  // fault the pages in now, not in the first transfer
        break;
      case Kind::pinned:
        pinned = PinnedBuffer<unsigned char>(bytes);
        host = pinned.data();
        break;
      case Kind::mapped:
        if (!device_attribute(cudaDevAttrCanMapHostMemory))
          throw std::runtime_error("the device cannot map host memory");
        pinned = PinnedBuffer<unsigned char>(bytes, cudaHostAllocMapped);
        host = pinned.data();
        CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&host_dev), host, 0));
        break;
      case Kind::managed:
      case Kind::managed_prefetch:
        if (!device_attribute(cudaDevAttrManagedMemory))
          throw std::runtime_error("the device does not support managed memory");
        concurrent_managed = device_attribute(cudaDevAttrConcurrentManagedAccess) != 0;
        if (kind == Kind::managed_prefetch && !concurrent_managed)
          throw std::runtime_error(
              "the device cannot prefetch managed memory (no concurrentManagedAccess)");
        managed = ManagedBuffer(bytes);
        host = host_dev = managed.data();
        break;
    }
  }
  // dev (`bytes` on the GPU) and the kind's host side (`bytes` pageable, pinned or mapped).
  // Managed pages migrate between the two, so the managed buffer counts on both sides.
  static Footprint weight(Kind kind, std::size_t bytes) {
    const double b = static_cast<double>(bytes);
    return {.host_bytes = b, .device_bytes = is_managed(kind) ? 2.0 * b : b};
  }
};

// Untimed, before each transfer: put managed pages where the transfer starts from. For h2d the
// host writes them (so they live on the host); for d2h a kernel writes them from device memory
// and they are prefetched to the device.
void prepare(DeviceData& d, Dir dir, const HostData& h) {
  if (!is_managed(d.kind)) return;
  if (dir == Dir::h2d) {
    // Bulk-migrate the pages back first: faulting 1 GiB back page by page is slow.
    if (d.concurrent_managed) {
      prefetch(d.managed.data(), d.bytes, false, d.stream);
      d.stream.synchronize();
    }
    std::memcpy(d.host, h.pattern.data(), d.bytes);
  } else {
    gpu::transfers_copy(d.host_dev, d.dev.data(), d.bytes, kCopyBlock, d.stream);
    // A kernel's writes need not migrate the pages: on the H200 (PCIe, concurrent managed
    // access) managed d2h at 4-256 KiB read 50-776 GB/s, 81-338 ns a transfer beside pinned
    // copies at 55 GB/s, because the host then touched pages that had stayed in host memory.
    // Prefetching them to the device makes every sample start where the direction needs them.
    if (d.concurrent_managed) prefetch(d.managed.data(), d.bytes, true, d.stream);
    d.stream.synchronize();
  }
}

// Managed d2h is driven by the host touching the pages: timed with the host clock.
bool host_timed(Kind kind, Dir dir) { return kind == Kind::managed && dir == Dir::d2h; }

// Whether the copy kernel runs inside the timed region (its counters are recorded then).
bool kernel_timed(Kind kind, Dir dir) {
  return kind == Kind::mapped || (is_managed(kind) && dir == Dir::h2d);
}

// The timed transfer. Only enqueues on the stream, except managed d2h, which runs on the host.
void transfer(DeviceData& d, Dir dir) {
  const bool h2d = dir == Dir::h2d;
  switch (d.kind) {
    case Kind::pageable:
    case Kind::pinned:
      if (h2d)
        CUDA_CHECK(
            cudaMemcpyAsync(d.dev.data(), d.host, d.bytes, cudaMemcpyHostToDevice, d.stream));
      else
        CUDA_CHECK(
            cudaMemcpyAsync(d.host, d.dev.data(), d.bytes, cudaMemcpyDeviceToHost, d.stream));
      break;
    case Kind::mapped:
      if (h2d)
        gpu::transfers_copy(d.dev.data(), d.host_dev, d.bytes, kCopyBlock, d.stream);
      else
        gpu::transfers_copy(d.host_dev, d.dev.data(), d.bytes, kCopyBlock, d.stream);
      break;
    case Kind::managed:
      if (h2d) {
        gpu::transfers_copy(d.dev.data(), d.host_dev, d.bytes, kCopyBlock, d.stream);
      } else {
        // One read per host page faults each page (and the driver's read-ahead) back.
        static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        unsigned sum = 0;
        const volatile unsigned char* p = d.host;
        for (std::size_t i = 0; i < d.bytes; i += page) sum += p[i];
        benchmark::DoNotOptimize(sum);
      }
      break;
    case Kind::managed_prefetch:
      if (h2d) {
        prefetch(d.managed.data(), d.bytes, true, d.stream);
        gpu::transfers_copy(d.dev.data(), d.host_dev, d.bytes, kCopyBlock, d.stream);
      } else {
        prefetch(d.managed.data(), d.bytes, false, d.stream);
      }
      break;
  }
}

// One transfer from a poisoned destination; the destination's bytes compared with the source.
ErrorStats check_once(DeviceData& d, Dir dir, HostData& h) {
  if (dir == Dir::h2d) {
    CUDA_CHECK(cudaMemset(d.dev.data(), kPoison, d.bytes));
    CUDA_CHECK(cudaDeviceSynchronize());  // the legacy stream does not order our stream's copy
    if (!is_managed(d.kind)) std::memcpy(d.host, h.pattern.data(), d.bytes);
    prepare(d, dir, h);
    transfer(d, dir);
    d.stream.synchronize();
    std::memset(h.check.data(), kPoison, d.bytes);
    CUDA_CHECK(cudaMemcpy(h.check.data(), d.dev.data(), d.bytes, cudaMemcpyDeviceToHost));
    return compare_bytes(h.check.data(), h.pattern.data(), d.bytes);
  }
  CUDA_CHECK(cudaMemcpy(d.dev.data(), h.pattern.data(), d.bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may return before the DMA lands
  std::memset(d.host, kPoison, d.bytes);
  prepare(d, dir, h);
  transfer(d, dir);
  d.stream.synchronize();
  return compare_bytes(d.host, h.pattern.data(), d.bytes);
}

// Every kind crosses the host-device link in the row's direction (mapped and managed memory
// too): held to that link's bandwidth, measured at start with pinned copies.
WorkModel link_work(std::size_t bytes, Dir dir) {
  WorkModel w = work(bytes);
  w.link = dir == Dir::h2d ? Link::h2d : Link::d2h;
  return w;
}

void add_transfer(const RunConfig& cfg, Kind kind, Dir dir, std::size_t bytes) {
  const auto spec = bench_spec("transfers", impl_name(kind),
                               {{"dir", dir == Dir::h2d ? "h2d" : "d2h"}, {"bytes", bytes}});
  add_gpu_benchmark(cfg, spec, link_work(bytes, dir), [=](benchmark::State& state) {
    HostData& h = inputs<HostData>(bytes);
    DeviceData& d = inputs<DeviceData>(kind, bytes);
    run_checked(state, kExact, [&] { return check_once(d, dir, h); }, [&] {
      Event start, stop;
      prepare(d, dir, h);  // warm-up
      transfer(d, dir);
      d.stream.synchronize();
      measure(state, [&] {
        prepare(d, dir, h);  // untimed
        if (host_timed(kind, dir)) {
          const auto t0 = std::chrono::steady_clock::now();
          transfer(d, dir);
          return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        start.record(d.stream);
        transfer(d, dir);
        stop.record(d.stream);
        stop.synchronize();
        return stop.seconds_since(start);
      });
      add_counters(state);
      if (kernel_timed(kind, dir))
        record_kernel(state, gpu::transfers_copy_stats(bytes, kCopyBlock));
      state.counters["host_timed"] = host_timed(kind, dir) ? 1 : 0;
    });
  });
}
#endif

void register_benchmarks(const RunConfig& cfg) {
  const std::vector<std::size_t> all =
      cfg.size ? std::vector<std::size_t>{*cfg.size} : sizes(cfg.quick, cfg.full);
  for (std::size_t bytes : all) {
    add_memcpy(cfg, bytes);
#if TWINBENCH_HAVE_CUDA
    for (Kind kind : kKinds)
      for (Dir dir : {Dir::h2d, Dir::d2h}) add_transfer(cfg, kind, dir, bytes);
#endif
  }
}

}  // namespace

TWINBENCH_WORKLOAD("transfers", "host<->device copies: pageable, pinned, mapped, managed vs memcpy",
                   register_benchmarks);

}  // namespace tb::transfers
