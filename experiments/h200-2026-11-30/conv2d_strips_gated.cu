// Scratch: the strip kernels timed both back to back and the suite's way (each launch queued
// behind a gate kernel, events around the one kernel, median of 200). Runs 8, 9 and 10 of
// conv2d_strips.md: build with -DRUN=0 -DGRUN=8, 9, 10, 11 or 12.
#ifndef GRUN
#define GRUN 10
#endif
#define main strips_unused_main
#include "conv2d_strips.cu"
#undef main
#include "gpu/launch_gate.hpp"


// Two columns a lane: window of 6 floats (three 8-byte loads at x-2, x, x+2), F <= 5.
template <int F, int S, int WPB, int D, int CAP>
__global__ void __launch_bounds__(32 * WPB) ldg2_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int x = blockIdx.x * 64 + 2 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h || x >= w) return;
  const bool whole = vec && x >= 2 && x + 4 <= w;
  auto load = [&](int i, float (&win)[6]) {
    const float* row = in + (size_t)clamp_to(y0 - R + i, h - 1) * w;
    if (whole) {
      const float2* r2 = reinterpret_cast<const float2*>(row + (x - 2));
      const float2 a = __ldg(r2), b = __ldg(r2 + 1), c = __ldg(r2 + 2);
      win[0] = a.x; win[1] = a.y; win[2] = b.x; win[3] = b.y; win[4] = c.x; win[5] = c.y;
    } else {
#pragma unroll
      for (int k = 0; k < 6; ++k) win[k] = __ldg(row + clamp_to(x - 2 + k, w - 1));
    }
  };
  float acc[F][2];
  float buf[D + 1][6];
#pragma unroll
  for (int d = 0; d < D; ++d) load(d, buf[d]);
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    if (i + D < kIn) load(i + D, buf[(i + D) % (D + 1)]);
#pragma unroll
    for (int dy = 0; dy < F; ++dy) {
      const int p = i - dy;
      if (p < 0 || p >= S) continue;
#pragma unroll
      for (int dx = 0; dx < F; ++dx) {
        const float tap = c_f[dy * F + dx];
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const float v = buf[i % (D + 1)][2 - R + j + dx];
          acc[p % F][j] = (dy == 0 && dx == 0) ? tap * v : fmaf(tap, v, acc[p % F][j]);
        }
      }
    }
    const int p = i - (F - 1);
    if (p >= 0 && p < S && y0 + p < h) {
      float* o = out + (size_t)(y0 + p) * w + x;
      if (vec && x + 2 <= w) *reinterpret_cast<float2*>(o) = make_float2(acc[p % F][0], acc[p % F][1]);
      else { o[0] = acc[p % F][0]; if (x + 1 < w) o[1] = acc[p % F][1]; }
    }
  }
}
template <int F, int S, int WPB, int D, int CAP> void launch_ldg2(const Img& im, bool vec) {
  dim3 grid((im.w + 63) / 64, (im.h + S * WPB - 1) / (S * WPB));
  ldg2_kernel<F, S, WPB, D, CAP><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}
// ldgd (MODE 0) with the suite's register cap instead of launch bounds.
template <int F, int S, int WPB, int D>
__global__ void __maxnreg__(56) ldgm_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int x = blockIdx.x * 128 + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h || x >= w) return;
  const bool whole = vec && x >= 4 && x + 8 <= w;
  auto load_full = [&](int i, float (&win)[12]) {
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
}
template <int F, int S, int WPB, int D> void launch_ldgm(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  ldgm_kernel<F, S, WPB, D><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}


