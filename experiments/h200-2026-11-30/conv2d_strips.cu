// Scratch experiment (not part of the suite): conv2d strip kernels against the suite's cuda_tiled and
// cuda_direct as of 1c33777, 200 back-to-back launches after 20 warm-ups, 3840x2160, every variant
// checked against a float64 clamp-to-edge reference on that image and on 1001x777 (scalar path)
// before it is timed. Build one run of conv2d_strips.md with -DRUN=1..7 (see there).
#include <cstdio>
#include <vector>
#include <cmath>
#include <algorithm>
#include <cuda_runtime.h>
#include "gpu/conv2d.hpp"
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s line %d\n", #x, cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

__constant__ float c_f[49];
__device__ __forceinline__ int clamp_to(int v, int hi) { return min(max(v, 0), hi); }
__device__ __forceinline__ void cp_async16(unsigned s, const float* g) { asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(g) : "memory"); }
__device__ __forceinline__ void cp_async4(unsigned s, const float* g) { asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(g) : "memory"); }
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

__device__ __forceinline__ void copy_group(unsigned dst, const float* __restrict__ in, int y, int gx, int w, bool whole) {
  const size_t row = (size_t)(unsigned)y * (unsigned)w;
  if (whole) cp_async16(dst, in + (row + (unsigned)gx));
  else {
#pragma unroll
    for (int u = 0; u < 4; ++u) cp_async4(dst + 4 * u, in + (row + (unsigned)clamp_to(gx + u, w - 1)));
  }
}

template <int F, int S>
__device__ __forceinline__ void feed(float (&acc)[F][4], const float (&win)[12], int i) {
  constexpr int R = F / 2;
#pragma unroll
  for (int dy = 0; dy < F; ++dy) {
    const int p = i - dy;
    if (p < 0 || p >= S) continue;
#pragma unroll
    for (int dx = 0; dx < F; ++dx) {
      const float tap = c_f[dy * F + dx];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float v = win[4 - R + j + dx];
        acc[p % F][j] = (dy == 0 && dx == 0) ? tap * v : fmaf(tap, v, acc[p % F][j]);
      }
    }
  }
}

__device__ __forceinline__ void store4(float* __restrict__ out, int w, int h, int x, int y, const float (&a)[4], bool vec) {
  if (y >= h) return;
  float* o = out + (size_t)y * w + x;
  if (vec && x + 4 <= w) *reinterpret_cast<float4*>(o) = make_float4(a[0], a[1], a[2], a[3]);
  else {
#pragma unroll
    for (int j = 0; j < 4; ++j) if (x + j < w) o[j] = a[j];
  }
}

constexpr int kPitch = 136;
// Each warp: 128 columns x S rows, walking down, cp.async ring of K rows (per warp, no block barrier).
template <int F, int S, int K, int WPB>
__global__ void __launch_bounds__(32 * WPB) strip_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  __shared__ __align__(16) float ring_all[WPB][K][kPitch];
  const int lane = threadIdx.x, wid = threadIdx.y;
  const unsigned ring_s = (unsigned)__cvta_generic_to_shared(&ring_all[wid][0][0]);
  const int cx = blockIdx.x * 128;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h) return;
  const int gx0 = cx - 4 + 4 * lane;
  const bool whole0 = vec && gx0 >= 0 && gx0 + 4 <= w;
  const int gx1 = cx - 4 + 4 * (32 + lane);
  const bool whole1 = vec && gx1 >= 0 && gx1 + 4 <= w;
  auto issue = [&](int i) {
    const int y = clamp_to(y0 - R + i, h - 1);
    const unsigned dst = ring_s + 4u * ((i % K) * kPitch);
    copy_group(dst + 16 * lane, in, y, gx0, w, whole0);
    if (lane < 2) copy_group(dst + 16 * (32 + lane), in, y, gx1, w, whole1);
  };
#pragma unroll
  for (int i = 0; i < K - 1; ++i) { if (i < kIn) issue(i); cp_commit(); }
  float acc[F][4];
  const int x = cx + 4 * lane;
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    cp_wait<K - 2>();
    __syncwarp();
    if (i + K - 1 < kIn) issue(i + K - 1);
    cp_commit();
    const float4* row = reinterpret_cast<const float4*>(&ring_all[wid][i % K][4 * lane]);
    const float4 a = row[0], b = row[1], c = row[2];
    const float win[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
    feed<F, S>(acc, win, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S && x < w) store4(out, w, h, x, y0 + p, acc[p % F], vec);
  }
}

// Same walk, reading global through L1 with a one-row register prefetch.
template <int F, int S, int WPB>
__global__ void __launch_bounds__(32 * WPB) strip_ldg_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int x = blockIdx.x * 128 + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h || x >= w) return;
  const bool whole = vec && x >= 4 && x + 8 <= w;
  auto load = [&](int i, float (&win)[12]) {
    const float* row = in + (size_t)clamp_to(y0 - R + i, h - 1) * w;
    if (whole) {
      const float4* r4 = reinterpret_cast<const float4*>(row + (x - 4));
      const float4 a = __ldg(r4), b = __ldg(r4 + 1), c = __ldg(r4 + 2);
      win[0] = a.x; win[1] = a.y; win[2] = a.z; win[3] = a.w; win[4] = b.x; win[5] = b.y; win[6] = b.z; win[7] = b.w; win[8] = c.x; win[9] = c.y; win[10] = c.z; win[11] = c.w;
    } else {
#pragma unroll
      for (int k = 0; k < 12; ++k) win[k] = __ldg(row + clamp_to(x - 4 + k, w - 1));
    }
  };
  float acc[F][4];
  float cur[12], nxt[12];
  load(0, cur);
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    if (i + 1 < kIn) load(i + 1, nxt);
    feed<F, S>(acc, cur, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S) store4(out, w, h, x, y0 + p, acc[p % F], vec);
