#include <cstdint>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/transfers.hpp"

namespace tb::gpu {
namespace {

// Many 16-byte requests in flight per SM are what hides the latency of a host-memory read
// across the bus (microseconds), so the grid fills the GPU.
__global__ void copy16_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst,
                              std::size_t n16) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16;
       i += stride)
    dst[i] = src[i];
}

__global__ void copy_bytes_kernel(const unsigned char* __restrict__ src,
                                  unsigned char* __restrict__ dst, std::size_t begin,
                                  std::size_t end) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = begin + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < end; i += stride)
    dst[i] = src[i];
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

long long blocks_for(std::size_t items, int block) {
  return static_cast<long long>((items + static_cast<std::size_t>(block) - 1) / block);
}

}  // namespace

void transfers_copy(void* dst, const void* src, std::size_t bytes, int block, cudaStream_t stream) {
  if (bytes == 0) return;
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  std::size_t done = 0;
  if (aligned16(s) && aligned16(d) && bytes >= 16) {
    const std::size_t n16 = bytes / 16;
    const auto grid = persistent_grid(copy16_kernel, block, blocks_for(n16, block));
    copy16_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(
        reinterpret_cast<const uint4*>(s), reinterpret_cast<uint4*>(d), n16);
    CUDA_CHECK_LAUNCH();
    done = n16 * 16;
  }
  if (done < bytes) {
    const auto grid = persistent_grid(copy_bytes_kernel, block, blocks_for(bytes - done, block));
    copy_bytes_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(s, d, done, bytes);
    CUDA_CHECK_LAUNCH();
  }
}

KernelStats transfers_copy_stats(std::size_t bytes, int block) {
  return kernel_stats(
      copy16_kernel, block,
      bytes >= 16 ? persistent_grid(copy16_kernel, block, blocks_for(bytes / 16, block)) : 0);
}

}  // namespace tb::gpu

// ---- The transfers workload's buffers and its timed transfer (host code).
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/cuda_raii.hpp"
#include "common/host_array.hpp"
#include "cpu/transfers.hpp"

namespace tb::gpu {
namespace {

using transfers::kPoison;
// Managed memory is never allowed to take the GPU's last free memory (oversubscribing it can
// hang the device, not only this process): this much stays free.
constexpr std::size_t kManagedHeadroom = std::size_t{512} << 20;

bool is_managed(HostMemory k) { return k == HostMemory::managed || k == HostMemory::managed_prefetch; }

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
  ManagedBuffer(const ManagedBuffer&) = delete;
  ManagedBuffer& operator=(const ManagedBuffer&) = delete;
  ~ManagedBuffer() {
    if (ptr_) CUDA_CHECK_NOEXCEPT(cudaFree(ptr_));
  }
  unsigned char* data() const { return ptr_; }

 private:
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

}  // namespace

struct TransferBuffers::Impl {
  HostMemory kind;
  std::size_t bytes;
  bool concurrent_managed = false;  // the device can take prefetches and concurrent host access
  Stream stream;
  Event start, stop;
  DeviceBuffer<unsigned char> dev;
  HostArray<unsigned char> pageable;
  PinnedBuffer<unsigned char> pinned;
  std::unique_ptr<ManagedBuffer> managed;
  unsigned char* host = nullptr;      // the host side as the CPU sees it
  unsigned char* host_dev = nullptr;  // the host side as a kernel sees it (mapped, managed)