// 128-column strips; each lane loads only its own aligned 16-byte group of a row (lanes 0 and 31
// also the 16 bytes just outside the warp's columns) and takes its neighbours' groups by shuffles:
// every sector comes from L2 once per row instead of the overlapping 16-byte loads' ~1.5 times.
template <int F, int S, int WPB, int D>
__global__ void __maxnreg__(F <= 5 ? 56 : 64) shf128_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int cx = blockIdx.x * 128;
  const int x = cx + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h) return;  // warp-uniform: the shuffles need every lane
  const int hx = lane == 0 ? cx - 4 : cx + 128;  // halo group of lanes 0 and 31
  const bool halo = lane == 0 || lane == 31;
  const bool own_whole = vec && x + 4 <= w;
  const bool halo_whole = vec && hx >= 0 && hx + 4 <= w;
  auto group = [&](const float* row, int gx, bool whole) {
    if (whole) return __ldg(reinterpret_cast<const float4*>(row + gx));
    return make_float4(__ldg(row + clamp_to(gx, w - 1)), __ldg(row + clamp_to(gx + 1, w - 1)),
                       __ldg(row + clamp_to(gx + 2, w - 1)), __ldg(row + clamp_to(gx + 3, w - 1)));
  };
  float4 own[D + 1], hal[D + 1];
  auto load = [&](int i, int s) {
    const float* row = in + (size_t)clamp_to(y0 - R + i, h - 1) * w;
    own[s] = group(row, x, own_whole);
    if (halo) hal[s] = group(row, hx, halo_whole);
  };
#pragma unroll
  for (int d = 0; d < D; ++d) load(d, d);
  float acc[F][4];
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    if (i + D < kIn) load(i + D, (i + D) % (D + 1));
    const float4 c = own[i % (D + 1)];
    const float4 hv = hal[i % (D + 1)];
    float4 l, r;
    l.x = __shfl_up_sync(0xffffffffu, c.x, 1); l.y = __shfl_up_sync(0xffffffffu, c.y, 1);
    l.z = __shfl_up_sync(0xffffffffu, c.z, 1); l.w = __shfl_up_sync(0xffffffffu, c.w, 1);
    r.x = __shfl_down_sync(0xffffffffu, c.x, 1); r.y = __shfl_down_sync(0xffffffffu, c.y, 1);
    r.z = __shfl_down_sync(0xffffffffu, c.z, 1); r.w = __shfl_down_sync(0xffffffffu, c.w, 1);
    if (lane == 0) l = hv;
    if (lane == 31) r = hv;
    const float win[12] = {l.x, l.y, l.z, l.w, c.x, c.y, c.z, c.w, r.x, r.y, r.z, r.w};
    feed<F, S>(acc, win, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S && x < w) store4(out, w, h, x, y0 + p, acc[p % F], vec);
  }
}
template <int F, int S, int WPB, int D> void launch_shf128(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  shf128_kernel<F, S, WPB, D><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}


// Staggered loads: the lane's own aligned group of row i+D is loaded first; the two overlapping
// groups (x-4 and x+4) of row i+1 a row later, when the lines they share with the neighbours'
// own groups are already in L1 (hits instead of duplicate misses to L2).
template <int F, int S, int WPB, int D>
__global__ void __launch_bounds__(32 * WPB) ldgs_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  static_assert(D >= 2, "");
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int x = blockIdx.x * 128 + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h || x >= w) return;
  const bool whole = vec && x >= 4 && x + 8 <= w;
  auto rowp = [&](int i) { return in + (size_t)clamp_to(y0 - R + i, h - 1) * w; };
  auto group = [&](const float* row, int gx) {
    if (whole) return __ldg(reinterpret_cast<const float4*>(row + gx));
    return make_float4(__ldg(row + clamp_to(gx, w - 1)), __ldg(row + clamp_to(gx + 1, w - 1)),
                       __ldg(row + clamp_to(gx + 2, w - 1)), __ldg(row + clamp_to(gx + 3, w - 1)));
  };
  float4 mid[D + 1];
#pragma unroll
  for (int d = 0; d < D; ++d) mid[d] = group(rowp(d), x);
  float4 la = group(rowp(0), x - 4), lc = group(rowp(0), x + 4);
  float acc[F][4];
#pragma unroll
  for (int i = 0; i < kIn; ++i) {
    if (i + D < kIn) mid[(i + D) % (D + 1)] = group(rowp(i + D), x);
    float4 na, nc;
    if (i + 1 < kIn) { na = group(rowp(i + 1), x - 4); nc = group(rowp(i + 1), x + 4); }
    const float4 b = mid[i % (D + 1)];
    const float win[12] = {la.x, la.y, la.z, la.w, b.x, b.y, b.z, b.w, lc.x, lc.y, lc.z, lc.w};
    feed<F, S>(acc, win, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S) store4(out, w, h, x, y0 + p, acc[p % F], vec);
    if (i + 1 < kIn) { la = na; lc = nc; }
  }
}
template <int F, int S, int WPB, int D> void launch_ldgs(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  ldgs_kernel<F, S, WPB, D><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}

