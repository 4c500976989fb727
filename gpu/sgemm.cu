#include <cublas_v2.h>
#include <dlfcn.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"
#include "gpu/kernel_stats.cuh"
#include "gpu/sgemm.hpp"

namespace tb::gpu {
namespace {

// ---- naive ------------------------------------------------------------------------------

// Consecutive threads take consecutive columns: the loads of B and the store of C coalesce,
// the load of A is one broadcast per warp.
__global__ void sgemm_naive_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int n) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  const float* a_row = a + static_cast<std::size_t>(row) * n;
  float sum = 0.f;
  for (int k = 0; k < n; ++k) sum = fmaf(a_row[k], b[static_cast<std::size_t>(k) * n + col], sum);
  c[static_cast<std::size_t>(row) * n + col] = sum;
}

// ---- tiled ------------------------------------------------------------------------------

// Each block stages a T x T tile of A and of B per step of k; every element loaded from global
// memory is then used T times from shared memory. Out-of-range elements load as 0, which adds
// exact zeros to the sums, so any n works.
template <int T>
__global__ void __launch_bounds__(T* T)
    sgemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                       float* __restrict__ c, int n) {
  __shared__ float as[T][T];
  __shared__ float bs[T][T];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;
  const int col = blockIdx.x * T + tx;
  float sum = 0.f;
  for (int k0 = 0; k0 < n; k0 += T) {
    const int ka = k0 + tx;
    const int kb = k0 + ty;
    as[ty][tx] = (row < n && ka < n) ? a[static_cast<std::size_t>(row) * n + ka] : 0.f;
    bs[ty][tx] = (kb < n && col < n) ? b[static_cast<std::size_t>(kb) * n + col] : 0.f;
    __syncthreads();
    // as[ty][k] is a broadcast within a row of threads; bs[k][tx] walks consecutive banks.
#pragma unroll
    for (int k = 0; k < T; ++k) sum = fmaf(as[ty][k], bs[k][tx], sum);
    __syncthreads();  // the next step overwrites the tiles
  }
  if (row < n && col < n) c[static_cast<std::size_t>(row) * n + col] = sum;
}

// ---- optimized (register tiling) ---------------------------------------------------------

namespace opt {
constexpr int kBm = 128;  // rows of C per block
constexpr int kBn = 128;  // columns of C per block
constexpr int kBk = 8;    // depth of one shared-memory stage
constexpr int kTm = 8;    // rows of C per thread
constexpr int kTn = 8;    // columns of C per thread (two groups of 4, 64 columns apart)
constexpr int kThreads = (kBm / kTm) * (kBn / kTn);
static_assert(kThreads == kSgemmOptimizedThreads);
// A is stored transposed (k-major) so a thread reads its 8 rows as two float4s; 4 floats of
// padding per k-row make the transposing stores conflict-free (threads that share a row of A
// and differ in k land 16 banks apart) while keeping every row 16-byte aligned.
constexpr int kPadA = 4;
// Each thread loads exactly one float4 of A and one of B per stage.
static_assert(kBm * kBk / 4 == kThreads && kBk * kBn / 4 == kThreads);
}  // namespace opt

// m[row][col .. col+3] of an n x n row-major matrix, zeros outside it. kVec: n % 4 == 0, the
// base is 16-byte aligned and col % 4 == 0, so a float4 is either wholly inside or wholly out.
template <bool kVec>
__device__ __forceinline__ float4 load_row4(const float* __restrict__ m, int n, int row, int col) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (row >= n) return v;
  const float* p = m + static_cast<std::size_t>(row) * n;
  if constexpr (kVec) {
    if (col < n) v = __ldg(reinterpret_cast<const float4*>(p + col));
  } else {
    if (col < n) v.x = __ldg(p + col);
    if (col + 1 < n) v.y = __ldg(p + col + 1);
    if (col + 2 < n) v.z = __ldg(p + col + 2);
    if (col + 3 < n) v.w = __ldg(p + col + 3);
  }
  return v;
}

