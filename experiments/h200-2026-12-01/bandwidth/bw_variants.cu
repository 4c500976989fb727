// Issue 18: three rows below their ceiling on the H200 (vector_add, transpose, dtypes fma fp16).
// For each row: the suite's kernel copied as the baseline, the row's reference (Thrust, the
// suite's copy kernel, the FP16 roof kernel) and candidate variants. Every variant is validated
// on the host (exact for vector_add and transpose, the suite's fma_tolerance for the fma rows),
// including sizes that are not multiples of any tile, then timed with a cold L2 (a 120 MiB read
// before each sample, outside the events), one launch between CUDA events, 30 samples.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo bw_variants.cu -o bw_variants
// Run:   ./bw_variants [--samples N] [--only GROUP] [--list] [--profile VARIANT]
// README.md beside this file says what each variant is.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#define CUDA_CHECK(expr)                                                                      \
  do {                                                                                        \
    const cudaError_t e_ = (expr);                                                            \
    if (e_ != cudaSuccess)                                                                    \
      throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + \
                               #expr + ": " + cudaGetErrorString(e_));                        \
  } while (0)
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

namespace {

using std::size_t;
using std::uint32_t;
using std::uint64_t;

// ---- inputs: a counter-based hash, so host and device produce the same values ------------------

__host__ __device__ inline uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
__host__ __device__ inline uint64_t hash_at(uint64_t seed, uint64_t i) {
  return mix64(i ^ (seed * 0xD1B54A32D192ED03ull));
}
// Uniform in [-1, 1) on a 2^-23 grid: u * 2^-23 is exact and so is the subtraction, so host and
// device agree bit for bit (with or without FMA contraction). Never 0 (it hides unwritten outputs).
__host__ __device__ inline float rand_pm1(uint64_t seed, uint64_t i) {
  const auto u = static_cast<uint32_t>(hash_at(seed, i) >> 40);
  const float x = static_cast<float>(u) * (1.0f / 8388608.0f) - 1.0f;
  return x == 0.0f ? 1.0f : x;
}
__host__ __device__ inline std::int8_t rand_i8(uint64_t seed, uint64_t i) {
  const int v = static_cast<int>(hash_at(seed, i) >> 56) - 128;
  return static_cast<std::int8_t>(v == 0 ? 1 : v);
}

__global__ void fill_f32_kernel(float* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    p[i] = rand_pm1(seed, i);
}
__global__ void fill_f16_kernel(__half* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    const __half h = __float2half_rn(rand_pm1(seed, i));
    p[i] = __half2float(h) == 0.0f ? __float2half_rn(1.0f) : h;
  }
}
__global__ void fill_i8_kernel(std::int8_t* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    p[i] = rand_i8(seed, i);
}

// ---- small RAII owners --------------------------------------------------------------------------

template <class T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t count) : n(count) {
    CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(1, count) * sizeof(T)));
  }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  size_t bytes() const { return n * sizeof(T); }
};

// ---- L2 flush: a read of 120 MiB (2x the 60 MiB L2), as common/l2_flush does ---------------------

__global__ void l2_flush_kernel(const uint4* __restrict__ words, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    const uint4 w = words[i];
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0xdeadbeefu) *sink = acc;
}

struct Ctx {
  cudaStream_t stream = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  int sms = 0;
  int samples = 30;
  std::string only;     // run only groups whose name starts with this
  std::string profile;  // --profile VARIANT: set up its group, one launch, exit
  uint4* flush_words = nullptr;
  size_t flush_n = 0;
  unsigned* flush_sink = nullptr;
  unsigned char* host = nullptr;  // pinned download buffer, reused by every check
  size_t host_bytes = 0;

  void flush() {
    l2_flush_kernel<<<sms * 8, 256, 0, stream>>>(flush_words, flush_n, flush_sink);
    CUDA_CHECK_LAUNCH();
  }
  template <class T>
  T* download(const T* dev, size_t count) {
    if (count * sizeof(T) > host_bytes) throw std::runtime_error("download larger than host buffer");
    CUDA_CHECK(cudaMemcpyAsync(host, dev, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return reinterpret_cast<T*>(host);
  }
  bool wants(const std::string& group) const {
    return only.empty() || group.compare(0, only.size(), only) == 0;
  }
};

struct Stats {
  double median_ms = 0, min_ms = 0;
};

Stats time_cold(Ctx& ctx, const std::function<void()>& launch) {
  std::vector<double> ms;
  for (int s = 0; s < ctx.samples; ++s) {
    ctx.flush();
    CUDA_CHECK(cudaEventRecord(ctx.e0, ctx.stream));
    launch();
    CUDA_CHECK(cudaEventRecord(ctx.e1, ctx.stream));
    CUDA_CHECK(cudaEventSynchronize(ctx.e1));
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, ctx.e0, ctx.e1));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const size_t m = ms.size();
  return {m % 2 ? ms[m / 2] : 0.5 * (ms[m / 2 - 1] + ms[m / 2]), ms.front()};
}

// Host loops over [0, n) split across the host's cores; f(begin, end, thread_index).
template <class F>
void parallel_for(size_t n, F f) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t threads = std::max<size_t>(1, std::min<size_t>(hw, (n + 1023) / 1024));
  const size_t chunk = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) {
    const size_t b = t * chunk, e = std::min(n, b + chunk);
    if (b >= e) break;
    pool.emplace_back([=] { f(b, e, t); });
  }
  for (auto& th : pool) th.join();
}

// Result of one validation: max absolute error, max error relative to max(|ref|, floor), count of
// failing elements (not finite, or over tolerance, or not exact where exact is required).
struct Check {
  double max_abs = 0, max_rel = 0;
  size_t bad = 0;
  void merge(const Check& o) {
    max_abs = std::max(max_abs, o.max_abs);
    max_rel = std::max(max_rel, o.max_rel);
    bad += o.bad;
  }
};

template <class F>  // f(i, Check&) checks element i
Check check_all(size_t n, F f) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Check> parts(hw);
  parallel_for(n, [&](size_t b, size_t e, size_t t) {
    Check c;
    for (size_t i = b; i < e; ++i) f(i, c);
    parts[t] = c;
  });
  Check all;
  for (const auto& c : parts) all.merge(c);
  return all;
}

inline void exact(double got, double ref, Check& c) {
  if (!(got == ref)) {  // NaN compares false
    ++c.bad;
    const double d = std::isfinite(got) ? std::fabs(got - ref) : INFINITY;
    c.max_abs = std::max(c.max_abs, d);
  }
}

inline void within(double got, double ref, double rel_tol, double floor, Check& c) {
  if (!std::isfinite(got)) {
    ++c.bad;
    c.max_abs = c.max_rel = INFINITY;
    return;
  }
  const double d = std::fabs(got - ref);
  const double r = d / std::max(std::fabs(ref), floor);
  c.max_abs = std::max(c.max_abs, d);
  c.max_rel = std::max(c.max_rel, r);
  if (r > rel_tol) ++c.bad;
}

// Guard: the elements after the output's end must still hold the poison bytes (0xFF).
size_t guard_bad(const unsigned char* bytes, size_t begin, size_t len) {
  size_t bad = 0;
  for (size_t i = begin; i < begin + len; ++i) bad += bytes[i] != 0xFF;
  return bad;
}
constexpr size_t kGuardBytes = 64 * 1024;

// ---- result table -------------------------------------------------------------------------------

enum class Role { candidate, reference, baseline };

struct Row {
  std::string group, variant, kernel, config;
  Role role = Role::candidate;
  double work = 0;  // bytes or ops per launch
  double unit_scale = 1e9;
  const char* unit = "GB/s";
  Stats t;
  bool validated = false;  // false for the roofs, which compute nothing to check
  bool valid = true;
  double max_err = 0;  // exact rows: max abs error; fma rows: max error relative to max(|ref|, floor)
  std::string note;
  double rate() const { return t.median_ms > 0 ? work / (t.median_ms * 1e-3) / unit_scale : 0; }
  double best_rate() const { return t.min_ms > 0 ? work / (t.min_ms * 1e-3) / unit_scale : 0; }
};

const char* role_name(Role r) {
  return r == Role::reference ? "ref" : r == Role::baseline ? "base" : "cand";
}

// One variant of a group: how to launch it for a problem size, and its table facts.
template <class Launch>
struct Variant {
  std::string name, kernel, config;
  Role role;
  Launch launch;
};