// TMA ring without a fallback path: lane 0 copies the in-image part of each 544-byte tile row
// (1D bulk copy, completes on the slot's mbarrier); at the image's left/right edge lane 0 then
// fills the halo columns outside the image with the edge value (clamp-to-edge). Needs w % 4 == 0
// and 16-byte aligned rows (vec).
template <int F, int S, int K, int WPB>
__global__ void __launch_bounds__(32 * WPB) tma2_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h, bool vec) {
  constexpr int R = F / 2;
  constexpr int kIn = S + 2 * R;
  __shared__ __align__(128) float ring[WPB][K][kPitch];
  __shared__ __align__(8) unsigned long long bars[WPB][K];
  const int lane = threadIdx.x, wid = threadIdx.y;
  const int cx = blockIdx.x * 128;
  const int x = cx + 4 * lane;
  const int y0 = (blockIdx.y * WPB + wid) * S;
  if (y0 >= h) return;
  const int c0 = max(cx - 4, 0), c1 = min(cx + 132, w);
  const unsigned dst_off = 4u * (c0 - (cx - 4));
  const unsigned bytes = 4u * (c1 - c0);
  const bool fix_left = cx - 4 < 0, fix_right = cx + 132 > w;
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
    const unsigned bar = bar_s + 8 * slot, dst = ring_s + slot * (kPitch * 4) + dst_off;
    const float* src = in + (size_t)clamp_to(y0 - R + i, h - 1) * w + c0;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
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
    float* row_s = &ring[wid][i % K][0];
    mbar_wait(bar_s + 8 * (i % K), (i / K) & 1);
    if (fix_left || fix_right) {  // warp-uniform
      if (lane == 0) {
        if (fix_left) { const float v = row_s[4]; row_s[0] = v; row_s[1] = v; row_s[2] = v; row_s[3] = v; }
        if (fix_right) { const int last = w - 1 - (cx - 4); const float v = row_s[last]; for (int c = last + 1; c < kPitch; ++c) row_s[c] = v; }
      }
      __syncwarp();
    }
    const float4* row = reinterpret_cast<const float4*>(row_s + 4 * lane);
    const float4 a = row[0], b = row[1], c = row[2];
    const float win[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
    feed<F, S>(acc, win, i);
    const int p = i - (F - 1);
    if (p >= 0 && p < S && x < w) store4(out, w, h, x, y0 + p, acc[p % F], vec);
  }
}
template <int F, int S, int K, int WPB> void launch_tma2(const Img& im, bool vec) {
  if (!vec || im.w % 4) return;  // vector rows only (the odd image is skipped: err shows the poison)
  dim3 grid((im.w + 127) / 128, (im.h + S * WPB - 1) / (S * WPB));
  tma2_kernel<F, S, K, WPB><<<grid, dim3(32, WPB)>>>(im.din, im.dout, im.w, im.h, vec);
}

// Run 12: the suite's cuda_direct source (gpu/conv2d.cu at b5e3912), copied verbatim.
namespace suitecopy {
constexpr int kVec = 4;
constexpr int kPad = 4;
__constant__ float c_filter2d[49];
__device__ __forceinline__ int clamp_to(int v, int hi) { return min(max(v, 0), hi); }

template <int F, int Rows, int Slots>
__device__ __forceinline__ void accumulate_row(float (&acc)[Slots][kVec], const float (&win)[12],
                                               int i) {
  constexpr int R = F / 2;
#pragma unroll
  for (int dy = 0; dy < F; ++dy) {
    const int p = i - dy;
    if (p < 0 || p >= Rows) continue;
#pragma unroll
    for (int dx = 0; dx < F; ++dx) {
      const float tap = c_filter2d[dy * F + dx];
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        float& a = acc[p % Slots][j];
        const float v = win[kPad - R + j + dx];
        a = (Slots != Rows && dy == 0 && dx == 0) ? tap * v : fmaf(tap, v, a);
      }
    }
  }
}


constexpr int kStripRows = 16;
constexpr int kStripCols = 32 * kVec;  // a warp's columns

