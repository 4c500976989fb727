#include "common/cuda_check.hpp"

#if TWINBENCH_HAVE_CUDA
#include <cstdio>

namespace tb {

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  std::string what = std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                     cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  // Clear the sticky-free error state so that the next benchmark starts clean.
  (void)cudaGetLastError();
  if (code == cudaErrorMemoryAllocation) throw DeviceOutOfMemory(code, what);
  throw CudaError(code, what);
}

void report_cuda_error(cudaError_t code, const char* expr, const char* file, int line) noexcept {
  std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, expr, cudaGetErrorName(code),
               cudaGetErrorString(code));
}

}  // namespace tb
#endif
