#pragma once
// Launchers for alloc (host-callable; kernels live in alloc.cu).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// The tiny piece of work every alloc variant does on its buffer: one kernel of one warp that
// writes `value` into the first and the last 32-bit word of [p, p + bytes) (bytes >= 4), so the
// whole range is known to be mapped and something is timed even when nothing is allocated.
void alloc_touch_ends(void* p, std::size_t bytes, std::uint32_t value, cudaStream_t stream);
KernelStats alloc_touch_ends_stats();

}  // namespace tb::gpu

// ---- The device rows' iterations (host code, moved from bench/alloc.cpp).
#include <cstdint>
#include <optional>

#include "common/cuda_raii.hpp"

namespace tb::gpu {

constexpr std::uint32_t kAllocValue = 0xC0FFEEu;

// Reads back the two words the touch kernel wrote: how many do not hold kAllocValue.
inline int alloc_wrong_ends(const void* p, std::size_t bytes) {
  const auto* w = static_cast<const std::uint32_t*>(p);
  std::uint32_t first = 0, last = 0;
  CUDA_CHECK(cudaMemcpy(&first, w, sizeof first, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&last, w + bytes / sizeof(std::uint32_t) - 1, sizeof last,
                        cudaMemcpyDeviceToHost));
  return (first != kAllocValue) + (last != kAllocValue);
}

// The device's default memory pool with its release threshold raised to "never", so memory
// freed by cudaFreeAsync stays in the pool across the stream synchronizes (the default
// threshold, 0, hands it back to the driver at every synchronize and each iteration would pay
// for a fresh mapping). Restored, and the pool trimmed, when the row ends.
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

// One device row's state for its life (a non-blocking stream of its own; cuda_reuse's buffer;
// cuda_malloc_async's pool setting) and its iteration: every variant does the same tiny work
// (alloc_touch_ends, then a stream synchronize).
class AllocRow {
 public:
  enum Kind { reuse, malloc_free, malloc_async };
  AllocRow(Kind kind, std::size_t bytes) : kind_(kind), bytes_(bytes) {
    if (kind == reuse) buf_.emplace(bytes);
    if (kind == malloc_async) keep_.emplace();
  }
  // One iteration; with `check`, the ends read back before the free (wrong ones counted).
  int iteration(bool check) {
    int wrong = 0;
    void* p = nullptr;
    switch (kind_) {
      case reuse:
        // On s_, not the legacy stream: a non-blocking stream is not ordered after cudaMemset.
        if (check) CUDA_CHECK(cudaMemsetAsync(buf_->data(), 0, bytes_, s_));
        alloc_touch_ends(buf_->data(), bytes_, kAllocValue, s_);
        s_.synchronize();
        if (check) wrong = alloc_wrong_ends(buf_->data(), bytes_);
        break;
      case malloc_free:
        CUDA_CHECK(cudaMalloc(&p, bytes_));
        alloc_touch_ends(p, bytes_, kAllocValue, s_);
        CUDA_CHECK(cudaStreamSynchronize(s_));
        if (check) wrong = alloc_wrong_ends(p, bytes_);
        CUDA_CHECK(cudaFree(p));
        break;
      case malloc_async:
        CUDA_CHECK(cudaMallocAsync(&p, bytes_, s_));
        alloc_touch_ends(p, bytes_, kAllocValue, s_);
        if (check) {
          CUDA_CHECK(cudaStreamSynchronize(s_));
          wrong = alloc_wrong_ends(p, bytes_);
        }
        CUDA_CHECK(cudaFreeAsync(p, s_));
        CUDA_CHECK(cudaStreamSynchronize(s_));
        break;
    }
    return wrong;
  }

 private:
  Kind kind_;
  std::size_t bytes_;
  std::optional<KeepPoolMemory> keep_;
  Stream s_;
  std::optional<DeviceBuffer<unsigned char>> buf_;
};

// Pinned host memory: cudaHostAlloc maps and page-locks every page (and registers them with
// the device) before it returns, so its cost grows with the size; the two writes are trivial.
// Returns the wrong ends with `check`.
inline int alloc_host_iteration(std::size_t bytes, bool check) {
  unsigned char* p = nullptr;
  CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&p), bytes, cudaHostAllocDefault));
  volatile unsigned char* v = p;
  v[0] = 1;
  v[bytes - 1] = 1;
  const int bad = check ? (v[0] != 1) + (v[bytes - 1] != 1) : 0;
  CUDA_CHECK(cudaFreeHost(p));
  return bad;
}

}  // namespace tb::gpu