// Rows loaded ahead of use: two for F <= 5 (56 registers); at F = 7 a second row of prefetch
// takes 72 registers and ran 39 us against 30 us with one.
template <int F>
constexpr int strip_prefetch() {
  return F <= 5 ? 2 : 1;
}

// Columns x - kPad .. x + kPad + 3 of `row`: three 16-byte loads where they lie inside the image
// and rows are 16-byte aligned (`whole`), else twelve clamped scalar loads.
__device__ __forceinline__ void load_window(const float* __restrict__ row, int x, int w,
                                            bool whole, float (&win)[12]) {
  if (whole) {
    const float4* r4 = reinterpret_cast<const float4*>(row + (x - kPad));
    const float4 a = __ldg(r4), b = __ldg(r4 + 1), c = __ldg(r4 + 2);
    const float v[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
#pragma unroll
    for (int k = 0; k < 12; ++k) win[k] = v[k];
  } else {
#pragma unroll
    for (int k = 0; k < 12; ++k) win[k] = __ldg(row + clamp_to(x - kPad + k, w - 1));
  }
}

// Output row y of a strip: a 16-byte store inside the image, predicated scalar ones at the right
// edge; rows past the bottom edge are skipped.
__device__ __forceinline__ void store_row(float* __restrict__ out, int w, int h, int x, int y,
                                          const float (&acc)[kVec], bool vec) {
  if (y >= h) return;
  float* o = out + static_cast<std::size_t>(y) * w + x;
  if (vec && x + kVec <= w) {
    *reinterpret_cast<float4*>(o) = make_float4(acc[0], acc[1], acc[2], acc[3]);
  } else {
#pragma unroll
    for (int j = 0; j < kVec; ++j)
      if (x + j < w) o[j] = acc[j];
  }
}

// Register cap: 56 for F <= 5 (36 resident warps an SM; told only "1024 threads a block", ptxas
// takes 64 and 32 warps fit), 64 for F = 7 (56 would spill). Either lets a 1024-thread block run.
template <int F>
constexpr int strip_registers() {
  return F <= 5 ? 56 : 64;
}

// Block (32, warps): warp threadIdx.y of block (bx, by) walks strip (bx, by * warps + threadIdx.y).
template <int F>
__global__ void __maxnreg__(strip_registers<F>())
    conv2d_direct_kernel(const float* __restrict__ in, float* __restrict__ out, int w, int h,
                         bool vec) {
  constexpr int R = F / 2;
  constexpr int kRowsIn = kStripRows + 2 * R;
  constexpr int D = strip_prefetch<F>();
  static_assert(R <= kPad, "the row window must cover the filter radius");
  const int x = blockIdx.x * kStripCols + kVec * threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * kStripRows;
  if (x >= w || y0 >= h) return;  // no barrier or warp collective follows
  const bool whole = vec && x >= kPad && x + kVec + kPad <= w;
  auto load = [&](int i, float (&win)[12]) {
    load_window(in + static_cast<std::size_t>(clamp_to(y0 - R + i, h - 1)) * w, x, w, whole, win);
  };
  float rows[D + 1][12];  // D rows in flight plus the one in use; indices fold at compile time
#pragma unroll
  for (int i = 0; i < D; ++i) load(i, rows[i]);
  float acc[F][kVec];
#pragma unroll
  for (int i = 0; i < kRowsIn; ++i) {
    if (i + D < kRowsIn) load(i + D, rows[(i + D) % (D + 1)]);
    accumulate_row<F, kStripRows, F>(acc, rows[i % (D + 1)], i);
    const int done = i - 2 * R;  // the output row that input row i completes
    if (done >= 0) store_row(out, w, h, x, y0 + done, acc[done % F], vec);
  }
}


}  // namespace suitecopy


template <int F> void launch_copy(const Img& im, bool vec) {
  dim3 grid((im.w + 127) / 128, (im.h + 31) / 32);
  suitecopy::conv2d_direct_kernel<F><<<grid, dim3(32, 2)>>>(im.din, im.dout, im.w, im.h, vec);
}

