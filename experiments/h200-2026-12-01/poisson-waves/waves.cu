// The article's Poisson kernel (the suite's gpu/poisson_kernel.cuh article_kernel<None>, its
// launch: one thread per generator) timed at each block size with the blocks an SM held down by
// a dynamic shared-memory reservation, to see whether the C++ port's gap to Numba at blocks of
// 64-256 is wave quantization: 2^18 generators over 132 SMs x 40 resident warps are 1.55 waves,
// over Numba's 36 warps 1.72, over 32 warps (blocks of 512 and 1024, where the two were within
// 2.4%) 1.94. Prints one line per (n, block, blocks an SM): median of 15 launches, cold L2.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "gpu/poisson_kernel.cuh"

#define CK(x)                                                                       \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

using tb::gpu::poisson_detail::article_grid;
using tb::gpu::poisson_detail::article_kernel;
using tb::gpu::progress::None;

// The same kernel with its registers capped: at 32 a thread an SM holds 64 warps, and the 2^18
// generators fit in one wave of 132 SMs (0.97 waves); ptxas's spills in the walk are the price.
template <int kRegs>
__global__ void __maxnreg__(kRegs)
    capped_article_kernel(std::int32_t* __restrict__ out, std::size_t n, std::uint64_t seed,
                          double rate, unsigned, None progress) {
  tb::gpu::poisson_detail::ArticleSample sample{rate};
  None p = progress;
  tb::gpu::poisson_detail::run_streams_checked(out, n, seed, sample, p);
}

using Kernel = void (*)(std::int32_t*, std::size_t, std::uint64_t, double, unsigned, None);

int main() {
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const struct { const char* name; Kernel kernel; } kernels[] = {
      {"article", article_kernel<None>},
      {"regs32", capped_article_kernel<32>},
      {"regs40", capped_article_kernel<40>},
  };
  for (const auto& k : kernels)
    CK(cudaFuncSetAttribute(k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            static_cast<int>(prop.sharedMemPerBlockOptin)));
  // Twice the L2 written between launches, so no launch finds the previous one's output there
  // (the kernel is compute-bound: 40 MB written in ~1.2 ms).
  const size_t flush_bytes = 2 * static_cast<size_t>(prop.l2CacheSize);
  void* flush = nullptr;
  CK(cudaMalloc(&flush, flush_bytes));
  int* out = nullptr;
  const size_t max_n = 100'000'000;
  CK(cudaMalloc(&out, max_n * sizeof(int)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::printf("%-8s %-10s %5s %6s %6s %6s %10s\n", "kernel", "n", "block", "b/SM", "warps", "waves",
              "median_us");
  for (const auto& k : kernels)
  for (size_t n : {size_t{10'000'000}, max_n}) {
    for (int block : {64, 128, 256, 512, 1024}) {
      int max_blocks = 0;
      Kernel kernel = k.kernel;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&max_blocks, kernel, block, 0));
      const int max_warps = std::min(max_blocks * block / 32, prop.maxThreadsPerMultiProcessor / 32);
      for (int warps = max_warps; warps >= 16; warps -= (block >= 256 ? block / 32 : 4)) {
        const int blocks_sm = warps * 32 / block;
        if (blocks_sm < 1) break;
        // The least dynamic shared memory that holds an SM to blocks_sm blocks (the occupancy
        // falls as the reservation grows; the runtime keeps its own 1 KiB a block besides).
        int lo = 0, hi = static_cast<int>(prop.sharedMemPerBlockOptin);
        while (lo < hi) {
          const int mid = lo + (hi - lo) / 2;
          int at = 0;
          CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&at, kernel, block, mid));
          if (at <= blocks_sm) hi = mid; else lo = mid + 1;
        }
        const int smem = lo;
        int got = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, kernel, block, smem));
        if (got != blocks_sm) continue;
        std::vector<float> t;
        for (int rep = 0; rep < 16; ++rep) {
          CK(cudaMemsetAsync(flush, rep & 0xff, flush_bytes));
          CK(cudaEventRecord(e0));
          kernel<<<article_grid(n, block), block, smem>>>(out, n, 0x5eed0007, 5.0, 1u, None{});
          CK(cudaEventRecord(e1));
          CK(cudaEventSynchronize(e1));
          float ms = 0;
          CK(cudaEventElapsedTime(&ms, e0, e1));
          if (rep > 0) t.push_back(ms * 1e3f);  // the first launch warms the clocks
        }
        CK(cudaGetLastError());
        std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
        const double resident = double(prop.multiProcessorCount) * blocks_sm * block;
        const double streams = double(std::min<size_t>(n, tb::poisson::kStreams));
        std::printf("%-8s %-10zu %5d %6d %6d %6.2f %10.1f\n", k.name, n, block, blocks_sm, blocks_sm * block / 32,
                    streams / resident, t[t.size() / 2]);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
