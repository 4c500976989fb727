#include <atomic>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "gpu/conv2d.hpp"
#include "gpu/kernel_stats.cuh"

namespace tb::gpu {
namespace {

constexpr int kMaxFilter = 7;
// Outputs per thread in the shared-memory kernels, stacked vertically: a thread keeps a
// window of kRows + f - 1 pixels of one tile column in registers and reuses each for up to f
// outputs, so a 5x5 filter costs 10 shared-memory loads per output instead of 25 (at 25 loads
// the kernel would be bound by shared-memory bandwidth, not DRAM).
constexpr int kRows = 4;

__constant__ float c_filter2d[kMaxFilter * kMaxFilter];
__constant__ float c_filter1d[kMaxFilter];
// Which filter size the constant banks hold, so a launch with another size fails loudly
// instead of reading a stale filter.
std::atomic<int> g_tiled_f{0};
std::atomic<int> g_separable_f{0};

__device__ __forceinline__ int clamp_to(int v, int hi) { return min(max(v, 0), hi); }

// ---- naive ------------------------------------------------------------------------------

__global__ void conv2d_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int w,
                                    int h, const float* __restrict__ filter, int f) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int r = f / 2;
  float acc = 0.f;
  for (int dy = 0; dy < f; ++dy) {
    const float* src = in + static_cast<std::size_t>(clamp_to(y + dy - r, h - 1)) * w;
    for (int dx = 0; dx < f; ++dx)
      acc = fmaf(filter[dy * f + dx], src[clamp_to(x + dx - r, w - 1)], acc);
  }
  out[static_cast<std::size_t>(y) * w + x] = acc;
}

// ---- shared-memory tiles -----------------------------------------------------------------

// The block's input tile: blockDim.x + 2r columns by kRows * blockDim.y + 2r rows, starting
// r pixels above and left of the block's first output, coordinates clamped to the image (so
// the borders need no special case later). Column tx < blockDim.x of every row is thread tx's;
// the 2r columns past them are shared out by a flat index (2r is a compile-time constant, so
// the division is cheap). Four rows are loaded before any is stored, so each thread has
// several loads in flight before the barrier: with one at a time, a load phase reaches well under
// half of DRAM bandwidth.
template <int R>
__device__ __forceinline__ void load_tile(const float* __restrict__ in, float* tile, int w, int h,
                                          int x0, int y0, int tile_w, int tile_h) {
  const int gx = clamp_to(x0 + static_cast<int>(threadIdx.x) - R, w - 1);
  const int by = blockDim.y;
  auto row = [&](int ty) {
    return in + static_cast<std::size_t>(clamp_to(y0 + ty - R, h - 1)) * w;
  };
  int ty = threadIdx.y;
  for (; ty + 3 * by < tile_h; ty += 4 * by) {
    float v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = __ldg(row(ty + u * by) + gx);
#pragma unroll
    for (int u = 0; u < 4; ++u) tile[(ty + u * by) * tile_w + threadIdx.x] = v[u];
  }
  for (; ty < tile_h; ty += by) tile[ty * tile_w + threadIdx.x] = __ldg(row(ty) + gx);
  if constexpr (R > 0) {
    const int bx = blockDim.x;
    const int threads = bx * blockDim.y;
    for (int i = threadIdx.y * bx + threadIdx.x; i < 2 * R * tile_h; i += threads) {
      const int r = i / (2 * R);
      const int tx = bx + i % (2 * R);
      tile[r * tile_w + tx] = __ldg(row(r) + clamp_to(x0 + tx - R, w - 1));
    }
  }
}

// Thread (tx, ty) writes pixels (x0 + tx, y0 + ty * kRows + p), p < kRows; `src` is a
// shared-memory array `pitch` floats wide whose row i holds the taps of output row i - R.
// `taps(dy, dx)` is the weight; dx runs over `cols` columns starting at src column tx.
template <int F, int Cols, class Taps>
__device__ __forceinline__ void column_window(const float* src, int pitch, float (&acc)[kRows],
                                              Taps taps) {
  const int row0 = threadIdx.y * kRows;
#pragma unroll
  for (int dx = 0; dx < Cols; ++dx) {
    float col[kRows + F - 1];
#pragma unroll
    for (int i = 0; i < kRows + F - 1; ++i) col[i] = src[(row0 + i) * pitch + threadIdx.x + dx];
#pragma unroll
    for (int p = 0; p < kRows; ++p)
#pragma unroll
      for (int dy = 0; dy < F; ++dy) acc[p] = fmaf(taps(dy, dx), col[p + dy], acc[p]);
  }
}

