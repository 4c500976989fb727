#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <climits>
#include <cstdint>
#include <cuda/atomic>
#include <mutex>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/thrust_scratch.cuh"
#include "gpu/scan.hpp"

namespace tb::gpu {
namespace {

// 16 items per thread, loaded as four 16-byte vectors: big tiles keep the number of look-backs
// (one per tile) small next to the bytes moved, and 16 registers of data leave room for
// occupancy.
constexpr int kWarp = 32;
constexpr int kVec = 4;
constexpr int kRounds = 4;
constexpr int kItemsPerThread = kVec * kRounds;
constexpr int kWarpItems = kWarp * kItemsPerThread;  // 512 contiguous elements per warp
constexpr unsigned kFullMask = 0xffffffffu;

// A tile's published state: flag in the high 32 bits, the value's bits in the low 32, written
// and read as one 64-bit word, so a reader never sees a flag without its value and no fence is
// needed between them.
constexpr unsigned long long kInvalid = 0;             // nothing published yet
constexpr unsigned long long kAggregate = 1ull << 32;  // the tile's own sum
constexpr unsigned long long kInclusive = 2ull << 32;  // sum of this and all earlier tiles
using TileState = unsigned long long;

__device__ __forceinline__ unsigned to_bits(std::int32_t v) { return static_cast<unsigned>(v); }
__device__ __forceinline__ unsigned to_bits(float v) { return __float_as_uint(v); }
template <class T>
__device__ __forceinline__ T from_bits(unsigned b);
template <>
__device__ __forceinline__ std::int32_t from_bits<std::int32_t>(unsigned b) {
  return static_cast<std::int32_t>(b);
}
template <>
__device__ __forceinline__ float from_bits<float>(unsigned b) {
  return __uint_as_float(b);
}

template <class T>
struct Vec4;
template <>
struct Vec4<std::int32_t> {
  using type = int4;
};
template <>
struct Vec4<float> {
  using type = float4;
};

__device__ __forceinline__ TileState load_state(TileState* p) {
  return cuda::atomic_ref<TileState, cuda::thread_scope_device>(*p).load(
      cuda::memory_order_relaxed);
}
__device__ __forceinline__ void store_state(TileState* p, TileState v) {
  cuda::atomic_ref<TileState, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_relaxed);
}

template <class T>
__device__ __forceinline__ T warp_inclusive_scan(T x, int lane) {
#pragma unroll
  for (int d = 1; d < kWarp; d <<= 1) {
    const T y = __shfl_up_sync(kFullMask, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

template <class T>
__device__ __forceinline__ T warp_exclusive_from_inclusive(T incl, int lane) {
  // Shifted rather than incl - x: for float32, the subtraction would add a rounding error.
  const T e = __shfl_up_sync(kFullMask, incl, 1);
  return lane == 0 ? T(0) : e;
}

template <class T>
__device__ __forceinline__ T warp_sum(T x) {
#pragma unroll
  for (int d = kWarp / 2; d > 0; d >>= 1) x += __shfl_xor_sync(kFullMask, x, d);
  return x;
}

// Run by one whole warp: the sum of every tile before `tile`. Lane k reads tile - 1 - k; the
// warp waits until all 32 have published something, adds the values up to the nearest inclusive
// prefix, and moves 32 tiles further back if there was none. Every predecessor belongs to a
// block that is already running (tile numbers come from an atomic counter in start order) and
// publishes its aggregate without waiting, so the wait always ends.
template <class T>
__device__ T look_back(TileState* states, unsigned tile, int lane) {
  T exclusive = T(0);
  long long window = static_cast<long long>(tile) - 1;
  for (;;) {
    const long long idx = window - lane;
    TileState st;
    for (;;) {
      // Before tile 0 there is nothing: an identity prefix (only read past a window that
      // already holds tile 0's inclusive value, so it never changes the result).
      st = idx >= 0 ? load_state(states + idx) : kInclusive;
      if (!__any_sync(kFullMask, (st >> 32) == (kInvalid >> 32))) break;
#if __CUDA_ARCH__ >= 700
      __nanosleep(32);  // back off a little: spinning warps compete with the loads for L2
#endif
    }
    const unsigned inclusive_lanes = __ballot_sync(kFullMask, (st >> 32) == (kInclusive >> 32));
    const int last = inclusive_lanes ? __ffs(static_cast<int>(inclusive_lanes)) - 1 : kWarp - 1;
    const T part = warp_sum(lane <= last ? from_bits<T>(static_cast<unsigned>(st)) : T(0));
    exclusive = part + exclusive;
    if (inclusive_lanes) return exclusive;
    window -= kWarp;
  }
}

template <class T>
__global__ void __launch_bounds__(1024)
    scan_lookback_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n,
                         TileState* __restrict__ states, unsigned* __restrict__ tile_counter,
                         bool vector_io) {
  using V = typename Vec4<T>::type;
  __shared__ unsigned s_tile;
  __shared__ T s_warp[kWarp];  // warp aggregates, then each warp's exclusive prefix in the tile
  __shared__ T s_tile_prefix;

  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const int warps = blockDim.x / kWarp;
  if (threadIdx.x == 0) s_tile = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const unsigned tile = s_tile;
  const std::size_t warp_begin =
      (static_cast<std::size_t>(tile) * warps + warp) * static_cast<std::size_t>(kWarpItems);
  // Round r of a warp covers elements [r*128, r*128 + 128) of its 512; lane l holds 4 of them.
  const bool full = vector_io && warp_begin + kWarpItems <= n;

  T v[kRounds][kVec];
  if (full) {
    const V* src = reinterpret_cast<const V*>(in + warp_begin);
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
      const V x = __ldcs(src + r * kWarp + lane);  // streaming: each element is read once
      v[r][0] = x.x;
      v[r][1] = x.y;
      v[r][2] = x.z;
      v[r][3] = x.w;
    }
  } else {
#pragma unroll
    for (int r = 0; r < kRounds; ++r)
#pragma unroll
      for (int k = 0; k < kVec; ++k) {
        const std::size_t i = warp_begin + static_cast<std::size_t>((r * kWarp + lane) * kVec + k);
        v[r][k] = i < n ? in[i] : T(0);  // zero is the identity: the tail adds nothing
      }
  }

  // Scan the warp's 512 elements: per-thread runs of 4, a shuffle scan of the run totals, and a
  // carry from round to round.
  T carry = T(0);
#pragma unroll
  for (int r = 0; r < kRounds; ++r) {
#pragma unroll
    for (int k = 1; k < kVec; ++k) v[r][k] += v[r][k - 1];
    const T incl = warp_inclusive_scan(v[r][kVec - 1], lane);
    const T base = carry + warp_exclusive_from_inclusive(incl, lane);
#pragma unroll
    for (int k = 0; k < kVec; ++k) v[r][k] = base + v[r][k];
    carry += __shfl_sync(kFullMask, incl, kWarp - 1);  // the same on every lane
  }

  if (lane == 0) s_warp[warp] = carry;
  __syncthreads();
  if (warp == 0) {
    const T w = lane < warps ? s_warp[lane] : T(0);
    const T w_incl = warp_inclusive_scan(w, lane);
    const T aggregate = __shfl_sync(kFullMask, w_incl, warps - 1);
    const T w_excl = warp_exclusive_from_inclusive(w_incl, lane);
    if (lane < warps) s_warp[lane] = w_excl;  // each lane rewrites only the entry it read
    T prefix = T(0);
    if (tile == 0) {
      if (lane == 0) store_state(states, kInclusive | to_bits(aggregate));
    } else {
      // Publish the aggregate first, so successors can pass over this tile while it looks back.
      if (lane == 0) store_state(states + tile, kAggregate | to_bits(aggregate));
      prefix = look_back<T>(states, tile, lane);
      if (lane == 0) store_state(states + tile, kInclusive | to_bits(prefix + aggregate));
    }
    if (lane == 0) s_tile_prefix = prefix;
  }
  __syncthreads();

  const T base = s_tile_prefix + s_warp[warp];
  if (full) {
    V* dst = reinterpret_cast<V*>(out + warp_begin);
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
      V y;
      y.x = base + v[r][0];
      y.y = base + v[r][1];
      y.z = base + v[r][2];
      y.w = base + v[r][3];
      __stcs(dst + r * kWarp + lane, y);
    }
  } else {
#pragma unroll
    for (int r = 0; r < kRounds; ++r)
#pragma unroll
      for (int k = 0; k < kVec; ++k) {
        const std::size_t i = warp_begin + static_cast<std::size_t>((r * kWarp + lane) * kVec + k);
        if (i < n) out[i] = base + v[r][k];
      }
  }
}

std::size_t tile_count(std::size_t n, int block) {
  const std::size_t tile = static_cast<std::size_t>(block) * kItemsPerThread;
  return (n + tile - 1) / tile;
}

// Scratch layout: the tile counter (padded to 8 bytes), then one TileState per tile.
constexpr std::size_t kCounterBytes = sizeof(TileState);

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <class T>
void launch_scan(const T* in, T* out, std::size_t n, int block, void* scratch,
                 cudaStream_t stream) {
  if (n == 0) return;
  if (block <= 0 || block % kWarp != 0 || block > 1024)
    throw std::invalid_argument("scan_cuda: block must be a multiple of 32 in 32..1024");
  const std::size_t tiles = tile_count(n, block);
  if (tiles > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("scan_cuda: n too large");
  CUDA_CHECK(cudaMemsetAsync(scratch, 0, kCounterBytes + tiles * sizeof(TileState), stream));
  auto* base = static_cast<unsigned char*>(scratch);
  scan_lookback_kernel<T><<<static_cast<unsigned>(tiles), block, 0, stream>>>(
      in, out, n, reinterpret_cast<TileState*>(base + kCounterBytes),
      reinterpret_cast<unsigned*>(base), aligned16(in) && aligned16(out));
  CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_thrust(const T* in, T* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  ThrustScratch alloc;
  thrust::inclusive_scan(thrust::cuda::par_nosync(alloc).on(stream), in, in + n, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

std::size_t scan_cuda_scratch_bytes(std::size_t n, int block) {
  return kCounterBytes + tile_count(n, block > 0 ? block : kWarp) * sizeof(TileState);
}

void scan_cuda(const std::int32_t* in, std::int32_t* out, std::size_t n, int block, void* scratch,
               cudaStream_t stream) {
  launch_scan(in, out, n, block, scratch, stream);
}
void scan_cuda(const float* in, float* out, std::size_t n, int block, void* scratch,
               cudaStream_t stream) {
  launch_scan(in, out, n, block, scratch, stream);
}

KernelStats scan_cuda_stats_int32(std::size_t n, int block) {
  return kernel_stats(scan_lookback_kernel<std::int32_t>, block,
                      static_cast<long long>(tile_count(n, block)));
}
KernelStats scan_cuda_stats_float(std::size_t n, int block) {
  return kernel_stats(scan_lookback_kernel<float>, block,
                      static_cast<long long>(tile_count(n, block)));
}

void scan_thrust(const std::int32_t* in, std::int32_t* out, std::size_t n, cudaStream_t stream) {
  launch_thrust(in, out, n, stream);
}
void scan_thrust(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  launch_thrust(in, out, n, stream);
}

}  // namespace tb::gpu