#pragma unroll
    for (int k = 0; k < 12; ++k) cur[k] = nxt[k];
  }
}


// Rolled by F: the row loop runs in chunks of F rows so accumulator indices stay compile-time
// while the code holds one chunk (i-cache), any S.
template <int F, int S, int WPB>
__global__ void __launch_bounds__(32 * WPB) ldg_rolled_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int x = blockIdx.x * 128 + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h || x >= w) return;
  const bool whole = vec && x >= 4 && x + 8 <= w;
  auto load = [&](int i, float (&win)[12]) {
    const float* row = in + (size_t)clamp_to(y0 - R + i, h - 1) * w;
    if (whole) {
      const float4* r4 = reinterpret_cast<const float4*>(row + (x - 4));
      const float4 a = __ldg(r4), b = __ldg(r4 + 1), c = __ldg(r4 + 2);
      win[0] = a.x; win[1] = a.y; win[2] = a.z; win[3] = a.w; win[4] = b.x; win[5] = b.y; win[6] = b.z; win[7] = b.w; win[8] = c.x; win[9] = c.y; win[10] = c.z; win[11] = c.w;
    } else {
#pragma unroll
      for (int k = 0; k < 12; ++k) win[k] = __ldg(row + clamp_to(x - 4 + k, w - 1));
    }
  };
  float acc[F][4];
  float cur[12], nxt[12];
  load(0, cur);
#pragma unroll 1
  for (int i0 = 0; i0 < kIn; i0 += F) {
#pragma unroll
    for (int k = 0; k < F; ++k) {
      const int i = i0 + k;
      if (i >= kIn) break;
      if (i + 1 < kIn) load(i + 1, nxt);
#pragma unroll
      for (int dy = 0; dy < F; ++dy) {
        const int p = i - dy;        // output row; its accumulator is (k - dy) mod F since i0 % F == 0
        const int slot = (k - dy + F) % F;
        if (p < 0 || p >= S) continue;
#pragma unroll
        for (int dx = 0; dx < F; ++dx) {
          const float tap = c_f[dy * F + dx];
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            const float v = cur[4 - R + j + dx];
            acc[slot][j] = (dy == 0 && dx == 0) ? tap * v : fmaf(tap, v, acc[slot][j]);
          }
        }
      }
      const int p = i - (F - 1);
      if (p >= 0) store4(out, w, h, x, y0 + p, acc[(k + 1) % F], vec);
#pragma unroll
      for (int q = 0; q < 12; ++q) cur[q] = nxt[q];
    }
  }
}

// Staged: each lane loads only its own 16-byte group of a row (lanes 0, 1 also the two groups
// past the warp) into registers D rows ahead, stores it into a per-warp 2-row shared buffer
// (the tile with halo), and reads its 12-float window from there.
template <int F, int S, int D, int WPB>
__global__ void __launch_bounds__(32 * WPB) staged_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  __shared__ __align__(16) float buf_all[WPB][2][kPitch];
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int cx = blockIdx.x * 128;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h) return;
  const int x = cx + 4 * lane;
  const int gx0 = x - 4, gx1 = cx + 124 + 4 * lane;
  const bool whole0 = vec && gx0 >= 0 && gx0 + 4 <= w;
  const bool whole1 = vec && gx1 >= 0 && gx1 + 4 <= w;
  const bool halo = lane < 2;
  auto group = [&](const float* row, int gx, bool whole) {
    if (whole) return __ldg(reinterpret_cast<const float4*>(row + gx));
    return make_float4(__ldg(row + clamp_to(gx, w - 1)), __ldg(row + clamp_to(gx + 1, w - 1)),
                       __ldg(row + clamp_to(gx + 2, w - 1)), __ldg(row + clamp_to(gx + 3, w - 1)));
  };
  float4 g0[D], g1[D];
  auto load = [&](int i, int d) {
    const float* row = in + (size_t)clamp_to(y0 - R + i, h - 1) * w;
    g0[d] = group(row, gx0, whole0);
    if (halo) g1[d] = group(row, gx1, whole1);
  };
#pragma unroll
  for (int d = 0; d < D; ++d) if (d < kIn) load(d, d);
  float acc[F][4];
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    float* b = buf_all[wid][i & 1];
    reinterpret_cast<float4*>(b)[lane] = g0[i % D];
    if (halo) reinterpret_cast<float4*>(b)[32 + lane] = g1[i % D];
    if (i + D < kIn) load(i + D, i % D);
    __syncwarp();
    const float4* row = reinterpret_cast<const float4*>(b + 4 * lane);
    const float4 a = row[0], bb = row[1], c = row[2];
    const float win[12] = {a.x, a.y, a.z, a.w, bb.x, bb.y, bb.z, bb.w, c.x, c.y, c.z, c.w};
    feed<F, S>(acc, win, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S && x < w) store4(out, w, h, x, y0 + p, acc[p % F], vec);
  }
}