__device__ __forceinline__ void store_rows(float* __restrict__ out, int w, int h, int x, int y,
                                           const float (&acc)[kRows]) {
#pragma unroll
  for (int p = 0; p < kRows; ++p)
    if (y + p < h) out[static_cast<std::size_t>(y + p) * w + x] = acc[p];
}

// Filter taps come from __constant__ memory: every thread of a warp reads the same tap at the
// same time, which the constant cache serves as one broadcast (and the compile-time index
// lets each FMA take it as an operand).
template <int F>
__global__ void conv2d_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int w,
                                    int h) {
  constexpr int R = F / 2;
  extern __shared__ float tile[];
  const int tile_w = blockDim.x + 2 * R;
  const int tile_h = blockDim.y * kRows + 2 * R;
  const int x0 = blockIdx.x * blockDim.x;
  const int y0 = blockIdx.y * blockDim.y * kRows;
  load_tile<R>(in, tile, w, h, x0, y0, tile_w, tile_h);
  __syncthreads();
  const int x = x0 + threadIdx.x;
  if (x >= w) return;  // no barrier follows
  float acc[kRows] = {};
  column_window<F, F>(tile, tile_w, acc, [](int dy, int dx) { return c_filter2d[dy * F + dx]; });
  store_rows(out, w, h, x, y0 + threadIdx.y * kRows, acc);
}

// Separable: the same tile, then a row pass over every tile row (including the halo rows)
// into a second shared array, then a column pass from it. Two passes, one kernel: the
// intermediate image never goes to DRAM, so traffic stays at one read and one write per pixel.
// Clamping commutes with the separation: clamp-to-edge is applied per axis.
template <int F>
__global__ void conv2d_separable_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        int w, int h) {
  constexpr int R = F / 2;
  extern __shared__ float smem[];
  const int bx = blockDim.x;
  const int tile_w = bx + 2 * R;
  const int tile_h = blockDim.y * kRows + 2 * R;
  float* tile = smem;
  float* rows = smem + tile_w * tile_h;  // tile_h x bx, row-filtered
  const int x0 = blockIdx.x * bx;
  const int y0 = blockIdx.y * blockDim.y * kRows;
  load_tile<R>(in, tile, w, h, x0, y0, tile_w, tile_h);
  __syncthreads();
  for (int ty = threadIdx.y; ty < tile_h; ty += blockDim.y) {
    const float* src = tile + ty * tile_w + threadIdx.x;
    float acc = 0.f;
#pragma unroll
    for (int dx = 0; dx < F; ++dx) acc = fmaf(c_filter1d[dx], src[dx], acc);
    rows[ty * bx + threadIdx.x] = acc;
  }
  __syncthreads();
  const int x = x0 + threadIdx.x;
  if (x >= w) return;  // no barrier follows
  float acc[kRows] = {};
  column_window<F, 1>(rows, bx, acc, [](int dy, int) { return c_filter1d[dy]; });
  store_rows(out, w, h, x, y0 + threadIdx.y * kRows, acc);
}

// ---- launch helpers ----------------------------------------------------------------------

void check_args(int w, int h, int f, Block2 block) {
  if (w <= 0 || h <= 0) throw std::invalid_argument("conv2d: empty image");
  if (!conv2d_filter_supported(f))
    throw std::invalid_argument("conv2d: filter size must be 3, 5 or 7");
  if (block.x <= 0 || block.y <= 0) throw std::invalid_argument("conv2d: empty block");
}

dim3 make_grid(int w, int h, Block2 block, int rows_per_thread) {
  const long long gx = (static_cast<long long>(w) + block.x - 1) / block.x;
  const long long per_block = static_cast<long long>(block.y) * rows_per_thread;
  const long long gy = (static_cast<long long>(h) + per_block - 1) / per_block;
  if (gy > 65535 || gx > INT_MAX)
    throw std::invalid_argument("conv2d: grid too large for a " + std::to_string(w) + "x" +
                                std::to_string(h) + " image with this block");
  return dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
}

std::size_t tile_floats(int f, Block2 block) {
  return static_cast<std::size_t>(block.x + f - 1) * (block.y * kRows + f - 1);
}
std::size_t tiled_smem(int f, Block2 block) { return tile_floats(f, block) * sizeof(float); }
std::size_t separable_smem(int f, Block2 block) {
  return (tile_floats(f, block) + static_cast<std::size_t>(block.y * kRows + f - 1) * block.x) *
         sizeof(float);
}

// Above 48 KiB of dynamic shared memory a kernel must opt in (tall or wide blocks need it).
template <class Kernel>
void allow_smem(Kernel kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
  CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
}