// ====================================================================================================
// vector_add: c = a + b, float32, n = 2^28 (3 GiB moved: 12 bytes per element)
// ====================================================================================================
namespace va {

constexpr int kVecPerThread = 4;

template <bool kL2Pf>
__device__ __forceinline__ float4 load4(const float4* p) {
  if constexpr (kL2Pf) {
    // Non-coherent, no L1 allocation, and L2 fetches 256 B around the line (two 128 B lines).
    float4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
  } else {
    return __ldcs(p);
  }
}

__device__ __forceinline__ float4 add4(float4 x, float4 y) {
  return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

// The suite's kernel (gpu/vector_add_kernel.cuh vec4_kernel, progress policy removed); kL2Pf only
// changes the load instruction.
template <bool kL2Pf>
__global__ void va_suite_kernel(const float4* __restrict__ a, const float4* __restrict__ b,
                                float4* __restrict__ c, size_t n4) {
  const size_t base = static_cast<size_t>(blockIdx.x) * blockDim.x * kVecPerThread + threadIdx.x;
  float4 x[kVecPerThread], y[kVecPerThread];
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) {
    const size_t i = base + static_cast<size_t>(k) * blockDim.x;
    if (i < n4) {
      x[k] = load4<kL2Pf>(a + i);
      y[k] = load4<kL2Pf>(b + i);
    }
  }
#pragma unroll
  for (int k = 0; k < kVecPerThread; ++k) {
    const size_t i = base + static_cast<size_t>(k) * blockDim.x;
    if (i < n4) __stcs(c + i, add4(x[k], y[k]));
  }
}

// The n % 4 last elements (the suite's tail_kernel): one block of 32 threads.
__global__ void va_tail_kernel(const float* __restrict__ a, const float* __restrict__ b,
                               float* __restrict__ c, size_t begin, size_t n) {
  const size_t i = begin + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void launch_tail(const float* a, const float* b, float* c, size_t n, cudaStream_t s) {
  if (n % 4 != 0) {
    va_tail_kernel<<<1, 32, 0, s>>>(a, b, c, n / 4 * 4, n);
    CUDA_CHECK_LAUNCH();
  }
}

template <bool kL2Pf>
void launch_suite(const float* a, const float* b, float* c, size_t n, int block, cudaStream_t s) {
  const size_t n4 = n / 4;
  if (n4 > 0) {
    const size_t per_block = static_cast<size_t>(block) * kVecPerThread;
    const auto grid = static_cast<unsigned>((n4 + per_block - 1) / per_block);
    va_suite_kernel<kL2Pf><<<grid, block, 0, s>>>(reinterpret_cast<const float4*>(a),
                                                 reinterpret_cast<const float4*>(b),
                                                 reinterpret_cast<float4*>(c), n4);
    CUDA_CHECK_LAUNCH();
  }
  launch_tail(a, b, c, n, s);
}

// Persistent grid (one wave), grid-stride, with the loads of step s+1 issued before the stores of
// step s: the loads never stop while a thread stores, unlike load-all/store-all/exit blocks.
constexpr int kPrefBlock = 256;
template <int U>
__global__ void __launch_bounds__(kPrefBlock)
    va_pref_kernel(const float4* __restrict__ a, const float4* __restrict__ b,
                   float4* __restrict__ c, size_t n4) {
  const size_t span = static_cast<size_t>(gridDim.x) * kPrefBlock * U;
  size_t base = static_cast<size_t>(blockIdx.x) * kPrefBlock * U + threadIdx.x;
  float4 xa[U], xb[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const size_t i = base + static_cast<size_t>(u) * kPrefBlock;
    xa[u] = xb[u] = make_float4(0.f, 0.f, 0.f, 0.f);
    if (i < n4) {
      xa[u] = __ldcs(a + i);
      xb[u] = __ldcs(b + i);
    }
  }
  for (; base < n4; base += span) {
    float4 ya[U], yb[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const size_t i = base + span + static_cast<size_t>(u) * kPrefBlock;
      ya[u] = yb[u] = make_float4(0.f, 0.f, 0.f, 0.f);
      if (i < n4) {
        ya[u] = __ldcs(a + i);
        yb[u] = __ldcs(b + i);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const size_t i = base + static_cast<size_t>(u) * kPrefBlock;
      if (i < n4) __stcs(c + i, add4(xa[u], xb[u]));
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      xa[u] = ya[u];
      xb[u] = yb[u];
    }
  }
}

// ---- bulk copies (TMA, cp.async.bulk) into shared memory, as cub::DeviceTransform's ublkcp ----

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count)
               : "memory");
}
// Makes the initialised barriers visible to the async proxy (the TMA unit) before it signals them.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
               "r"(bytes)
               : "memory");
}
// bytes: a multiple of 16; src and dst 16-byte aligned.
__device__ __forceinline__ void bulk_g2s(void* dst, const void* src, uint32_t bytes,
                                         uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_u32(dst)),
      "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(smem_u32(bar))
      : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint64_t* bar, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(ok)
      : "r"(smem_u32(bar)), "r"(parity)
      : "memory");
  return ok != 0;
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// One tile per block: one thread issues a bulk copy of the block's tile of a and of b into shared
// memory, everyone waits on the mbarrier, then each thread adds kF4 float4s and stores them.
// Like cub's ublkcp (block 256, 3 floats a thread: 3 KiB per input per block, ~48 KiB in flight
// per SM) but with float4 shared reads and global stores.
template <int kBulkBlock, int kF4>
__global__ void __launch_bounds__(kBulkBlock)
    va_bulk_kernel(const float* __restrict__ a, const float* __restrict__ b,
                   float* __restrict__ c, size_t n) {
  constexpr int kTileF = kBulkBlock * 4 * kF4;  // floats per tile of each input
  constexpr uint32_t kBytes = kTileF * sizeof(float);
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __shared__ __align__(8) uint64_t bar;
  const size_t off = static_cast<size_t>(blockIdx.x) * kTileF;
  if (off + kTileF <= n) {  // uniform in the block
    float4* sa = reinterpret_cast<float4*>(smem_raw);
    float4* sb = sa + kTileF / 4;
    if (threadIdx.x == 0) {
      mbar_init(&bar, 1);
      fence_barrier_init();
      mbar_expect_tx(&bar, 2 * kBytes);
      bulk_g2s(sa, a + off, kBytes, &bar);
      bulk_g2s(sb, b + off, kBytes, &bar);
    }
    __syncthreads();  // nobody waits on the barrier before it is initialised
    mbar_wait(&bar, 0);
    float4* dst = reinterpret_cast<float4*>(c + off);
#pragma unroll
    for (int u = 0; u < kF4; ++u) {
      const int j = u * kBulkBlock + threadIdx.x;
      dst[j] = add4(sa[j], sb[j]);
    }
  } else {  // the last, partial tile
    for (size_t i = off + threadIdx.x; i < n; i += kBulkBlock) c[i] = a[i] + b[i];
  }
}

// cub's ublkcp block written out as it is (kernels/transform.cuh): the same bulk copies, then
// kItems scalar floats a thread (idx = j * kBlock + tid), read from shared memory and stored one
// float a thread, coalesced. With kBlock = 256 and kItems = 3 it is the tile cub picks on sm_90.
template <int kBlock, int kItems>
__global__ void __launch_bounds__(kBlock)
    va_bulks_kernel(const float* __restrict__ a, const float* __restrict__ b,
                    float* __restrict__ c, size_t n) {
  constexpr int kTileF = kBlock * kItems;
  static_assert(kTileF % 4 == 0, "bulk copies move multiples of 16 bytes");
  constexpr uint32_t kBytes = kTileF * sizeof(float);
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __shared__ __align__(8) uint64_t bar;
  const size_t off = static_cast<size_t>(blockIdx.x) * kTileF;
  if (off + kTileF <= n) {  // uniform in the block
    float* sa = reinterpret_cast<float*>(smem_raw);
    float* sb = sa + kTileF;
    if (threadIdx.x == 0) {
      mbar_init(&bar, 1);
      fence_barrier_init();
      mbar_expect_tx(&bar, 2 * kBytes);
      bulk_g2s(sa, a + off, kBytes, &bar);
      bulk_g2s(sb, b + off, kBytes, &bar);
    }
    __syncthreads();
    mbar_wait(&bar, 0);
    float* dst = c + off;
#pragma unroll 1
    for (int j = 0; j < kItems; ++j) {
      const int idx = j * kBlock + threadIdx.x;
      dst[idx] = sa[idx] + sb[idx];
    }
  } else {
    for (size_t i = off + threadIdx.x; i < n; i += kBlock) c[i] = a[i] + b[i];
  }
}

// Persistent (kBlocksPerSm blocks per SM), kStages-deep ring of chunks in shared memory: thread 0
// keeps kStages chunks of a and b in flight through TMA bulk copies; all threads wait for the
// oldest, add and stream it out, sync, and thread 0 refills that stage with the chunk kStages
// iterations ahead. Bytes in flight per SM = kBlocksPerSm * kStages * 2 * chunk, independent of
// registers and occupancy.
constexpr int kPipeBlock = 256;
template <int kStages, int kChunkF4>
__global__ void __launch_bounds__(kPipeBlock)
    va_pipe_kernel(const float* __restrict__ a, const float* __restrict__ b,
                   float* __restrict__ c, size_t n) {
  static_assert(kChunkF4 % kPipeBlock == 0, "whole float4s per thread");
  constexpr uint32_t kBytes = kChunkF4 * 16;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __shared__ __align__(8) uint64_t bars[kStages];
  float4* sa = reinterpret_cast<float4*>(smem_raw);  // [kStages][kChunkF4]
  float4* sb = sa + kStages * kChunkF4;
  const size_t n4 = n / 4;
  const size_t chunks = n4 / kChunkF4;  // whole chunks; the rest is done after the loop
  const size_t grid = gridDim.x;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* c4 = reinterpret_cast<float4*>(c);
  auto issue = [&](int s, size_t chunk) {
    mbar_expect_tx(&bars[s], 2 * kBytes);
    bulk_g2s(sa + s * kChunkF4, a4 + chunk * kChunkF4, kBytes, &bars[s]);
    bulk_g2s(sb + s * kChunkF4, b4 + chunk * kChunkF4, kBytes, &bars[s]);
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) mbar_init(&bars[s], 1);
    fence_barrier_init();
    for (int s = 0; s < kStages; ++s) {
      const size_t chunk = blockIdx.x + static_cast<size_t>(s) * grid;
      if (chunk < chunks) issue(s, chunk);
    }
  }
  __syncthreads();
  // Iteration i handles chunk blockIdx.x + i * grid in stage i % kStages, that stage's
  // (i / kStages)-th use, so its barrier completes phase i / kStages. Every chunk < chunks of this
  // block was issued (in the prologue or kStages iterations earlier) and is waited for here, so no
  // copy is in flight when the block exits. Control flow is uniform: the barriers are safe.
  for (unsigned i = 0;; ++i) {
    const size_t chunk = blockIdx.x + static_cast<size_t>(i) * grid;
    if (chunk >= chunks) break;
    const int s = static_cast<int>(i % kStages);
    mbar_wait(&bars[s], (i / kStages) & 1u);
    const float4* xa = sa + s * kChunkF4;
    const float4* xb = sb + s * kChunkF4;
    float4* dst = c4 + chunk * kChunkF4;
#pragma unroll
    for (int u = 0; u < kChunkF4 / kPipeBlock; ++u) {
      const int j = u * kPipeBlock + threadIdx.x;
      __stcs(dst + j, add4(xa[j], xb[j]));
    }
    __syncthreads();  // every thread is done reading stage s
    if (threadIdx.x == 0) {
      const size_t next = chunk + static_cast<size_t>(kStages) * grid;
      if (next < chunks) {
        fence_proxy_async();  // order the generic-proxy reads above before the async refill
        issue(s, next);
      }
    }
  }
  for (size_t j = chunks * kChunkF4 + blockIdx.x * size_t{kPipeBlock} + threadIdx.x; j < n4;
       j += grid * kPipeBlock)
    c4[j] = add4(a4[j], b4[j]);
  for (size_t i = n4 * 4 + blockIdx.x * size_t{kPipeBlock} + threadIdx.x; i < n;
       i += grid * kPipeBlock)
    c[i] = a[i] + b[i];
}

template <class K>
int blocks_per_sm(K kernel, int block, size_t smem) {
  int b = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, block, smem));
  return b;
}