// Shuffle: lane l loads only group l of each row (image columns cx - 4 + 4l .. +3), D rows ahead;
// its 12-float window is the groups of lanes l-1, l, l+1 by shuffles. Lanes 1..30 compute (a
// warp's outputs are 120 columns), lanes 0 and 31 only bring the halo.
template <int F, int S, int D, int WPB, int MINB>
__global__ void __launch_bounds__(32 * WPB, MINB) shfl_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int gx = blockIdx.x * 120 - 4 + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h) return;
  const bool whole = vec && gx >= 0 && gx + 4 <= w;
  const bool writer = lane >= 1 && lane <= 30 && gx < w;
  auto load = [&](int i) {
    const float* row = in + (size_t)clamp_to(y0 - R + i, h - 1) * w;
    if (whole) return __ldg(reinterpret_cast<const float4*>(row + gx));
    return make_float4(__ldg(row + clamp_to(gx, w - 1)), __ldg(row + clamp_to(gx + 1, w - 1)),
                       __ldg(row + clamp_to(gx + 2, w - 1)), __ldg(row + clamp_to(gx + 3, w - 1)));
  };
  float4 g[D];
#pragma unroll
  for (int d = 0; d < D; ++d) if (d < kIn) g[d] = load(d);
  float acc[F][4];
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    const float4 c = g[i % D];
    if (i + D < kIn) g[i % D] = load(i + D);
    float win[12];
    win[4] = c.x; win[5] = c.y; win[6] = c.z; win[7] = c.w;
    win[0] = __shfl_up_sync(0xffffffffu, c.x, 1); win[1] = __shfl_up_sync(0xffffffffu, c.y, 1);
    win[2] = __shfl_up_sync(0xffffffffu, c.z, 1); win[3] = __shfl_up_sync(0xffffffffu, c.w, 1);
    win[8] = __shfl_down_sync(0xffffffffu, c.x, 1); win[9] = __shfl_down_sync(0xffffffffu, c.y, 1);
    win[10] = __shfl_down_sync(0xffffffffu, c.z, 1); win[11] = __shfl_down_sync(0xffffffffu, c.w, 1);
    feed<F, S>(acc, win, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S && writer) store4(out, w, h, gx, y0 + p, acc[p % F], vec);
  }
}
template <int F, int S, int WPB, int MINB>
__global__ void __launch_bounds__(32 * WPB, MINB) ldgb_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int x = blockIdx.x * 128 + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h || x >= w) return;
  const bool whole = vec && x >= 4 && x + 8 <= w;
  auto load = [&](int i, float (&win)[12]) {
    const float* row = in + (size_t)clamp_to(y0 - R + i, h - 1) * w;
    if (whole) {
      const float4* r4 = reinterpret_cast<const float4*>(row + (x - 4));
      const float4 a = __ldg(r4), b = __ldg(r4 + 1), c = __ldg(r4 + 2);
      win[0] = a.x; win[1] = a.y; win[2] = a.z; win[3] = a.w; win[4] = b.x; win[5] = b.y; win[6] = b.z; win[7] = b.w; win[8] = c.x; win[9] = c.y; win[10] = c.z; win[11] = c.w;
    } else {
#pragma unroll
      for (int k = 0; k < 12; ++k) win[k] = __ldg(row + clamp_to(x - 4 + k, w - 1));
    }
  };
  float acc[F][4];
  float cur[12], nxt[12];
  load(0, cur);
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    if (i + 1 < kIn) load(i + 1, nxt);
    feed<F, S>(acc, cur, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S) store4(out, w, h, x, y0 + p, acc[p % F], vec);
#pragma unroll
    for (int k = 0; k < 12; ++k) cur[k] = nxt[k];
  }
}


// ldg strip plus a register-free prefetch of row i + P into L2 (MODE 0: each lane its own 16 bytes,
// prefetch.global.L2; MODE 1: lane 0 one bulk prefetch of the warp's 544 bytes; MODE 2: each lane
// prefetch.global.L1).
template <int F, int S, int WPB, int P, int MODE>
__global__ void __launch_bounds__(32 * WPB) ldgp_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int cx = blockIdx.x * 128;
  const int x = cx + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h) return;
  const bool active = x < w;
  const bool whole = vec && x >= 4 && x + 8 <= w;
  // bulk prefetch span: columns [c0, c1) of a row, 16-byte aligned when vec
  const int c0 = max(cx - 4, 0), c1 = min(cx + 132, w);
  auto prefetch = [&](int i) {
    const float* row = in + (size_t)clamp_to(y0 - R + i, h - 1) * w;
    if constexpr (MODE == 0) {
      if (active) asm volatile("prefetch.global.L2 [%0];" ::"l"(row + x));
    } else if constexpr (MODE == 1) {
      if (lane == 0 && vec) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(row + c0), "r"(4 * (c1 - c0)) : "memory");
    } else {
      if (active) asm volatile("prefetch.global.L1 [%0];" ::"l"(row + x));
    }
  };
  auto load = [&](int i, float (&win)[12]) {
    const float* row = in + (size_t)clamp_to(y0 - R + i, h - 1) * w;
    if (whole) {
      const float4* r4 = reinterpret_cast<const float4*>(row + (x - 4));
      const float4 a = __ldg(r4), b = __ldg(r4 + 1), c = __ldg(r4 + 2);
      win[0] = a.x; win[1] = a.y; win[2] = a.z; win[3] = a.w; win[4] = b.x; win[5] = b.y; win[6] = b.z; win[7] = b.w; win[8] = c.x; win[9] = c.y; win[10] = c.z; win[11] = c.w;
    } else {
#pragma unroll
      for (int k = 0; k < 12; ++k) win[k] = __ldg(row + clamp_to(x - 4 + k, w - 1));
    }
  };
