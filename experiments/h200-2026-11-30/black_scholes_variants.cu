// Experiment run on the H200 (second session): Black-Scholes kernel variants, timed as the
// average of 200 back-to-back launches between events (20 warm-up launches first).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "gpu/black_scholes.hpp"
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)
#ifdef __CUDA_ARCH__
#define F(d, h) return d
#else
#define F(d, h) return h
#endif
struct FastOps {
  __host__ __device__ float log(float x) const { F(__logf(x), logf(x)); }
  __host__ __device__ float exp(float x) const { F(__expf(x), expf(x)); }
  __host__ __device__ float rcp(float x) const { F(__fdividef(1.f, x), 1.f / x); }
  __host__ __device__ float div(float x, float y) const { F(__fdividef(x, y), x / y); }
  __host__ __device__ float rsqrt(float x) const { F(rsqrtf(x), 1.f / sqrtf(x)); }
  __host__ __device__ float fma(float a, float b, float c) const { return fmaf(a, b, c); }
};
struct K { float r, v, mu, iv; };
__device__ __forceinline__ void p4(const K& k, float4 s, float4 x, float4 t, float4& c, float4& p) {
  FastOps o;
  tb::gpu::black_scholes_price_fast(o, s.x, x.x, t.x, k.r, k.v, k.mu, k.iv, c.x, p.x);
  tb::gpu::black_scholes_price_fast(o, s.y, x.y, t.y, k.r, k.v, k.mu, k.iv, c.y, p.y);
  tb::gpu::black_scholes_price_fast(o, s.z, x.z, t.z, k.r, k.v, k.mu, k.iv, c.z, p.z);
  tb::gpu::black_scholes_price_fast(o, s.w, x.w, t.w, k.r, k.v, k.mu, k.iv, c.w, p.w);
}
template <int MinB>
__global__ void __launch_bounds__(1024, MinB) persist(const float4* __restrict__ S, const float4* __restrict__ X, const float4* __restrict__ T, float4* __restrict__ C, float4* __restrict__ P, size_t n4, K k) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 c, p; p4(k, __ldcs(S + i), __ldcs(X + i), __ldcs(T + i), c, p);
    __stcs(C + i, c); __stcs(P + i, p);
  }
}
template <int MinB>
__global__ void __launch_bounds__(1024, MinB) flat(const float4* __restrict__ S, const float4* __restrict__ X, const float4* __restrict__ T, float4* __restrict__ C, float4* __restrict__ P, size_t n4, K k) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) { float4 c, p; p4(k, __ldcs(S + i), __ldcs(X + i), __ldcs(T + i), c, p); __stcs(C + i, c); __stcs(P + i, p); }
}
template <int MinB>
__global__ void __launch_bounds__(1024, MinB) flat_plain(const float4* __restrict__ S, const float4* __restrict__ X, const float4* __restrict__ T, float4* __restrict__ C, float4* __restrict__ P, size_t n4, K k) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) { float4 c, p; p4(k, S[i], X[i], T[i], c, p); C[i] = c; P[i] = p; }
}
template <int MinB>
__global__ void __launch_bounds__(1024, MinB) prefetch(const float4* __restrict__ S, const float4* __restrict__ X, const float4* __restrict__ T, float4* __restrict__ C, float4* __restrict__ P, size_t n4, K k) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 s = __ldcs(S + i), x = __ldcs(X + i), t = __ldcs(T + i);
  for (; i < n4; i += stride) {
    size_t j = i + stride;
    float4 s2, x2, t2;
    if (j < n4) { s2 = __ldcs(S + j); x2 = __ldcs(X + j); t2 = __ldcs(T + j); }
    float4 c, p; p4(k, s, x, t, c, p);
    __stcs(C + i, c); __stcs(P + i, p);
    s = s2; x = x2; t = t2;
  }
}
__global__ void copy_pattern(const float4* __restrict__ S, const float4* __restrict__ X, const float4* __restrict__ T, float4* __restrict__ C, float4* __restrict__ P, size_t n4) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) { float4 s = __ldcs(S + i), x = __ldcs(X + i), t = __ldcs(T + i);
    __stcs(C + i, make_float4(s.x + x.x, s.y + x.y, s.z + x.z, s.w + x.w)); __stcs(P + i, t); }
}
template <class F> float avg_us(F launch, int reps = 200) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 20; ++i) launch();
  cudaEventRecord(a); for (int i = 0; i < reps; ++i) launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
  float ms; cudaEventElapsedTime(&ms, a, b); return ms * 1000.f / reps;
}
int main() {
  const size_t n = 10000000, n4 = n / 4, bytes = n * 20;
  std::vector<float> hs(n), hx(n), ht(n);
  unsigned s = 1; auto rnd = [&] { s = s * 1664525u + 1013904223u; return (s >> 8) * (1.f / 16777216.f); };
  for (size_t i = 0; i < n; ++i) { hs[i] = 5 + 95 * rnd(); hx[i] = 1 + 99 * rnd(); ht[i] = 0.25f + 9.75f * rnd(); }
  float4 *S, *X, *T, *C, *P;
  CK(cudaMalloc(&S, n * 4)); CK(cudaMalloc(&X, n * 4)); CK(cudaMalloc(&T, n * 4)); CK(cudaMalloc(&C, n * 4)); CK(cudaMalloc(&P, n * 4));
  cudaMemcpy(S, hs.data(), n * 4, cudaMemcpyHostToDevice); cudaMemcpy(X, hx.data(), n * 4, cudaMemcpyHostToDevice); cudaMemcpy(T, ht.data(), n * 4, cudaMemcpyHostToDevice);
  char *m1, *m2; size_t cb = 1ull << 30; CK(cudaMalloc(&m1, cb)); CK(cudaMalloc(&m2, cb));
  float cu = avg_us([&] { cudaMemcpyAsync(m2, m1, cb, cudaMemcpyDeviceToDevice); }, 20);
  double copy_bw = 2.0 * cb / (cu * 1e-6);
  printf("copy bw %.0f GB/s\n", copy_bw / 1e9);
  K k{0.02f, 0.30f, 0.02f + 0.045f, 1.f / 0.30f};
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  auto report = [&](const char* name, int block, float us) { printf("%-28s block %4d  %7.2f us  %5.1f%%\n", name, block, us, 100.0 * bytes / (us * 1e-6) / copy_bw); };
  for (int block : {128, 256, 512, 1024}) {
    unsigned g = (unsigned)((n4 + block - 1) / block);
    report("copy_pattern", block, avg_us([&] { copy_pattern<<<g, block>>>(S, X, T, C, P, n4); }));
    report("flat<2>", block, avg_us([&] { flat<2><<<g, block>>>(S, X, T, C, P, n4, k); }));
    report("flat<1>", block, avg_us([&] { flat<1><<<g, block>>>(S, X, T, C, P, n4, k); }));
    report("flat_plain<2>", block, avg_us([&] { flat_plain<2><<<g, block>>>(S, X, T, C, P, n4, k); }));
    int per; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, persist<2>, block, 0);
    unsigned pg = std::min<unsigned>(g, per * sms);
    report("persist<2>", block, avg_us([&] { persist<2><<<pg, block>>>(S, X, T, C, P, n4, k); }));
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, persist<1>, block, 0);
    pg = std::min<unsigned>(g, per * sms);
    report("persist<1>", block, avg_us([&] { persist<1><<<pg, block>>>(S, X, T, C, P, n4, k); }));
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, prefetch<1>, block, 0);
    pg = std::min<unsigned>(g, per * sms);
    report("prefetch<1>", block, avg_us([&] { prefetch<1><<<pg, block>>>(S, X, T, C, P, n4, k); }));
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, prefetch<2>, block, 0);
    pg = std::min<unsigned>(g, per * sms);
    report("prefetch<2>", block, avg_us([&] { prefetch<2><<<pg, block>>>(S, X, T, C, P, n4, k); }));
  }
  CK(cudaGetLastError());
  return 0;
}
