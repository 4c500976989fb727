#pragma once
// Error handling for the CUDA runtime API. CUDA_CHECK throws (benchmarks catch and skip);
// CUDA_CHECK_NOEXCEPT only reports, for destructors, which must never throw.
#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace tb {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// A distinct type so that benchmarks can turn it into a skip ("out of device memory") rather
// than a failure: a size that does not fit is a property of the machine, not a bug.
class DeviceOutOfMemory : public CudaError {
 public:
  using CudaError::CudaError;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);
void report_cuda_error(cudaError_t code, const char* expr, const char* file, int line) noexcept;

}  // namespace tb

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    const cudaError_t tb_cuda_status_ = (expr);                                \
    if (tb_cuda_status_ != cudaSuccess)                                        \
      ::tb::throw_cuda_error(tb_cuda_status_, #expr, __FILE__, __LINE__);      \
  } while (0)

#define CUDA_CHECK_NOEXCEPT(expr)                                              \
  do {                                                                         \
    const cudaError_t tb_cuda_status_ = (expr);                                \
    if (tb_cuda_status_ != cudaSuccess)                                        \
      ::tb::report_cuda_error(tb_cuda_status_, #expr, __FILE__, __LINE__);     \
  } while (0)

// After every kernel launch: launch errors (bad configuration) surface here, not later.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#endif  // TWINBENCH_HAVE_CUDA