#pragma unroll
  for (int i = 1; i < P && i < kIn; ++i) prefetch(i);
  float acc[F][4];
  float cur[12], nxt[12];
  if (active) load(0, cur);
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    if (i + P < kIn) prefetch(i + P);
    if (i + 1 < kIn && active) load(i + 1, nxt);
    feed<F, S>(acc, cur, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S && active) store4(out, w, h, x, y0 + p, acc[p % F], vec);
#pragma unroll
    for (int k = 0; k < 12; ++k) cur[k] = nxt[k];
  }
}


template <int F, int S, bool kUp>
__device__ __forceinline__ void feed_dir(float (&acc)[F][4], const float (&win)[12], int i) {
  constexpr int R = F / 2;
#pragma unroll
  for (int dyw = 0; dyw < F; ++dyw) {
    const int q = i - dyw;
    if (q < 0 || q >= S) continue;
    const int dy = kUp ? F - 1 - dyw : dyw;
#pragma unroll
    for (int dx = 0; dx < F; ++dx) {
      const float tap = c_f[dy * F + dx];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float v = win[4 - R + j + dx];
        acc[q % F][j] = (dyw == 0 && dx == 0) ? tap * v : fmaf(tap, v, acc[q % F][j]);
      }
    }
  }
}
// Walk S output rows down (kUp false) or up; odd strips walk up so that two neighbouring strips
// read the rows they share at the same time (L2 hits instead of a second DRAM read).
template <int F, int S, bool kUp>
__device__ __forceinline__ void walk(const float* __restrict__ in, float* __restrict__ out, int w, int h, int x, int y0, bool whole, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  auto load = [&](int i, float (&win)[12]) {
    const int y = kUp ? y0 + S - 1 + R - i : y0 - R + i;
    const float* row = in + (size_t)clamp_to(y, h - 1) * w;
    if (whole) {
      const float4* r4 = reinterpret_cast<const float4*>(row + (x - 4));
      const float4 a = __ldg(r4), b = __ldg(r4 + 1), c = __ldg(r4 + 2);
      win[0] = a.x; win[1] = a.y; win[2] = a.z; win[3] = a.w; win[4] = b.x; win[5] = b.y; win[6] = b.z; win[7] = b.w; win[8] = c.x; win[9] = c.y; win[10] = c.z; win[11] = c.w;
    } else {
#pragma unroll
      for (int k = 0; k < 12; ++k) win[k] = __ldg(row + clamp_to(x - 4 + k, w - 1));
    }
  };
  float acc[F][4];
  float cur[12], nxt[12];
  load(0, cur);
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    if (i + 1 < kIn) load(i + 1, nxt);
    feed_dir<F, S, kUp>(acc, cur, i);
    const int q = i - (F - 1);
    if (q >= 0 && q < S) store4(out, w, h, x, kUp ? y0 + S - 1 - q : y0 + q, acc[q % F], vec);
#pragma unroll
    for (int k = 0; k < 12; ++k) cur[k] = nxt[k];
  }
}
// ALT 0: all down; 1: odd strips up; 2: all up (control)
template <int F, int S, int WPB, int ALT>
__global__ void __launch_bounds__(32 * WPB) alt_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int x = blockIdx.x * 128 + 4 * lane;
  const int strip = blockIdx.y * WPB + wid;
  const int y0 = strip * S;
  if (y0 >= h || x >= w) return;
  const bool whole = vec && x >= 4 && x + 8 <= w;
  const bool up = ALT == 2 || (ALT == 1 && (strip & 1));
  if (up) walk<F, S, true>(in, out, w, h, x, y0, whole, vec);
  else walk<F, S, false>(in, out, w, h, x, y0, whole, vec);
}
// Strip-pattern copy: the same walk with no arithmetic (diagnostic for the access pattern).
template <int S, int WPB, int ALT, int HALO>
__global__ void __launch_bounds__(32 * WPB) strip_copy_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int x = blockIdx.x * 128 + 4 * lane;
  const int strip = blockIdx.y * WPB + wid;
  const int y0 = strip * S;
  if (y0 >= h || x >= w) return;
  const bool up = ALT == 1 && (strip & 1);
  float4 keep = make_float4(0, 0, 0, 0);
#pragma unroll
  for (int i = 0; i < S + 2 * HALO; ++i) {
    const int y = up ? y0 + S - 1 + HALO - i : y0 - HALO + i;
    const float4 v = __ldg(reinterpret_cast<const float4*>(in + (size_t)clamp_to(y, h - 1) * w + x));
    const int q = i - HALO;
    if (q >= 0 && q < S) {
      const int yo = up ? y0 + S - 1 - q : y0 + q;
      if (yo < h) *reinterpret_cast<float4*>(out + (size_t)yo * w + x) = make_float4(v.x + keep.x, v.y, v.z, v.w);
    } else keep.x += v.x * 1e-30f;
  }
}


