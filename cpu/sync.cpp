#include "cpu/sync.hpp"

#include <omp.h>

namespace tb::sync {
namespace {

__attribute__((noinline)) void bump(std::uint64_t* counter) {
  *counter += 1;
  asm volatile("" : : "r"(counter) : "memory");  // the store is observable: no merging of calls
}

}  // namespace

std::uint64_t serial_calls(int count) {
  // Read through a volatile pointer-to-function, so the call cannot be resolved at compile time.
  void (*volatile fn)(std::uint64_t*) = bump;
  std::uint64_t counter = 0;
  for (int i = 0; i < count; ++i) fn(&counter);
  return counter;
}

std::uint64_t omp_fork_join(int count) {
  std::uint64_t counter = 0;
  for (int i = 0; i < count; ++i) {
#pragma omp parallel shared(counter)
    {
      if (omp_get_thread_num() == 0) counter += 1;
    }
  }
  return counter;
}

}  // namespace tb::sync
