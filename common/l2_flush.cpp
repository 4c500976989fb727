#include "common/l2_flush.hpp"

#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#endif

namespace tb {
namespace {
bool g_cold = true;
}

void set_cold_caches(bool cold) { g_cold = cold; }
bool cold_caches() { return g_cold; }

#if TWINBENCH_HAVE_CUDA
std::size_t l2_cache_bytes() {
  static const std::size_t bytes = [] {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0) != cudaSuccess) {
      (void)cudaGetLastError();
      return std::size_t{0};
    }
    return static_cast<std::size_t>(v);
  }();
  return bytes;
}

std::size_t l2_flush_bytes() { return 2 * l2_cache_bytes(); }

#else
std::size_t l2_cache_bytes() { return 0; }
std::size_t l2_flush_bytes() { return 0; }
#endif

}  // namespace tb
