#pragma once
// Live progress: the suite's kernels publishing their progress into slots of mapped
// host memory (gpu/progress.cuh Publisher, LiveBlock, LiveWarp; common/progress.hpp SlotBoard),
// and their uninstrumented twins. Host-callable launchers only.
//
// Strategy none launches the twin: the same kernel and grid with the reporting compiled out (a
// template argument), so that an instrumented row's overhead is that of the reporting alone.
// live_block and live_warp take the board's first `writers` slots (the grid's blocks or warps;
// the launcher asks board.ref for them, which throws when the board is too small), zeroed by the
// caller (SlotBoard::reset) before the launch; after it their sum is exactly the launch's items.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/poisson_sampler.hpp"
#include "common/progress.hpp"
#include "gpu/black_scholes.hpp"

namespace tb::gpu {

// Writers a live launch uses: the grid's blocks (live_block) or warps (live_warp); 0 for none.
std::size_t live_writers(tb::progress::Strategy s, long long grid_blocks, int block);

// The fast Poisson kernel (gpu/poisson_kernel.cuh fast_kernel, its persistent grid: the suite's
// own kernel, bit-identical samples); the twin is fast_kernel<None>, the suite's kernel itself.
long long live_poisson_grid(tb::progress::Strategy s, std::size_t n, int block);
void live_poisson(tb::progress::Strategy s, const tb::progress::SlotBoard& board,
                  std::int32_t* out, std::size_t n, std::uint64_t seed,
                  const tb::poisson::CdfTable& table, int block, unsigned rows_per_report,
                  cudaStream_t stream);

// The cuda variant's black_scholes kernel (black_scholes_vec4_full_kernel<FastPrice>): with
// `persistent` false on its own grid (one float4 group a thread: the twin is the suite's kernel),
// with `persistent` true on a grid of the resident blocks only (a grid-stride loop of ~9 steps a
// thread at 10M), which cuts the writers from 9,766 blocks to ~1,000. Each thread reports once,
// at its end (the kernel's one report point), so the host sees the blocks end; live_block is
// gpu/progress.cuh LiveBlockAtExit (one store a block, at its end, no barrier at its start).
long long live_black_scholes_grid(std::size_t n, int block, bool persistent);
void live_black_scholes(tb::progress::Strategy s, const tb::progress::SlotBoard& board,
                        const float* spot, const float* strike, const float* years, float* call,
                        float* put, std::size_t n, BlackScholesMarket market, int block,
                        bool persistent, cudaStream_t stream);

// nested_loop's cuda (one thread per i) and cuda_warp (one warp per i) kernels; items are inner
// iterations, n * m in all. Their threads report once, at their end: live_block is
// LiveBlockAtExit, as for Black-Scholes.
long long live_nested_loop_grid(std::size_t n, int block, bool warp);
void live_nested_loop(tb::progress::Strategy s, const tb::progress::SlotBoard& board,
                      double* results, std::size_t n, std::size_t m, int block, bool warp,
                      cudaStream_t stream);

// vector_add as a persistent grid: gpu/vector_add_kernel.cuh's tile (thread 0 brings the block's
// 3 * block elements of a and b into shared memory with two TMA bulk copies, every thread adds
// and stores 3), looped over the tiles by the resident blocks. The loop ends each tile with the
// barrier that frees the shared tile for the next copy, after which thread 0 knows the whole
// tile is stored: it publishes there, when due (live_block only; none is the twin). The suite's
// vector_add kernel launches one block per tile (349,525 at 2^28) and cannot report while it
// runs without a store per block. Any n, block a multiple of 32 (<= 1024), 16-byte aligned
// arrays for the copies (others take plain loads).
long long live_vector_add_grid(std::size_t n, int block);
void live_vector_add(tb::progress::Strategy s, const tb::progress::SlotBoard& board,
                     const float* a, const float* b, float* c, std::size_t n, int block,
                     cudaStream_t stream);

// Fills p[0, count) with uniform floats in [-1, 1) from a hash of (seed, index), on the device:
// the demo's sgemm operands, too large to fill on the host in a moment. (sgemm's own live
// progress is a policy of the suite's kernel: gpu/sgemm.hpp sgemm_cuda_optimized_counted.)
void live_fill_uniform(float* p, std::size_t count, std::uint64_t seed, cudaStream_t stream);

}  // namespace tb::gpu
