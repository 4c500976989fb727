#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/random.hpp"
#include "common/validate.hpp"
#include "cpu/dtypes.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/dtypes.hpp"
#endif

namespace tb::dtypes {
namespace {

using std::int32_t;
using std::int8_t;


template <class T>
std::vector<T> inputs(std::size_t n, std::uint64_t seed) {
  std::vector<float> f(n);
  std::vector<int32_t> i(n);
  fill_uniform(std::span<float>(f), seed, -1.f, 1.f);
  fill_uniform(std::span<int32_t>(i), seed, -128, 128);
  std::vector<T> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    const T v = std::is_same_v<T, int8_t> ? static_cast<T>(i[k]) : static_cast<T>(f[k]);
    out[k] = v == T(0) ? T(1) : v;
  }
  return out;
}

template <class T, class R>
bool within(const std::vector<T>& got, const std::vector<R>& ref, const Tolerance& tol) {
  return passes(compare(std::span<const T>(got), std::span<const R>(ref), tol.scale_floor), tol);
}

TEST(Dtypes, Dp4aIsASignedByteDotProduct) {
  // bytes (little-endian) a = {1, -2, 3, -128}, b = {5, 6, -7, -1}
  const int32_t a = static_cast<int32_t>(0x8003FE01u), b = static_cast<int32_t>(0xFFF90605u);
  EXPECT_EQ(dp4a(a, b, 10), 10 + 5 - 12 - 21 + 128);
}

TEST(Dtypes, Int8AxpySaturates) {
  const std::vector<int8_t> x = {100, -100, 10, -1};
  std::vector<int8_t> y = {100, -100, 5, 127};
  axpy_serial(x.data(), y.data(), x.size());
  EXPECT_EQ(y, (std::vector<int8_t>{127, -128, 35, 124}));
}

TEST(Dtypes, FloatAxpyIsAxPlusY) {
  const std::vector<float> x = {1.f, -2.f};
  std::vector<float> y = {0.25f, 1.f};
  axpy_serial(x.data(), y.data(), 2);
  EXPECT_EQ(y[0], 0.75f);
  EXPECT_EQ(y[1], 0.f);
}

// One element's chains written out plainly, against the blocked CPU code.
TEST(Dtypes, FmaSerialMatchesPlainChains) {
  const auto x = inputs<float>(37, kSeed);
  std::vector<float> out(37);
  const int k = 100;
  fma_serial(x.data(), out.data(), x.size(), k);
  for (std::size_t i = 0; i < x.size(); ++i) {
    float sum = 0.f;
    float v[kChains];
    for (int c = 0; c < kChains; ++c) v[c] = x[i] * static_cast<float>(c + 1);
    for (int s = 0; s < k; ++s)
      for (int c = 0; c < kChains; ++c) v[c] = v[c] * 0.75f + x[i];
    sum = ((v[0] + v[1]) + v[2]) + v[3];
    EXPECT_NEAR(out[i], sum, 1e-6f * std::fabs(sum)) << i;
    // The chains converge to 4x: a check on the model, not just on the code.
    EXPECT_NEAR(out[i], 16.f * x[i], 2e-5f) << i;
  }
}

TEST(Dtypes, Int8FmaPadsTheLastWord) {
  const std::vector<int8_t> x = {3, -4, 5, 6, 7, -8};  // words {3,-4,5,6} and {7,-8,0,0}
  std::vector<int32_t> out(2);
  fma_serial(x.data(), out.data(), x.size(), 5);
  for (int q = 0; q < 2; ++q) {
    uint32_t bits = 0;
    for (int j = 0; j < 4 && 4 * q + j < 6; ++j)
      bits |= static_cast<uint32_t>(static_cast<uint8_t>(x[4 * q + j])) << (8 * j);
    const auto w = static_cast<int32_t>(bits);
    int32_t sum = 0;
    for (int c = 0; c < kChains; ++c) {
      int32_t v = w ^ (c * 0x01010101);
      for (int s = 0; s < 5; ++s) v = dp4a(v, w, c + 1);
      sum += v;
    }
    EXPECT_EQ(out[q], sum) << q;
  }
}

template <class T>
void expect_cpu_omp_matches_serial() {
  using Out = typename Dtype<T>::fma_out;
  for (std::size_t n : test::edge_sizes()) {
    const auto x = inputs<T>(n, kSeed);
    auto y_ref = inputs<T>(n, kSeed + 1);
    auto y = y_ref;
    axpy_serial(x.data(), y_ref.data(), n);
    axpy_omp(x.data(), y.data(), n);
    EXPECT_TRUE(within(y, y_ref, axpy_tolerance<T>()))
        << Dtype<T>::name << " axpy " << axpy_omp_path<T>() << " n=" << n;

    std::vector<Out> ref(fma_outputs<T>(n)), out(fma_outputs<T>(n));
    const int k = 64;  // the chain length does not change the code path; keep the test quick
    fma_serial(x.data(), ref.data(), n, k);
    poison(std::span<Out>(out));
    fma_omp(x.data(), out.data(), n, k);
    EXPECT_TRUE(within(out, ref, fma_tolerance<T>()))
        << Dtype<T>::name << " fma " << fma_omp_path<T>() << " n=" << n;
  }
}

// Every version (common/cpu_isa.hpp) and every special path this machine has (F16C at avx2,
// AVX512_FP16 and AVX512_VNNI at avx512 where present), on odd sizes that leave vector tails.
template <class T>
void expect_cpu_omp_matches_serial_at_every_level() {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    expect_cpu_omp_matches_serial<T>();
  }
}

