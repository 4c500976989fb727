#pragma once
// The streaming kernels' (vector_add, dot, aos_soa, streams, dtypes axpy) shared piece: the slice
// of [0, n) that a thread of an `omp parallel` region works on.
//
// Why a hand-made partition rather than `omp parallel for`: the vector body is compiled once
// per ISA level (common/cpu_isa.hpp) and a parallel region cannot sit inside it, so each thread
// calls the dispatcher once on its own slice. The slice is the one libgomp's schedule(static)
// (no chunk) gives the same thread for the same n: n / threads each, the first n % threads
// threads one more. The inputs are filled by `omp parallel for schedule(static)` loops
// (common/random.cpp, the bench files), so each thread streams the pages it touched first.
#include <omp.h>

#include <cstddef>

namespace tb::streaming {

struct Range {
  std::size_t begin = 0, end = 0;
};

// Thread t of `threads`: as libgomp's static schedule without a chunk size.
constexpr Range static_range(std::size_t n, std::size_t t, std::size_t threads) {
  const std::size_t q = n / threads, r = n % threads;
  const std::size_t begin = t * q + (t < r ? t : r);
  return {begin, begin + q + (t < r ? 1 : 0)};
}

// The calling thread's slice inside an `omp parallel` region (all of [0, n) outside one).
inline Range this_thread_range(std::size_t n) {
  return static_range(n, static_cast<std::size_t>(omp_get_thread_num()),
                      static_cast<std::size_t>(omp_get_num_threads()));
}

}  // namespace tb::streaming
