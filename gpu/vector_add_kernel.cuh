#pragma once
// The vector_add kernel, as a template on a progress policy (gpu/progress.cuh):
// gpu/vector_add.cu launches it with progress::None (both report calls compile to nothing),
// gpu/progress_bench.cu with each counting strategy, so the overhead it measures is that of
// the counting on this very kernel.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpu/progress.cuh"

namespace tb::gpu::vector_add_detail {

// cub's shape for DeviceTransform on sm_90 (its "ublkcp" kernel, which thrust::transform runs):
// one tile of kItemsPerThread * block elements per block; thread 0 brings the block's tile of a
// and of b into shared memory with one TMA bulk copy each (cp.async.bulk, completed on an
// mbarrier), then thread t adds and stores elements t, t + block, t + 2 * block of the tile,
// one scalar float at a time, coalesced.
//
// H200, n = 2^28, cold L2, kernel only (experiments/h200-2026-12-01/bandwidth, runs/run3.txt):
// this kernel at block 256 (`va_cub256x3`) 723.5 us, 100.2% of Thrust's 724.9 us; the previous
// kernel of this file (4 float4 of a and b loaded per thread through registers, then 4 float4
// stores) 775 us at block 64, 93.5%. What did not close the gap: more bytes in flight through
// registers (that kernel held ~147 KiB per SM; a one-wave grid prefetching the next step's
// float4s, 843 us; 256-byte L2 fetches, 786 us), and persistent TMA rings of 128 KiB per SM
// (760-766 us). Bulk copies into shared memory with float4 shared reads and stores got within
// 0.5% of Thrust (2-4 KiB per input per block, 727-729 us) but not to it; cub's exact tile (3 KiB
// per input at block 256, scalar stores) was the fastest. The sweep keeps every block size (the
// tile is 3 * block elements whatever the block); only block 256 was measured in the experiment.
constexpr int kItemsPerThread = 3;

// Shared memory per block: the tiles of a and b.
constexpr std::size_t tile_smem_bytes(int block) {
  return 2u * kItemsPerThread * static_cast<std::size_t>(block) * sizeof(float);
}

// cp.async.bulk and the mbarrier's transaction count exist from sm_90; older targets (a build
// with other CMAKE_CUDA_ARCHITECTURES) compile only the load/store path.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
inline constexpr bool kDeviceHasBulkCopy = false;
#else
inline constexpr bool kDeviceHasBulkCopy = true;
#endif

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Initialises a one-arrival mbarrier and makes it visible to the async proxy (the TMA unit)
// before any copy signals it.
__device__ __forceinline__ void mbar_init(std::uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(bar)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// The arrival of thread 0, telling the barrier to also wait for `bytes` of copies.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
               "r"(bytes)
               : "memory");
}

// bytes: a multiple of 16; src and dst 16-byte aligned. A block outside a cluster is its own
// one-block cluster, so its shared::cta addresses are valid shared::cluster ones.
__device__ __forceinline__ void bulk_copy_to_shared(void* dst, const void* src, std::uint32_t bytes,
                                                    std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_u32(dst)),
      "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(smem_u32(bar))
      : "memory");
}

__device__ __forceinline__ void mbar_wait_phase0(std::uint64_t* bar) {
  std::uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_u32(bar))
        : "memory");
  }
}

// `bulk` (uniform: the launcher's) says that a and b are 16-byte aligned and that a tile is a
// multiple of 16 bytes (block % 4 == 0), which the bulk copies need. Every tile that is whole
// and bulk-capable takes the copies; the last, partial tile (and every tile when !bulk) loads
// and stores the same elements directly. The branch is uniform per block, so the barriers are
// safe. Every thread, in range or not, reaches the single report point at its end: per_warp and
// per_block need whole warps and blocks there. The dynamic shared memory is
// tile_smem_bytes(blockDim.x).
template <class Progress>
__global__ void tile_kernel(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, std::size_t n, bool bulk, Progress progress) {
  // The bulk copies need 16-byte aligned tiles; 128 is what the measured kernel had.
  extern __shared__ __align__(128) float vector_add_tiles[];
  __shared__ __align__(8) std::uint64_t tile_ready;
  const unsigned block = blockDim.x;
  const unsigned tile = kItemsPerThread * block;
  const std::size_t off = static_cast<std::size_t>(blockIdx.x) * tile;
  unsigned done = 0;
  bool copied = false;
  progress.start();
  if constexpr (kDeviceHasBulkCopy) {
    if (bulk && off + tile <= n) {
      float* sa = vector_add_tiles;
      float* sb = sa + tile;
      const std::uint32_t bytes = tile * sizeof(float);
      if (threadIdx.x == 0) {
        mbar_init(&tile_ready);
        mbar_arrive_expect_tx(&tile_ready, 2 * bytes);
        bulk_copy_to_shared(sa, a + off, bytes, &tile_ready);
        bulk_copy_to_shared(sb, b + off, bytes, &tile_ready);
      }
      __syncthreads();  // nobody waits on the barrier before thread 0 has initialised it
      mbar_wait_phase0(&tile_ready);
      float* dst = c + off;
#pragma unroll 1  // cub's loop, as measured: the loads are shared-memory ones, nothing to batch
      for (int j = 0; j < kItemsPerThread; ++j) {
        const unsigned idx = j * block + threadIdx.x;
        dst[idx] = sa[idx] + sb[idx];
      }
      done = kItemsPerThread;
      copied = true;
    }
  }
  if (!copied) {
#pragma unroll
    for (int j = 0; j < kItemsPerThread; ++j) {
      const std::size_t i = off + static_cast<std::size_t>(j) * block + threadIdx.x;
      if (i < n) {
        c[i] = a[i] + b[i];
        ++done;
      }
    }
  }
  progress.done(done);
  progress.finish();
}

inline long long tile_grid(std::size_t n, int block) {
  const std::size_t tile = static_cast<std::size_t>(kItemsPerThread) * block;
  return static_cast<long long>((n + tile - 1) / tile);
}

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Launches c = a + b for any n, block (1..1024) and alignment; the bulk copies are used where
// they can be (see tile_kernel).
template <class Progress>
void launch(const float* a, const float* b, float* c, std::size_t n, int block, cudaStream_t stream,
            Progress progress) {
  if (n == 0) return;
  const bool bulk = aligned16(a) && aligned16(b) && block % 4 == 0;
  tile_kernel<Progress>
      <<<static_cast<unsigned>(tile_grid(n, block)), block, tile_smem_bytes(block), stream>>>(
          a, b, c, n, bulk, progress);
  CUDA_CHECK_LAUNCH();
}

}  // namespace tb::gpu::vector_add_detail
