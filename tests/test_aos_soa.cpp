#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/random.hpp"
#include "common/validate.hpp"
#include "cpu/aos_soa.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/aos_soa.hpp"
#endif

namespace tb::aos_soa {
namespace {

struct Case {
  std::size_t n;
  std::vector<float> xyz, x, y, z, ref;
  explicit Case(std::size_t n_) : n(n_), xyz(3 * n), x(n), y(n), z(n), ref(n) {
    fill_uniform(std::span<float>(xyz), kSeed, -1.f, 1.f);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = xyz[3 * i];
      y[i] = xyz[3 * i + 1];
      z[i] = xyz[3 * i + 2];
    }
    serial_aos(xyz.data(), ref.data(), n);
  }
};

bool matches(const std::vector<float>& got, const std::vector<float>& ref) {
  return passes(compare(std::span<const float>(got), std::span<const float>(ref)), kTolerance);
}

TEST(AosSoa, SerialAosIsTheNorm) {
  const std::vector<float> xyz = {3.f, 4.f, 12.f, -1.f, 0.f, 0.f};
  std::vector<float> out(2);
  serial_aos(xyz.data(), out.data(), 2);
  EXPECT_EQ(out[0], 13.f);
  EXPECT_EQ(out[1], 1.f);
}

TEST(AosSoa, CpuVariantsMatchSerialAos) {
  for (std::size_t n : test::edge_sizes()) {
    Case c(n);
    std::vector<float> out(n);
    poison(std::span<float>(out));
    serial_soa(c.x.data(), c.y.data(), c.z.data(), out.data(), n);
    EXPECT_TRUE(matches(out, c.ref)) << "serial_soa " << n;
    poison(std::span<float>(out));
    omp_aos(c.xyz.data(), out.data(), n);
    EXPECT_TRUE(matches(out, c.ref)) << "omp_aos " << n;
    poison(std::span<float>(out));
    omp_soa(c.x.data(), c.y.data(), c.z.data(), out.data(), n);
    EXPECT_TRUE(matches(out, c.ref)) << "omp_soa " << n;
  }
}

// Each version of the serial and omp kernels (common/cpu_isa.hpp): within kTolerance of the
// baseline serial (avx2 and avx512 contract the sum of squares into FMAs).
TEST(AosSoa, OmpVariantsMatchSerialAtEveryIsaLevel) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    for (std::size_t n : test::edge_sizes()) {
      cpu_isa::set_limit(cpu_isa::Level::baseline);
      const Case base(n);
      cpu_isa::set_limit(level);
      Case c(n);  // serial_aos at this level: the references, multiversioned too
      EXPECT_TRUE(matches(c.ref, base.ref)) << "serial_aos " << cpu_isa::name(level) << " n=" << n;
      std::vector<float> soa(n);
      serial_soa(c.x.data(), c.y.data(), c.z.data(), soa.data(), n);
      EXPECT_TRUE(matches(soa, base.ref)) << "serial_soa " << cpu_isa::name(level) << " n=" << n;
      std::vector<float> out(n);
      poison(std::span<float>(out));
      omp_aos(c.xyz.data(), out.data(), n);
      EXPECT_TRUE(matches(out, c.ref)) << "omp_aos " << cpu_isa::name(level) << " n=" << n;
      poison(std::span<float>(out));
      omp_soa(c.x.data(), c.y.data(), c.z.data(), out.data(), n);
      EXPECT_TRUE(matches(out, c.ref)) << "omp_soa " << cpu_isa::name(level) << " n=" << n;
    }
  }
}

// Mutation of the AoS de-interleave: a point read one float off (x from the previous point's z,
// what a wrong permute gives) must fail the check.
TEST(AosSoa, CheckCatchesAMisreadPoint) {
  Case c(1000);
  std::vector<float> out = c.ref;
  for (std::size_t i : {std::size_t{1}, std::size_t{17}, std::size_t{999}}) {
    const float* p = c.xyz.data() + 3 * i - 1;
    std::vector<float> mutated = out;
    mutated[i] = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    EXPECT_FALSE(matches(mutated, c.ref)) << i;
  }
}

#if TWINBENCH_HAVE_CUDA
struct DeviceCase {
  DeviceBuffer<float> xyz, x, y, z, out;
  explicit DeviceCase(const Case& c)
      : xyz(upload(std::span<const float>(c.xyz))),
        x(upload(std::span<const float>(c.x))),
        y(upload(std::span<const float>(c.y))),
        z(upload(std::span<const float>(c.z))),
        out(c.n) {}
};

using Launch = std::function<void(DeviceCase&, std::size_t, int, cudaStream_t)>;

void expect_gpu_matches(const Launch& launch, const std::string& label) {
  Stream s;
  for (std::size_t n : test::edge_sizes()) {
    Case c(n);
    DeviceCase d(c);
    for (int block : test::test_blocks()) {
      CUDA_CHECK(tb::test::memset_sync(d.out.data(), 0xFF, d.out.bytes()));
      launch(d, n, block, s);
      s.synchronize();
      std::vector<float> out(n);
      download(std::span<float>(out), d.out);
      EXPECT_TRUE(matches(out, c.ref)) << label << " n=" << n << " block=" << block;
    }
  }
}

TEST(AosSoaGpu, AosMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(
      [](DeviceCase& d, std::size_t n, int b, cudaStream_t s) {
        gpu::aos_soa_cuda_aos(d.xyz.data(), d.out.data(), n, b, s);
      },
      "cuda_aos");
}

TEST(AosSoaGpu, SoaMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(
      [](DeviceCase& d, std::size_t n, int b, cudaStream_t s) {
        gpu::aos_soa_cuda_soa(d.x.data(), d.y.data(), d.z.data(), d.out.data(), n, b, s);
      },
      "cuda_soa");
}

TEST(AosSoaGpu, AosVecMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(
      [](DeviceCase& d, std::size_t n, int b, cudaStream_t s) {
        gpu::aos_soa_cuda_aos_vec(d.xyz.data(), d.out.data(), n, b, s);
      },
      "cuda_aos_vec");
}

// Points starting one float into the buffer are not 16-byte aligned: the vector kernel must
// fall back rather than fault or misread.
TEST(AosSoaGpu, AosVecUnalignedFallsBack) {
  TB_REQUIRE_GPU();
  Case c(1001);
  Stream s;
  std::vector<float> shifted(3 * 1001 + 1);
  std::copy(c.xyz.begin(), c.xyz.end(), shifted.begin() + 1);
  auto dxyz = upload(std::span<const float>(shifted));
  DeviceBuffer<float> dout(1002);
  CUDA_CHECK(tb::test::memset_sync(dout.data(), 0xFF, dout.bytes()));
  gpu::aos_soa_cuda_aos_vec(dxyz.data() + 1, dout.data() + 1, 1001, 256, s);
  s.synchronize();
  std::vector<float> out(1002);
  download(std::span<float>(out), dout);
  EXPECT_TRUE(matches(std::vector<float>(out.begin() + 1, out.end()), c.ref));
}
#endif

}  // namespace
}  // namespace tb::aos_soa