  Impl(HostMemory k, std::size_t b) : kind(k), bytes(b), dev(b) {
    switch (kind) {
      case HostMemory::pageable:
        pageable = HostArray<unsigned char>(bytes);
        host = pageable.data();
        std::memset(host, 0, bytes);  // fault the pages in now, not in the first transfer
        break;
      case HostMemory::pinned:
        pinned = PinnedBuffer<unsigned char>(bytes);
        host = pinned.data();
        break;
      case HostMemory::mapped:
        if (!device_attribute(cudaDevAttrCanMapHostMemory))
          throw std::runtime_error("the device cannot map host memory");
        pinned = PinnedBuffer<unsigned char>(bytes, cudaHostAllocMapped);
        host = pinned.data();
        CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&host_dev), host, 0));
        break;
      case HostMemory::managed:
      case HostMemory::managed_prefetch:
        if (!device_attribute(cudaDevAttrManagedMemory))
          throw std::runtime_error("the device does not support managed memory");
        concurrent_managed = device_attribute(cudaDevAttrConcurrentManagedAccess) != 0;
        if (kind == HostMemory::managed_prefetch && !concurrent_managed)
          throw std::runtime_error(
              "the device cannot prefetch managed memory (no concurrentManagedAccess)");
        managed = std::make_unique<ManagedBuffer>(bytes);
        host = host_dev = managed->data();
        break;
    }
  }

  // Untimed, before each transfer: put managed pages where the transfer starts from. For h2d the
  // host writes them (so they live on the host); for d2h a kernel writes them from device memory
  // and they are prefetched to the device.
  void prepare(bool h2d, const unsigned char* pattern) {
    if (!is_managed(kind)) return;
    if (h2d) {
      // Bulk-migrate the pages back first: faulting 1 GiB back page by page is slow.
      if (concurrent_managed) {
        prefetch(managed->data(), bytes, false, stream);
        stream.synchronize();
      }
      std::memcpy(host, pattern, bytes);
    } else {
      transfers_copy(host_dev, dev.data(), bytes, kTransfersCopyBlock, stream);
      // A kernel's writes need not migrate the pages: on the H200 (PCIe, concurrent managed
      // access) managed d2h at 4-256 KiB read 50-776 GB/s, 81-338 ns a transfer beside pinned
      // copies at 55 GB/s, because the host then touched pages that had stayed in host memory.
      // Prefetching them to the device makes every sample start where the direction needs them.
      if (concurrent_managed) prefetch(managed->data(), bytes, true, stream);
      stream.synchronize();
    }
  }

  // The timed transfer. Only enqueues on the stream, except managed d2h, which runs on the host.
  void transfer(bool h2d) {
    switch (kind) {
      case HostMemory::pageable:
      case HostMemory::pinned:
        if (h2d)
          CUDA_CHECK(cudaMemcpyAsync(dev.data(), host, bytes, cudaMemcpyHostToDevice, stream));
        else
          CUDA_CHECK(cudaMemcpyAsync(host, dev.data(), bytes, cudaMemcpyDeviceToHost, stream));
        break;
      case HostMemory::mapped:
        if (h2d)
          transfers_copy(dev.data(), host_dev, bytes, kTransfersCopyBlock, stream);
        else
          transfers_copy(host_dev, dev.data(), bytes, kTransfersCopyBlock, stream);
        break;
      case HostMemory::managed:
        if (h2d) {
          transfers_copy(dev.data(), host_dev, bytes, kTransfersCopyBlock, stream);
        } else {
          // One read per host page faults each page (and the driver's read-ahead) back.
          static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
          unsigned sum = 0;
          const volatile unsigned char* p = host;
          for (std::size_t i = 0; i < bytes; i += page) sum += p[i];
          static volatile unsigned sink;
          sink = sum;
        }
        break;
      case HostMemory::managed_prefetch:
        if (h2d) {
          prefetch(managed->data(), bytes, true, stream);
          transfers_copy(dev.data(), host_dev, bytes, kTransfersCopyBlock, stream);
        } else {
          prefetch(managed->data(), bytes, false, stream);
        }
        break;
    }
  }
};

TransferBuffers::TransferBuffers(HostMemory kind, std::size_t bytes)
    : impl_(std::make_unique<Impl>(kind, bytes)) {}
TransferBuffers::~TransferBuffers() = default;

double TransferBuffers::sample(bool h2d, const unsigned char* pattern) {
  Impl& d = *impl_;
  d.prepare(h2d, pattern);  // untimed
  if (transfers_host_timed(d.kind, h2d)) {
    const auto t0 = std::chrono::steady_clock::now();
    d.transfer(h2d);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  d.start.record(d.stream);
  d.transfer(h2d);
  d.stop.record(d.stream);
  d.stop.synchronize();
  return d.stop.seconds_since(d.start);
}

ErrorStats TransferBuffers::check(bool h2d, const unsigned char* pattern, unsigned char* readback) {
  Impl& d = *impl_;
  if (h2d) {
    CUDA_CHECK(cudaMemset(d.dev.data(), kPoison, d.bytes));
    CUDA_CHECK(cudaDeviceSynchronize());  // the legacy stream does not order our stream's copy
    if (!is_managed(d.kind)) std::memcpy(d.host, pattern, d.bytes);
    d.prepare(h2d, pattern);
    d.transfer(h2d);
    d.stream.synchronize();
    std::memset(readback, kPoison, d.bytes);
    CUDA_CHECK(cudaMemcpy(readback, d.dev.data(), d.bytes, cudaMemcpyDeviceToHost));
    return transfers::compare_bytes(readback, pattern, d.bytes);
  }
  CUDA_CHECK(cudaMemcpy(d.dev.data(), pattern, d.bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may return before the DMA lands
  std::memset(d.host, kPoison, d.bytes);
  d.prepare(h2d, pattern);
  d.transfer(h2d);
  d.stream.synchronize();
  return transfers::compare_bytes(d.host, pattern, d.bytes);
}

}  // namespace tb::gpu
