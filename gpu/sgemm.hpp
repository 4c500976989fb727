#pragma once
// Launchers for sgemm (host-callable; kernels live in sgemm.cu). All matrices are n x n,
// row-major, float32, on the device; every launcher only enqueues work on `stream`.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/progress.hpp"
#include "common/workload.hpp"
#include "gpu/kernel_stats.hpp"

struct cublasContext;  // cublasHandle_t is cublasContext*; kept opaque so g++ needs no cuBLAS

namespace tb::gpu {

// One thread per element of C (block.x along columns, block.y along rows), operands straight
// from global memory: the article's first kernel.
void sgemm_cuda_naive(const float* a, const float* b, float* c, std::size_t n, Block2 block,
                      cudaStream_t stream);
KernelStats sgemm_cuda_naive_stats(std::size_t n, Block2 block);

// T x T tiles of A and B staged in shared memory, one element of C per thread. The block must be
// square with T in {8, 16, 32}; sgemm_cuda_tiled_supported says whether it is.
bool sgemm_cuda_tiled_supported(Block2 block);
void sgemm_cuda_tiled(const float* a, const float* b, float* c, std::size_t n, Block2 block,
                      cudaStream_t stream);
KernelStats sgemm_cuda_tiled_stats(std::size_t n, Block2 block);

// 128 x 128 tiles of C per block of 256 threads, 8 x 8 outputs per thread held in registers,
// plain FP32 FFMA. One of three kernels runs (gpu/sgemm.cu says what each is and what it
// measured on the H200): with n % 4 == 0 and 16-byte-aligned operands, split_k (k split over
// the 2 blocks of a thread-block cluster) while the tiles are fewer than the SMs and two_stage
// (a cp.async pipeline) above; otherwise fallback (the suite's earlier kernel, scalar loads).
// The block size is fixed by the tiling.
constexpr int kSgemmOptimizedThreads = 256;
enum class SgemmOptimizedKernel { split_k, two_stage, fallback };
void sgemm_cuda_optimized(const float* a, const float* b, float* c, std::size_t n,
                          cudaStream_t stream);
// The kernel sgemm_cuda_optimized launches at n for 16-byte-aligned operands (as cudaMalloc
// returns), and its figures. The first call on a device sets the kernels up.
SgemmOptimizedKernel sgemm_cuda_optimized_kernel(std::size_t n);
KernelStats sgemm_cuda_optimized_stats(std::size_t n);
// sgemm_cuda_optimized counting its finished 128 x 128 tiles of C into `slots` (common/progress.hpp
// SlotsRef: one slot a tile; the launch zeroes them first, in stream order), so that the host
// can watch the product advance. One plain store a block, after its tile is stored; the same
// kernels otherwise. The slots then sum to exactly sgemm_optimized_tiles(n). Needs what the
// pipelined kernels need (n % 4 == 0, 16-byte-aligned operands: throws otherwise) and
// slots.count >= the tiles.
std::size_t sgemm_optimized_tiles(std::size_t n);
void sgemm_cuda_optimized_counted(const float* a, const float* b, float* c, std::size_t n,
                                  const tb::progress::SlotsRef& slots, cudaStream_t stream);
// Empty when split_k can run here; else why not (it needs thread-block clusters: an sm_90 GPU
// and sm_90 code for the kernel, which a compute_80 PTX build JIT-compiled on an H200 lacks).
// The choice of kernel reads it, so sizes that would take split_k take two_stage instead.
std::string sgemm_split_k_missing();

// Rounds `count` floats to BF16 (nearest even, as to_bf16 in cpu/sgemm.hpp), writing their 16-bit
// patterns: the inputs of the cublas_bf16 rows, made on the device.
void round_to_bf16(const float* in, std::uint16_t* out, std::size_t count, cudaStream_t stream);

// Empty when cuBLAS could be loaded (it is opened at run time, so the binary does not need it
// to start); otherwise why not.
const std::string& cublas_unavailable_reason();

// A cuBLAS handle bound to one stream, created once outside any timed region. `tf32` selects
// CUBLAS_TF32_TENSOR_OP_MATH (tensor cores, 10-bit mantissa inputs); otherwise
// CUBLAS_DEFAULT_MATH, which for cublasSgemm computes in full FP32 on the CUDA cores.
class CublasSgemm {
 public:
  CublasSgemm(cudaStream_t stream, bool tf32);
  CublasSgemm(CublasSgemm&& o) noexcept;
  CublasSgemm& operator=(CublasSgemm&& o) noexcept;
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;
  ~CublasSgemm();

  void run(const float* a, const float* b, float* c, std::size_t n) const;
  // Rows of the product: C (rows x n) = A (rows x n) * B (n x n), all row-major (a share of
  // C = A B split by rows, as the scaling workload gives each GPU).
  void run_rows(const float* a, const float* b, float* c, std::size_t rows, std::size_t n) const;
  // C = A * B with BF16 inputs (16-bit patterns) and FP32 accumulation and output
  // (cublasGemmEx, CUBLAS_COMPUTE_32F): the tensor cores' BF16 path, whatever `tf32` was.
  void run_bf16(const std::uint16_t* a, const std::uint16_t* b, float* c, std::size_t n) const;

 private:
  void release() noexcept;
  cublasContext* handle_ = nullptr;
};

}  // namespace tb::gpu