template <int U>
void launch_pref(const Ctx& ctx, const float* a, const float* b, float* c, size_t n,
                 cudaStream_t s) {
  const size_t n4 = n / 4;
  if (n4 > 0) {
    static const int occ = blocks_per_sm(va_pref_kernel<U>, kPrefBlock, 0);
    const size_t per_block = size_t{kPrefBlock} * U;
    const size_t need = (n4 + per_block - 1) / per_block;
    const auto grid =
        static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(need, size_t(ctx.sms) * occ)));
    va_pref_kernel<U><<<grid, kPrefBlock, 0, s>>>(reinterpret_cast<const float4*>(a),
                                                  reinterpret_cast<const float4*>(b),
                                                  reinterpret_cast<float4*>(c), n4);
    CUDA_CHECK_LAUNCH();
  }
  launch_tail(a, b, c, n, s);
}

template <int kBulkBlock, int kF4>
void launch_bulk(const float* a, const float* b, float* c, size_t n, cudaStream_t s) {
  constexpr size_t kTileF = size_t{kBulkBlock} * 4 * kF4;
  constexpr size_t smem = 2 * kTileF * sizeof(float);
  static const bool attr = [] {
    CUDA_CHECK(cudaFuncSetAttribute(va_bulk_kernel<kBulkBlock, kF4>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    return true;
  }();
  (void)attr;
  if (n == 0) return;
  const auto grid = static_cast<unsigned>((n + kTileF - 1) / kTileF);
  va_bulk_kernel<kBulkBlock, kF4><<<grid, kBulkBlock, smem, s>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH();
}

template <int kBlock, int kItems>
void launch_bulks(const float* a, const float* b, float* c, size_t n, cudaStream_t s) {
  constexpr size_t kTileF = size_t{kBlock} * kItems;
  constexpr size_t smem = 2 * kTileF * sizeof(float);
  static const bool attr = [] {
    CUDA_CHECK(cudaFuncSetAttribute(va_bulks_kernel<kBlock, kItems>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    return true;
  }();
  (void)attr;
  if (n == 0) return;
  const auto grid = static_cast<unsigned>((n + kTileF - 1) / kTileF);
  va_bulks_kernel<kBlock, kItems><<<grid, kBlock, smem, s>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH();
}

template <int kStages, int kChunkF4, int kBlocksPerSm>
void launch_pipe(const Ctx& ctx, const float* a, const float* b, float* c, size_t n,
                 cudaStream_t s) {
  constexpr size_t smem = size_t{2} * kStages * kChunkF4 * 16;
  static const int occ = [] {
    CUDA_CHECK(cudaFuncSetAttribute(va_pipe_kernel<kStages, kChunkF4>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    return blocks_per_sm(va_pipe_kernel<kStages, kChunkF4>, kPipeBlock, smem);
  }();
  if (occ < 1) throw std::runtime_error("va_pipe: no block fits on an SM");
  if (n == 0) return;
  const auto grid = static_cast<unsigned>(ctx.sms * std::min(occ, kBlocksPerSm));
  va_pipe_kernel<kStages, kChunkF4><<<grid, kPipeBlock, smem, s>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH();
}

void launch_thrust(const float* a, const float* b, float* c, size_t n, cudaStream_t s) {
  thrust::transform(thrust::cuda::par_nosync.on(s), a, a + n, b, c, thrust::plus<float>());
  CUDA_CHECK_LAUNCH();
}

constexpr uint64_t kSeedA = 0x5eed0a01, kSeedB = 0x5eed0b02;
// The expected c[i] (the host adds in float, as the GPU does: exact comparison).
inline float rand_pm1_sum(size_t i) { return rand_pm1(kSeedA, i) + rand_pm1(kSeedB, i); }

using Launch = std::function<void(const float*, const float*, float*, size_t, cudaStream_t)>;

std::vector<Variant<Launch>> variants(const Ctx& ctx) {
  const Ctx* cp = &ctx;
  std::vector<Variant<Launch>> v;
  v.push_back({"va_thrust", "transform_kernel", "thrust::transform (cub ublkcp)", Role::reference,
               launch_thrust});
  v.push_back({"va_suite_b64", "va_suite_kernel", "block 64, 4 float4/thread", Role::baseline,
               [](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_suite<false>(a, b, c, n, 64, s);
               }});
  v.push_back({"va_suite_b256", "va_suite_kernel", "block 256, 4 float4/thread",
               Role::candidate, [](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_suite<false>(a, b, c, n, 256, s);
               }});
  v.push_back({"va_suite_l2pf", "va_suite_kernel", "block 64, ld.nc.L2::256B",
               Role::candidate, [](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_suite<true>(a, b, c, n, 64, s);
               }});
  v.push_back({"va_pref2", "va_pref_kernel", "1 wave, 2 float4/array/step, prefetch next step",
               Role::candidate, [cp](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_pref<2>(*cp, a, b, c, n, s);
               }});
  v.push_back({"va_bulk2k", "va_bulk_kernel", "TMA tile 2x2 KiB/block, block 128",
               Role::candidate, [](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_bulk<128, 1>(a, b, c, n, s);
               }});
  v.push_back({"va_bulk3k", "va_bulk_kernel", "TMA tile 2x3 KiB/block (cub's), block 192",
               Role::candidate, [](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_bulk<192, 1>(a, b, c, n, s);
               }});
  v.push_back({"va_bulk4k", "va_bulk_kernel", "TMA tile 2x4 KiB/block, block 256",
               Role::candidate, [](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_bulk<256, 1>(a, b, c, n, s);
               }});
  v.push_back({"va_bulk8k", "va_bulk_kernel", "TMA tile 2x8 KiB/block, block 256",
               Role::candidate, [](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_bulk<256, 2>(a, b, c, n, s);
               }});
  v.push_back({"va_cub256x3", "va_bulks_kernel", "cub's ublkcp as is: block 256, 3 floats/thread",
               Role::candidate, [](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_bulks<256, 3>(a, b, c, n, s);
               }});
  v.push_back({"va_cub256x4", "va_bulks_kernel", "same, 4 scalar floats/thread (4 KiB tiles)",
               Role::candidate, [](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_bulks<256, 4>(a, b, c, n, s);
               }});
  v.push_back({"va_pipe4x8k", "va_pipe_kernel", "TMA ring 4 x 2x8 KiB, 2 blocks/SM",
               Role::candidate, [cp](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_pipe<4, 512, 2>(*cp, a, b, c, n, s);
               }});
  v.push_back({"va_pipe8x4k", "va_pipe_kernel", "TMA ring 8 x 2x4 KiB, 2 blocks/SM",
               Role::candidate, [cp](auto a, auto b, auto c, size_t n, cudaStream_t s) {
                 launch_pipe<8, 256, 2>(*cp, a, b, c, n, s);
               }});
  return v;
}

}  // namespace va

// ====================================================================================================
// transpose: out (cols x rows) = in (rows x cols)^T, float32, 8192 x 8192 (8 bytes per element)
// ====================================================================================================
namespace tp {

constexpr int kTile = 32;
constexpr int kTileRows = 8;
constexpr unsigned kMaxGridY = 65535;

unsigned grid_y(size_t blocks) {
  return static_cast<unsigned>(blocks < kMaxGridY ? (blocks > 0 ? blocks : 1) : kMaxGridY);
}

// The suite's copy_kernel (gpu/transpose.cu): the reference, same bytes as a transpose.
__global__ void __launch_bounds__(kTile* kTileRows)
    tp_copy_kernel(const float* __restrict__ in, float* __restrict__ out, size_t rows,
                   size_t cols) {
  const size_t c = static_cast<size_t>(blockIdx.x) * kTile + threadIdx.x;
  if (c >= cols) return;
  const size_t tiles_r = (rows + kTile - 1) / kTile;
  for (size_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
#pragma unroll
    for (int j0 = 0; j0 < kTile; j0 += kTileRows) {
      const size_t r = tr * kTile + j0 + threadIdx.y;
      if (r < rows) out[r * cols + c] = in[r * cols + c];
    }
  }
}

// The suite's tiled_1d_kernel<kTileDim, TileOrder> (gpu/transpose.cu), kDiag = TileOrder::diagonal.
template <int kTileDim>
constexpr int kMinBlocksPerSm = kTileDim == kTile ? 8 : 6;

template <int kTileDim, bool kDiag>
__global__ void __launch_bounds__(kTile* kTileRows, kMinBlocksPerSm<kTileDim>)
    tp_suite_tiled_1d(const float* __restrict__ in, float* __restrict__ out, size_t rows,
                      size_t cols, unsigned tiles_r, unsigned tiles_c) {
  static_assert(kTileDim % kTile == 0 && kTileDim % kTileRows == 0);
  __shared__ float tile[kTileDim][kTileDim + 1];
  const unsigned tiles = tiles_r * tiles_c;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    const unsigned q = t / tiles_c;
    const unsigned tc = t - q * tiles_c;
    const unsigned tr = !kDiag ? q : (q + tc) % tiles_r;
    const size_t r0 = static_cast<size_t>(tr) * kTileDim;
    const size_t c0 = static_cast<size_t>(tc) * kTileDim;
#pragma unroll
    for (int cx = 0; cx < kTileDim; cx += kTile) {
      const size_t c = c0 + cx + threadIdx.x;
#pragma unroll
      for (int j0 = 0; j0 < kTileDim; j0 += kTileRows) {
        const int j = j0 + threadIdx.y;
        const size_t r = r0 + j;
        if (r < rows && c < cols) tile[j][cx + threadIdx.x] = in[r * cols + c];
      }
    }
    __syncthreads();
#pragma unroll
    for (int rx = 0; rx < kTileDim; rx += kTile) {
      const size_t r = r0 + rx + threadIdx.x;
#pragma unroll
      for (int j0 = 0; j0 < kTileDim; j0 += kTileRows) {
        const int j = j0 + threadIdx.y;
        const size_t oc = c0 + j;
        if (r < rows && oc < cols) out[oc * rows + r] = tile[rx + threadIdx.x][j];
      }
    }
    __syncthreads();
  }
}

template <bool kStream>
__device__ __forceinline__ float4 ld4(const float* p) {
  if constexpr (kStream)
    return __ldcs(reinterpret_cast<const float4*>(p));
  else
    return __ldg(reinterpret_cast<const float4*>(p));
}
template <bool kStream>
__device__ __forceinline__ void st4(float* p, float4 v) {
  if constexpr (kStream)
    __stcs(reinterpret_cast<float4*>(p), v);
  else
    *reinterpret_cast<float4*>(p) = v;
}

// Tile (tr, tc) of block t of a 1D grid, in row or diagonal order (a bijection, see the suite).
struct TileRC {
  unsigned tr, tc;
};
template <bool kDiag>
__device__ __forceinline__ TileRC tile_of(unsigned t, unsigned tiles_r, unsigned tiles_c) {
  const unsigned q = t / tiles_c;
  const unsigned tc = t - q * tiles_c;
  return {kDiag ? (q + tc) % tiles_r : q, tc};
}

// Shared-memory transpose of a T x T tile with float4 global loads and stores. Thread (a, lc)
// loads the 4 x 4 micro-tile at input rows 4a.., columns 4lc.. (4 float4 loads in flight before
// any store), transposes it in registers and stores its 4 columns as float4s into the transposed
// tile s[input column][chunk of 4 input rows]. After the barrier, each thread reads 4 float4s
// along output rows and stores them. The chunk index is XOR-swizzled with (row / 4) % 8, so the
// 8 threads of each quarter-warp (one 128-byte shared wavefront) hit 8 different 16-byte bank
// groups on both the store and the load. Partial tiles and matrices whose rows or columns are not
// multiples of 4 (float4 alignment) take a scalar, bounds-checked path: `full` is uniform per
// block and the barrier is unconditional.
__device__ __forceinline__ int swz(int row) { return (row >> 2) & 7; }

template <int T, bool kDiag, bool kStream>
__global__ void __launch_bounds__((T / 4) * (T / 4), 2048 / ((T / 4) * (T / 4)))
    tp_swz_kernel(const float* __restrict__ in, float* __restrict__ out, unsigned rows,
                  unsigned cols, unsigned tiles_r, unsigned tiles_c, bool vec_ok) {
  constexpr int Q = T / 4;  // float4 chunks per tile row = micro-tiles per tile side
  static_assert(Q >= 8 && (Q & (Q - 1)) == 0, "the swizzle permutes the low 3 bits of the chunk");
  __shared__ float4 s[T * Q];
  const TileRC tl = tile_of<kDiag>(blockIdx.x, tiles_r, tiles_c);
  const unsigned r0 = tl.tr * T, c0 = tl.tc * T;
  const bool full = vec_ok && r0 + T <= rows && c0 + T <= cols;
  const int tid = threadIdx.x;
  // 32-bit element offsets: the launcher checks rows * cols < 2^32.
  {
    const int lc = tid % Q, a = tid / Q;
    const unsigned r = r0 + 4 * a, c = c0 + 4 * lc;
    float v[4][4];
    if (full) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float4 f = ld4<kStream>(in + ((r + i) * cols + c));
        v[i][0] = f.x;
        v[i][1] = f.y;
        v[i][2] = f.z;
        v[i][3] = f.w;
      }
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          v[i][j] = (r + i < rows && c + j < cols) ? in[(r + i) * cols + c + j] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int row = 4 * lc + j;  // input column within the tile
      s[row * Q + (a ^ swz(row))] = make_float4(v[0][j], v[1][j], v[2][j], v[3][j]);
    }
  }
  __syncthreads();
  {
    const int a = tid % Q, cr = tid / Q;
    const unsigned ocol = r0 + 4 * a;  // output column = input row
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const int cc = cr + Q * p;  // input column within the tile = output row
      const float4 f = s[cc * Q + (a ^ swz(cc))];
      const unsigned orow = c0 + cc;
      if (full) {
        st4<kStream>(out + (orow * rows + ocol), f);
      } else if (orow < cols) {
        float* o = out + (orow * rows + ocol);
        if (ocol < rows) o[0] = f.x;
        if (ocol + 1 < rows) o[1] = f.y;
        if (ocol + 2 < rows) o[2] = f.z;
        if (ocol + 3 < rows) o[3] = f.w;
      }
    }
  }
}

// No shared memory, no barrier: each thread loads a 4 x 4 micro-tile as 4 float4s and stores its
// 4 columns as 4 float4s along output rows. A warp is WR micro-tiles along rows x (32 / WR) along
// columns: its loads cover 16 * 32 / WR contiguous bytes per input row, its stores 16 * WR bytes
// per output row (WR = 8: 64 B reads, 128 B writes; WR = 4: 128 B reads, 64 B writes). 8 warps
// per block, WRB of them along rows; a block covers a 64 x 64 tile (in diagonal order).
template <int WR, int WRB, bool kDiag>
__global__ void __launch_bounds__(256)  // 40 registers, 6 blocks/SM; (256, 8) spills
    tp_reg_kernel(const float* __restrict__ in, float* __restrict__ out, unsigned rows,
                  unsigned cols, unsigned tiles_r, unsigned tiles_c, bool vec_ok) {
  constexpr int WC = 32 / WR, WCB = 8 / WRB;
  constexpr int BR = WR * WRB * 4, BC = WC * WCB * 4;
  const TileRC tl = tile_of<kDiag>(blockIdx.x, tiles_r, tiles_c);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int mr = (w % WRB) * WR + lane % WR;
  const int mc = (w / WRB) * WC + lane / WR;
  const unsigned r = tl.tr * BR + 4 * mr, c = tl.tc * BC + 4 * mc;
  if (r >= rows || c >= cols) return;
  if (vec_ok && r + 4 <= rows && c + 4 <= cols) {  // 32-bit offsets: rows * cols < 2^32
    const float4 v0 = ld4<false>(in + (r * cols + c));
    const float4 v1 = ld4<false>(in + ((r + 1) * cols + c));
    const float4 v2 = ld4<false>(in + ((r + 2) * cols + c));
    const float4 v3 = ld4<false>(in + ((r + 3) * cols + c));
    st4<false>(out + (c * rows + r), make_float4(v0.x, v1.x, v2.x, v3.x));
    st4<false>(out + ((c + 1) * rows + r), make_float4(v0.y, v1.y, v2.y, v3.y));
    st4<false>(out + ((c + 2) * rows + r), make_float4(v0.z, v1.z, v2.z, v3.z));
    st4<false>(out + ((c + 3) * rows + r), make_float4(v0.w, v1.w, v2.w, v3.w));
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (r + i < rows && c + j < cols) out[(c + j) * rows + r + i] = in[(r + i) * cols + c + j];
  }
}

// ---- launchers ----

void launch_copy(const float* in, float* out, size_t rows, size_t cols, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile),
                  grid_y((rows + kTile - 1) / kTile));
  tp_copy_kernel<<<grid, dim3(kTile, kTileRows), 0, s>>>(in, out, rows, cols);
  CUDA_CHECK_LAUNCH();
}

