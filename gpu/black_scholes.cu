#include <cstdint>

#include "common/cuda_check.hpp"
#include "gpu/black_scholes.hpp"
#include "gpu/black_scholes_kernel.cuh"
#include "gpu/kernel_stats.cuh"
#include "gpu/progress.cuh"

namespace tb::gpu {
namespace {

using black_scholes_detail::black_scholes_vec4_full_kernel;
using black_scholes_detail::black_scholes_vec4_kernel;
using black_scholes_detail::Coefficients;
using black_scholes_detail::coefficients;
using black_scholes_detail::ErfcCdf;
using black_scholes_detail::FastPrice;
using black_scholes_detail::kMaxBlock;
using black_scholes_detail::price;
using black_scholes_detail::vec4_grid;
using progress::None;

// The vec4 kernel that each CDF policy launches.
template <class Cdf>
constexpr auto vec4_kernel = black_scholes_vec4_kernel<Cdf, None>;
template <>
constexpr auto vec4_kernel<FastPrice> = black_scholes_vec4_full_kernel<FastPrice, None>;

template <class Cdf>
__global__ void __launch_bounds__(kMaxBlock)
    black_scholes_naive_kernel(const float* __restrict__ spot, const float* __restrict__ strike,
                               const float* __restrict__ years, float* __restrict__ call,
                               float* __restrict__ put, std::size_t n, Coefficients k) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) price<Cdf>(k, spot[i], strike[i], years[i], call[i], put[i]);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }


long long naive_grid(std::size_t n, int block) {
  return static_cast<long long>((n + block - 1) / block);
}

template <class Cdf>
void launch_naive(const float* spot, const float* strike, const float* years, float* call,
                  float* put, std::size_t n, BlackScholesMarket market, int block,
                  cudaStream_t stream) {
  if (n == 0) return;
  black_scholes_naive_kernel<Cdf>
      <<<static_cast<unsigned>(naive_grid(n, block)), block, 0, stream>>>(
          spot, strike, years, call, put, n, coefficients(market));
  CUDA_CHECK_LAUNCH();
}

// Unaligned pointers (a sub-range of a buffer) cannot take float4 loads: same math, scalar.
template <class Cdf>
void launch_vec4(const float* spot, const float* strike, const float* years, float* call,
                 float* put, std::size_t n, BlackScholesMarket market, int block,
                 cudaStream_t stream) {
  if (n == 0) return;
  if (!aligned16(spot) || !aligned16(strike) || !aligned16(years) || !aligned16(call) ||
      !aligned16(put)) {
    launch_naive<Cdf>(spot, strike, years, call, put, n, market, block, stream);
    return;
  }
  vec4_kernel<Cdf><<<static_cast<unsigned>(vec4_grid(n, block)), block, 0, stream>>>(
      reinterpret_cast<const float4*>(spot), reinterpret_cast<const float4*>(strike),
      reinterpret_cast<const float4*>(years), reinterpret_cast<float4*>(call),
      reinterpret_cast<float4*>(put), n, coefficients(market), None{});
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void black_scholes_cuda(const float* spot, const float* strike, const float* years, float* call,
                        float* put, std::size_t n, BlackScholesMarket market, int block,
                        cudaStream_t stream) {
  launch_vec4<FastPrice>(spot, strike, years, call, put, n, market, block, stream);
}

KernelStats black_scholes_cuda_stats(std::size_t n, int block) {
  return kernel_stats(vec4_kernel<FastPrice>, block, vec4_grid(n, block));
}

void black_scholes_cuda_erfc(const float* spot, const float* strike, const float* years,
                             float* call, float* put, std::size_t n, BlackScholesMarket market,
                             int block, cudaStream_t stream) {
  launch_vec4<ErfcCdf>(spot, strike, years, call, put, n, market, block, stream);
}

KernelStats black_scholes_cuda_erfc_stats(std::size_t n, int block) {
  return kernel_stats(black_scholes_vec4_kernel<ErfcCdf, None>, block,
                      vec4_grid(n, block));
}

void black_scholes_cuda_naive(const float* spot, const float* strike, const float* years,
                              float* call, float* put, std::size_t n, BlackScholesMarket market,
                              int block, cudaStream_t stream) {
  launch_naive<ErfcCdf>(spot, strike, years, call, put, n, market, block, stream);
}

KernelStats black_scholes_cuda_naive_stats(std::size_t n, int block) {
  return kernel_stats(black_scholes_naive_kernel<ErfcCdf>, block, naive_grid(n, block));
}

}  // namespace tb::gpu