TEST(Dtypes, OmpMatchesSerialFp64) { expect_cpu_omp_matches_serial_at_every_level<double>(); }
TEST(Dtypes, OmpMatchesSerialFp32) { expect_cpu_omp_matches_serial_at_every_level<float>(); }
TEST(Dtypes, OmpMatchesSerialFp16) { expect_cpu_omp_matches_serial_at_every_level<f16>(); }
TEST(Dtypes, OmpMatchesSerialInt8) { expect_cpu_omp_matches_serial_at_every_level<int8_t>(); }

// The reference itself at every level: fp16 axpy (float multiply and add, no contraction) and
// int8 (integers) give the baseline's bits; float chains use FMA at avx2 and avx512 (one
// rounding a step, two on the baseline), within fma_tolerance of each other.
TEST(Dtypes, SerialIsTheSameAtEveryLevel) {
  cpu_isa::RestoreLimit restore_limit;
  const std::size_t n = 4099;
  const auto x = inputs<f16>(n, kSeed);
  const auto y0 = inputs<f16>(n, kSeed + 1);
  const auto xf = inputs<float>(n, kSeed);
  const auto xi = inputs<int8_t>(n, kSeed);
  cpu_isa::set_limit(cpu_isa::Level::baseline);
  auto y_base = y0;
  axpy_serial(x.data(), y_base.data(), n);
  std::vector<float> f_base(n);
  fma_serial(xf.data(), f_base.data(), n, 64);
  std::vector<int32_t> i_base(fma_outputs<int8_t>(n));
  fma_serial(xi.data(), i_base.data(), n, 64);
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    auto y = y0;
    axpy_serial(x.data(), y.data(), n);
    EXPECT_EQ(0, std::memcmp(y.data(), y_base.data(), n * sizeof(f16))) << cpu_isa::name(level);
    std::vector<float> f(n);
    fma_serial(xf.data(), f.data(), n, 64);
    EXPECT_TRUE(within(f, f_base, fma_tolerance<float>())) << cpu_isa::name(level);
    std::vector<int32_t> i(i_base.size());
    fma_serial(xi.data(), i.data(), n, 64);
    EXPECT_EQ(i, i_base) << cpu_isa::name(level);
  }
}

// The F16C axpy computes what serial computes (float multiply, float add, round to half to
// nearest-even): bit for bit, vector body and tail.
TEST(Dtypes, F16cAxpyIsSerialBitForBit) {
  cpu_isa::RestoreLimit restore_limit;
  if (cpu_isa::host_level() < cpu_isa::Level::avx2) GTEST_SKIP() << "no AVX2/F16C on this CPU";
  cpu_isa::set_limit(cpu_isa::Level::avx2);
  ASSERT_EQ(axpy_omp_path<f16>(), "avx2 + f16c");
  for (std::size_t n : test::edge_sizes()) {
    const auto x = inputs<f16>(n, kSeed);
    auto ref = inputs<f16>(n, kSeed + 1);
    auto y = ref;
    axpy_serial(x.data(), ref.data(), n);
    axpy_omp(x.data(), y.data(), n);
    EXPECT_EQ(0, std::memcmp(y.data(), ref.data(), n * sizeof(f16))) << n;
  }
}

bool host_has_avx512(const char* feature) {
  return cpu_isa::host_level() == cpu_isa::Level::avx512 && cpu_isa::has_feature(feature);
}