template <int kTileDim, bool kDiag>
void launch_suite(const float* in, float* out, size_t rows, size_t cols, cudaStream_t s) {
  const size_t tr = (rows + kTileDim - 1) / kTileDim, tc = (cols + kTileDim - 1) / kTileDim;
  const auto grid = static_cast<unsigned>(std::max<size_t>(1, std::min(tr * tc, size_t{1} << 30)));
  tp_suite_tiled_1d<kTileDim, kDiag><<<grid, dim3(kTile, kTileRows), 0, s>>>(
      in, out, rows, cols, static_cast<unsigned>(tr), static_cast<unsigned>(tc));
  CUDA_CHECK_LAUNCH();
}

// The candidates index with 32-bit tile coordinates and one block per tile.
void check_shape(size_t rows, size_t cols) {
  if (rows * cols >= (size_t{1} << 32) || rows >= (size_t{1} << 31) || cols >= (size_t{1} << 31))
    throw std::invalid_argument("transpose candidates: matrix too large for 32-bit indices");
}

template <int T, bool kDiag, bool kStream>
void launch_swz(const float* in, float* out, size_t rows, size_t cols, cudaStream_t s) {
  check_shape(rows, cols);
  const size_t tr = (rows + T - 1) / T, tc = (cols + T - 1) / T;
  const bool vec_ok = rows % 4 == 0 && cols % 4 == 0;
  tp_swz_kernel<T, kDiag, kStream><<<static_cast<unsigned>(tr * tc), (T / 4) * (T / 4), 0, s>>>(
      in, out, static_cast<unsigned>(rows), static_cast<unsigned>(cols),
      static_cast<unsigned>(tr), static_cast<unsigned>(tc), vec_ok);
  CUDA_CHECK_LAUNCH();
}

template <int WR, int WRB, bool kDiag>
void launch_reg(const float* in, float* out, size_t rows, size_t cols, cudaStream_t s) {
  check_shape(rows, cols);
  constexpr int BR = WR * WRB * 4, BC = (32 / WR) * (8 / WRB) * 4;
  const size_t tr = (rows + BR - 1) / BR, tc = (cols + BC - 1) / BC;
  const bool vec_ok = rows % 4 == 0 && cols % 4 == 0;
  tp_reg_kernel<WR, WRB, kDiag><<<static_cast<unsigned>(tr * tc), 256, 0, s>>>(
      in, out, static_cast<unsigned>(rows), static_cast<unsigned>(cols),
      static_cast<unsigned>(tr), static_cast<unsigned>(tc), vec_ok);
  CUDA_CHECK_LAUNCH();
}

constexpr uint64_t kSeed = 0x5eed7201;

using Launch = std::function<void(const float*, float*, size_t, size_t, cudaStream_t)>;

std::vector<Variant<Launch>> variants() {
  std::vector<Variant<Launch>> v;
  v.push_back({"tp_copy", "tp_copy_kernel", "suite copy, 32x8 threads, 4 floats/thread",
               Role::reference, launch_copy});
  v.push_back({"tp_suite_diag32", "tp_suite_tiled_1d", "suite tiled_diag: 32x32 tile, 32x8 thr",
               Role::baseline, launch_suite<32, true>});
  v.push_back({"tp_swz32_diag", "tp_swz_kernel", "32x32 tile, 64 thr, float4, XOR swizzle",
               Role::candidate, launch_swz<32, true, false>});
  v.push_back({"tp_swz64_diag", "tp_swz_kernel", "64x64 tile, 256 thr, float4, XOR swizzle",
               Role::candidate, launch_swz<64, true, false>});
  v.push_back({"tp_swz64_row", "tp_swz_kernel", "as swz64_diag, row-major tile order",
               Role::candidate, launch_swz<64, false, false>});
  v.push_back({"tp_swz64_diag_cs", "tp_swz_kernel", "as swz64_diag, __ldcs/__stcs",
               Role::candidate, launch_swz<64, true, true>});
  v.push_back({"tp_reg8x4_diag", "tp_reg_kernel", "no smem, 4x4/thread, warp 8x4 (64B rd/128B wr)",
               Role::candidate, launch_reg<8, 2, true>});
  v.push_back({"tp_reg4x8_diag", "tp_reg_kernel", "no smem, 4x4/thread, warp 4x8 (128B rd/64B wr)",
               Role::candidate, launch_reg<4, 4, true>});
  return v;
}

}  // namespace tp

