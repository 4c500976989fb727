#pragma once
// progress's rows (bench/progress.cpp): the targets' sizes, which strategy and counter placement
// each target runs by default and why, the live rows, and the work models and memory of the
// targets. No CUDA here: a CPU-only build lists the same rows.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/progress.hpp"
#include "cpu/black_scholes.hpp"
#include "cpu/nested_loop.hpp"
#include "cpu/poisson.hpp"
#include "cpu/sgemm.hpp"
#include "cpu/vector_add.hpp"

namespace tb::progress {

inline constexpr int kBlock = 256;
inline constexpr std::size_t kVectorAddSize = std::size_t{1} << 28;  // 256M floats: 3 GiB moved
inline constexpr std::size_t kVectorAddQuick = std::size_t{1} << 22;
inline constexpr std::size_t kPoissonSmall = 10'000'000;
inline constexpr std::size_t kPoissonLarge = 100'000'000;
inline constexpr std::size_t kPoissonQuick = 1'000'000;

// The long compute-bound target of the live rows: sgemm/cuda_optimized, tens of ms a kernel on
// the H200, so that the host sees its progress move (gpu/sgemm.hpp sgemm_cuda_optimized_counted:
// one store a block, when its tile of C is done).
inline constexpr std::size_t kSgemmSize = 8192;
inline constexpr std::size_t kSgemmQuick = 512;

// The output tiles of sgemm/cuda_optimized (gpu/sgemm.hpp sgemm_optimized_tiles), here without
// CUDA so that a CPU-only build declares the same work.
inline std::size_t sgemm_tiles(std::size_t n) {
  constexpr std::size_t kTile = 128;
  return ((n + kTile - 1) / kTile) * ((n + kTile - 1) / kTile);
}

enum class TargetKind { vector_add, poisson, black_scholes, nested_loop, nested_loop_warp, sgemm };
inline const char* target_name(TargetKind t) {
  switch (t) {
    case TargetKind::vector_add:
      return "vector_add";
    case TargetKind::poisson:
      return "poisson";
    case TargetKind::black_scholes:
      return "black_scholes";
    case TargetKind::nested_loop:
      return "nested_loop";
    case TargetKind::nested_loop_warp:
      return "nested_loop_warp";
    case TargetKind::sgemm:
      return "sgemm";
  }
  return "?";
}

// per_thread on the mapped counter is one system-scope atomic over PCIe per thread, about
// 70 ns each on the H200: 18 s a launch for vector_add's 256M threads, 2.7 s for Black-Scholes
// 10M, where the suite's whole default run has 5 minutes. By default it runs on the targets
// where a launch costs well under a second (Poisson 10M: 0.28 s; the nested loop's 10K threads);
// --full (or a size given with --size: `wide`) runs it on every target.
inline bool per_thread_mapped_affordable(bool wide, TargetKind kind, std::size_t n) {
  if (wide) return true;
  return (kind == TargetKind::poisson && n <= kPoissonSmall) || kind == TargetKind::nested_loop;
}

// per_warp on the mapped counter is one atomic and one system fence per warp (see
// per_thread_mapped_affordable): 2.86 s a launch for vector_add's 2.8 million warps on the H200
// (results/nvidia-h200/2026-12-02), 20 s of the default run for one row. By default it runs where
// the warps are few.
inline bool per_warp_mapped_affordable(bool wide, TargetKind kind) {
  return wide || kind != TargetKind::vector_add;
}

inline bool registered_by_default(bool wide, TargetKind kind, std::size_t n, Strategy s,
                                  CounterKind ck) {
  if (ck != CounterKind::mapped) return true;
  if (s == Strategy::per_thread) return per_thread_mapped_affordable(wide, kind, n);
  if (s == Strategy::per_warp) return per_warp_mapped_affordable(wide, kind);
  return true;
}

// Live rows: slots in mapped host memory, 64 bytes (a cache line, the default) or
// 8 bytes (packed) apart. impl cuda: the suite's own kernel with a live policy, against itself
// without (the twin is the suite's kernel). impl cuda_live: a kernel written for live progress
// (a persistent grid, or sgemm's), against its twin with the reporting compiled out; its
// strategy:none row times that twin against the suite's fastest kernel of the target.
// counter:devslots8: the same slots, packed, in device memory, which the host reads with a copy
// on the board's own stream (SlotBoard::Placement::device): the kernel's code is the same, its
// stores stay in the GPU's L2 instead of crossing PCIe.
enum class Impl { cuda, cuda_live };
using Placement = SlotPlacement;

struct LiveRow {
  Impl impl;
  Strategy strategy;
  unsigned stride_words;
  Placement where = Placement::mapped;
};

inline const char* slots_name(const LiveRow& row) {
  if (row.where == Placement::device) return row.stride_words == 1 ? "devslots8" : "devslots64";
  return row.stride_words == 1 ? "slots8" : "slots64";
}

// The live rows of each target. live_warp only where the grid has few warps (a store per warp
// at least: vector_add's suite kernel has 349,525 blocks and is only offered persistent;
// black_scholes's has 78,125 warps at 10M). live_block on packed slots beside the padded ones:
// whether two writers' stores into one host cache line cost more than into two.
inline std::vector<LiveRow> live_rows(TargetKind kind) {
  constexpr Placement dev = Placement::device;
  switch (kind) {
    case TargetKind::vector_add:
      return {{Impl::cuda_live, Strategy::none, 8},
              {Impl::cuda_live, Strategy::live_block, 8},
              {Impl::cuda_live, Strategy::live_block, 1},
              {Impl::cuda_live, Strategy::live_block, 1, dev}};
    case TargetKind::black_scholes:
      return {{Impl::cuda, Strategy::live_block, 8},
              {Impl::cuda, Strategy::live_block, 1},
              {Impl::cuda, Strategy::live_block, 1, dev},
              {Impl::cuda_live, Strategy::none, 8},
              {Impl::cuda_live, Strategy::live_block, 8},
              {Impl::cuda_live, Strategy::live_block, 1, dev}};
    case TargetKind::poisson:
    case TargetKind::nested_loop:
    case TargetKind::nested_loop_warp:
      return {{Impl::cuda, Strategy::live_block, 8},
              {Impl::cuda, Strategy::live_warp, 8},
              {Impl::cuda, Strategy::live_block, 1},
              {Impl::cuda, Strategy::live_block, 1, dev},
              {Impl::cuda, Strategy::live_warp, 1, dev}};
    case TargetKind::sgemm:  // the suite's kernel counting its tiles: live_block only
      return {{Impl::cuda, Strategy::live_block, 8}, {Impl::cuda, Strategy::live_block, 1, dev}};
  }
  return {};
}

// The work of one run of a target's kernel, declared with its rows: the target's own workload's
// model; sgemm's items are its 128 x 128 tiles of C (what its counter counts).
inline WorkModel target_work(TargetKind kind, std::size_t n) {
  switch (kind) {
    case TargetKind::vector_add:
      return vector_add::work(n);
    case TargetKind::poisson:
      return poisson::work(n);
    case TargetKind::black_scholes:
      return black_scholes::work(n);
    case TargetKind::nested_loop:
    case TargetKind::nested_loop_warp:
      return nested_loop::work(n);
    case TargetKind::sgemm: {
      WorkModel w = sgemm::work(n);
      w.items = static_cast<double>(sgemm_tiles(n));
      return w;
    }
  }
  return {};
}

// What each target allocates (gpu/progress_bench.cu): its pageable host arrays and its device
// buffers, estimated before it is made.
struct TargetMemory {
  double host_bytes = 0.0, device_bytes = 0.0;
};
inline TargetMemory target_memory(TargetKind kind, std::size_t n) {
  const double f = sizeof(float), i32 = sizeof(std::int32_t), f64 = sizeof(double);
  const double count = static_cast<double>(n);
  switch (kind) {
    case TargetKind::vector_add:  // a, b, out; da, db, dc
      return {3 * f * count, 3 * f * count};
    case TargetKind::poisson:  // ref, out; dout
      return {2 * i32 * count, i32 * count};
    case TargetKind::black_scholes:  // 5 float inputs/outputs + 2 double references; 5 on device
      return {(5 * f + 2 * f64) * count, 5 * f * count};
    case TargetKind::nested_loop:
    case TargetKind::nested_loop_warp:  // ref, out; dout
      return {2 * f64 * count, f64 * count};
    case TargetKind::sgemm:  // a, b, c, twin; da, db, dc (n x n each)
      return {4 * f * count * count, 3 * f * count * count};
  }
  return {};
}

}  // namespace tb::progress