// MODE 0: full 12-float windows prefetched D rows ahead in registers.
// MODE 1: only the lane's own 16-byte group is loaded D rows ahead (4 registers a row); the two
//         neighbouring groups are loaded when the row is used (L1 hits: the neighbours' own loads
//         brought those lines in).
template <int F, int S, int WPB, int D, int MODE>
__global__ void __launch_bounds__(32 * WPB) ldgd_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int x = blockIdx.x * 128 + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h || x >= w) return;
  const bool whole = vec && x >= 4 && x + 8 <= w;
  auto rowp = [&](int i) { return in + (size_t)clamp_to(y0 - R + i, h - 1) * w; };
  auto load_full = [&](int i, float (&win)[12]) {
    const float* row = rowp(i);
    if (whole) {
      const float4* r4 = reinterpret_cast<const float4*>(row + (x - 4));
      const float4 a = __ldg(r4), b = __ldg(r4 + 1), c = __ldg(r4 + 2);
      win[0] = a.x; win[1] = a.y; win[2] = a.z; win[3] = a.w; win[4] = b.x; win[5] = b.y; win[6] = b.z; win[7] = b.w; win[8] = c.x; win[9] = c.y; win[10] = c.z; win[11] = c.w;
    } else {
#pragma unroll
      for (int k = 0; k < 12; ++k) win[k] = __ldg(row + clamp_to(x - 4 + k, w - 1));
    }
  };
  float acc[F][4];
  if constexpr (MODE == 0) {
    float buf[D + 1][12];
#pragma unroll
    for (int d = 0; d < D && d < kIn; ++d) load_full(d, buf[d]);
#pragma unroll
    for (int i = 0; i < kIn; ++i) {
      if (i + D < kIn) load_full(i + D, buf[(i + D) % (D + 1)]);
      feed<F, S>(acc, buf[i % (D + 1)], i);
      const int p = i - (F - 1);
      if (p >= 0 && p < S) store4(out, w, h, x, y0 + p, acc[p % F], vec);
    }
  } else {
    float4 mid[D];
    auto load_mid = [&](int i) {
      const float* row = rowp(i);
      if (whole) return __ldg(reinterpret_cast<const float4*>(row + x));
      return make_float4(__ldg(row + min(x, w - 1)), __ldg(row + min(x + 1, w - 1)), __ldg(row + min(x + 2, w - 1)), __ldg(row + min(x + 3, w - 1)));
    };
#pragma unroll
    for (int d = 0; d < D && d < kIn; ++d) mid[d] = load_mid(d);
#pragma unroll
    for (int i = 0; i < kIn; ++i) {
      const float4 b = mid[i % D];
      if (i + D < kIn) mid[i % D] = load_mid(i + D);
      float win[12];
      const float* row = rowp(i);
      if (whole) {
        const float4 a = __ldg(reinterpret_cast<const float4*>(row + x - 4)), c = __ldg(reinterpret_cast<const float4*>(row + x + 4));
        win[0] = a.x; win[1] = a.y; win[2] = a.z; win[3] = a.w; win[8] = c.x; win[9] = c.y; win[10] = c.z; win[11] = c.w;
      } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) { win[k] = __ldg(row + clamp_to(x - 4 + k, w - 1)); win[8 + k] = __ldg(row + clamp_to(x + 4 + k, w - 1)); }
      }
      win[4] = b.x; win[5] = b.y; win[6] = b.z; win[7] = b.w;
      feed<F, S>(acc, win, i);
      const int p = i - (F - 1);
      if (p >= 0 && p < S) store4(out, w, h, x, y0 + p, acc[p % F], vec);
    }
  }
}


__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile("{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}\n" ::"r"(bar), "r"(parity) : "memory");
}
// TMA (bulk copy) ring: lane 0 of each warp copies whole 544-byte tile rows (the warp's 128
// columns plus a 4-column halo each side) into a per-warp ring of K rows in shared memory,
// completing on one mbarrier per slot; the lanes read their 12-float windows from the ring.
template <int F, int S, int K, int WPB>
__global__ void __launch_bounds__(32 * WPB) tma_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  constexpr unsigned kRowBytes = kPitch * 4;
  __shared__ __align__(128) float ring[WPB][K][kPitch];
  __shared__ __align__(8) unsigned long long bars[WPB][K];
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int cx = blockIdx.x * 128;
  const int x = cx + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h) return;
  const bool inside = vec && cx >= 4 && cx + 132 <= w;
  if (!inside) {
    if (x < w) walk<F, S, false>(in, out, w, h, x, y0, vec && x >= 4 && x + 8 <= w, vec);
    return;
  }
  const unsigned bar_s = (unsigned)__cvta_generic_to_shared(&bars[wid][0]);
  const unsigned ring_s = (unsigned)__cvta_generic_to_shared(&ring[wid][0][0]);
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_s + 8 * k) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncwarp();
  auto issue = [&](int i) {
    const int slot = i % K;
    const unsigned bar = bar_s + 8 * slot, dst = ring_s + slot * kRowBytes;
    const float* src = in + (size_t)clamp_to(y0 - R + i, h - 1) * w + (cx - 4);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kRowBytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst), "l"(src), "r"(kRowBytes), "r"(bar) : "memory");
  };
  if (lane == 0) {
#pragma unroll
    for (int i = 0; i < K - 1 && i < kIn; ++i) issue(i);
  }
  float acc[F][4];
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    __syncwarp();
    if (lane == 0 && i + K - 1 < kIn) issue(i + K - 1);
    mbar_wait(bar_s + 8 * (i % K), (i / K) & 1);
    const float4* row = reinterpret_cast<const float4*>(&ring[wid][i % K][4 * lane]);
    const float4 a = row[0], b = row[1], c = row[2];
    const float win[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
    feed<F, S>(acc, win, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S) store4(out, w, h, x, y0 + p, acc[p % F], vec);
  }
}