// ====================================================================================================
// dtypes fma: out[i] = sum of 4 chains of k dependent v = v*a + x[i] (chain c from x[i]*(c+1)),
// k = 1024, n = 2^22; 2 ops per FMA (8 per dp4a). Roofs: gpu/ceilings.cu's fma_roof_kernel.
// ====================================================================================================
namespace fm {

constexpr int kK = 1024;
constexpr size_t kN = size_t{1} << 22;
constexpr float kA = 0.75f;
constexpr int kChains = 4;

unsigned blocks_for(size_t items, int block) {
  return static_cast<unsigned>((items + block - 1) / block);
}

// ---- the suite's kernels (gpu/dtypes.cu), renamed ----

__global__ void fp16_suite_kernel(const __half2* __restrict__ x, __half2* __restrict__ out,
                                  size_t pairs, __half2 a, int k) {
  const size_t p = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= pairs) return;
  const __half2 b = x[p];
  __half2 v0 = b, v1 = __hmul2(b, __float2half2_rn(2.f)), v2 = __hmul2(b, __float2half2_rn(3.f)),
          v3 = __hmul2(b, __float2half2_rn(4.f));
#pragma unroll 8
  for (int s = 0; s < k; ++s) {
    v0 = __hfma2(v0, a, b);
    v1 = __hfma2(v1, a, b);
    v2 = __hfma2(v2, a, b);
    v3 = __hfma2(v3, a, b);
  }
  out[p] = __hadd2(__hadd2(__hadd2(v0, v1), v2), v3);
}

// Scalar half chains for elements [begin, n) (the suite's fma_half_kernel): __hfma rounds as one
// lane of __hfma2 does, so results match the half2 kernels bit for bit.
__global__ void fp16_tail_kernel(const __half* __restrict__ x, __half* __restrict__ out,
                                 size_t begin, size_t n, __half a, int k) {
  const size_t i = begin + static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half b = x[i];
  __half v0 = b, v1 = __hmul(b, __float2half(2.f)), v2 = __hmul(b, __float2half(3.f)),
         v3 = __hmul(b, __float2half(4.f));
#pragma unroll 8
  for (int s = 0; s < k; ++s) {
    v0 = __hfma(v0, a, b);
    v1 = __hfma(v1, a, b);
    v2 = __hfma(v2, a, b);
    v3 = __hfma(v3, a, b);
  }
  out[i] = __hadd(__hadd(__hadd(v0, v1), v2), v3);
}

__global__ void fp32_suite_kernel(const float* __restrict__ x, float* __restrict__ out, size_t n,
                                  float a, int k) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float b = x[i];
  float v0 = b, v1 = b * 2.f, v2 = b * 3.f, v3 = b * 4.f;
#pragma unroll 8
  for (int s = 0; s < k; ++s) {
    v0 = fmaf(v0, a, b);
    v1 = fmaf(v1, a, b);
    v2 = fmaf(v2, a, b);
    v3 = fmaf(v3, a, b);
  }
  out[i] = ((v0 + v1) + v2) + v3;
}

__global__ void int8_suite_kernel(const std::int8_t* __restrict__ x, std::int32_t* __restrict__ out,
                                  size_t n, int k) {
  const size_t q = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= (n + 3) / 4) return;
  unsigned bits = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (4 * q + j < n)
      bits |= static_cast<unsigned>(static_cast<std::uint8_t>(x[4 * q + j])) << (8 * j);
  const int w = static_cast<int>(bits);
  int v0 = w, v1 = w ^ 0x01010101, v2 = w ^ 0x02020202, v3 = w ^ 0x03030303;
#pragma unroll 8
  for (int s = 0; s < k; ++s) {
    v0 = __dp4a(v0, w, 1);
    v1 = __dp4a(v1, w, 2);
    v2 = __dp4a(v2, w, 3);
    v3 = __dp4a(v3, w, 4);
  }
  out[q] = v0 + v1 + v2 + v3;
}

// ---- candidates: P half2 pairs per thread (2P elements, 4P independent chains) ----
// Same operations per element as the suite's kernel, in the same order, so the output is
// bit-identical to it; only the number of independent chains per thread changes (4 -> 8 or 16),
// which gives ptxas room to alternate HFMA2 (FMA pipe) and HFMA2.MMA (the second pipe it uses for
// half2) without back-to-back dependent instructions on one pipe.
template <int P>
struct Pack;
template <>
struct Pack<2> {
  using type = uint2;
};
template <>
struct Pack<4> {
  using type = uint4;
};

template <int P, int kUnroll>
__global__ void fp16_ilp_kernel(const __half2* __restrict__ x, __half2* __restrict__ out,
                                size_t groups, __half2 a, int k) {
  using V = typename Pack<P>::type;
  static_assert(sizeof(V) == P * sizeof(__half2));
  const size_t g = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= groups) return;
  const V raw = reinterpret_cast<const V*>(x)[g];
  __half2 b[P];
  memcpy(b, &raw, sizeof(raw));
  const __half2 two = __float2half2_rn(2.f), three = __float2half2_rn(3.f),
                four = __float2half2_rn(4.f);
  __half2 v0[P], v1[P], v2[P], v3[P];
#pragma unroll
  for (int p = 0; p < P; ++p) {
    v0[p] = b[p];
    v1[p] = __hmul2(b[p], two);
    v2[p] = __hmul2(b[p], three);
    v3[p] = __hmul2(b[p], four);
  }
#pragma unroll kUnroll
  for (int s = 0; s < k; ++s) {
#pragma unroll
    for (int p = 0; p < P; ++p) {
      v0[p] = __hfma2(v0[p], a, b[p]);
      v1[p] = __hfma2(v1[p], a, b[p]);
      v2[p] = __hfma2(v2[p], a, b[p]);
      v3[p] = __hfma2(v3[p], a, b[p]);
    }
  }
  __half2 r[P];
#pragma unroll
  for (int p = 0; p < P; ++p) r[p] = __hadd2(__hadd2(__hadd2(v0[p], v1[p]), v2[p]), v3[p]);
  V o;
  memcpy(&o, r, sizeof(o));
  reinterpret_cast<V*>(out)[g] = o;
}

// ---- roofs (gpu/ceilings.cu), renamed ----

constexpr int kRoofChains = 8;
template <class T>
__device__ __forceinline__ T fma_step(T x, T a, T b) {
  return x * a + b;
}
template <>
__device__ __forceinline__ float fma_step(float x, float a, float b) {
  return fmaf(x, a, b);
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
__device__ __forceinline__ __half2 seed_of<__half2>(int k) {
  return __float2half2_rn(0.5f + 0.01f * k);
}
template <>
__device__ __forceinline__ int seed_of<int>(int k) {
  return static_cast<int>(threadIdx.x) + k;
}
__device__ __forceinline__ bool is_magic(float v) { return v == -1.0f; }
__device__ __forceinline__ bool is_magic(__half2 v) { return __low2float(v) == -1.0f; }
__device__ __forceinline__ bool is_magic(int v) { return v == -1; }

template <class T>
__global__ void roof_kernel(T a, T b, int iters, T* out) {
  T x[kRoofChains];
#pragma unroll
  for (int k = 0; k < kRoofChains; ++k) x[k] = seed_of<T>(k);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kRoofChains; ++k) x[k] = fma_step(x[k], a, b);
  }
  T sum = x[0];
#pragma unroll
  for (int k = 1; k < kRoofChains; ++k) sum = sum + x[k];
  if (is_magic(sum)) out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// ---- host references (cpu/dtypes.cpp's arithmetic: float chains, mul then add) ----

// The host works on blocks of kRefBlock elements with the chain index outside and the element
// index inside, contiguous loops that the compiler vectorises (the reference takes ~1 s on 16
// cores instead of ~15).
constexpr size_t kRefBlock = 64;

// out[i] = ((v0 + v1) + v2) + v3 in float, v = v * a + b as a multiply then an add.
void ref_chains_f32(const float* b, float* out, size_t n, int k) {
  parallel_for((n + kRefBlock - 1) / kRefBlock, [&](size_t gb, size_t ge, size_t) {
    for (size_t g = gb; g < ge; ++g) {
      const size_t i0 = g * kRefBlock;
      float B[kRefBlock], V0[kRefBlock], V1[kRefBlock], V2[kRefBlock], V3[kRefBlock];
      for (size_t j = 0; j < kRefBlock; ++j) {
        B[j] = i0 + j < n ? b[i0 + j] : 0.0f;
        V0[j] = B[j];
        V1[j] = B[j] * 2.0f;
        V2[j] = B[j] * 3.0f;
        V3[j] = B[j] * 4.0f;
      }
      for (int s = 0; s < k; ++s) {
        for (size_t j = 0; j < kRefBlock; ++j) V0[j] = V0[j] * kA + B[j];
        for (size_t j = 0; j < kRefBlock; ++j) V1[j] = V1[j] * kA + B[j];
        for (size_t j = 0; j < kRefBlock; ++j) V2[j] = V2[j] * kA + B[j];
        for (size_t j = 0; j < kRefBlock; ++j) V3[j] = V3[j] * kA + B[j];
      }
      for (size_t j = 0; j < kRefBlock && i0 + j < n; ++j)
        out[i0 + j] = ((V0[j] + V1[j]) + V2[j]) + V3[j];
    }
  });
}

// Word q of x: bytes 4q..4q+3, little-endian, bytes at or past n read as 0 (as the kernel).
std::int32_t load_word(const std::int8_t* x, size_t n, size_t q) {
  std::uint32_t w = 0;
  for (size_t j = 0; j < 4 && 4 * q + j < n; ++j)
    w |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(x[4 * q + j])) << (8 * j);
  return static_cast<std::int32_t>(w);
}

