#pragma once
// The GPU side of a row (internals of the author object, common/author.cpp): block-size and
// capability checks, the block sizes of each mode, and the poison rule on the device.
#if TWINBENCH_HAVE_CUDA
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/gpu_timing.hpp"
#include "common/capability.hpp"
#include "common/cuda_raii.hpp"
#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "common/host_array.hpp"
#include "gpu/kernel_stats.hpp"

namespace tb {

// A block size the device cannot run, or one that leaves a warp partly empty, is a skip with
// the reason rather than a launch error.
inline bool check_block(benchmark::State& state, int threads) {
  const int limit = gpu_info().max_threads_per_block > 0 ? gpu_info().max_threads_per_block : 1024;
  if (threads <= 0 || threads > limit) {
    skip(state, "block size " + std::to_string(threads) + " is outside the device limit of 1.." +
                    std::to_string(limit) + " threads per block");
    return false;
  }
  if (threads % 32 != 0) {
    skip(state, "block size " + std::to_string(threads) +
                    " is not a multiple of the warp size (32): the last warp would run part-empty");
    return false;
  }
  return true;
}

// Skips the row with the reason when the device, or the code this build has for the kernel
// (KernelStats::code_arch; 0 when not known: the device alone decides), lacks what it needs.
inline bool check_capability(benchmark::State& state, GpuFeature needs, int code_arch = 0) {
  if (needs == GpuFeature::none) return true;
  const std::string why =
      capability_missing(needs, gpu_info().cc_major * 10 + gpu_info().cc_minor, code_arch);
  if (why.empty()) return true;
  skip(state, why);
  return false;
}

// An e2e row is mostly PCIe copies (~55 GB/s against the kernel's HBM at ~4 TB/s): the block
// size moves it by well under its noise, so by default e2e rows run one block size, and the
// kernel rows the whole sweep. --full, --block or --block2d sweep e2e too.
inline constexpr int kE2eBlock = 256;
inline constexpr Block2 kE2eBlock2d{16, 16};

inline std::vector<int> blocks_1d(const RunConfig& cfg, Mode mode) {
  if (mode == Mode::kernel || cfg.full || !cfg.blocks.empty()) return block_sweep_1d(cfg);
  return {kE2eBlock};
}

inline std::vector<Block2> blocks_2d(const RunConfig& cfg, Mode mode) {
  if (mode == Mode::kernel || cfg.full || !cfg.blocks2d.empty()) return block_sweep_2d(cfg);
  return {kE2eBlock2d};
}

// The host's poison rule on the device (common/validate.hpp): the same byte for the same type
// and validation pass, so an unwritten element or an accumulator never reset fails.
template <class T>
void poison_device(const DeviceBuffer<T>& d, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(d.data(), poison_byte<T>(), d.bytes(), stream));
}

// A GPU row's check runs every stage whatever the mode, so a variant's kernel and e2e rows share
// one verdict, keyed by the description's name without its mode.
inline std::string mode_independent_key(const BenchSpec& spec) {
  return spec.in_mode(Mode::none).name();
}

}  // namespace tb
#endif  // TWINBENCH_HAVE_CUDA