// The AVX512_FP16 paths. axpy: one rounding of the exact a*x + y, so within one half ulp of
// serial's double rounding. fma: half chains against the float reference, within the bound
// derived in fma_tolerance (116 u |x|, u = 2^-11) at the full chain length.
TEST(Dtypes, Avx512Fp16PathsStayWithinTheirBounds) {
  if (!host_has_avx512("avx512fp16")) GTEST_SKIP() << "no AVX512_FP16 on this CPU";
  ASSERT_EQ(axpy_omp_path<f16>(), "avx512 + avx512fp16");
  ASSERT_EQ(fma_omp_path<f16>(), "avx512 + avx512fp16");
  const std::size_t n = 100003;
  const auto x = inputs<f16>(n, kSeed);
  auto ref = inputs<f16>(n, kSeed + 1);
  auto y = ref;
  axpy_serial(x.data(), ref.data(), n);
  axpy_omp(x.data(), y.data(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const float r = static_cast<float>(ref[i]);
    ASSERT_LE(std::fabs(static_cast<float>(y[i]) - r), std::ldexp(std::fabs(r), -10) + 1e-7f)
        << "axpy " << i;
  }
  std::vector<f16> got(n), want(n);
  fma_serial(x.data(), want.data(), n, kChainLength);
  poison(std::span<f16>(got));
  fma_omp(x.data(), got.data(), n, kChainLength);
  double worst = 0.0;  // error / (116 u |x|)
  for (std::size_t i = 0; i < n; ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    const double bound = 116.0 * 0x1p-11 * std::fabs(static_cast<double>(x[i])) + 1e-6;
    worst = std::max(worst, err / bound);
  }
  EXPECT_LE(worst, 1.0);
  EXPECT_TRUE(within(got, want, fma_tolerance<f16>()));
}

// The AVX512_VNNI dp4a (vpdpbusd corrected from unsigned x signed bytes): exact, so equal to
// serial, at the full chain length and on words padded past n.
TEST(Dtypes, Avx512VnniFmaIsSerialExactly) {
  if (!host_has_avx512("avx512vnni")) GTEST_SKIP() << "no AVX512_VNNI on this CPU";
  ASSERT_EQ(fma_omp_path<int8_t>(), "avx512 + avx512vnni");
  for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{127}, std::size_t{4099}}) {
    const auto x = inputs<int8_t>(n, kSeed);
    std::vector<int32_t> ref(fma_outputs<int8_t>(n)), out(fma_outputs<int8_t>(n));
    fma_serial(x.data(), ref.data(), n, kChainLength);
    poison(std::span<int32_t>(out));
    fma_omp(x.data(), out.data(), n, kChainLength);
    EXPECT_EQ(out, ref) << n;
  }
}

// ---- Mutation tests: a bug of each new path must fail the bench's check. ----

// fp16 fma: an output that lost one of its four chains (a register dropped from the sum, about
// 4x off a value of 16x), on elements that are not tiny (|x| > 0.1: a chain of a tiny element
// is inside the floor).
TEST(DtypesMutation, Fp16FmaLostChainFails) {
  const std::size_t n = 1001;
  const auto x = inputs<f16>(n, kSeed);
  std::vector<f16> ref(n);
  fma_serial(x.data(), ref.data(), n, kChainLength);
  std::vector<f16> got(n);
  fma_omp(x.data(), got.data(), n, kChainLength);
  ASSERT_TRUE(within(got, ref, fma_tolerance<f16>()));
  for (std::size_t i : {std::size_t{0}, std::size_t{63}, std::size_t{64}, n - 1}) {
    if (std::fabs(static_cast<float>(x[i])) < 0.1f) continue;
    auto mutated = got;
    mutated[i] = static_cast<f16>(static_cast<float>(got[i]) * 0.75f);  // 3 chains of 4
    EXPECT_FALSE(within(mutated, ref, fma_tolerance<f16>())) << i;
  }
}

// fp16 axpy: an element left as y0 (a masked-off tail lane) fails.
TEST(DtypesMutation, Fp16AxpyUnwrittenElementFails) {
  const std::size_t n = 1001;
  const auto x = inputs<f16>(n, kSeed);
  const auto y0 = inputs<f16>(n, kSeed + 1);
  auto ref = y0, got = y0;
  axpy_serial(x.data(), ref.data(), n);
  axpy_omp(x.data(), got.data(), n);
  ASSERT_TRUE(within(got, ref, axpy_tolerance<f16>()));
  for (std::size_t i : {std::size_t{0}, std::size_t{992}, n - 1}) {
    if (std::fabs(static_cast<float>(x[i])) < 0.1f) continue;
    auto mutated = got;
    mutated[i] = y0[i];
    EXPECT_FALSE(within(mutated, ref, axpy_tolerance<f16>())) << i;
  }
}