// Signed byte j of v, by shifts (vectorisable).
inline std::int32_t sbyte(std::int32_t v, int j) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(v) << (24 - 8 * j)) >> 24;
}

// dp4a(v, w, c) = c + sum over the 4 byte lanes of v's and w's signed bytes (tb::dtypes::dp4a).
inline void dp4a_block(std::int32_t* V, const std::int32_t* W0, const std::int32_t* W1,
                       const std::int32_t* W2, const std::int32_t* W3, std::int32_t c) {
  for (size_t j = 0; j < kRefBlock; ++j) {
    const std::int32_t v = V[j];
    V[j] = c + sbyte(v, 0) * W0[j] + sbyte(v, 1) * W1[j] + sbyte(v, 2) * W2[j] + sbyte(v, 3) * W3[j];
  }
}

void ref_int8(const std::int8_t* x, size_t n, std::int32_t* out, int k) {
  const size_t words = (n + 3) / 4;
  parallel_for((words + kRefBlock - 1) / kRefBlock, [&](size_t gb, size_t ge, size_t) {
    for (size_t g = gb; g < ge; ++g) {
      const size_t q0 = g * kRefBlock;
      std::int32_t W0[kRefBlock], W1[kRefBlock], W2[kRefBlock], W3[kRefBlock];
      std::int32_t V0[kRefBlock], V1[kRefBlock], V2[kRefBlock], V3[kRefBlock];
      for (size_t j = 0; j < kRefBlock; ++j) {
        const std::int32_t w = q0 + j < words ? load_word(x, n, q0 + j) : 0;
        W0[j] = sbyte(w, 0);
        W1[j] = sbyte(w, 1);
        W2[j] = sbyte(w, 2);
        W3[j] = sbyte(w, 3);
        V0[j] = w;
        V1[j] = w ^ 0x01010101;
        V2[j] = w ^ 0x02020202;
        V3[j] = w ^ 0x03030303;
      }
      for (int s = 0; s < k; ++s) {
        dp4a_block(V0, W0, W1, W2, W3, 1);
        dp4a_block(V1, W0, W1, W2, W3, 2);
        dp4a_block(V2, W0, W1, W2, W3, 3);
        dp4a_block(V3, W0, W1, W2, W3, 4);
      }
      for (size_t j = 0; j < kRefBlock && q0 + j < words; ++j)
        out[q0 + j] = V0[j] + V1[j] + V2[j] + V3[j];
    }
  });
}

// ---- launchers ----

void launch_fp16_suite(const __half* x, __half* out, size_t n, int block, cudaStream_t s) {
  const size_t pairs = n / 2;
  if (pairs > 0) {
    fp16_suite_kernel<<<blocks_for(pairs, block), block, 0, s>>>(
        reinterpret_cast<const __half2*>(x), reinterpret_cast<__half2*>(out), pairs,
        __float2half2_rn(kA), kK);
    CUDA_CHECK_LAUNCH();
  }
  if (2 * pairs < n) {
    fp16_tail_kernel<<<blocks_for(n - 2 * pairs, block), block, 0, s>>>(x, out, 2 * pairs, n,
                                                                       __float2half(kA), kK);
    CUDA_CHECK_LAUNCH();
  }
}

template <int P, int kUnroll>
void launch_fp16_ilp(const __half* x, __half* out, size_t n, int block, cudaStream_t s) {
  const size_t groups = n / (2 * P);  // x, out: cudaMalloc'd, so 4P-byte aligned
  if (groups > 0) {
    fp16_ilp_kernel<P, kUnroll><<<blocks_for(groups, block), block, 0, s>>>(
        reinterpret_cast<const __half2*>(x), reinterpret_cast<__half2*>(out), groups,
        __float2half2_rn(kA), kK);
    CUDA_CHECK_LAUNCH();
  }
  const size_t begin = groups * 2 * P;
  if (begin < n) {
    fp16_tail_kernel<<<blocks_for(n - begin, block), block, 0, s>>>(x, out, begin, n,
                                                                   __float2half(kA), kK);
    CUDA_CHECK_LAUNCH();
  }
}

// The roof's launch as the suite sizes it: 32 blocks of 256 per SM (4 waves at 8 resident),
// iterations scaled from a probe to ~10 ms. Returns ops per launch.
template <class T>
struct Roof {
  T a, b;
  double ops_per_step;
  int iters = 1024;
  unsigned grid = 0;
  T* out = nullptr;
  void launch(cudaStream_t s) const {
    roof_kernel<T><<<grid, 256, 0, s>>>(a, b, iters, out);
    CUDA_CHECK_LAUNCH();
  }
  double ops() const { return ops_per_step * kRoofChains * double(grid) * 256 * iters; }
};

using F16Launch = std::function<void(const __half*, __half*, size_t, cudaStream_t)>;

std::vector<Variant<F16Launch>> fp16_variants() {
  std::vector<Variant<F16Launch>> v;
  auto suite = [](int block) {
    return [block](const __half* x, __half* o, size_t n, cudaStream_t s) {
      launch_fp16_suite(x, o, n, block, s);
    };
  };
  v.push_back({"fp16_suite_b64", "fp16_suite_kernel", "suite: 1 half2/thread, block 64",
               Role::baseline, suite(64)});
  v.push_back({"fp16_suite_b256", "fp16_suite_kernel", "suite: 1 half2/thread, block 256",
               Role::candidate, suite(256)});
  v.push_back({"fp16_ilp2_b128", "fp16_ilp_kernel", "2 half2/thread (8 chains), block 128",
               Role::candidate, [](auto x, auto o, size_t n, cudaStream_t s) {
                 launch_fp16_ilp<2, 8>(x, o, n, 128, s);
               }});
  v.push_back({"fp16_ilp2_b256", "fp16_ilp_kernel", "2 half2/thread (8 chains), block 256",
               Role::candidate, [](auto x, auto o, size_t n, cudaStream_t s) {
                 launch_fp16_ilp<2, 8>(x, o, n, 256, s);
               }});
  v.push_back({"fp16_ilp4_b64", "fp16_ilp_kernel", "4 half2/thread (16 chains), block 64",
               Role::candidate, [](auto x, auto o, size_t n, cudaStream_t s) {
                 launch_fp16_ilp<4, 4>(x, o, n, 64, s);
               }});
  v.push_back({"fp16_ilp4_b128", "fp16_ilp_kernel", "4 half2/thread (16 chains), block 128",
               Role::candidate, [](auto x, auto o, size_t n, cudaStream_t s) {
                 launch_fp16_ilp<4, 4>(x, o, n, 128, s);
               }});
  return v;
}

}  // namespace fm

// ====================================================================================================
// group runners
// ====================================================================================================

void print_row_line(const Row& r) {
  std::printf("  %-18s %-5s median %9.2f us  min %9.2f us  %9.2f %s  max_err %-10.3g %s%s%s\n",
              r.variant.c_str(), role_name(r.role), r.t.median_ms * 1e3, r.t.min_ms * 1e3, r.rate(),
              r.unit, r.max_err, !r.validated ? "n/a" : r.valid ? "ok" : "FAILED",
              r.note.empty() ? "" : "  ", r.note.c_str());
  std::fflush(stdout);
}

bool is_profile_target(const Ctx& ctx, const std::string& name) { return ctx.profile == name; }

void run_vector_add(Ctx& ctx, std::vector<Row>& rows) {
  const std::string group = "vector_add";
  const auto vs = va::variants(ctx);
  const bool profiling = !ctx.profile.empty();
  if (profiling && std::none_of(vs.begin(), vs.end(),
                                [&](const auto& v) { return is_profile_target(ctx, v.name); }))
    return;
  if (!profiling && !ctx.wants(group)) return;
  const size_t n = size_t{1} << 28;
  DevBuf<float> a(n), b(n), c(n + kGuardBytes / sizeof(float));
  fill_f32_kernel<<<ctx.sms * 8, 256, 0, ctx.stream>>>(a.p, n, va::kSeedA);
  CUDA_CHECK_LAUNCH();
  fill_f32_kernel<<<ctx.sms * 8, 256, 0, ctx.stream>>>(b.p, n, va::kSeedB);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  if (profiling) {
    for (const auto& v : vs)
      if (is_profile_target(ctx, v.name)) {
        ctx.flush();
        v.launch(a.p, b.p, c.p, n, ctx.stream);
        CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      }
    return;
  }
  std::printf("\n== vector_add float32 c = a + b, n = %zu (12 B/element) ==\n", n);
  // The benchmark size first: CCCL caches Thrust's tile size on its first call, and for a small n
  // that call returns the smallest tile covering n (dispatch_transform.cuh, determine_element_
  // counts; 1 item a thread at n = 5), which is then used at every size (1.5x slower). Then sizes
  // that are not multiples of 4, of any tile or chunk. Every size uses a prefix of a and b (the
  // inputs depend on the index only).
  const size_t sizes[] = {n, 5, 77, 1000003, (size_t{1} << 22) + 13};
  for (const auto& v : vs) {
    Row r;
    r.group = group;
    r.variant = v.name;
    r.kernel = v.kernel;
    r.config = v.config;
    r.role = v.role;
    r.work = 12.0 * double(n);
    r.validated = true;
    for (size_t m : sizes) {
      CUDA_CHECK(cudaMemsetAsync(c.p, 0xFF, c.bytes(), ctx.stream));  // NaN everywhere
      v.launch(a.p, b.p, c.p, m, ctx.stream);
      CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      const size_t guard = std::min(kGuardBytes, c.bytes() - m * sizeof(float));
      const float* got = ctx.download(c.p, m + guard / sizeof(float));
      const Check k = check_all(m, [&](size_t i, Check& ck) {
        exact(got[i], double(va::rand_pm1_sum(i)), ck);
      });
      const size_t gbad =
          guard_bad(reinterpret_cast<const unsigned char*>(got), m * sizeof(float), guard);
      if (m == n) r.max_err = k.max_abs;
      if (k.bad || gbad) {
        r.valid = false;
        r.note += "n=" + std::to_string(m) + ": " + std::to_string(k.bad) + " wrong, " +
                  std::to_string(gbad) + " guard bytes written; ";
      }
    }
    if (r.valid) r.t = time_cold(ctx, [&] { v.launch(a.p, b.p, c.p, n, ctx.stream); });
    print_row_line(r);
    rows.push_back(r);
  }
}

