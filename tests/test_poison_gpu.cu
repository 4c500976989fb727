// The poison rule on the device (poison_device, the GPU rows' fill): the same mutations as the
// host's tests (tests/test_poison.cpp), made by a kernel into device outputs.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "common/gpu_run.hpp"
#include "common/cuda_check.hpp"
#include "common/cuda_raii.hpp"
#include "tests/poison_cases.hpp"
#include "tests/test_util.hpp"

namespace tb::test {
namespace {

template <class T>
__device__ T add(T a, T b) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half(__half2float(a) + __half2float(b));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b));
  else
    return static_cast<T>(a + b);
}

template <class T>
__global__ void mutated_copy(T* out, const T* ref, std::size_t n, Mutation m) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n || (m == Mutation::skip_last && i == n - 1)) return;
  out[i] = m == Mutation::accumulate ? add(out[i], ref[i]) : ref[i];
}

// The device type and the host type its bits are compared as.
template <class Device, class Host>
struct Pair {
  using D = Device;
  using H = Host;
};

template <class P>
bool validates_on_device(const std::vector<typename P::H>& ref, Mutation m) {
  using D = typename P::D;
  using H = typename P::H;
  static_assert(sizeof(D) == sizeof(H));
  const std::size_t n = ref.size();
  Stream stream;
  DeviceBuffer<D> dref(n), dout(n);
  std::vector<H> out(n);
  CUDA_CHECK(cudaMemcpy(dref.data(), ref.data(), n * sizeof(H), cudaMemcpyHostToDevice));
  const ErrorStats s = validate_poisoned(
      [&] {
        poison_device(dout, stream);
        mutated_copy<<<(n + 255) / 256, 256, 0, stream>>>(dout.data(), dref.data(), n, m);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(out.data(), dout.data(), n * sizeof(H), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        return compare(std::span<const H>(out), std::span<const H>(ref), kExactTolerance);
      },
      kExactTolerance);
  return passes(s, kExactTolerance);
}

template <class P>
class PoisonDevice : public ::testing::Test {};
using DeviceTypes =
    ::testing::Types<Pair<float, float>, Pair<double, double>, Pair<__half, Half>,
                     Pair<__nv_bfloat16, Bf16>, Pair<std::int8_t, std::int8_t>,
                     Pair<std::uint8_t, std::uint8_t>, Pair<std::int16_t, std::int16_t>,
                     Pair<std::uint16_t, std::uint16_t>, Pair<std::int32_t, std::int32_t>,
                     Pair<std::uint32_t, std::uint32_t>, Pair<std::int64_t, std::int64_t>,
                     Pair<std::uint64_t, std::uint64_t>>;
TYPED_TEST_SUITE(PoisonDevice, DeviceTypes);

TYPED_TEST(PoisonDevice, CorrectKernelPasses) {
  TB_REQUIRE_GPU();
  EXPECT_TRUE(validates_on_device<TypeParam>(reference<typename TypeParam::H>(1001), Mutation::none));
}

TYPED_TEST(PoisonDevice, UnwrittenLastElementFails) {
  TB_REQUIRE_GPU();
  EXPECT_FALSE(validates_on_device<TypeParam>(reference<typename TypeParam::H>(1001), Mutation::skip_last));
}

TYPED_TEST(PoisonDevice, AccumulatorNeverResetFails) {
  TB_REQUIRE_GPU();
  EXPECT_FALSE(validates_on_device<TypeParam>(reference<typename TypeParam::H>(1001), Mutation::accumulate));
}

TYPED_TEST(PoisonDevice, UnwrittenElementEqualToTheFirstPatternFails) {
  TB_REQUIRE_GPU();
  using H = typename TypeParam::H;
  if (first_pattern_is_nan<H>()) GTEST_SKIP() << "a NaN reference is never valid";
  const auto ref = reference_ending_in_first_pattern<H>(1001);
  EXPECT_TRUE(validates_on_device<TypeParam>(ref, Mutation::none));
  EXPECT_FALSE(validates_on_device<TypeParam>(ref, Mutation::skip_last));
}

}  // namespace
}  // namespace tb::test
