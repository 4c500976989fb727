#pragma once
// Launchers for black_scholes (host-callable; kernels live in black_scholes.cu).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// The market every option is priced in (the bench passes black_scholes::kRiskFree and
// kVolatility; the .cu cannot include the C++20 CPU header).
struct BlackScholesMarket {
  float risk_free;
  float volatility;
};

// Grid-stride over float4 groups of options (three 16-byte streaming loads and two 16-byte
// streaming stores per thread and step), a grid that fills the GPU once, cheap intrinsics where
// they are accurate enough and a polynomial normal CDF (Abramowitz & Stegun 26.2.17) instead of
// erfcf, so the math stays under the memory time. Falls back to one option per thread, scalar,
// for pointers not 16-byte aligned.
void black_scholes_cuda(const float* spot, const float* strike, const float* years, float* call,
                        float* put, std::size_t n, BlackScholesMarket market, int block,
                        cudaStream_t stream);
KernelStats black_scholes_cuda_stats(std::size_t n, int block);

// The same kernel with the library's erfcf for the normal CDF: the cost of the accurate CDF.
void black_scholes_cuda_erfc(const float* spot, const float* strike, const float* years,
                             float* call, float* put, std::size_t n, BlackScholesMarket market,
                             int block, cudaStream_t stream);
KernelStats black_scholes_cuda_erfc_stats(std::size_t n, int block);

// One option per thread, scalar loads, as many blocks as it takes, erfcf CDF (the textbook
// kernel).
void black_scholes_cuda_naive(const float* spot, const float* strike, const float* years,
                              float* call, float* put, std::size_t n, BlackScholesMarket market,
                              int block, cudaStream_t stream);
KernelStats black_scholes_cuda_naive_stats(std::size_t n, int block);

}  // namespace tb::gpu