void run_transpose(Ctx& ctx, std::vector<Row>& rows) {
  const std::string group = "transpose";
  const auto vs = tp::variants();
  const bool profiling = !ctx.profile.empty();
  if (profiling && std::none_of(vs.begin(), vs.end(),
                                [&](const auto& v) { return is_profile_target(ctx, v.name); }))
    return;
  if (!profiling && !ctx.wants(group)) return;
  const size_t R = 8192, C = 8192, n = R * C;
  DevBuf<float> in(n), out(n + kGuardBytes / sizeof(float));
  fill_f32_kernel<<<ctx.sms * 8, 256, 0, ctx.stream>>>(in.p, n, tp::kSeed);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  if (profiling) {
    for (const auto& v : vs)
      if (is_profile_target(ctx, v.name)) {
        ctx.flush();
        v.launch(in.p, out.p, R, C, ctx.stream);
        CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      }
    return;
  }
  std::printf("\n== transpose float32 %zu x %zu out-of-place (8 B/element) ==\n", R, C);
  // (rows, cols): partial tiles with float4-aligned rows, then odd sizes (scalar path everywhere),
  // thin shapes, then the benchmark size. in[i] = rand(seed, i) for the linear index i, so any
  // shape uses a prefix of the same input.
  const size_t shapes[][2] = {{1000, 1036}, {999, 1037}, {4, 8200}, {70, 3}, {R, C}};
  for (const auto& v : vs) {
    const bool is_copy = v.role == Role::reference;
    Row r;
    r.group = group;
    r.variant = v.name;
    r.kernel = v.kernel;
    r.config = v.config;
    r.role = v.role;
    r.work = 8.0 * double(n);
    r.validated = true;
    for (const auto& sh : shapes) {
      const size_t rr = sh[0], cc = sh[1], m = rr * cc;
      CUDA_CHECK(cudaMemsetAsync(out.p, 0xFF, out.bytes(), ctx.stream));
      v.launch(in.p, out.p, rr, cc, ctx.stream);
      CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      const size_t guard = std::min(kGuardBytes, out.bytes() - m * sizeof(float));
      const float* got = ctx.download(out.p, m + guard / sizeof(float));
      // got is cols x rows: got[oc * rows + r] = in[r * cols + oc] (the copy: got[i] = in[i]).
      const Check k = check_all(m, [&](size_t i, Check& ck) {
        const size_t src = is_copy ? i : (i % rr) * cc + i / rr;
        exact(got[i], double(rand_pm1(tp::kSeed, src)), ck);
      });
      const size_t gbad =
          guard_bad(reinterpret_cast<const unsigned char*>(got), m * sizeof(float), guard);
      if (m == n) r.max_err = k.max_abs;
      if (k.bad || gbad) {
        r.valid = false;
        r.note += std::to_string(rr) + "x" + std::to_string(cc) + ": " + std::to_string(k.bad) +
                  " wrong, " + std::to_string(gbad) + " guard bytes written; ";
      }
    }
    if (r.valid) r.t = time_cold(ctx, [&] { v.launch(in.p, out.p, R, C, ctx.stream); });
    print_row_line(r);
    rows.push_back(r);
  }
}

