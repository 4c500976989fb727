#pragma once
// Move-only owners of device memory, pinned host memory, streams and events. Host code only
// (the C runtime API), so bench/ and tests/ compile with the host compiler.
#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <utility>

#include "common/cuda_check.hpp"

namespace tb {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), n_ * sizeof(T)));
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  T* data() const { return ptr_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  void release() noexcept {
    if (ptr_) CUDA_CHECK_NOEXCEPT(cudaFree(ptr_));
    ptr_ = nullptr;
  }
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

// Page-locked host memory: the only kind the copy engines can read at full speed and
// overlap with kernels.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t n, unsigned flags = cudaHostAllocDefault) : n_(n) {
    if (n_ > 0) CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), n_ * sizeof(T), flags));
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { release(); }

  T* data() const { return ptr_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  std::span<T> span() const { return {ptr_, n_}; }

 private:
  void release() noexcept {
    if (ptr_) CUDA_CHECK_NOEXCEPT(cudaFreeHost(ptr_));
    ptr_ = nullptr;
  }
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

class Stream {
 public:
  // Non-blocking: never serialised against the legacy default stream by accident.
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    if (this != &o) {
      release();
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { release(); }

  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  void release() noexcept {
    if (s_) CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(s_));
    s_ = nullptr;
  }
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) { CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags)); }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      release();
      e_ = std::exchange(o.e_, nullptr);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { release(); }

  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) const { CUDA_CHECK(cudaEventRecord(e_, s)); }
  void synchronize() const { CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Seconds from `start` to this event; both must have completed.
  double seconds_since(const Event& start) const {
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  void release() noexcept {
    if (e_) CUDA_CHECK_NOEXCEPT(cudaEventDestroy(e_));
    e_ = nullptr;
  }
  cudaEvent_t e_ = nullptr;
};

// The current device set to `device` for a scope, the previous one restored at its end (buffers,
// streams and events belong to the device current when they are made).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    CUDA_CHECK(cudaGetDevice(&previous_));
    CUDA_CHECK(cudaSetDevice(device));
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  ~DeviceScope() { CUDA_CHECK_NOEXCEPT(cudaSetDevice(previous_)); }

 private:
  int previous_ = 0;
};

template <class T>
void copy_to_device(T* dst, const T* src, std::size_t n, cudaStream_t s) {
  CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyHostToDevice, s));
}
template <class T>
void copy_to_host(T* dst, const T* src, std::size_t n, cudaStream_t s) {
  CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost, s));
}

// A device copy of host data, synchronously: for setup and tests, never in a timed region.
template <class T>
DeviceBuffer<T> upload(std::span<const T> host) {
  DeviceBuffer<T> d(host.size());
  if (!host.empty()) {
    CUDA_CHECK(cudaMemcpy(d.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
    // From pageable memory cudaMemcpy may return once the data is staged, before the DMA has
    // landed; kernels on non-blocking streams are not ordered after it. Wait for it.
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  return d;
}
template <class T>
void download(std::span<T> host, const DeviceBuffer<T>& d) {
  if (!host.empty()) CUDA_CHECK(cudaMemcpy(host.data(), d.data(), host.size_bytes(), cudaMemcpyDeviceToHost));
}

}  // namespace tb
#endif  // TWINBENCH_HAVE_CUDA
