#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "common/l2_flush.hpp"
#include "gpu/ceilings.hpp"

namespace tb::gpu {
namespace {

constexpr double kScalar = 0.4;  // BabelStream's startScalar

// V = double (8-byte accesses) or double2 (16-byte). Grid-stride: with a grid as large as the
// array the loop runs once (one element per thread); with a few blocks per SM it is the
// persistent shape. Which is faster depends on the GPU, so both are measured.
__device__ __forceinline__ double2 operator+(double2 a, double2 b) {
  return {a.x + b.x, a.y + b.y};
}
__device__ __forceinline__ double2 operator*(double k, double2 a) { return {k * a.x, k * a.y}; }
__device__ __forceinline__ double dot_of(double x, double y) { return x * y; }
__device__ __forceinline__ double dot_of(double2 x, double2 y) { return x.x * y.x + x.y * y.y; }

// Cs: streaming loads (ld.global.cs, evict-first), as dot's kernel uses; which load reaches more
// depends on the pattern, so both are measured.
template <bool Cs, class V>
__device__ __forceinline__ V load(const V* p) {
  if constexpr (Cs)
    return __ldcs(p);
  else
    return *p;
}
template <class V>
__device__ __forceinline__ V splat(double k);
template <>
__device__ __forceinline__ double splat<double>(double k) {
  return k;
}
template <>
__device__ __forceinline__ double2 splat<double2>(double k) {
  return {k, k};
}

// Every kernel loads kUnroll elements (a grid stride apart) before it uses any, so a thread has
// several loads in flight: a plain grid-stride loop whose sum depends on the previous element
// left the read stream latency-bound (4043 GB/s on the H200, below its copy, and 6% below the
// dot kernel it is meant to bound).
constexpr int kUnroll = 4;

__device__ __forceinline__ std::size_t first_index() {
  return blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
}
__device__ __forceinline__ std::size_t grid_stride() { return std::size_t{gridDim.x} * blockDim.x; }

template <class V, bool Cs>
__global__ void read_kernel(const V* __restrict__ a, const V* __restrict__ b, std::size_t n,
                            double* __restrict__ sink) {
  const std::size_t stride = grid_stride();
  std::size_t i = first_index();
  double s[kUnroll] = {};
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    V x[kUnroll], y[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      x[u] = load<Cs>(a + i + u * stride);
      y[u] = load<Cs>(b + i + u * stride);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) s[u] += dot_of(x[u], y[u]);
  }
  for (; i < n; i += stride) s[0] += dot_of(load<Cs>(a + i), load<Cs>(b + i));
  double t = (s[0] + s[1]) + (s[2] + s[3]);
  for (int offset = 16; offset > 0; offset /= 2) t += __shfl_down_sync(0xffffffffu, t, offset);
  __shared__ double warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = t;
  __syncthreads();
  if (threadIdx.x == 0) {
    double block = 0.0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) block += warp_sums[w];
    atomicAdd(sink, block);
  }
}

// The other five: out[i] = op(inputs at i), loads of kUnroll elements first, then the stores.
template <class V>
struct Inputs {
  V x, y;
};

template <class V, bool Cs, int Reads, class Op>
__device__ __forceinline__ void stream(const V* __restrict__ a, const V* __restrict__ b,
                                       V* __restrict__ out, std::size_t n, Op op) {
  const std::size_t stride = grid_stride();
  std::size_t i = first_index();
  auto inputs_at = [&](std::size_t j) {
    Inputs<V> in{};
    if constexpr (Reads >= 1) in.x = load<Cs>(a + j);
    if constexpr (Reads >= 2) in.y = load<Cs>(b + j);
    return in;
  };
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    Inputs<V> in[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) in[u] = inputs_at(i + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) out[i + u * stride] = op(in[u]);
  }
  for (; i < n; i += stride) out[i] = op(inputs_at(i));
}

template <class V, bool Cs>
__global__ void write_kernel(V* __restrict__ c, std::size_t n) {
  stream<V, Cs, 0>(nullptr, nullptr, c, n, [](Inputs<V>) { return splat<V>(kScalar); });
}

template <class V, bool Cs>
__global__ void copy_kernel(const V* __restrict__ a, V* __restrict__ c, std::size_t n) {
  stream<V, Cs, 1>(a, nullptr, c, n, [](Inputs<V> in) { return in.x; });
}

template <class V, bool Cs>
__global__ void scale_kernel(V* __restrict__ b, const V* __restrict__ c, std::size_t n) {
  stream<V, Cs, 1>(c, nullptr, b, n, [](Inputs<V> in) { return kScalar * in.x; });
}

template <class V, bool Cs>
__global__ void add_kernel(const V* __restrict__ a, const V* __restrict__ b, V* __restrict__ c,
                           std::size_t n) {
  stream<V, Cs, 2>(a, b, c, n, [](Inputs<V> in) { return in.x + in.y; });
}