// Validates fp16 outputs against the float reference with the suite's fma_tolerance<f16>():
// |got - ref| / max(|ref|, 4) <= 1e-2; also counts bits that differ from the suite kernel's output.
void run_fma_fp16(Ctx& ctx, std::vector<Row>& rows) {
  const std::string group = "fma_fp16";
  const auto vs = fm::fp16_variants();
  const bool profiling = !ctx.profile.empty();
  const bool roof_target = ctx.profile == "fp16_roof";
  if (profiling && !roof_target &&
      std::none_of(vs.begin(), vs.end(), [&](const auto& v) { return is_profile_target(ctx, v.name); }))
    return;
  if (!profiling && !ctx.wants(group)) return;
  const size_t n = fm::kN;
  constexpr uint64_t kSeed = 0x5eed1601;
  DevBuf<__half> x(n), out(n + kGuardBytes / sizeof(__half));
  DevBuf<__half2> roof_out(size_t(ctx.sms) * 32 * 256);
  fill_f16_kernel<<<ctx.sms * 8, 256, 0, ctx.stream>>>(x.p, n, kSeed);
  CUDA_CHECK_LAUNCH();
  fm::Roof<__half2> roof{__float2half2_rn(0.99f), __float2half2_rn(0.01f), 4.0};
  roof.grid = static_cast<unsigned>(ctx.sms * 32);
  roof.out = roof_out.p;
  CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  if (profiling) {
    ctx.flush();
    if (roof_target) {
      roof.launch(ctx.stream);
    } else {
      for (const auto& v : vs)
        if (is_profile_target(ctx, v.name)) v.launch(x.p, out.p, n, ctx.stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    return;
  }
  std::printf("\n== dtypes fma fp16 (half2), n = %zu, k = %d, 4 chains/element "
              "(%.3g GFLOP: 2 per FMA) ==\n", n, fm::kK, 2.0 * fm::kChains * fm::kK * n / 1e9);
  // Reference from the device's own inputs: float chains, rounded to half once (cpu/dtypes.cpp).
  std::vector<float> xf(n), ref(n);
  {
    const __half* hx = ctx.download(x.p, n);
    for (size_t i = 0; i < n; ++i) xf[i] = __half2float(hx[i]);
  }
  fm::ref_chains_f32(xf.data(), ref.data(), n, fm::kK);
  for (size_t i = 0; i < n; ++i) ref[i] = __half2float(__float2half_rn(ref[i]));

  // The roof: the reference rate.
  {
    roof.launch(ctx.stream);  // probe, as the suite: size the launch to ~10 ms
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    CUDA_CHECK(cudaEventRecord(ctx.e0, ctx.stream));
    roof.launch(ctx.stream);
    CUDA_CHECK(cudaEventRecord(ctx.e1, ctx.stream));
    CUDA_CHECK(cudaEventSynchronize(ctx.e1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ctx.e0, ctx.e1));
    roof.iters = static_cast<int>(std::clamp(roof.iters * 10.0 / std::max(1e-3f, ms), 1024.0, 1e7));
    Row r;
    r.group = group;
    r.variant = "fp16_roof";
    r.kernel = "roof_kernel";
    r.config = "ceilings.cu: 8 chains, " + std::to_string(roof.iters) + " iters, ~10 ms";
    r.role = Role::reference;
    r.unit = "TFLOP/s";
    r.unit_scale = 1e12;
    r.work = roof.ops();
    r.t = time_cold(ctx, [&] { roof.launch(ctx.stream); });
    print_row_line(r);
    rows.push_back(r);
  }
  std::vector<std::uint16_t> base_bits;
  const size_t sizes[] = {1, 100003, n};  // odd sizes: the tails; then the benchmark size
  for (const auto& v : vs) {
    Row r;
    r.group = group;
    r.variant = v.name;
    r.kernel = v.kernel;
    r.config = v.config;
    r.role = v.role;
    r.unit = "TFLOP/s";
    r.unit_scale = 1e12;
    r.work = 2.0 * fm::kChains * fm::kK * double(n);
    r.validated = true;
    for (size_t m : sizes) {
      CUDA_CHECK(cudaMemsetAsync(out.p, 0xFF, out.bytes(), ctx.stream));
      v.launch(x.p, out.p, m, ctx.stream);
      CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      const size_t guard = std::min(kGuardBytes, out.bytes() - m * sizeof(__half));
      const __half* got = ctx.download(out.p, m + guard / sizeof(__half));
      const Check k = check_all(m, [&](size_t i, Check& ck) {
        within(__half2float(got[i]), ref[i], 1e-2, 4.0, ck);
      });
      const size_t gbad =
          guard_bad(reinterpret_cast<const unsigned char*>(got), m * sizeof(__half), guard);
      if (m == n) {
        r.max_err = k.max_rel;
        std::vector<std::uint16_t> bits(n);
        std::memcpy(bits.data(), got, n * sizeof(std::uint16_t));
        if (v.role == Role::baseline) {
          base_bits = std::move(bits);
        } else if (!base_bits.empty()) {
          size_t diff = 0;
          for (size_t i = 0; i < n; ++i) diff += bits[i] != base_bits[i];
          r.note += diff == 0 ? "bit-identical to baseline; "
                              : std::to_string(diff) + " outputs differ from baseline; ";
        }
      }
      if (k.bad || gbad) {
        r.valid = false;
        r.note += "n=" + std::to_string(m) + ": " + std::to_string(k.bad) + " over tolerance, " +
                  std::to_string(gbad) + " guard bytes written; ";
      }
    }
    if (r.valid) r.t = time_cold(ctx, [&] { v.launch(x.p, out.p, n, ctx.stream); });
    print_row_line(r);
    rows.push_back(r);
  }
}

// fp32 and int8: the suite's kernel against its roof, for reference only.
void run_fma_ref_rows(Ctx& ctx, std::vector<Row>& rows) {
  const size_t n = fm::kN;
  const int block = 64;  // the suite's best block for both (results/nvidia-h200/2026-12-01)
  if (ctx.wants("fma_fp32")) {
    const std::string group = "fma_fp32";
    std::printf("\n== dtypes fma fp32 (reference row), n = %zu, k = %d ==\n", n, fm::kK);
    DevBuf<float> x(n), out(n);
    DevBuf<float> roof_out(size_t(ctx.sms) * 32 * 256);
    fill_f32_kernel<<<ctx.sms * 8, 256, 0, ctx.stream>>>(x.p, n, 0x5eed3201);
    CUDA_CHECK_LAUNCH();
    std::vector<float> xf(n), ref(n);
    std::memcpy(xf.data(), ctx.download(x.p, n), n * sizeof(float));
    fm::ref_chains_f32(xf.data(), ref.data(), n, fm::kK);
    fm::Roof<float> roof{0.999f, 0.001f, 2.0};
    roof.grid = static_cast<unsigned>(ctx.sms * 32);
    roof.out = roof_out.p;
    roof.launch(ctx.stream);
    CUDA_CHECK(cudaEventRecord(ctx.e0, ctx.stream));
    roof.launch(ctx.stream);
    CUDA_CHECK(cudaEventRecord(ctx.e1, ctx.stream));
    CUDA_CHECK(cudaEventSynchronize(ctx.e1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ctx.e0, ctx.e1));
    roof.iters = static_cast<int>(std::clamp(roof.iters * 10.0 / std::max(1e-3f, ms), 1024.0, 1e7));
    Row rr;
    rr.group = group;
    rr.variant = "fp32_roof";
    rr.kernel = "roof_kernel";
    rr.config = "ceilings.cu: 8 chains, ~10 ms";
    rr.role = Role::reference;
    rr.unit = "TFLOP/s";
    rr.unit_scale = 1e12;
    rr.work = roof.ops();
    rr.t = time_cold(ctx, [&] { roof.launch(ctx.stream); });
    print_row_line(rr);
    rows.push_back(rr);
    Row r;
    r.group = group;
    r.variant = "fp32_suite_b64";
    r.kernel = "fp32_suite_kernel";
    r.config = "suite: 1 float/thread, 4 chains, block 64";
    r.role = Role::baseline;
    r.unit = "TFLOP/s";
    r.unit_scale = 1e12;
    r.work = 2.0 * fm::kChains * fm::kK * double(n);
    r.validated = true;
    auto launch = [&] {
      fm::fp32_suite_kernel<<<fm::blocks_for(n, block), block, 0, ctx.stream>>>(x.p, out.p, n,
                                                                                fm::kA, fm::kK);
      CUDA_CHECK_LAUNCH();
    };
    CUDA_CHECK(cudaMemsetAsync(out.p, 0xFF, out.bytes(), ctx.stream));
    launch();
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    const float* got = ctx.download(out.p, n);
    const Check k = check_all(n, [&](size_t i, Check& ck) { within(got[i], ref[i], 1e-5, 1e-3, ck); });
    r.max_err = k.max_rel;
    r.valid = k.bad == 0;
    if (!r.valid) r.note = std::to_string(k.bad) + " over tolerance";
    if (r.valid) r.t = time_cold(ctx, launch);
    print_row_line(r);
    rows.push_back(r);
  }
  if (ctx.wants("fma_int8")) {
    const std::string group = "fma_int8";
    std::printf("\n== dtypes fma int8 dp4a (reference row), n = %zu, k = %d ==\n", n, fm::kK);
    const size_t words = (n + 3) / 4;
    DevBuf<std::int8_t> x(n);
    DevBuf<std::int32_t> out(words);
    DevBuf<int> roof_out(size_t(ctx.sms) * 32 * 256);
    fill_i8_kernel<<<ctx.sms * 8, 256, 0, ctx.stream>>>(x.p, n, 0x5eed0801);
    CUDA_CHECK_LAUNCH();
    std::vector<std::int8_t> xh(n);
    std::vector<std::int32_t> ref(words);
    std::memcpy(xh.data(), ctx.download(x.p, n), n);
    fm::ref_int8(xh.data(), n, ref.data(), fm::kK);
    fm::Roof<int> roof{0x01010101, 0x01010101, 8.0};
    roof.grid = static_cast<unsigned>(ctx.sms * 32);
    roof.out = roof_out.p;
    roof.launch(ctx.stream);
    CUDA_CHECK(cudaEventRecord(ctx.e0, ctx.stream));
    roof.launch(ctx.stream);
    CUDA_CHECK(cudaEventRecord(ctx.e1, ctx.stream));
    CUDA_CHECK(cudaEventSynchronize(ctx.e1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ctx.e0, ctx.e1));
    roof.iters = static_cast<int>(std::clamp(roof.iters * 10.0 / std::max(1e-3f, ms), 1024.0, 1e7));
    Row rr;
    rr.group = group;
    rr.variant = "int8_roof";
    rr.kernel = "roof_kernel";
    rr.config = "ceilings.cu: 8 chains, ~10 ms";
    rr.role = Role::reference;
    rr.unit = "TOP/s";
    rr.unit_scale = 1e12;
    rr.work = roof.ops();
    rr.t = time_cold(ctx, [&] { roof.launch(ctx.stream); });
    print_row_line(rr);
    rows.push_back(rr);
    Row r;
    r.group = group;
    r.variant = "int8_suite_b64";
    r.kernel = "int8_suite_kernel";
    r.config = "suite: 1 word/thread, 4 dp4a chains, block 64";
    r.role = Role::baseline;
    r.unit = "TOP/s";
    r.unit_scale = 1e12;
    r.work = 8.0 * fm::kChains * fm::kK * double(words);
    r.validated = true;
    auto launch = [&] {
      fm::int8_suite_kernel<<<fm::blocks_for(words, block), block, 0, ctx.stream>>>(x.p, out.p, n,
                                                                                   fm::kK);
      CUDA_CHECK_LAUNCH();
    };
    CUDA_CHECK(cudaMemsetAsync(out.p, 0x7F, out.bytes(), ctx.stream));
    launch();
    CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    const std::int32_t* got = ctx.download(out.p, words);
    const Check k = check_all(words, [&](size_t i, Check& ck) { exact(got[i], ref[i], ck); });
    r.max_err = k.max_abs;
    r.valid = k.bad == 0;
    if (!r.valid) r.note = std::to_string(k.bad) + " wrong";
    if (r.valid) r.t = time_cold(ctx, launch);
    print_row_line(r);
    rows.push_back(r);
  }
}

void print_table(const std::vector<Row>& rows) {
  std::printf("\n== summary: rate_med at the median time, rate_best at the min; %%ref and %%base: "
              "rate_med / the group's reference's and baseline's rate_med ==\n");
  std::printf("%-10s %-18s %-4s %10s %10s %10s %10s %-7s %6s %6s %10s %-6s %s\n", "group",
              "variant", "role", "median_us", "min_us", "rate_med", "rate_best", "unit", "%ref",
              "%base", "max_err", "valid", "config");
  for (const auto& r : rows) {
    double ref_rate = 0, base_rate = 0;
    for (const auto& o : rows) {
      if (o.group != r.group) continue;
      if (o.role == Role::reference) ref_rate = o.rate();
      if (o.role == Role::baseline) base_rate = o.rate();
    }
    std::printf("%-10s %-18s %-4s %10.2f %10.2f %10.1f %10.1f %-7s %6.1f %6.1f %10.3g %-6s %s\n",
                r.group.c_str(), r.variant.c_str(), role_name(r.role), r.t.median_ms * 1e3,
                r.t.min_ms * 1e3, r.rate(), r.best_rate(), r.unit,
                ref_rate > 0 ? 100.0 * r.rate() / ref_rate : 0.0,
                base_rate > 0 ? 100.0 * r.rate() / base_rate : 0.0, r.max_err,
                !r.validated ? "n/a" : r.valid ? "ok" : "FAILED", r.config.c_str());
  }
  // The fastest valid non-reference variant per group, and the baseline: run.sh profiles these.
  for (const char* g : {"transpose", "fma_fp16", "vector_add"}) {
    const Row* best = nullptr;
    const Row* base = nullptr;
    for (const auto& r : rows) {
      if (r.group != g || r.role == Role::reference || !r.valid || r.t.median_ms <= 0) continue;
      if (r.role == Role::baseline) base = &r;
      if (!best || r.t.median_ms < best->t.median_ms) best = &r;
    }
    if (base)
      std::printf("PROFILE_TARGET %s baseline %s %s\n", g, base->variant.c_str(), base->kernel.c_str());
    if (best)
      std::printf("PROFILE_TARGET %s best %s %s\n", g, best->variant.c_str(), best->kernel.c_str());
  }
}

void list_variants(const Ctx& ctx) {
  for (const auto& v : va::variants(ctx))
    std::printf("vector_add %-18s %-5s %-20s %s\n", v.name.c_str(), role_name(v.role),
                v.kernel.c_str(), v.config.c_str());
  for (const auto& v : tp::variants())
    std::printf("transpose  %-18s %-5s %-20s %s\n", v.name.c_str(), role_name(v.role),
                v.kernel.c_str(), v.config.c_str());
  std::printf("fma_fp16   %-18s %-5s %-20s %s\n", "fp16_roof", "ref", "roof_kernel",
              "gpu/ceilings.cu roof");
  for (const auto& v : fm::fp16_variants())
    std::printf("fma_fp16   %-18s %-5s %-20s %s\n", v.name.c_str(), role_name(v.role),
                v.kernel.c_str(), v.config.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Ctx ctx;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--profile" && i + 1 < argc)
      ctx.profile = argv[++i];
    else if (a == "--samples" && i + 1 < argc)
      ctx.samples = std::max(1, std::atoi(argv[++i]));
    else if (a == "--only" && i + 1 < argc)
      ctx.only = argv[++i];
    else if (a == "--list")
      list = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--samples N] [--only GROUP] [--list] [--profile VARIANT]\n"
                   "groups: vector_add transpose fma_fp16 fma_fp32 fma_int8\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    if (list) {
      list_variants(ctx);
      return 0;
    }
    CUDA_CHECK(cudaSetDevice(0));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    ctx.sms = prop.multiProcessorCount;
    CUDA_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&ctx.e0));
    CUDA_CHECK(cudaEventCreate(&ctx.e1));
    ctx.flush_n = (size_t{120} << 20) / sizeof(uint4);
    CUDA_CHECK(cudaMalloc(&ctx.flush_words, ctx.flush_n * sizeof(uint4)));
    CUDA_CHECK(cudaMemset(ctx.flush_words, 0, ctx.flush_n * sizeof(uint4)));
    CUDA_CHECK(cudaMalloc(&ctx.flush_sink, sizeof(unsigned)));
    if (ctx.profile.empty()) {
      std::printf("device: %s, %d SMs, cc %d.%d, L2 %d MiB, %.1f GiB; cold L2 (120 MiB read), "
                  "%d samples, CUDA events around one launch\n",
                  prop.name, ctx.sms, prop.major, prop.minor, prop.l2CacheSize >> 20,
                  prop.totalGlobalMem / double(1 << 30), ctx.samples);
      ctx.host_bytes = (size_t{1} << 30) + kGuardBytes;
      CUDA_CHECK(cudaMallocHost(&ctx.host, ctx.host_bytes));
    }
    std::vector<Row> rows;
    run_vector_add(ctx, rows);
    run_transpose(ctx, rows);
    run_fma_fp16(ctx, rows);
    if (ctx.profile.empty()) {
      run_fma_ref_rows(ctx, rows);
      print_table(rows);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    bool ok = true;
    for (const auto& r : rows) ok = ok && r.valid;
    if (ctx.host) cudaFreeHost(ctx.host);
    cudaFree(ctx.flush_words);
    cudaFree(ctx.flush_sink);
    if (!ok) std::printf("\nVALIDATION FAILED for at least one variant (see above)\n");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
