#include "cpu/dtypes.hpp"

#include <algorithm>
#include <type_traits>

namespace tb::dtypes {
namespace {

template <class T>
inline T axpy_one(T x, T y) {
  if constexpr (std::is_same_v<T, std::int8_t>) {
    const std::int32_t r = kAxpyAInt8 * std::int32_t{x} + std::int32_t{y};
    return static_cast<std::int8_t>(std::clamp(r, -128, 127));
  } else if constexpr (std::is_same_v<T, f16>) {
    return static_cast<f16>(static_cast<float>(kAxpyA) * static_cast<float>(x) +
                            static_cast<float>(y));
  } else {
    return static_cast<T>(kAxpyA) * x + y;
  }
}

// Outputs are done two 16-byte vectors at a time (8 floats, 4 doubles): with kChains chains
// that is 8 independent vector multiply-add chains per step, enough to cover the latency of a
// multiply followed by an add on SSE, and 8 + 2 + 1 registers, so nothing spills (32-byte
// generic vectors without AVX, or arrays of chains, did spill to the stack).
template <class C>
using Vec [[gnu::vector_size(16)]] = C;
template <class C>
constexpr std::size_t kLanes = 16 / sizeof(C);
constexpr std::size_t kBlock =
    16;  // the unit of work the omp loop hands out (a multiple of 2 * kLanes)

template <class T>
void fma_range(const T* x, typename Dtype<T>::fma_out* out, std::size_t begin, std::size_t end,
               int k) {
  using C = typename Dtype<T>::compute;
  using Out = typename Dtype<T>::fma_out;
  using V = Vec<C>;
  constexpr std::size_t kL = kLanes<C>;
  const C a = static_cast<C>(kFmaA);
  for (std::size_t i0 = begin; i0 < end; i0 += 2 * kL) {
    const std::size_t m = std::min(2 * kL, end - i0);
    V b0 = {}, b1 = {};
    for (std::size_t j = 0; j < m; ++j) (j < kL ? b0[j] : b1[j - kL]) = static_cast<C>(x[i0 + j]);
    V v0 = b0, v1 = b0 * C(2), v2 = b0 * C(3), v3 = b0 * C(4);
    V w0 = b1, w1 = b1 * C(2), w2 = b1 * C(3), w3 = b1 * C(4);
    for (int s = 0; s < k; ++s) {
      v0 = v0 * a + b0;
      v1 = v1 * a + b0;
      v2 = v2 * a + b0;
      v3 = v3 * a + b0;
      w0 = w0 * a + b1;
      w1 = w1 * a + b1;
      w2 = w2 * a + b1;
      w3 = w3 * a + b1;
    }
    const V sum0 = ((v0 + v1) + v2) + v3;
    const V sum1 = ((w0 + w1) + w2) + w3;
    for (std::size_t j = 0; j < m; ++j)
      out[i0 + j] = static_cast<Out>(j < kL ? sum0[j] : sum1[j - kL]);
  }
}

// Word q of an int8 array: bytes 4q .. 4q+3, little-endian, missing bytes past n read as 0.
std::int32_t load_word(const std::int8_t* x, std::size_t n, std::size_t q) {
  std::uint32_t w = 0;
  for (std::size_t j = 0; j < 4 && 4 * q + j < n; ++j)
    w |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(x[4 * q + j])) << (8 * j);
  return static_cast<std::int32_t>(w);
}

// dp4a on every lane: each byte sign-extended by shifting it to the top and back.
using IVec = Vec<std::int32_t>;
inline IVec dp4a_lanes(IVec a, IVec b, std::int32_t c) {
  IVec r = IVec{} + c;
  for (int j = 0; j < 4; ++j) {
    const int up = 24 - 8 * j;
    r += ((a << up) >> 24) * ((b << up) >> 24);
  }
  return r;
}

void fma_range_int8(const std::int8_t* x, std::size_t n, std::int32_t* out, std::size_t begin,
                    std::size_t end, int k) {
  constexpr std::size_t kW = kLanes<std::int32_t>;  // 4 words, 4 chains: 4 registers of state
  for (std::size_t q0 = begin; q0 < end; q0 += kW) {
    const std::size_t m = std::min(kW, end - q0);
    IVec w = {};
    for (std::size_t j = 0; j < m; ++j) w[j] = load_word(x, n, q0 + j);
    IVec v0 = w, v1 = w ^ 0x01010101, v2 = w ^ 0x02020202, v3 = w ^ 0x03030303;
    for (int s = 0; s < k; ++s) {
      v0 = dp4a_lanes(v0, w, 1);
      v1 = dp4a_lanes(v1, w, 2);
      v2 = dp4a_lanes(v2, w, 3);
      v3 = dp4a_lanes(v3, w, 4);
    }
    const IVec sum = v0 + v1 + v2 + v3;
    for (std::size_t j = 0; j < m; ++j) out[q0 + j] = sum[j];
  }
}

template <class T>
void fma_outputs_range(const T* x, typename Dtype<T>::fma_out* out, std::size_t n,
                       std::size_t begin, std::size_t end, int k) {
  if constexpr (std::is_same_v<T, std::int8_t>)
    fma_range_int8(x, n, out, begin, end, k);
  else
    fma_range(x, out, begin, end, k);
}

}  // namespace

template <class T>
void axpy_serial(const T* x, T* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = axpy_one(x[i], y[i]);
}

template <class T>
void axpy_omp(const T* x, T* y, std::size_t n) {
  const auto count = static_cast<std::int64_t>(n);
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < count; ++i) y[i] = axpy_one(x[i], y[i]);
}

template <class T>
void fma_serial(const T* x, typename Dtype<T>::fma_out* out, std::size_t n, int k) {
  fma_outputs_range(x, out, n, 0, fma_outputs<T>(n), k);
}

template <class T>
void fma_omp(const T* x, typename Dtype<T>::fma_out* out, std::size_t n, int k) {
  const std::size_t outs = fma_outputs<T>(n);
  const auto blocks = static_cast<std::int64_t>((outs + kBlock - 1) / kBlock);
  // Every block costs the same, so a static schedule balances.
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::size_t begin = static_cast<std::size_t>(b) * kBlock;
    fma_outputs_range(x, out, n, begin, std::min(begin + kBlock, outs), k);
  }
}

#define TB_DTYPES_INSTANTIATE(T)                                               \
  template void axpy_serial<T>(const T*, T*, std::size_t);                     \
  template void axpy_omp<T>(const T*, T*, std::size_t);                        \
  template void fma_serial<T>(const T*, Dtype<T>::fma_out*, std::size_t, int); \
  template void fma_omp<T>(const T*, Dtype<T>::fma_out*, std::size_t, int);
TB_DTYPES_INSTANTIATE(double)
TB_DTYPES_INSTANTIATE(float)
TB_DTYPES_INSTANTIATE(f16)
TB_DTYPES_INSTANTIATE(std::int8_t)
#undef TB_DTYPES_INSTANTIATE

}  // namespace tb::dtypes
