#include <gtest/gtest.h>
#include <omp.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/cpu_isa.hpp"
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

// The brief's odd sizes, and sizes that take the omp kernel through several rounds of blocks on
// this machine's thread count, with a partial last round and a partial last block.
std::vector<std::size_t> omp_sizes() {
  std::vector<std::size_t> s = {1, 3, 17, 1000, 4099, 65543};
  const auto nt = static_cast<std::size_t>(omp_get_max_threads());
  for (std::size_t extra : {std::size_t{1}, nt * kOmpBlock / 2 + 5})
    s.push_back(2 * nt * kOmpBlock + extra);
  return s;
}

// Every ISA level this machine can run: the vector prefix of each level (AVX-512, AVX2, and
// the baseline's) must give exactly the serial int32 scan.
TEST(Scan, OmpMatchesSerial) {
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    std::vector<std::size_t> all = sizes();
    for (std::size_t n : omp_sizes()) all.push_back(n);
    for (std::size_t n : all) {
      IntCase ic(n);
      std::vector<std::int32_t> iout(n, -1);
      omp(ic.in.data(), iout.data(), n);
      EXPECT_TRUE(ic.matches(iout)) << "int32 n=" << n << " " << cpu_isa::name(level);
      FloatCase fc(n);
      std::vector<float> fout(n);
      poison(std::span<float>(fout));
      omp(fc.in.data(), fout.data(), n);
      EXPECT_TRUE(fc.matches(fout)) << "float32 n=" << n << " " << cpu_isa::name(level);
    }
  }
  cpu_isa::clear_limit();
}

// A bug in the omp kernel's carry between rounds or in its block bounds fails the bench's
// check, at every level, for int32 (exactly) and float32 (by the tolerance).
TEST(ScanMutation, OmpFaultsFail) {
  const std::size_t n = omp_sizes().back();  // several rounds: the carry matters
  IntCase ic(n);
  FloatCase fc(n);
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (OmpFault f : {OmpFault::none, OmpFault::lost_round_carry, OmpFault::short_block}) {
      std::vector<std::int32_t> iout(n);
      poison(std::span<std::int32_t>(iout));
      omp_with_fault(ic.in.data(), iout.data(), n, f);
      EXPECT_EQ(ic.matches(iout), f == OmpFault::none)
          << "int32 fault " << static_cast<int>(f) << " " << cpu_isa::name(level);
      std::vector<float> fout(n);
      poison(std::span<float>(fout));
      omp_with_fault(fc.in.data(), fout.data(), n, f);
      EXPECT_EQ(fc.matches(fout), f == OmpFault::none)
          << "float32 fault " << static_cast<int>(f) << " " << cpu_isa::name(level);
    }
  }
  cpu_isa::clear_limit();
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

// ---- Mutation tests: each mutation of a correct scan must fail the bench's check. ----
// A GPU tile is block * 16 elements (gpu/scan.cu); at block 256, 4096. A lost tile (its
// aggregate missing from the look-back) shifts every later output by the tile's sum.
constexpr std::size_t kGpuTile = 256 * 16;

// The default size (256M) is run in full, built once per suite: int32 (1 GiB in, 1 GiB
// reference) and float32 (1 GiB in, 2 GiB float64 reference).
const IntCase& int_case(std::size_t n) {
  static const IntCase small(100000), full(kLargeSize);
  return n == kLargeSize ? full : small;
}
const FloatCase& float_case(std::size_t n) {
  static const FloatCase small(100000), full(kLargeSize);
  return n == kLargeSize ? full : small;
}
std::vector<std::size_t> mutation_sizes() { return {100000, kLargeSize}; }