static unsigned* g_flags; static unsigned* g_dflags;
template <class L> static double gated_us(L launch, int reps = 200) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 10; ++i) launch();
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    *(volatile unsigned*)&g_flags[0] = 0u;
    tb::gpu::launch_gate(g_dflags, g_dflags + 1, 500000000ull, 0);
    cudaEventRecord(a, 0); launch(); cudaEventRecord(b, 0);
    __sync_synchronize();
    *(volatile unsigned*)&g_flags[0] = 1u;
    CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000.f);
  }
  if (g_flags[1]) printf("gate timed out!\n");
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}

template <int F> void run_g(Img& big, Img& odd) {
  std::vector<float> filt(F * F); for (int i = 0; i < F * F; ++i) filt[i] = 0.02f * (i + 1) - 0.3f;
  CK(cudaMemcpyToSymbol(c_f, filt.data(), F * F * 4));
  tb::gpu::conv2d_set_tiled_filter(filt.data(), F, 0); CK(cudaDeviceSynchronize());
  std::vector<float> ref_big, ref_odd; reference(big, filt, F, ref_big); reference(odd, filt, F, ref_odd);
  const double bytes = 8.0 * big.w * big.h;
  auto report = [&](const char* name, int r, double e_big, double e_odd, double b2b, double g) {
    printf("f=%d %-24s regs %3d err %.1e/%.1e b2b %6.2f us %5.1f%%  gated %6.2f us %5.1f%%\n", F, name, r, e_big, e_odd, b2b, 100.0 * bytes / (b2b * 1e-6) / g_bw, g, 100.0 * bytes / (g * 1e-6) / g_bw);
  };
  auto suite = [&](const char* name, auto fn, auto stats, tb::Block2 bs) {
    double e1 = check(big, ref_big, [&] { fn(big.din, big.dout, big.w, big.h, F, bs, 0); });
    double e2 = check(odd, ref_odd, [&] { fn(odd.din, odd.dout, odd.w, odd.h, F, bs, 0); });
    auto l = [&] { fn(big.din, big.dout, big.w, big.h, F, bs, 0); };
    double b = time_us(l), g = gated_us(l);
    report(name, stats(big.w, big.h, F, bs).regs_per_thread, e1, e2, b, g);
  };
  suite("suite tiled 32x4", tb::gpu::conv2d_cuda_tiled, tb::gpu::conv2d_cuda_tiled_stats, tb::Block2{32, 4});
#if GRUN < 11
  suite("suite direct 32x1", tb::gpu::conv2d_cuda_direct, tb::gpu::conv2d_cuda_direct_stats, tb::Block2{32, 1});
#endif
  suite("suite direct 8x8", tb::gpu::conv2d_cuda_direct, tb::gpu::conv2d_cuda_direct_stats, tb::Block2{8, 8});
#if GRUN < 11
  suite("suite direct 32x4", tb::gpu::conv2d_cuda_direct, tb::gpu::conv2d_cuda_direct_stats, tb::Block2{32, 4});
#endif
  auto strip = [&](const char* name, auto kern, auto launch) {
    double e1 = check(big, ref_big, [&] { launch(big, true); });
    double e2 = check(odd, ref_odd, [&] { launch(odd, false); });
    auto l = [&] { launch(big, true); };
    double b = time_us(l), g = gated_us(l);
    report(name, regs(kern), e1, e2, b, g);
  };
#define G(S, WPB, D) strip("ldgd S" #S " W" #WPB " D" #D, ldgd_kernel<F, S, WPB, D, 0>, launch_ldgd<F, S, WPB, D, 0>)
#define G2(S, WPB, D) strip("ldg2 S" #S " W" #WPB " D" #D, ldg2_kernel<F, S, WPB, D, 0>, launch_ldg2<F, S, WPB, D, 0>)
#define GM(S, WPB, D) strip("ldgm S" #S " W" #WPB " D" #D, ldgm_kernel<F, S, WPB, D>, launch_ldgm<F, S, WPB, D>)
#define GS(S, WPB, D) strip("shf128 S" #S " W" #WPB " D" #D, shf128_kernel<F, S, WPB, D>, launch_shf128<F, S, WPB, D>)
#define GL(S, WPB, D) strip("ldgs S" #S " W" #WPB " D" #D, ldgs_kernel<F, S, WPB, D>, launch_ldgs<F, S, WPB, D>)
#define GT(S, K, WPB) strip("tma2 S" #S " K" #K " W" #WPB, tma2_kernel<F, S, K, WPB>, launch_tma2<F, S, K, WPB>)
#if GRUN == 8
  if constexpr (F <= 5) {
    G(16, 2, 2); G(16, 1, 2); G(16, 4, 2); G(14, 1, 2); G(14, 2, 2); G(12, 2, 2); G(12, 1, 2); G(10, 2, 2); G(8, 2, 2); G(8, 1, 2); G(20, 2, 2);
  } else {
    G(16, 2, 1); G(14, 2, 1); G(12, 2, 1); G(8, 2, 1);
  }
#elif GRUN == 9
  if constexpr (F <= 5) {
    G(16, 2, 2); GM(16, 2, 2); GM(16, 4, 2);
    G2(16, 2, 1); G2(16, 2, 2); G2(16, 4, 2); G2(16, 4, 3); G2(8, 2, 2); G2(8, 4, 2); G2(16, 8, 2); G2(24, 4, 2); G2(12, 4, 2);
    G(16, 2, 2);
  }
#elif GRUN == 11
  if constexpr (F <= 5) G(16, 2, 2); else G(16, 2, 1);
  GT(16, 3, 2); GT(16, 4, 2); GT(16, 6, 2); GT(16, 4, 4); GT(8, 4, 2); GT(16, 8, 2); GT(12, 4, 2); GT(16, 4, 1);
#elif GRUN == 12
  if constexpr (F <= 5) G(16, 2, 2); else G(16, 2, 1);
  CK(cudaMemcpyToSymbol(suitecopy::c_filter2d, filt.data(), F * F * 4));
  strip("suite code, this module", suitecopy::conv2d_direct_kernel<F>, launch_copy<F>);
  if constexpr (F <= 5) G(16, 2, 2); else G(16, 2, 1);
  suite("suite direct 8x8 again", tb::gpu::conv2d_cuda_direct, tb::gpu::conv2d_cuda_direct_stats, tb::Block2{8, 8});
  strip("suite code, this module", suitecopy::conv2d_direct_kernel<F>, launch_copy<F>);
#else
  if constexpr (F <= 5) G(16, 2, 2); else G(16, 2, 1);
  GL(16, 2, 2); GL(16, 2, 3); GL(16, 4, 2); GL(8, 2, 2); GL(16, 1, 2);
  if constexpr (F <= 5) G(16, 2, 2); else G(16, 2, 1);
#endif
}