template <bool kVec>
__device__ __forceinline__ void store_row4(float* __restrict__ m, int n, int row, int col,
                                           float4 v) {
  if (row >= n) return;
  float* p = m + static_cast<std::size_t>(row) * n;
  if constexpr (kVec) {
    if (col < n) *reinterpret_cast<float4*>(p + col) = v;
  } else {
    if (col < n) p[col] = v.x;
    if (col + 1 < n) p[col + 1] = v.y;
    if (col + 2 < n) p[col + 2] = v.z;
    if (col + 3 < n) p[col + 3] = v.w;
  }
}

// Thread (tx, ty) of the 16 x 16 grid owns rows ty*8 .. ty*8+7 of the block's C tile and
// columns tx*4 .. tx*4+3 and 64+tx*4 .. 64+tx*4+3: splitting the columns in two groups makes
// the float4 reads of B from shared memory conflict-free (8 consecutive threads read 128
// contiguous bytes). Per k: 2 + 2 float4 shared loads feed 64 FMAs.
// Double buffering: while stage t is multiplied out of shared memory, stage t+1 is already on
// its way from global memory into registers, and is stored to the other buffer afterwards, so
// one barrier per stage suffices (see the loop).
template <bool kVec>
__global__ void __launch_bounds__(opt::kThreads, 2)
    sgemm_optimized_kernel(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, int n) {
  using namespace opt;
  __shared__ __align__(16) float as[2][kBk][kBm + kPadA];
  __shared__ __align__(16) float bs[2][kBk][kBn];

  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % (kBn / kTn);
  const int ty = tid / (kBn / kTn);
  const int block_row = static_cast<int>(blockIdx.y) * kBm;
  const int block_col = static_cast<int>(blockIdx.x) * kBn;

  // This thread's float4 of the A stage (kBm x kBk) and of the B stage (kBk x kBn).
  const int a_row = tid / (kBk / 4);
  const int a_k = (tid % (kBk / 4)) * 4;
  const int b_k = tid / (kBn / 4);
  const int b_col = (tid % (kBn / 4)) * 4;

  auto store_stage = [&](int s, float4 va, float4 vb) {
    as[s][a_k + 0][a_row] = va.x;
    as[s][a_k + 1][a_row] = va.y;
    as[s][a_k + 2][a_row] = va.z;
    as[s][a_k + 3][a_row] = va.w;
    *reinterpret_cast<float4*>(&bs[s][b_k][b_col]) = vb;
  };

  float acc[kTm][kTn];
#pragma unroll
  for (int i = 0; i < kTm; ++i)
#pragma unroll
    for (int j = 0; j < kTn; ++j) acc[i][j] = 0.f;

  const int stages = (n + kBk - 1) / kBk;
  store_stage(0, load_row4<kVec>(a, n, block_row + a_row, a_k),
              load_row4<kVec>(b, n, b_k, block_col + b_col));
  __syncthreads();

  for (int t = 0; t < stages; ++t) {
    const int cur = t & 1;
    const bool has_next = t + 1 < stages;  // uniform across the block
    float4 next_a = make_float4(0.f, 0.f, 0.f, 0.f);
    float4 next_b = next_a;
    if (has_next) {
      const int k0 = (t + 1) * kBk;
      next_a = load_row4<kVec>(a, n, block_row + a_row, k0 + a_k);
      next_b = load_row4<kVec>(b, n, k0 + b_k, block_col + b_col);
    }
#pragma unroll
    for (int k = 0; k < kBk; ++k) {
      const float4 a0 = *reinterpret_cast<const float4*>(&as[cur][k][ty * kTm]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[cur][k][ty * kTm + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&bs[cur][k][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&bs[cur][k][kBn / 2 + tx * 4]);
      const float af[kTm] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bf[kTn] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < kTm; ++i)
#pragma unroll
        for (int j = 0; j < kTn; ++j) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
    }
    // Buffer cur^1 was last read in step t-1, which every thread finished before the barrier
    // that ended it; the barrier below publishes it before step t+1 reads it.
    if (has_next) store_stage(cur ^ 1, next_a, next_b);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kTm; ++i) {
    const int row = block_row + ty * kTm + i;
    store_row4<kVec>(c, n, row, block_col + tx * 4,
                     make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
    store_row4<kVec>(c, n, row, block_col + kBn / 2 + tx * 4,
                     make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
  }
}

// ---- helpers -----------------------------------------------------------------------------

int checked_n(std::size_t n) {
  // cuBLAS takes int dimensions, and the kernels index rows with int.
  if (n > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("sgemm: n exceeds INT_MAX");
  return static_cast<int>(n);
}

dim3 grid_2d(std::size_t n, int bx, int by) {
  const std::size_t gx = (n + bx - 1) / bx;
  const std::size_t gy = (n + by - 1) / by;
  if (gy > 65535 || gx > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("sgemm: grid too large for n = " + std::to_string(n));
  return dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

bool use_vec(const float* a, const float* b, const float* c, std::size_t n) {
  return n % 4 == 0 && aligned16(a) && aligned16(b) && aligned16(c);
}

template <int T>
void launch_tiled(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  sgemm_tiled_kernel<T><<<grid_2d(n, T, T), dim3(T, T), 0, stream>>>(a, b, c, checked_n(n));
  CUDA_CHECK_LAUNCH();
}

// cuBLAS is loaded at run time, not linked: the binary then starts on a machine without
// libcublas (the bundle carries only libbenchmark, and libcublasLt alone is ~500 MB), and only
// the cublas variants skip there, with the reason.
struct CublasApi {
  std::string error;  // empty when every entry point was found
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

template <class Fn>
bool find_symbol(void* lib, const char* name, Fn& fn, std::string& error) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!fn) error = std::string("cuBLAS has no ") + name;
  return fn != nullptr;
}

CublasApi load_cublas() {
  CublasApi api;
  // The major version the header was built against first; a later one keeps these entry points.
  const std::string own = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  void* lib = nullptr;
  std::string tried;
  for (const std::string& name :
       {own, "/usr/local/cuda/lib64/" + own, std::string("libcublas.so")}) {
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: handles outlive main
    if (lib) break;
    const char* why = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(why ? why : name);
  }
  if (!lib) {
    api.error = "cuBLAS not available: " + tried;
    return api;
  }
  (void)(find_symbol(lib, "cublasCreate_v2", api.create, api.error) &&
         find_symbol(lib, "cublasDestroy_v2", api.destroy, api.error) &&
         find_symbol(lib, "cublasSetStream_v2", api.set_stream, api.error) &&
         find_symbol(lib, "cublasSetMathMode", api.set_math_mode, api.error) &&
         find_symbol(lib, "cublasSgemm_v2", api.sgemm, api.error) &&
         find_symbol(lib, "cublasGetStatusString", api.status_string, api.error));
  return api;
}

const CublasApi& cublas_api() {
  static const CublasApi api = load_cublas();
  return api;
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS: ") + what + ": " +
                             cublas_api().status_string(status));
}

}  // namespace

void sgemm_cuda_naive(const float* a, const float* b, float* c, std::size_t n, Block2 block,
                      cudaStream_t stream) {
  if (n == 0) return;
  sgemm_naive_kernel<<<grid_2d(n, block.x, block.y), dim3(block.x, block.y), 0, stream>>>(
      a, b, c, checked_n(n));
  CUDA_CHECK_LAUNCH();
}

KernelStats sgemm_cuda_naive_stats(std::size_t n, Block2 block) {
  const dim3 g = grid_2d(n, block.x, block.y);
  return kernel_stats(sgemm_naive_kernel, block.threads(), static_cast<long long>(g.x) * g.y);
}

bool sgemm_cuda_tiled_supported(Block2 block) {
  return block.x == block.y && (block.x == 8 || block.x == 16 || block.x == 32);
}

void sgemm_cuda_tiled(const float* a, const float* b, float* c, std::size_t n, Block2 block,
                      cudaStream_t stream) {
  if (n == 0) return;
  if (!sgemm_cuda_tiled_supported(block))
    throw std::invalid_argument("sgemm_cuda_tiled: block must be 8x8, 16x16 or 32x32");
  switch (block.x) {
    case 8:
      launch_tiled<8>(a, b, c, n, stream);
      break;
    case 16:
      launch_tiled<16>(a, b, c, n, stream);
      break;
    default:
      launch_tiled<32>(a, b, c, n, stream);
      break;
  }
}

KernelStats sgemm_cuda_tiled_stats(std::size_t n, Block2 block) {
  const dim3 g = grid_2d(n, block.x, block.y);
  const long long blocks = static_cast<long long>(g.x) * g.y;
  switch (block.x) {
    case 8:
      return kernel_stats(sgemm_tiled_kernel<8>, 64, blocks);
    case 16:
      return kernel_stats(sgemm_tiled_kernel<16>, 256, blocks);
    default:
      return kernel_stats(sgemm_tiled_kernel<32>, 1024, blocks);
  }
}

void sgemm_cuda_optimized(const float* a, const float* b, float* c, std::size_t n,
                          cudaStream_t stream) {
  if (n == 0) return;
  const dim3 grid = grid_2d(n, opt::kBn, opt::kBm);
  if (use_vec(a, b, c, n)) {
    sgemm_optimized_kernel<true><<<grid, opt::kThreads, 0, stream>>>(a, b, c, checked_n(n));
  } else {
    sgemm_optimized_kernel<false><<<grid, opt::kThreads, 0, stream>>>(a, b, c, checked_n(n));
  }
  CUDA_CHECK_LAUNCH();
}

KernelStats sgemm_cuda_optimized_stats(std::size_t n) {
  const dim3 g = grid_2d(n, opt::kBn, opt::kBm);
  return kernel_stats(sgemm_optimized_kernel<true>, opt::kThreads,
                      static_cast<long long>(g.x) * g.y);
}

const std::string& cublas_unavailable_reason() { return cublas_api().error; }

CublasSgemm::CublasSgemm(cudaStream_t stream, bool tf32) {
  const CublasApi& api = cublas_api();
  if (!api.error.empty()) throw std::runtime_error(api.error);
  cublasHandle_t h = nullptr;
  check_cublas(api.create(&h), "cublasCreate");
  handle_ = h;
  try {
    check_cublas(api.set_stream(h, stream), "cublasSetStream");
    check_cublas(api.set_math_mode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
                 "cublasSetMathMode");
  } catch (...) {
    release();
    throw;
  }
}

CublasSgemm::CublasSgemm(CublasSgemm&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}

CublasSgemm& CublasSgemm::operator=(CublasSgemm&& o) noexcept {
  if (this != &o) {
    release();
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

CublasSgemm::~CublasSgemm() { release(); }

void CublasSgemm::release() noexcept {
  if (handle_) {
    const cublasStatus_t s = cublas_api().destroy(handle_);
    if (s != CUBLAS_STATUS_SUCCESS)
      std::fprintf(stderr, "cuBLAS: cublasDestroy: %s\n", cublas_api().status_string(s));
  }
  handle_ = nullptr;
}

void CublasSgemm::run(const float* a, const float* b, float* c, std::size_t n) const {
  if (n == 0) return;
  const int m = checked_n(n);
  const float alpha = 1.f;
  const float beta = 0.f;
  // cuBLAS is column-major: a row-major matrix is its transpose there, so the row-major
  // C = A * B is the column-major C^T = B^T * A^T, i.e. B passed first.
  check_cublas(cublas_api().sgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, b, m, a, m,
                                  &beta, c, m),
               "cublasSgemm");
}

}  // namespace tb::gpu