// int8 fma: a vpdpbusd step without the signed correction (the first operand's bytes taken as
// unsigned) in one chain of one word changes the output; the exact check must see it.
TEST(DtypesMutation, Int8UncorrectedUnsignedDotFails) {
  const std::size_t n = 4 * 37;
  const auto x = inputs<int8_t>(n, kSeed);
  std::vector<int32_t> ref(fma_outputs<int8_t>(n)), got(fma_outputs<int8_t>(n));
  const int k = 16;
  fma_serial(x.data(), ref.data(), n, k);
  fma_omp(x.data(), got.data(), n, k);
  ASSERT_TRUE(within(got, ref, fma_tolerance<int8_t>()));
  const std::size_t q = ref.size() - 1;  // the last word: a tail lane of the 32-word trip
  std::uint32_t bits = 0;
  for (int j = 0; j < 4; ++j)
    bits |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(x[4 * q + j])) << (8 * j);
  const auto w = static_cast<int32_t>(bits);
  int32_t sum = 0;
  for (int c = 0; c < kChains; ++c) {
    int32_t v = w ^ (c * 0x01010101);
    for (int s = 0; s < k; ++s) {
      if (c == 0 && s == 0) {  // the mutated step: unsigned bytes of v
        int32_t r = 1;
        for (int j = 0; j < 4; ++j)
          r += static_cast<std::uint8_t>(v >> (8 * j)) * static_cast<int8_t>(w >> (8 * j));
        v = r;
      } else {
        v = dp4a(v, w, c + 1);
      }
    }
    sum += v;
  }
  auto mutated = got;
  mutated[q] = sum;
  ASSERT_NE(sum, ref[q]) << "the mutation must change this word's output";
  EXPECT_FALSE(within(mutated, ref, fma_tolerance<int8_t>()));
}

// The full chain length keeps fp16 within its tolerance of the float computation.
TEST(Dtypes, Fp16ChainsStayNearFloat) {
  const auto xh = inputs<f16>(1000, kSeed);
  std::vector<float> xf(xh.begin(), xh.end());
  std::vector<f16> out_h(1000);
  std::vector<float> out_f(1000);
  fma_serial(xh.data(), out_h.data(), 1000, kChainLength);
  fma_serial(xf.data(), out_f.data(), 1000, kChainLength);
  EXPECT_TRUE(within(out_h, out_f, fma_tolerance<f16>()));
}

#if TWINBENCH_HAVE_CUDA
template <class T>
T* dev(T* p) {
  return p;
}
inline std::uint16_t* dev(f16* p) { return reinterpret_cast<std::uint16_t*>(p); }

// `offset` elements into the buffers: 1 makes every pointer misaligned for the vector paths.
template <class T>
void expect_gpu_axpy(std::size_t n, int block, std::size_t offset) {
  const auto x = inputs<T>(n + offset, kSeed);
  const auto y0 = inputs<T>(n + offset, kSeed + 1);
  auto ref = y0;
  axpy_serial(x.data() + offset, ref.data() + offset, n);
  Stream s;
  auto dx = upload(std::span<const T>(x));
  auto dy = upload(std::span<const T>(y0));
  gpu::dtypes_axpy_cuda(axpy_a<T>(), dev(dx.data()) + offset, dev(dy.data()) + offset, n, block, s);
  s.synchronize();
  std::vector<T> got(n + offset);
  download(std::span<T>(got), dy);
  EXPECT_TRUE(within(got, ref, axpy_tolerance<T>()))
      << Dtype<T>::name << " axpy n=" << n << " block=" << block << " offset=" << offset;
}

template <class T>
void expect_gpu_fma(std::size_t n, int block, int k, std::size_t offset) {
  using Out = typename Dtype<T>::fma_out;
  const auto x = inputs<T>(n + offset, kSeed);
  const std::size_t outs = fma_outputs<T>(n);
  std::vector<Out> ref(outs + offset);
  fma_serial(x.data() + offset, ref.data() + offset, n, k);
  Stream s;
  auto dx = upload(std::span<const T>(x));
  DeviceBuffer<Out> dout(outs + offset);
  CUDA_CHECK(tb::test::memset_sync(dout.data(), 0x7F, dout.bytes()));
  gpu::dtypes_fma_cuda(fma_a<T>(), dev(dx.data()) + offset, dev(dout.data()) + offset, n, k, block,
                       s);
  s.synchronize();
  std::vector<Out> got(outs + offset);
  download(std::span<Out>(got), dout);
  std::copy_n(ref.begin(), offset, got.begin());  // the skipped prefix is not an output
  EXPECT_TRUE(within(got, ref, fma_tolerance<T>()))
      << Dtype<T>::name << " fma n=" << n << " block=" << block << " k=" << k
      << " offset=" << offset;
}