__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, size_t n4) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) b[i] = a[i];
}

struct Img { int w, h; float *din, *dout; std::vector<float> in, out; };

static void reference(const Img& im, const std::vector<float>& filt, int f, std::vector<float>& ref) {
  const int r = f / 2; ref.assign((size_t)im.w * im.h, 0.f);
#pragma omp parallel for
  for (int y = 0; y < im.h; ++y) for (int x = 0; x < im.w; ++x) {
    double acc = 0;
    for (int dy = 0; dy < f; ++dy) { const float* row = &im.in[(size_t)std::min(std::max(y + dy - r, 0), im.h - 1) * im.w];
      for (int dx = 0; dx < f; ++dx) acc += (double)filt[dy * f + dx] * row[std::min(std::max(x + dx - r, 0), im.w - 1)]; }
    ref[(size_t)y * im.w + x] = (float)acc;
  }
}

template <class L> static double check(Img& im, const std::vector<float>& ref, L launch) {
  CK(cudaMemset(im.dout, 0xff, (size_t)im.w * im.h * 4));
  launch(); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(im.out.data(), im.dout, (size_t)im.w * im.h * 4, cudaMemcpyDeviceToHost));
  double e = 0; for (size_t i = 0; i < ref.size(); ++i) { double d = std::fabs((double)ref[i] - im.out[i]); if (!(d <= e)) e = d; }
  return e;
}
template <class L> static double time_us(L launch, int reps = 200) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 20; ++i) launch();
  cudaEventRecord(a); for (int i = 0; i < reps; ++i) launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
  float ms; cudaEventElapsedTime(&ms, a, b); return ms * 1000.0 / reps;
}

static Img make(int w, int h) {
  Img im{w, h}; size_t n = (size_t)w * h; im.in.resize(n); im.out.resize(n);
  unsigned s = 7; for (auto& v : im.in) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f); }
  CK(cudaMalloc(&im.din, n * 4 + 64)); CK(cudaMalloc(&im.dout, n * 4 + 64));
  CK(cudaMemcpy(im.din, im.in.data(), n * 4, cudaMemcpyHostToDevice));
  return im;
}

template <int F, int S, int K, int WPB> void launch_strip(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  strip_kernel<F, S, K, WPB><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}
template <int F, int S, int WPB> void launch_ldg(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  strip_ldg_kernel<F, S, WPB><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}

template <int F, int S, int WPB> void launch_rolled(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  ldg_rolled_kernel<F, S, WPB><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}
template <int F, int S, int D, int WPB> void launch_staged(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  staged_kernel<F, S, D, WPB><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}

template <int F, int S, int D, int WPB, int MINB> void launch_shfl(const Img& im, bool vec) {
  dim3 grid((im.w + 119) / 120, (im.h + S * WPB - 1) / (S * WPB));
  shfl_kernel<F, S, D, WPB, MINB><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}
template <int F, int S, int WPB, int MINB> void launch_ldgb(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  ldgb_kernel<F, S, WPB, MINB><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}

template <int F, int S, int WPB, int P, int MODE> void launch_ldgp(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  ldgp_kernel<F, S, WPB, P, MODE><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}

template <int F, int S, int WPB, int ALT> void launch_alt(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  alt_kernel<F, S, WPB, ALT><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}

template <int F, int S, int WPB, int D, int MODE> void launch_ldgd(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  ldgd_kernel<F, S, WPB, D, MODE><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}

template <int F, int S, int K, int WPB> void launch_tma(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  tma_kernel<F, S, K, WPB><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}
template <class K> int regs(K k) { cudaFuncAttributes a; cudaFuncGetAttributes(&a, k); return a.numRegs; }
template <class K> int occ(K k, int threads) { int b; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, threads, 0); return b; }

