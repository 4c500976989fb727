#pragma once
// Launchers for dtypes (host-callable; kernels live in dtypes.cu). fp16 data travel as their
// IEEE binary16 bit patterns (std::uint16_t), so this header needs neither <cuda_fp16.h> nor
// _Float16; the host side stores _Float16, which has the same bits.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

enum class DtypeId { fp64, fp32, fp16, int8 };

// Independent chains per element in the fma kernels (must equal tb::dtypes::kChains).
inline constexpr int kDtypesChains = 4;

// axpy, y = a*x + y, grid-stride with 16-byte loads and stores (2 doubles, 4 floats, 4 half2,
// 16 int8 per thread per step) so that every type issues the same number of memory
// instructions per byte; a scalar kernel does the n % (16 / sizeof) tail, or everything when
// a pointer is not 16-byte aligned. fp64 and fp32 use fma, fp16 __hfma2, int8 computes
// a*x + y in int32 and saturates to [-128, 127].
void dtypes_axpy_cuda(double a, const double* x, double* y, std::size_t n, int block,
                      cudaStream_t stream);
void dtypes_axpy_cuda(float a, const float* x, float* y, std::size_t n, int block,
                      cudaStream_t stream);
void dtypes_axpy_cuda(float a, const std::uint16_t* x_fp16, std::uint16_t* y_fp16, std::size_t n,
                      int block, cudaStream_t stream);
void dtypes_axpy_cuda(int a, const std::int8_t* x, std::int8_t* y, std::size_t n, int block,
                      cudaStream_t stream);
KernelStats dtypes_axpy_cuda_stats(DtypeId dtype, std::size_t n, int block);

// fma chains, one thread per element (fp16: per 8 elements, as four half2, for the
// instruction-level parallelism the two half2 pipes need, see dtypes.cu; the n % 8 last, or all
// when a pointer is not 16-byte aligned, one per thread; int8: per 4-byte word, dp4a).
// out[i] = sum over kDtypesChains chains of k steps of v = fma(v, a, x[i]), chain c starting at
// x[i] * (c + 1). int8: chain c runs v = dp4a(v, w, c + 1) from v = w ^ (c * 0x01010101) for the
// word w of 4 inputs (zero-padded past n), out[n/4 rounded up].
void dtypes_fma_cuda(double a, const double* x, double* out, std::size_t n, int k, int block,
                     cudaStream_t stream);
void dtypes_fma_cuda(float a, const float* x, float* out, std::size_t n, int k, int block,
                     cudaStream_t stream);
void dtypes_fma_cuda(float a, const std::uint16_t* x_fp16, std::uint16_t* out_fp16, std::size_t n,
                     int k, int block, cudaStream_t stream);
void dtypes_fma_cuda(int unused_a, const std::int8_t* x, std::int32_t* out, std::size_t n, int k,
                     int block, cudaStream_t stream);
KernelStats dtypes_fma_cuda_stats(DtypeId dtype, std::size_t n, int block);

}  // namespace tb::gpu
