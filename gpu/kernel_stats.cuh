#pragma once
// Occupancy and resource figures of a kernel, for the benchmark counters.
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <tuple>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

template <class Kernel>
KernelStats kernel_stats(Kernel kernel, int block_threads, long long grid_blocks,
                         std::size_t dynamic_smem = 0) {
  KernelStats s;
  const void* fn = reinterpret_cast<const void*>(kernel);
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, fn));
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int max_threads_per_sm = 0, sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  s.block_threads = block_threads;
  s.regs_per_thread = attr.numRegs;
  s.code_arch = attr.ptxVersion;
  s.static_smem_bytes = static_cast<int>(attr.sharedSizeBytes);
  s.grid_blocks = grid_blocks;
  s.sm_count = sms;
  if (block_threads > 0 && block_threads <= attr.maxThreadsPerBlock) {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&s.active_blocks_per_sm, kernel,
                                                             block_threads, dynamic_smem));
    s.occupancy = static_cast<double>(s.active_blocks_per_sm * block_threads) / max_threads_per_sm;
  }
  int min_grid = 0, suggested = 0;
  CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &suggested, kernel, dynamic_smem, 0));
  s.suggested_block = suggested;
  return s;
}

// Blocks for a grid-stride kernel: enough to fill every SM at full occupancy, no more (extra
// blocks only add scheduling work), and never more than the work needs.
// The occupancy query is cached per (kernel, block, smem): launchers call this inside timed
// regions and the query costs microseconds.
template <class Kernel>
long long persistent_grid(Kernel kernel, int block_threads, long long work_blocks,
                          std::size_t dynamic_smem = 0) {
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, std::size_t>, long long> cache;
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), block_threads, dynamic_smem);
  long long full = 0;
  {
    std::lock_guard lock(mutex);
    auto it = cache.find(key);
    if (it == cache.end()) {
      int device = 0, sms = 0, per_sm = 0;
      CUDA_CHECK(cudaGetDevice(&device));
      CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads,
                                                               dynamic_smem));
      it = cache.emplace(key, static_cast<long long>(sms) * (per_sm > 0 ? per_sm : 1)).first;
    }
    full = it->second;
  }
  return work_blocks < full ? (work_blocks > 0 ? work_blocks : 1) : full;
}

}  // namespace tb::gpu