int main() {
  Img big = make(3840, 2160), odd = make(1001, 777);
  const size_t n = (size_t)big.w * big.h;
  CK(cudaHostAlloc(&g_flags, 64, cudaHostAllocMapped)); g_flags[0] = 0; g_flags[1] = 0;
  CK(cudaHostGetDevicePointer(&g_dflags, g_flags, 0));
  char *m1, *m2; size_t cb = 1ull << 30; CK(cudaMalloc(&m1, cb)); CK(cudaMalloc(&m2, cb));
  CK(cudaMemset(m1, 1, cb)); CK(cudaMemset(m2, 2, cb));
  double best = 0; for (int i = 0; i < 6; ++i) { double us = time_us([&] { cudaMemcpyAsync(m2, m1, cb, cudaMemcpyDeviceToDevice); }, 1); best = std::max(best, 2.0 * cb / (us * 1e-6)); }
  g_bw = best; printf("copy bw (1 GiB memcpy, best of 6) %.0f GB/s\n", g_bw / 1e9);
  auto cp = [&](const char* name, auto l) { double b = time_us(l), g = gated_us(l);
    printf("%-30s b2b %6.2f us %5.1f%%  gated %6.2f us %5.1f%%\n", name, b, 100.0 * 8.0 * n / (b * 1e-6) / g_bw, g, 100.0 * 8.0 * n / (g * 1e-6) / g_bw); };
  cp("memcpy of the image", [&] { cudaMemcpyAsync(big.dout, big.din, n * 4, cudaMemcpyDeviceToDevice); });
  cp("copy4 kernel block 256", [&] { copy4<<<(n / 4 + 255) / 256, 256>>>((const float4*)big.din, (float4*)big.dout, n / 4); });
  run_g<5>(big, odd); run_g<3>(big, odd);
#if GRUN != 9
  run_g<7>(big, odd);
#endif
  return 0;
}