// int32 is checked exactly: one unit at one element fails, and so does every lost tile (the
// inputs are >= 1, so no tile sums to 0). Three tiles are dropped here (first, middle, last
// but one): exactness makes the position irrelevant.
TEST(ScanMutation, Int32OneUnitAndLostTileFail) {
  for (std::size_t n : mutation_sizes()) {
    const IntCase& c = int_case(n);
    std::vector<std::int32_t> out(n);
    omp(c.in.data(), out.data(), n);
    ASSERT_TRUE(c.matches(out)) << n;
    out[n / 2] += 1;
    EXPECT_FALSE(c.matches(out)) << n;
    out[n / 2] -= 1;
    const std::size_t tiles = (n + kGpuTile - 1) / kGpuTile;
    for (std::size_t t : {std::size_t{0}, tiles / 2, tiles - 2}) {
      std::int32_t agg = 0;
      for (std::size_t i = t * kGpuTile; i < (t + 1) * kGpuTile; ++i) agg += c.in[i];
      // In place and undone after: a copy of 1 GiB per tile costs more than the check.
      for (std::size_t i = (t + 1) * kGpuTile; i < n; ++i) out[i] -= agg;
      EXPECT_FALSE(c.matches(out)) << n << " tile " << t;
      for (std::size_t i = (t + 1) * kGpuTile; i < n; ++i) out[i] += agg;
    }
  }
}

// float32: the correct results in two orders (serial, and OpenMP's blocked order) pass; one
// ulp of the element's scale (its running sum of |x|) is inside the bound, so the smallest
// change outside is the tolerance itself; a lost first tile fails. A lost tile later in the
// array fails only while its sum exceeds tolerance * running sum |x| there (cpu/scan.hpp says
// why no sound bound can do better against a float32 serial scan): the test counts those and
// requires the exact int32 run to be the one that catches every tile.
TEST(ScanMutation, Float32CorrectPassesAndMutationsFail) {
  for (std::size_t n : mutation_sizes()) {
    const FloatCase& c = float_case(n);
    const double tol = float_tolerance(n).rel;
    std::vector<float> out(n);
    // Both orders at the small size; at 256M the serial one, whose error is the larger (the
    // blocked order's check would add ~2 s), and the mutations are made on the blocked result.
    serial(c.in.data(), out.data(), n);
    ASSERT_TRUE(c.matches(out)) << n;
    omp(c.in.data(), out.data(), n);
    if (n != kLargeSize) {
      ASSERT_TRUE(c.matches(out)) << n;
    }
    // Running sum of |x| at the last element: its scale.
    double abs_sum = 0.0;
    for (float x : c.in) abs_sum += std::fabs(x);
    const std::size_t last = n - 1;
    const float saved = out[last];
    const float ulp =
        std::nextafter(static_cast<float>(abs_sum), 1e30f) - static_cast<float>(abs_sum);
    EXPECT_LT(ulp, tol * abs_sum) << "one ulp of the scale is inside the bound, n=" << n;
    out[last] = static_cast<float>(c.ref[last] + 0.9 * tol * abs_sum);
    EXPECT_TRUE(c.matches(out)) << n;
    out[last] = std::nextafter(static_cast<float>(c.ref[last] + tol * abs_sum), 1e30f);
    EXPECT_FALSE(c.matches(out)) << n;
    out[last] = saved;
    // Lost first tile (the output is not used after: no undo).
    double agg = 0.0;
    for (std::size_t i = 0; i < kGpuTile; ++i) agg += c.in[i];
    for (std::size_t i = kGpuTile; i < n; ++i) out[i] = static_cast<float>(out[i] - agg);
    EXPECT_FALSE(c.matches(out)) << n;
    // Which lost tiles this tolerance sees: tile t is seen iff |agg_t| > tol * A at the first
    // element after it (A only grows, so that element is where the shift is largest relative).
    std::size_t seen = 0, tiles = 0;
    double running = 0.0;
    for (std::size_t t = 0; (t + 1) * kGpuTile < n; ++t, ++tiles) {
      double tile_sum = 0.0;
      for (std::size_t i = t * kGpuTile; i < (t + 1) * kGpuTile; ++i) {
        tile_sum += c.in[i];
        running += std::fabs(c.in[i]);
      }
      seen += std::fabs(tile_sum) > tol * (running + std::fabs(c.in[(t + 1) * kGpuTile])) ? 1 : 0;
    }
    RecordProperty("float32_lost_tiles_seen_n" + std::to_string(n),
                   std::to_string(seen) + " of " + std::to_string(tiles));
  }
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
