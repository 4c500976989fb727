#pragma once
// A heap array that is NOT value-initialised, so that the threads which will use it touch its
// pages first (OpenMP first touch). std::vector would zero it from one thread and the first
// timed iterations would measure page faults instead of the kernel.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>

namespace tb {

// Every live HostArray's memory, so that a cold CPU sample can evict exactly the arrays a row
// works on (common/cpu_cache_flush.hpp). Thread-safe; defined in common/cpu_cache_flush.cpp.
namespace host_arrays {
void track(const void* p, std::size_t bytes);
void untrack(const void* p);
std::size_t tracked_bytes();
}  // namespace host_arrays

template <class T>
class HostArray {
 public:
  HostArray() = default;
  explicit HostArray(std::size_t n) : n_(n) {
    if (n_ == 0) return;
    // 2 MiB alignment lets the kernel back large arrays with huge pages.
    const std::size_t align = n_ * sizeof(T) >= (std::size_t{1} << 21) ? (std::size_t{1} << 21) : 64;
    const std::size_t bytes = (n_ * sizeof(T) + align - 1) / align * align;
    void* p = std::aligned_alloc(align, bytes);
    if (!p) throw std::bad_alloc();
    ptr_.reset(static_cast<T*>(p));
    host_arrays::track(p, bytes);
  }
  T* data() { return ptr_.get(); }
  const T* data() const { return ptr_.get(); }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return ptr_[i]; }
  const T& operator[](std::size_t i) const { return ptr_[i]; }
  std::span<T> span() { return {ptr_.get(), n_}; }
  std::span<const T> span() const { return {ptr_.get(), n_}; }
  T* begin() { return data(); }
  T* end() { return data() + n_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + n_; }

 private:
  struct Free {
    void operator()(T* p) const {
      host_arrays::untrack(p);
      std::free(p);
    }
  };
  std::unique_ptr<T[], Free> ptr_;
  std::size_t n_ = 0;
};

}  // namespace tb
