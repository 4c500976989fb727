#pragma once
// twinbench's public API: a workload declared as data, the harness doing the rest.
//
//   const twinbench::Workload<std::uint32_t(std::int32_t)> kHistogram{
//       .name = "histogram", .summary = "...", .sizes = {1 << 20, 1 << 26}, .quick_size = 1 << 16,
//       .work = work, .tolerance = {0.0}, .reference = serial,
//       .cpu = {{"serial", serial}, {"omp", omp, true}},
//       .gpu = {{"cuda_shared", cuda_shared, cuda_shared_stats}}};
//   TWINBENCH_REGISTER(kHistogram);
//
// Out(In...) is the output's element type and the inputs' (one array of n elements each). A CPU
// variant is `void f(const In*..., Out*, std::size_t n)`, the reference is one of them; a GPU
// variant is `void launch(const In*..., Out*, std::size_t n, int block, cudaStream_t)` on device
// pointers, with optional launch statistics `gpu::KernelStats stats(std::size_t n, int block)`.
// The harness makes the inputs from the seed (uniform in input_range, never zero), computes the
// reference, owns the host, pinned and device buffers (their memory estimated before they are
// made, released when the workload's rows are done), poisons the outputs, validates every
// variant before timing it, sweeps the threads per block with occupancy, and times each GPU
// variant alone (mode:kernel) and with its copies (mode:e2e). Rows are named
// `<name>/<impl>/n:<n>[/block:<b>][/threads:<t>][/mode:<m>]`; the sizes come from --size (or
// --axis=n:N) where given. docs/adding-a-workload.md walks through a complete example.
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "bench/twinbench.hpp"

#if !TWINBENCH_HAVE_CUDA
// The launcher signature names the stream type in builds without CUDA too (the CUDA headers
// declare it the same way).
struct CUstream_st;
using cudaStream_t = CUstream_st*;
#endif

namespace tb::gpu {
struct KernelStats;
}

namespace twinbench {

// Bytes read and written and FLOPs of one call, for the rates and the row's limit.
using Work = tb::WorkModel;
using Tolerance = tb::Tolerance;

template <class Signature>
struct Workload;

template <class Out, class... In>
struct Workload<Out(In...)> {
  using CpuFn = void (*)(const In*..., Out*, std::size_t);
  using GpuFn = void (*)(const In*..., Out*, std::size_t, int, cudaStream_t);
  using StatsFn = tb::gpu::KernelStats (*)(std::size_t, int);
  struct Cpu {
    const char* impl;
    CpuFn run;
    bool threaded = false;  // runs on OpenMP's threads: named threads:N, held to all threads' limits
  };
  struct Gpu {
    const char* impl;
    GpuFn launch;
    StatsFn stats = nullptr;        // registers, occupancy; none for a library call
    bool picks_own_block = false;   // a library call: one row, no block axis
  };

  const char* name;
  const char* summary;
  std::vector<std::size_t> sizes;  // axis n
  std::size_t quick_size;          // --quick's n
  Work (*work)(std::size_t n);
  Tolerance tolerance;
  CpuFn reference;
  std::vector<Cpu> cpu;
  std::vector<Gpu> gpu = {};
  std::uint64_t seed = 0x5eed;              // input i is filled from seed + i
  std::pair<double, double> input_range = {-1.0, 1.0};
  std::size_t (*output_size)(std::size_t n) = nullptr;  // n where not given
};

}  // namespace twinbench

#include "bench/detail/workload_rows.hpp"

// Registers a twinbench::Workload declared at namespace scope: its rows are made when the run
// selects it.
#define TWINBENCH_REGISTER(workload)                                                      \
  [[maybe_unused]] static const bool TWINBENCH_CONCAT(tb_registered_, __LINE__) =         \
      ::tb::add_workload({(workload).name, (workload).summary,                            \
                          &::twinbench::detail::register_rows<workload>})