double g_bw;
template <int F> void run_f(Img& big, Img& odd) {
  std::vector<float> filt(F * F); for (int i = 0; i < F * F; ++i) filt[i] = 0.02f * (i + 1) - 0.3f;
  CK(cudaMemcpyToSymbol(c_f, filt.data(), F * F * 4));
  tb::gpu::conv2d_set_tiled_filter(filt.data(), F, 0); CK(cudaDeviceSynchronize());
  std::vector<float> ref_big, ref_odd; reference(big, filt, F, ref_big); reference(odd, filt, F, ref_odd);
  const double bytes = 8.0 * big.w * big.h;
  auto report = [&](const char* name, int r, int o, double e_big, double e_odd, double us) {
    printf("f=%d %-26s regs %3d blk/SM %2d err %.1e/%.1e %7.2f us %5.1f%%\n", F, name, r, o, e_big, e_odd, us, 100.0 * bytes / (us * 1e-6) / g_bw);
  };
  auto suite = [&](const char* name, auto fn, auto stats, tb::Block2 bs) {
    double e1 = check(big, ref_big, [&] { fn(big.din, big.dout, big.w, big.h, F, bs, 0); });
    double e2 = check(odd, ref_odd, [&] { fn(odd.din, odd.dout, odd.w, odd.h, F, bs, 0); });
    double us = time_us([&] { fn(big.din, big.dout, big.w, big.h, F, bs, 0); });
    auto st = stats(big.w, big.h, F, bs);
    report(name, st.regs_per_thread, st.active_blocks_per_sm, e1, e2, us);
  };
  suite("tiled 32x4", tb::gpu::conv2d_cuda_tiled, tb::gpu::conv2d_cuda_tiled_stats, tb::Block2{32, 4});
  suite("direct 32x4", tb::gpu::conv2d_cuda_direct, tb::gpu::conv2d_cuda_direct_stats, tb::Block2{32, 4});
  auto strip = [&](const char* name, auto kern, auto launch, int threads) {
    double e1 = check(big, ref_big, [&] { launch(big, true); });
    double e2 = check(odd, ref_odd, [&] { launch(odd, false); });
    double us = time_us([&] { launch(big, true); });
    report(name, regs(kern), occ(kern, threads), e1, e2, us);
  };
#define STRIP(S, K, WPB) strip("strip S" #S " K" #K " W" #WPB, strip_kernel<F, S, K, WPB>, launch_strip<F, S, K, WPB>, 32 * WPB)
#define LDG(S, WPB) strip("ldg S" #S " W" #WPB, strip_ldg_kernel<F, S, WPB>, launch_ldg<F, S, WPB>, 32 * WPB)
#define ROLL(S, WPB) strip("rolled S" #S " W" #WPB, ldg_rolled_kernel<F, S, WPB>, launch_rolled<F, S, WPB>, 32 * WPB)
#define STAGED(S, D, WPB) strip("staged S" #S " D" #D " W" #WPB, staged_kernel<F, S, D, WPB>, launch_staged<F, S, D, WPB>, 32 * WPB)
#define SHFL(S, D, WPB, MINB) strip("shfl S" #S " D" #D " W" #WPB " m" #MINB, shfl_kernel<F, S, D, WPB, MINB>, launch_shfl<F, S, D, WPB, MINB>, 32 * WPB)
#define LDGB(S, WPB, MINB) strip("ldg S" #S " W" #WPB " m" #MINB, ldgb_kernel<F, S, WPB, MINB>, launch_ldgb<F, S, WPB, MINB>, 32 * WPB)
#define LDGP(S, WPB, P, MODE) strip("ldgp S" #S " W" #WPB " P" #P " M" #MODE, ldgp_kernel<F, S, WPB, P, MODE>, launch_ldgp<F, S, WPB, P, MODE>, 32 * WPB)
#define ALT(S, WPB, A) strip("alt S" #S " W" #WPB " A" #A, alt_kernel<F, S, WPB, A>, launch_alt<F, S, WPB, A>, 32 * WPB)
#define LDGD(S, WPB, D, M) strip("ldgd S" #S " W" #WPB " D" #D " M" #M, ldgd_kernel<F, S, WPB, D, M>, launch_ldgd<F, S, WPB, D, M>, 32 * WPB)
#define TMA(S, K, WPB) strip("tma S" #S " K" #K " W" #WPB, tma_kernel<F, S, K, WPB>, launch_tma<F, S, K, WPB>, 32 * WPB)
#if RUN == 1
  STRIP(8, 4, 4); STRIP(8, 6, 4); STRIP(16, 4, 4); STRIP(16, 6, 4); STRIP(16, 8, 4); STRIP(32, 6, 4); STRIP(32, 8, 4);
  STRIP(16, 6, 2); STRIP(16, 6, 8); STRIP(8, 6, 8);
  LDG(8, 4); LDG(16, 4); LDG(32, 4); LDG(16, 2);
#elif RUN == 2
  LDG(8, 4); LDG(16, 4); LDG(16, 2);
  ROLL(8, 4); ROLL(16, 4); ROLL(16, 2); ROLL(32, 4); ROLL(32, 2); ROLL(64, 2);
  STAGED(16, 1, 4); STAGED(16, 2, 4); STAGED(16, 2, 2); STAGED(16, 3, 4); STAGED(8, 2, 4); STAGED(32, 2, 4);
#elif RUN == 3
  LDG(8, 2); LDG(16, 2); LDG(16, 4);
  LDGB(16, 2, 24); LDGB(16, 4, 12); LDGB(8, 2, 24); LDGB(16, 2, 20);
  SHFL(16, 1, 4, 1); SHFL(16, 2, 4, 1); SHFL(16, 3, 4, 1); SHFL(16, 2, 2, 1); SHFL(16, 3, 2, 1);
  SHFL(8, 2, 4, 1); SHFL(8, 3, 4, 1); SHFL(16, 2, 2, 24); SHFL(16, 3, 2, 24); SHFL(16, 4, 2, 1); SHFL(12, 3, 2, 1);
#elif RUN == 4
  LDG(16, 2); LDG(16, 4);
  LDGP(16, 2, 2, 0); LDGP(16, 2, 3, 0); LDGP(16, 2, 4, 0); LDGP(16, 2, 6, 0);
  LDGP(16, 2, 2, 1); LDGP(16, 2, 3, 1); LDGP(16, 2, 4, 1); LDGP(16, 2, 6, 1);
  LDGP(16, 2, 2, 2); LDGP(16, 2, 3, 2); LDGP(16, 2, 4, 2);
  LDGP(16, 4, 3, 0); LDGP(16, 4, 3, 1); LDGP(8, 2, 3, 0); LDGP(8, 2, 3, 1);
  LDG(16, 2);
#elif RUN == 5
  LDG(16, 2);
  ALT(16, 2, 0); ALT(16, 2, 1); ALT(16, 2, 2); ALT(16, 4, 1); ALT(8, 2, 1); ALT(8, 4, 1); ALT(12, 2, 1); ALT(32, 2, 1); ALT(16, 1, 1);
  LDG(16, 2);
#elif RUN == 6
  LDG(16, 2);
  LDGD(16, 2, 1, 0); LDGD(16, 2, 2, 0); LDGD(16, 4, 2, 0); LDGD(24, 2, 2, 0); LDGD(16, 2, 3, 0);
  LDGD(16, 2, 1, 1); LDGD(16, 2, 2, 1); LDGD(16, 2, 3, 1); LDGD(16, 2, 4, 1); LDGD(16, 4, 3, 1); LDGD(8, 2, 3, 1); LDGD(24, 2, 3, 1); LDGD(16, 2, 6, 1);
  LDG(16, 2);
#elif RUN == 7
  LDGD(16, 2, 2, 0);
  TMA(16, 3, 2); TMA(16, 4, 2); TMA(16, 6, 2); TMA(16, 4, 4); TMA(8, 4, 2); TMA(16, 8, 2); TMA(32, 6, 2);
  LDGD(16, 2, 2, 0);
#endif
}