template <class T>
void expect_gpu_all() {
  for (std::size_t n : test::edge_sizes())
    for (int block : test::test_blocks()) {
      expect_gpu_axpy<T>(n, block, 0);
      expect_gpu_fma<T>(n, block, 128, 0);
    }
  expect_gpu_axpy<T>(1001, 256, 1);
  expect_gpu_fma<T>(1001, 256, 128, 1);
  expect_gpu_fma<T>(4099, 256, kChainLength, 0);
}

TEST(DtypesGpu, Fp64MatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_all<double>();
}
TEST(DtypesGpu, Fp32MatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_all<float>();
}
TEST(DtypesGpu, Fp16MatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_all<f16>();
}
TEST(DtypesGpu, Int8MatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_all<int8_t>();
}

// dtypes_fma_cuda's fp16 outputs for inputs x at the full chain length, as bit patterns, with
// the input and output `offset` elements into their buffers (1, 2: not 16-byte aligned, so
// every element takes the scalar kernel instead of the 8-a-thread one).
std::vector<std::uint16_t> fp16_fma_bits(const std::vector<f16>& x, int block, std::size_t offset) {
  const std::size_t n = x.size();
  std::vector<f16> x_off(offset + n, f16(1));
  std::copy(x.begin(), x.end(), x_off.begin() + static_cast<std::ptrdiff_t>(offset));
  Stream s;
  auto dx = upload(std::span<const f16>(x_off));
  DeviceBuffer<f16> dout(offset + n);
  CUDA_CHECK(tb::test::memset_sync(dout.data(), 0x7F, dout.bytes()));
  gpu::dtypes_fma_cuda(fma_a<f16>(), dev(dx.data()) + offset, dev(dout.data()) + offset, n,
                       kChainLength, block, s);
  s.synchronize();
  std::vector<f16> got(offset + n);
  download(std::span<f16>(got), dout);
  std::vector<std::uint16_t> bits(n);
  std::memcpy(bits.data(), got.data() + offset, n * sizeof(f16));
  return bits;
}

std::vector<f16> from_bits(const std::vector<std::uint16_t>& bits) {
  std::vector<f16> v(bits.size());
  std::memcpy(v.data(), bits.data(), bits.size() * sizeof(f16));
  return v;
}

// The first index where a and b differ, or a.size().
std::size_t first_difference(const std::vector<std::uint16_t>& a,
                             const std::vector<std::uint16_t>& b) {
  return static_cast<std::size_t>(std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin());
}

// The fp16 fma at the full chain length: n = 1 (the scalar kernel alone), 100003 (12500 groups of
// 8 for the vector kernel and a scalar tail of 3) and the benchmark's size, at every block size
// of the default sweep, against the serial reference. Off 16-byte alignment every element takes
// the scalar kernel: both paths must give the same bits (the same operations per element, in
// the same order), which is what keeps the vector kernel's output the one-half2 kernel's.
TEST(DtypesGpu, Fp16FmaVectorAndScalarPathsFullChains) {
  TB_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1}, std::size_t{100003}, kFmaGpuSize}) {
    const auto x = inputs<f16>(n, kSeed);
    std::vector<f16> ref(n);
    fma_serial(x.data(), ref.data(), n, kChainLength);
    const auto scalar_bits = fp16_fma_bits(x, 256, 1);
    EXPECT_TRUE(within(from_bits(scalar_bits), ref, fma_tolerance<f16>())) << "scalar n=" << n;
    EXPECT_EQ(first_difference(fp16_fma_bits(x, 256, 2), scalar_bits), n)
        << "4-byte aligned, n=" << n;
    for (int block = 64; block <= 1024; block *= 2) {
      const auto bits = fp16_fma_bits(x, block, 0);
      EXPECT_TRUE(within(from_bits(bits), ref, fma_tolerance<f16>()))
          << "n=" << n << " block=" << block;
      EXPECT_EQ(first_difference(bits, scalar_bits), n)
          << "vector and scalar paths differ: n=" << n << " block=" << block;
    }
  }
}
#endif

}  // namespace
}  // namespace tb::dtypes