template <class Fn>
auto by_filter(int f, Fn&& fn) {
  switch (f) {
    case 3:
      return fn(std::integral_constant<int, 3>{});
    case 5:
      return fn(std::integral_constant<int, 5>{});
    default:
      return fn(std::integral_constant<int, 7>{});
  }
}

void set_constant(const void* symbol, std::atomic<int>& loaded, const float* host,
                  std::size_t count, int f, cudaStream_t stream) {
  if (!conv2d_filter_supported(f))
    throw std::invalid_argument("conv2d: filter size must be 3, 5 or 7");
  // From pageable memory the copy is staged before the call returns, so `host` may go away.
  CUDA_CHECK(cudaMemcpyToSymbolAsync(symbol, host, count * sizeof(float), 0, cudaMemcpyHostToDevice,
                                     stream));
  loaded = f;
}

void require_loaded(const std::atomic<int>& loaded, int f, const char* what) {
  if (loaded != f)
    throw std::logic_error(std::string(what) + ": the constant filter holds size " +
                           std::to_string(loaded.load()) + ", not " + std::to_string(f));
}

}  // namespace

bool conv2d_filter_supported(int f) { return f == 3 || f == 5 || f == 7; }

void conv2d_cuda_naive(const float* in, float* out, int w, int h, const float* filter, int f,
                       Block2 block, cudaStream_t stream) {
  check_args(w, h, f, block);
  conv2d_naive_kernel<<<make_grid(w, h, block, 1), dim3(block.x, block.y), 0, stream>>>(
      in, out, w, h, filter, f);
  CUDA_CHECK_LAUNCH();
}

KernelStats conv2d_cuda_naive_stats(int w, int h, int, Block2 block) {
  const dim3 g = make_grid(w, h, block, 1);
  return kernel_stats(conv2d_naive_kernel, block.threads(), static_cast<long long>(g.x) * g.y);
}

void conv2d_set_tiled_filter(const float* host_filter, int f, cudaStream_t stream) {
  set_constant(c_filter2d, g_tiled_f, host_filter, static_cast<std::size_t>(f) * f, f, stream);
}

void conv2d_cuda_tiled(const float* in, float* out, int w, int h, int f, Block2 block,
                       cudaStream_t stream) {
  check_args(w, h, f, block);
  require_loaded(g_tiled_f, f, "conv2d_cuda_tiled");
  const dim3 grid = make_grid(w, h, block, kRows);
  const std::size_t smem = tiled_smem(f, block);
  by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    allow_smem(conv2d_tiled_kernel<F>, smem);
    conv2d_tiled_kernel<F><<<grid, dim3(block.x, block.y), smem, stream>>>(in, out, w, h);
    return 0;
  });
  CUDA_CHECK_LAUNCH();
}

KernelStats conv2d_cuda_tiled_stats(int w, int h, int f, Block2 block) {
  const dim3 g = make_grid(w, h, block, kRows);
  const std::size_t smem = tiled_smem(f, block);
  return by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    allow_smem(conv2d_tiled_kernel<F>, smem);
    return kernel_stats(conv2d_tiled_kernel<F>, block.threads(), static_cast<long long>(g.x) * g.y,
                        smem);
  });
}

void conv2d_set_separable_filter(const float* host_g, int f, cudaStream_t stream) {
  set_constant(c_filter1d, g_separable_f, host_g, static_cast<std::size_t>(f), f, stream);
}

void conv2d_cuda_separable(const float* in, float* out, int w, int h, int f, Block2 block,
                           cudaStream_t stream) {
  check_args(w, h, f, block);
  require_loaded(g_separable_f, f, "conv2d_cuda_separable");
  const dim3 grid = make_grid(w, h, block, kRows);
  const std::size_t smem = separable_smem(f, block);
  by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    allow_smem(conv2d_separable_kernel<F>, smem);
    conv2d_separable_kernel<F><<<grid, dim3(block.x, block.y), smem, stream>>>(in, out, w, h);
    return 0;
  });
  CUDA_CHECK_LAUNCH();
}

KernelStats conv2d_cuda_separable_stats(int w, int h, int f, Block2 block) {
  const dim3 g = make_grid(w, h, block, kRows);
  const std::size_t smem = separable_smem(f, block);
  return by_filter(f, [&](auto fc) {
    constexpr int F = decltype(fc)::value;
    allow_smem(conv2d_separable_kernel<F>, smem);
    return kernel_stats(conv2d_separable_kernel<F>, block.threads(),
                        static_cast<long long>(g.x) * g.y, smem);
  });
}

}  // namespace tb::gpu
