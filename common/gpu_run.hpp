#pragma once
// The GPU side of a row (internals behind bench/twinbench.hpp): block-size checks, the kernel's
// launch statistics as counters, the modes a GPU row runs in, and the usual body that validates
// once and then times the mode's stages.
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

// A GPU kernel as one object: its impl name in the rows, its launcher, the launcher's statistics
// (registers, occupancy; none for a library call) and the device capability the row as a whole
// needs, declared together so that a row cannot record another kernel's statistics. A launcher
// that picks a path inside (TMA where the device has it) needs nothing: it runs everywhere and
// the row records the path.
template <class Launch, class Stats = std::nullptr_t>
struct GpuKernel {
  const char* impl;
  Launch launch;
  Stats stats = nullptr;
  GpuFeature needs = GpuFeature::none;
};

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

inline void record_kernel(benchmark::State& state, const gpu::KernelStats& k) {
  state.counters["block"] = k.block_threads;
  state.counters["regs_per_thread"] = k.regs_per_thread;
  state.counters["static_smem_bytes"] = k.static_smem_bytes;
  state.counters["active_blocks_per_sm"] = k.active_blocks_per_sm;
  state.counters["occupancy"] = k.occupancy;
  state.counters["grid_blocks"] = static_cast<double>(k.grid_blocks);
  state.counters["suggested_block"] = k.suggested_block;
  state.counters["low_occupancy"] = k.low_occupancy() ? 1 : 0;
  state.counters["code_arch"] = k.code_arch;
  if (*k.path != '\0') state.SetLabel(k.path);
}

// The GPU rows' modes (common/bench_spec.hpp): kernel: inputs already on the device, events
// around the kernel alone (gated by default: the launch latency is left out, see Timing).
// e2e: host-to-device copy of the inputs, kernel, device-to-host copy of the output, from
// pinned host buffers; allocation stays outside the timed region.
inline constexpr Mode kModes[] = {Mode::kernel, Mode::e2e};

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

// What a GPU variant does, in stages. Each stage only enqueues work on the stream.
struct GpuStages {
  std::function<void()> poison;    // fill device and host outputs with poison (validation only)
  std::function<void()> upload;    // host-to-device copies of the inputs (timed in e2e)
  std::function<void()> compute;   // the kernel(s)
  std::function<void()> download;  // device-to-host copy of the output (timed in e2e)
  std::function<ErrorStats()> check;  // compares the downloaded output with the reference
  // How kernel mode is timed; e2e is always inline_launch (its uploads wait for the host).
  Timing kernel_timing = Timing::gated;
};

// One host-to-device copy of a row's input, from pinned host memory.
struct Upload {
  void* dst;
  const void* src;
  std::size_t bytes;
};
template <class T>
Upload to_device(const DeviceBuffer<T>& d, const PinnedBuffer<T>& h) {
  return {d.data(), h.data(), d.bytes()};
}

// The host's poison rule on the device (common/validate.hpp): the same byte for the same type
// and validation pass, so an unwritten element or an accumulator never reset fails.
template <class T>
void poison_device(const DeviceBuffer<T>& d, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(d.data(), poison_byte<T>(), d.bytes(), stream));
}

// The stages of a kernel with one output: `ups` copied to the device, the kernel, `out` copied
// back into `hout` and compared with `ref` against `tol`. Validation uploads, then starts from
// both sides of the output poisoned; e2e samples upload every time; kernel samples never do, so
// a kernel that overwrites its own input (in place) accumulates across kernel samples: restore
// the input inside `compute` or state the accumulation (docs/adding-a-workload.md).
template <class T, class R>
GpuStages io_stages(cudaStream_t stream, std::vector<Upload> ups, const DeviceBuffer<T>& out,
                    const PinnedBuffer<T>& hout, std::span<R> ref, Tolerance tol,
                    std::function<void()> compute) {
  return {
      .poison = [&out, &hout, stream] { poison_device(out, stream); poison(hout.span()); },
      .upload = [ups = std::move(ups), stream] {
        for (const Upload& u : ups)
          CUDA_CHECK(cudaMemcpyAsync(u.dst, u.src, u.bytes, cudaMemcpyHostToDevice, stream));
      },
      .compute = std::move(compute),
      .download = [&out, &hout, stream] { copy_to_host(hout.data(), out.data(), out.size(), stream); },
      .check = [&hout, ref, tol] { return compare(hout.span(), ref, tol); },
  };
}

// The usual GPU benchmark body: validate once from freshly uploaded inputs into poisoned
// outputs, then time the mode's stages.
// The validation runs every stage whatever the mode, so a variant's kernel and e2e rows share
// one verdict (keyed by the description's name without its mode).
inline std::string mode_independent_key(const BenchSpec& spec) {
  return spec.in_mode(Mode::none).name();
}

inline void run_gpu_modes(benchmark::State& state, Mode mode, cudaStream_t stream,
                          const Tolerance& tol, const GpuStages& s) {
  const bool ok = validate_once(state, mode_independent_key(current_spec()), tol, [&] {
    if (s.poison) s.poison();
    s.upload();
    s.compute();
    s.download();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return s.check();
  });
  if (!ok) return;
  time_gpu(
      state, stream,
      [&] {
        if (mode == Mode::e2e) s.upload();
        s.compute();
        if (mode == Mode::e2e) s.download();
      },
      mode == Mode::kernel ? s.kernel_timing : Timing::inline_launch);
}

// A GPU row with a check of its own (run_checked, common/cpu_run.hpp), timed with CUDA
// events around `timed`, which only enqueues work on `stream`.
template <class Check, class Timed>
void run_gpu_checked(benchmark::State& state, cudaStream_t stream, const Tolerance& tol,
                     Check&& check, Timed&& timed, Timing timing = Timing::gated) {
  run_checked(state, tol, check, [&] { time_gpu(state, stream, timed, timing); });
}

// The usual row of a kernel: the block size (block > 0; 0 where the launcher picks its own) and
// the capability it needs, validation once, the mode's timing, and the launch statistics of
// `kernel.stats(stats_args...)` as the row's counters (none where the kernel has no stats).
template <class K, class... StatsArgs>
void run_kernel(benchmark::State& state, const K& kernel, int block, Mode mode,
                cudaStream_t stream, const Tolerance& tol, const GpuStages& s,
                StatsArgs... stats_args) {
  if (block != 0 && !check_block(state, block)) return;
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(kernel.stats)>, std::nullptr_t>) {
    if (!check_capability(state, kernel.needs)) return;
    run_gpu_modes(state, mode, stream, tol, s);
  } else {
    if (!kernel.stats) {
      if (!check_capability(state, kernel.needs)) return;
      run_gpu_modes(state, mode, stream, tol, s);
      return;
    }
    const gpu::KernelStats k = kernel.stats(stats_args...);
    if (!check_capability(state, kernel.needs, k.code_arch)) return;
    run_gpu_modes(state, mode, stream, tol, s);
    record_kernel(state, k);
  }
}

// A pinned copy of host inputs, for the e2e rows' uploads.
template <class T>
PinnedBuffer<T> pinned(const HostArray<T>& h) {
  PinnedBuffer<T> p(h.size());
  std::copy(h.begin(), h.end(), p.data());
  return p;
}

}  // namespace tb
#endif  // TWINBENCH_HAVE_CUDA