template <class V, bool Cs>
__global__ void triad_kernel(V* __restrict__ a, const V* __restrict__ b, const V* __restrict__ c,
                             std::size_t n) {
  stream<V, Cs, 2>(b, c, a, n, [](Inputs<V> in) { return in.x + kScalar * in.y; });
}

struct Shape {
  int block;
  int blocks_per_sm;  // > 0: a persistent grid; 0: one element per thread; -k: k per thread
};
// Persistent shapes at full occupancy (2048 threads per SM), oversubscribed ones, one element
// per thread and kUnroll per thread.
constexpr Shape kShapes[] = {{256, 8}, {1024, 2}, {256, 32}, {512, 0}, {256, -kUnroll}};

struct Arrays {
  DeviceBuffer<double> a, b, c;
  DeviceBuffer<double> sink{1};
  explicit Arrays(std::size_t n) : a(n), b(n), c(n) {}
};

__global__ void fill_kernel(double* p, std::size_t n, double v) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    p[i] = v;
}

template <class V, bool Cs>
void launch(Pattern p, Arrays& d, std::size_t n, int grid, int block, cudaStream_t s) {
  auto* a = reinterpret_cast<V*>(d.a.data());
  auto* b = reinterpret_cast<V*>(d.b.data());
  auto* c = reinterpret_cast<V*>(d.c.data());
  const std::size_t nv = n / (sizeof(V) / sizeof(double));
  switch (p) {
    case Pattern::read:
      read_kernel<V, Cs><<<grid, block, 0, s>>>(a, b, nv, d.sink.data());
      break;
    case Pattern::write:
      write_kernel<V, Cs><<<grid, block, 0, s>>>(c, nv);
      break;
    case Pattern::copy:
      copy_kernel<V, Cs><<<grid, block, 0, s>>>(a, c, nv);
      break;
    case Pattern::scale:
      scale_kernel<V, Cs><<<grid, block, 0, s>>>(b, c, nv);
      break;
    case Pattern::add:
      add_kernel<V, Cs><<<grid, block, 0, s>>>(a, b, c, nv);
      break;
    case Pattern::triad:
      triad_kernel<V, Cs><<<grid, block, 0, s>>>(a, b, c, nv);
      break;
  }
  CUDA_CHECK(cudaGetLastError());
}

int sm_count() {
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return sms;
}

int grid_for(const Shape& shape, std::size_t elements) {
  if (shape.blocks_per_sm > 0) return sm_count() * shape.blocks_per_sm;
  const std::size_t per_block = std::size_t{1} * shape.block * std::max(1, -shape.blocks_per_sm);
  const std::size_t blocks = (elements + per_block - 1) / per_block;
  return static_cast<int>(std::min<std::size_t>(blocks, 0x7fffffff));
}

// Best bytes/s of `reps` cold launches of one pattern in one shape.
template <class V, bool Cs>
double best_cold(Pattern p, Arrays& d, std::size_t n, const Shape& shape, int reps,
                 Stream& stream) {
  const int grid = grid_for(shape, n / (sizeof(V) / sizeof(double)));
  const double bytes = 8.0 * n * (pattern_reads(p) + pattern_writes(p));
  Event start, stop;
  double best = 0.0;
  for (int r = 0; r < reps; ++r) {
    flush_l2(stream.get());
    start.record(stream);
    launch<V, Cs>(p, d, n, grid, shape.block, stream.get());
    stop.record(stream);
    stop.synchronize();
    best = std::max(best, bytes / stop.seconds_since(start));
  }
  return best;
}

// --- compute roofs -------------------------------------------------------------------------

constexpr int kChains = 8;  // independent FMA chains per thread: enough to hide the FMA latency

template <class T>
__device__ __forceinline__ T fma_step(T x, T a, T b) {
  return x * a + b;
}
template <>
__device__ __forceinline__ float fma_step(float x, float a, float b) {
  return fmaf(x, a, b);
}
template <>
__device__ __forceinline__ double fma_step(double x, double a, double b) {
  return fma(x, a, b);
}
template <>
__device__ __forceinline__ __half2 fma_step(__half2 x, __half2 a, __half2 b) {
  return __hfma2(x, a, b);
}
template <>
__device__ __forceinline__ int fma_step(int x, int a, int b) {
  return __dp4a(a, b, x);
}

template <class T>
__device__ __forceinline__ T seed_of(int k);
template <>
__device__ __forceinline__ float seed_of<float>(int k) {
  return 1.0f + 0.01f * (threadIdx.x + k);
}
template <>
__device__ __forceinline__ double seed_of<double>(int k) {
  return 1.0 + 0.01 * (threadIdx.x + k);
}
template <>
__device__ __forceinline__ __half2 seed_of<__half2>(int k) {
  return __float2half2_rn(0.5f + 0.01f * k);
}
template <>
__device__ __forceinline__ int seed_of<int>(int k) {
  return static_cast<int>(threadIdx.x) + k;
}