int main() {
  Img big = make(3840, 2160), odd = make(1001, 777);
  const size_t n = (size_t)big.w * big.h;
  char *m1, *m2; size_t cb = 1ull << 30; CK(cudaMalloc(&m1, cb)); CK(cudaMalloc(&m2, cb));
  CK(cudaMemset(m1, 1, cb)); CK(cudaMemset(m2, 2, cb));
  double best = 0; for (int i = 0; i < 6; ++i) { double us = time_us([&] { cudaMemcpyAsync(m2, m1, cb, cudaMemcpyDeviceToDevice); }, 1); best = std::max(best, 2.0 * cb / (us * 1e-6)); }
  g_bw = best; printf("copy bw (1 GiB memcpy, best of 6) %.0f GB/s\n", g_bw / 1e9);
  printf("image bytes moved %.1f MB, at copy bw %.2f us, 70%% = %.2f us\n", 8.0 * n / 1e6, 8.0 * n / g_bw * 1e6, 8.0 * n / g_bw * 1e6 / 0.7);
  double us = time_us([&] { cudaMemcpyAsync(big.dout, big.din, n * 4, cudaMemcpyDeviceToDevice); });
  printf("memcpy of the image        %7.2f us %5.1f%%\n", us, 100.0 * 8.0 * n / (us * 1e-6) / g_bw);
  for (int t : {256, 512, 1024}) {
    us = time_us([&] { copy4<<<(n / 4 + t - 1) / t, t>>>((const float4*)big.din, (float4*)big.dout, n / 4); });
    printf("copy4 kernel block %4d    %7.2f us %5.1f%%\n", t, us, 100.0 * 8.0 * n / (us * 1e-6) / g_bw);
  }
#if RUN == 5
  {
    auto sc = [&](const char* name, auto kern, int S) {
      dim3 grid((big.w + 127) / 128, (big.h + S * 2 - 1) / (S * 2));
      double us = time_us([&] { kern<<<grid, dim3(32, 2)>>>(big.din, big.dout, big.w, big.h); });
      printf("%-26s %7.2f us %5.1f%%\n", name, us, 100.0 * 8.0 * n / (us * 1e-6) / g_bw);
    };
    sc("strip copy S16 down h0", strip_copy_kernel<16, 2, 0, 0>, 16);
    sc("strip copy S16 down h2", strip_copy_kernel<16, 2, 0, 2>, 16);
    sc("strip copy S16 alt h2", strip_copy_kernel<16, 2, 1, 2>, 16);
    sc("strip copy S16 down h3", strip_copy_kernel<16, 2, 0, 3>, 16);
    sc("strip copy S16 alt h3", strip_copy_kernel<16, 2, 1, 3>, 16);
    sc("strip copy S8 down h2", strip_copy_kernel<8, 2, 0, 2>, 8);
    sc("strip copy S8 alt h2", strip_copy_kernel<8, 2, 1, 2>, 8);
  }
#endif
  run_f<5>(big, odd); run_f<3>(big, odd); run_f<7>(big, odd);
  return 0;
}
