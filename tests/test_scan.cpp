#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <vector>

#include "common/validate.hpp"
#include "cpu/scan.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/scan.hpp"
#endif

namespace tb::scan {
namespace {

struct IntCase {
  std::vector<std::int32_t> in, ref;
  explicit IntCase(std::size_t n) : in(n), ref(n) {
    fill_input(std::span<std::int32_t>(in), n);
    serial(in.data(), ref.data(), n);
  }
  bool matches(const std::vector<std::int32_t>& out) const {
    return passes(compare(std::span<const std::int32_t>(out), std::span<const std::int32_t>(ref)),
                  kIntTolerance);
  }
};

struct FloatCase {
  std::vector<float> in;
  std::vector<double> ref;
  explicit FloatCase(std::size_t n) : in(n), ref(n) {
    fill_input(std::span<float>(in), n);
    reference_f64(in.data(), ref.data(), n);
  }
  ErrorStats check(const std::vector<float>& out) const {
    return compare_float(std::span<const float>(out), std::span<const double>(ref),
                         std::span<const float>(in));
  }
  bool matches(const std::vector<float>& out) const {
    return passes(check(out), float_tolerance(in.size()));
  }
};

// Sizes around the GPU tile edges (block * 16 elements) and with more than 32 tiles, so the
// look-back has to move past its first window.
std::vector<std::size_t> sizes() {
  auto s = test::edge_sizes();
  for (std::size_t extra : {1023u, 1024u, 1025u, 4096u, 16385u, 100000u, (1u << 20) + 3})
    s.push_back(extra);
  return s;
}

TEST(Scan, SerialIsPrefixSum) {
  const std::int32_t in[] = {3, 1, 4, 1, 5};
  std::int32_t out[5];
  serial(in, out, 5);
  const std::int32_t expect[] = {3, 4, 8, 9, 14};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[i], expect[i]);
}

TEST(Scan, Int32InputsCannotOverflow) {
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 28, std::size_t{1} << 30}) {
    EXPECT_LE(static_cast<std::int64_t>(int32_max_value(n)) * static_cast<std::int64_t>(n),
              static_cast<std::int64_t>(INT32_MAX))
        << n;
  }
}

TEST(Scan, OmpMatchesSerial) {
  for (std::size_t n : sizes()) {
    IntCase ic(n);
    std::vector<std::int32_t> iout(n, -1);
    omp(ic.in.data(), iout.data(), n);
    EXPECT_TRUE(ic.matches(iout)) << "int32 n=" << n;
    FloatCase fc(n);
    std::vector<float> fout(n);
    poison(std::span<float>(fout));
    omp(fc.in.data(), fout.data(), n);
    EXPECT_TRUE(fc.matches(fout)) << "float32 n=" << n;
  }
}

TEST(Scan, SerialFloat32IsWithinTolerance) {
  // The serial float32 loop has the longest addition chain of all variants: if it passes at a
  // few million elements with a wide margin, the tolerance is not tight at 256M either.
  const std::size_t n = std::size_t{1} << 22;
  FloatCase fc(n);
  std::vector<float> out(n);
  serial(fc.in.data(), out.data(), n);
  const ErrorStats s = fc.check(out);
  EXPECT_TRUE(passes(s, float_tolerance(n))) << s.max_rel;
  EXPECT_LT(s.max_rel, float_tolerance(n).rel / 4) << "the margin has shrunk";
}

TEST(Scan, Float32ToleranceCatchesALostElement) {
  const std::size_t n = 5000;
  FloatCase fc(n);
  std::vector<float> out(n);
  serial(fc.in.data(), out.data(), n);
  for (std::size_t i = 1000; i < n; ++i) out[i] -= fc.in[1000];  // element 1000 skipped
  EXPECT_FALSE(fc.matches(out));
}

#if TWINBENCH_HAVE_CUDA
template <class T>
std::vector<T> run_cuda(const std::vector<T>& in, int block, std::size_t offset = 0) {
  Stream s;
  const std::size_t n = in.size() - offset;
  auto din = upload(std::span<const T>(in));
  DeviceBuffer<T> dout(in.size());
  DeviceBuffer<unsigned char> scratch(gpu::scan_cuda_scratch_bytes(n, block));
  std::vector<T> out(in.size());
  // Twice with the same scratch: the second call must reset the tile states itself.
  for (int rep = 0; rep < 2; ++rep) {
    CUDA_CHECK(tb::test::memset_sync(dout.data(), 0xFF, dout.bytes()));
    gpu::scan_cuda(din.data() + offset, dout.data() + offset, n, block, scratch.data(), s);
    s.synchronize();
  }
  download(std::span<T>(out), dout);
  return std::vector<T>(out.begin() + static_cast<std::ptrdiff_t>(offset), out.end());
}

TEST(ScanGpu, CudaInt32MatchesSerial) {
  TB_REQUIRE_GPU();
  for (std::size_t n : sizes()) {
    IntCase ic(n);
    for (int block : {32, 64, 256, 1024})
      EXPECT_TRUE(ic.matches(run_cuda(ic.in, block))) << n << " " << block;
  }
}

TEST(ScanGpu, CudaFloat32MatchesReference) {
  TB_REQUIRE_GPU();
  for (std::size_t n : sizes()) {
    FloatCase fc(n);
    for (int block : {64, 256, 1024})
      EXPECT_TRUE(fc.matches(run_cuda(fc.in, block))) << n << " " << block;
  }
}

TEST(ScanGpu, CudaUnalignedUsesScalarPath) {
  TB_REQUIRE_GPU();
  const std::size_t n = 100001;
  IntCase ic(n);
  std::vector<std::int32_t> shifted(n + 1, 7);
  std::copy(ic.in.begin(), ic.in.end(), shifted.begin() + 1);
  EXPECT_TRUE(ic.matches(run_cuda(shifted, 256, 1)));
}

TEST(ScanGpu, CudaLargeInt32) {
  TB_REQUIRE_GPU();
  // 16M elements: 4096 tiles at block 256, more than the GPU holds at once, so tiles meet
  // predecessors that have published only their aggregate, or nothing yet.
  const std::size_t n = std::size_t{1} << 24;
  IntCase ic(n);
  EXPECT_TRUE(ic.matches(run_cuda(ic.in, 256)));
}

template <class T>
std::vector<T> run_thrust(const std::vector<T>& in) {
  Stream s;
  auto din = upload(std::span<const T>(in));
  DeviceBuffer<T> dout(in.size());
  gpu::scan_thrust(din.data(), dout.data(), in.size(), s);
  s.synchronize();
  std::vector<T> out(in.size());
  download(std::span<T>(out), dout);
  return out;
}

TEST(ScanGpu, ThrustMatchesSerial) {
  TB_REQUIRE_GPU();
  for (std::size_t n : sizes()) {
    IntCase ic(n);
    EXPECT_TRUE(ic.matches(run_thrust(ic.in))) << n;
    FloatCase fc(n);
    EXPECT_TRUE(fc.matches(run_thrust(fc.in))) << n;
  }
}
#endif

}  // namespace
}  // namespace tb::scan