__device__ __forceinline__ bool is_magic(float v) { return v == -1.0f; }
__device__ __forceinline__ bool is_magic(double v) { return v == -1.0; }
__device__ __forceinline__ bool is_magic(__half2 v) { return __low2float(v) == -1.0f; }
__device__ __forceinline__ bool is_magic(int v) { return v == -1; }

// x = x * a + b on kChains registers, `iters` times. a < 1 keeps the values bounded (no
// overflow, no denormals that would slow the FMA pipe). The store behind an impossible test
// keeps the chains alive without a memory stream.
template <class T>
__global__ void fma_roof_kernel(T a, T b, int iters, T* out) {
  T x[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) x[k] = seed_of<T>(k);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) x[k] = fma_step(x[k], a, b);
  }
  T sum = x[0];
#pragma unroll
  for (int k = 1; k < kChains; ++k) sum = sum + x[k];
  if (is_magic(sum)) out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <class T>
double measure_roof(T a, T b, double ops_per_step) {
  constexpr int kBlock = 256;
  const int grid = sm_count() * 32;
  DeviceBuffer<T> out(static_cast<std::size_t>(grid) * kBlock);
  Stream stream;
  Event start, stop;
  auto seconds = [&](int iters) {
    start.record(stream);
    fma_roof_kernel<T><<<grid, kBlock, 0, stream.get()>>>(a, b, iters, out.data());
    CUDA_CHECK(cudaGetLastError());
    stop.record(stream);
    stop.synchronize();
    return stop.seconds_since(start);
  };
  // Size the launch to about 10 ms, so the launch and ramp-up are under 1% of it.
  int iters = 1024;
  const double probe = seconds(iters);
  iters = static_cast<int>(std::clamp(iters * 10e-3 / probe, 1024.0, 1e7));
  double best = 0.0;
  const double ops = ops_per_step * kChains * static_cast<double>(grid) * kBlock;
  for (int r = 0; r < 3; ++r) best = std::max(best, ops * iters / seconds(iters));
  return best;
}

}  // namespace

BandwidthSet measure_stream_ceilings(std::size_t n, int reps) {
  n -= n % 2;  // double2 shapes
  Arrays d(n);
  Stream stream;
  for (DeviceBuffer<double>* p : {&d.a, &d.b, &d.c}) {
    fill_kernel<<<sm_count() * 8, 256, 0, stream.get()>>>(p->data(), n, 1.0 + 0.5 * (p == &d.b));
    CUDA_CHECK(cudaGetLastError());
  }
  // read_kernel's blocks add their sums to the sink (a read of it): a defined start, or
  // compute-sanitizer's initcheck counts one uninitialized read per block of the first launch.
  CUDA_CHECK(cudaMemsetAsync(d.sink.data(), 0, sizeof(double), stream.get()));
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  BandwidthSet set;
  for (Pattern p : kAllPatterns) {
    double best = 0.0;
    for (const Shape& shape : kShapes) {
      best = std::max(best, best_cold<double, false>(p, d, n, shape, reps, stream));
      best = std::max(best, best_cold<double2, false>(p, d, n, shape, reps, stream));
      best = std::max(best, best_cold<double, true>(p, d, n, shape, reps, stream));
      best = std::max(best, best_cold<double2, true>(p, d, n, shape, reps, stream));
    }
    set[p] = best;
  }
  return set;
}

ComputeRoofs measure_compute_roofs() {
  ComputeRoofs r;
  r.fp32 = measure_roof<float>(0.999f, 0.001f, 2.0);
  r.fp64 = measure_roof<double>(0.999, 0.001, 2.0);
  r.fp16 = measure_roof<__half2>(__float2half2_rn(0.99f), __float2half2_rn(0.01f), 4.0);
  r.int8 = measure_roof<int>(0x01010101, 0x01010101, 8.0);
  return r;
}

LinkBandwidth measure_link_bandwidth() {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4);
  PinnedBuffer<unsigned char> host(bytes);
  DeviceBuffer<unsigned char> device(bytes);
  std::memset(host.data(), 0x5a, bytes);  // pages touched before any copy is timed
  Stream stream;
  Event start, stop;
  auto best = [&](cudaMemcpyKind kind) {
    double fastest = 0.0;
    for (int r = 0; r < 6; ++r) {  // the first is a warm-up
      void* dst = kind == cudaMemcpyHostToDevice ? static_cast<void*>(device.data()) : host.data();
      const void* src =
          kind == cudaMemcpyHostToDevice ? static_cast<const void*>(host.data()) : device.data();
      start.record(stream);
      CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream.get()));
      stop.record(stream);
      stop.synchronize();
      if (r > 0) fastest = std::max(fastest, static_cast<double>(bytes) / stop.seconds_since(start));
    }
    return fastest;
  };
  LinkBandwidth link;
  link.h2d = best(cudaMemcpyHostToDevice);
  link.d2h = best(cudaMemcpyDeviceToHost);
  link.method = "best of 5 cudaMemcpyAsync of " + std::to_string(bytes >> 20) +
                " MiB between pinned host memory and the device, each direction";
  return link;
}

}  // namespace tb::gpu
