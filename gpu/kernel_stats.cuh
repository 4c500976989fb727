#pragma once
// Occupancy and resource figures of a kernel, for the benchmark counters.
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <tuple>

#include <twinbench/twinbench.hpp>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// The public twinbench::kernel_stats (common/author.cpp), for the suite's launchers.
template <class Kernel>
KernelStats kernel_stats(Kernel kernel, int block_threads, long long grid_blocks,
                         std::size_t dynamic_smem = 0) {
  return twinbench::kernel_stats(reinterpret_cast<const void*>(kernel), block_threads, grid_blocks,
                                 dynamic_smem);
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
