#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/random.hpp"
#include "common/validate.hpp"
#include "cpu/transpose.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/transpose.hpp"
#endif

namespace tb::transpose {
namespace {

// rows x cols: single elements, single rows and columns, sizes that are not multiples of a
// 32-wide tile or of the 64-wide tiles, non-square both ways, and shapes with many more tile
// columns than tile rows and the reverse (the diagonal order wraps; 192 x 320: tiles_r and
// tiles_c share a factor, so a wrong skew would visit some tiles twice).
std::vector<std::pair<std::size_t, std::size_t>> shapes() {
  return {{1, 1},     {1, 37},    {37, 1},    {31, 33},    {64, 64},   {65, 127},
          {100, 257}, {257, 100}, {513, 300}, {129, 1031}, {1000, 65}, {192, 320}};
}

struct Case {
  std::size_t rows, cols;
  std::vector<float> in, ref;
  Case(std::size_t r, std::size_t c) : rows(r), cols(c), in(r * c), ref(r * c) {
    fill_uniform(std::span<float>(in), kSeed, -1.f, 1.f);
    serial(in.data(), ref.data(), rows, cols);
  }
};

bool same(const std::vector<float>& got, const std::vector<float>& ref) {
  return passes(compare(std::span<const float>(got), std::span<const float>(ref)), kTolerance);
}

TEST(Transpose, SerialMovesEachElement) {
  Case c(3, 5);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t k = 0; k < 5; ++k) ASSERT_EQ(c.ref[k * 3 + r], c.in[r * 5 + k]);
}

TEST(Transpose, TwiceIsIdentity) {
  Case c(65, 127);
  std::vector<float> back(c.in.size());
  serial(c.ref.data(), back.data(), c.cols, c.rows);
  EXPECT_TRUE(same(back, c.in));
}

// omp's own shapes besides shapes(): rows a multiple of 16 (the streaming path when the output
// is aligned) with columns that leave 1 to 15 after whole 16-, 8- and 4-wide blocks, rows that
// leave 1 and 15 after whole 16-row strips, and fewer than 16 rows (no strip at all).
std::vector<std::pair<std::size_t, std::size_t>> omp_shapes() {
  auto s = shapes();
  for (std::pair<std::size_t, std::size_t> e : {std::pair<std::size_t, std::size_t>{16, 16},
                                                {32, 17},
                                                {48, 31},
                                                {16, 5},
                                                {64, 100},
                                                {17, 48},
                                                {47, 33},
                                                {15, 64},
                                                {256, 256},
                                                {160, 9}})
    s.push_back(e);
  return s;
}

// The output in an over-aligned buffer (64 bytes, so that streaming stores are allowed) with
// guards after it that must stay untouched.
struct AlignedOut {
  static constexpr std::size_t kGuard = 64;
  std::vector<float> storage;
  float* out;
  explicit AlignedOut(std::size_t n) : storage(n + kGuard + 16) {
    auto p = reinterpret_cast<std::uintptr_t>(storage.data());
    out = storage.data() + ((64 - p % 64) % 64) / sizeof(float);
    poison(std::span<float>(out, n + kGuard));
  }
  bool guard_intact(std::size_t n) const {
    for (std::size_t i = n; i < n + kGuard; ++i)
      if (!std::isnan(out[i])) return false;
    return true;
  }
};

TEST(Transpose, OmpMatchesSerialAtEveryIsaLevelAndStoreKind) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (Stores stores : {Stores::cached, Stores::streaming}) {
      for (auto [rows, cols] : omp_shapes()) {
        Case c(rows, cols);
        AlignedOut a(c.in.size());
        omp_with(c.in.data(), a.out, rows, cols, stores);
        const std::vector<float> got(a.out, a.out + c.in.size());
        EXPECT_TRUE(same(got, c.ref)) << cpu_isa::name(level) << " " << rows << "x" << cols
                                      << (stores == Stores::cached ? " cached" : " streaming");
        EXPECT_TRUE(a.guard_intact(c.in.size())) << rows << "x" << cols;
      }
    }
  }
}

// An output that is not 64-byte aligned cannot take streaming stores: omp falls back to cached
// stores rather than fault or write the wrong lines.
TEST(Transpose, OmpHandlesAMisalignedOutput) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    Case c(64, 48);
    AlignedOut a(c.in.size() + 1);
    omp(c.in.data(), a.out + 1, 64, 48);
    const std::vector<float> got(a.out + 1, a.out + 1 + c.in.size());
    EXPECT_TRUE(same(got, c.ref)) << cpu_isa::name(level);
  }
}

// Mutations of omp's own result that its structure invites must fail the (exact) check: one
// in-register block transposed with two lanes exchanged (a wrong shuffle mask), the column tail
// (cols % 16) left unwritten, and the row tail (rows % 16) left unwritten.
TEST(TransposeMutation, OmpStructureBugsFail) {
  Case c(47, 37);  // 2 strips + 15 rows, 2 blocks of 16 + 5 columns
  std::vector<float> good(c.in.size());
  omp(c.in.data(), good.data(), c.rows, c.cols);
  ASSERT_TRUE(same(good, c.ref));
  const auto at = [&c](std::size_t col, std::size_t row) { return col * c.rows + row; };
  std::vector<float> got = good;
  std::swap(got[at(3, 17)], got[at(3, 18)]);  // block (rows 16..31, cols 0..15): lanes 1 and 2
  EXPECT_FALSE(same(got, c.ref)) << "two lanes exchanged";
  got = good;
  for (std::size_t col = 32; col < 37; ++col)
    for (std::size_t row = 0; row < 32; ++row) got[at(col, row)] = std::nanf("");
  EXPECT_FALSE(same(got, c.ref)) << "column tail unwritten";
  got = good;
  for (std::size_t col = 0; col < 37; ++col)
    for (std::size_t row = 32; row < 47; ++row) got[at(col, row)] = 0.f;
  EXPECT_FALSE(same(got, c.ref)) << "row tail unwritten";
}

#if TWINBENCH_HAVE_CUDA
using Launch = std::function<void(const float*, float*, std::size_t, std::size_t, cudaStream_t)>;

// Floats past the output that a launch must leave alone (64 KiB).
constexpr std::size_t kGuardFloats = 16384;

// Runs `launch` on `in` (device, rows x cols) into a poisoned output with a guard after it;
// the output must equal `expected` and the guard still hold the poison. `offset` floats into
// both buffers (1: neither is 16-byte aligned).
void expect_launch(const Launch& launch, const std::vector<float>& in,
                   const std::vector<float>& expected, std::size_t rows, std::size_t cols,
                   const std::string& label, std::size_t offset = 0) {
  Stream s;
  std::vector<float> in_off(offset + in.size(), 1.0f);
  std::copy(in.begin(), in.end(), in_off.begin() + static_cast<std::ptrdiff_t>(offset));
  auto din = upload(std::span<const float>(in_off));
  DeviceBuffer<float> dout(offset + in.size() + kGuardFloats);
  CUDA_CHECK(tb::test::memset_sync(dout.data(), 0xFF, dout.bytes()));
  launch(din.data() + offset, dout.data() + offset, rows, cols, s);
  s.synchronize();
  std::vector<float> out(dout.size());
  download(std::span<float>(out), dout);
  const std::span<const float> got = std::span<const float>(out).subspan(offset, in.size());
  EXPECT_TRUE(passes(compare(got, std::span<const float>(expected)), kTolerance))
      << label << " " << rows << "x" << cols << " offset " << offset;
  std::vector<std::uint32_t> guard(kGuardFloats);
  std::memcpy(guard.data(), out.data() + offset + in.size(), kGuardFloats * sizeof(float));
  EXPECT_EQ(std::count(guard.begin(), guard.end(), 0xFFFFFFFFu),
            static_cast<std::ptrdiff_t>(kGuardFloats))
      << label << " wrote past the output: " << rows << "x" << cols;
}

// Runs `launch` on every shape into a poisoned output and compares with `copy ? in : ref`.
void expect_gpu_matches(const Launch& launch, const std::string& label, bool copy = false) {
  for (auto [rows, cols] : shapes()) {
    Case c(rows, cols);
    expect_launch(launch, c.in, copy ? c.in : c.ref, rows, cols, label);
  }
}

std::vector<Block2> test_blocks_2d() {
  return {{8, 8}, {16, 16}, {32, 32}, {32, 8}, {64, 4}, {256, 1}};
}

TEST(TransposeGpu, ArticleSlowMatchesSerial) {
  TB_REQUIRE_GPU();
  for (Block2 b : test_blocks_2d())
    expect_gpu_matches(
        [b](const float* in, float* out, std::size_t r, std::size_t c, cudaStream_t s) {
          gpu::transpose_cuda_article_slow(in, out, r, c, b, s);
        },
        "article_slow " + std::to_string(b.x) + "x" + std::to_string(b.y));
}

TEST(TransposeGpu, ArticleFastMatchesSerial) {
  TB_REQUIRE_GPU();
  for (Block2 b : test_blocks_2d())
    expect_gpu_matches(
        [b](const float* in, float* out, std::size_t r, std::size_t c, cudaStream_t s) {
          gpu::transpose_cuda_article_fast(in, out, r, c, b, s);
        },
        "article_fast " + std::to_string(b.x) + "x" + std::to_string(b.y));
}

TEST(TransposeGpu, TiledMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::transpose_cuda_tiled, "tiled");
}

TEST(TransposeGpu, TiledDiagMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::transpose_cuda_tiled_diag, "tiled_diag");
}

TEST(TransposeGpu, Tiled64MatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::transpose_cuda_tiled64, "tiled64");
}

TEST(TransposeGpu, Tiled64DiagMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::transpose_cuda_tiled64_diag, "tiled64_diag");
}

TEST(TransposeGpu, Tiled64SwizzleMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::transpose_cuda_tiled64_swizzle, "tiled64_swizzle");
}

// The swizzled kernel's paths: float4 on whole tiles at the benchmark's 8192^2; float4 on the
// whole tiles and scalar on the partial ones (8196 x 8200, 1000 x 1036: multiples of 4, not of
// 64); scalar everywhere (8191 x 8193, 999 x 1037, 70 x 3: rows or columns not multiples of 4;
// 4 x 8200: every tile partial).
TEST(TransposeGpu, Tiled64SwizzleLargeAndOddShapes) {
  TB_REQUIRE_GPU();
  const std::pair<std::size_t, std::size_t> large_and_odd[] = {
      {8192, 8192}, {8196, 8200}, {8191, 8193}, {1000, 1036}, {999, 1037}, {4, 8200}, {70, 3}};
  for (auto [rows, cols] : large_and_odd) {
    Case c(rows, cols);
    expect_launch(gpu::transpose_cuda_tiled64_swizzle, c.in, c.ref, rows, cols, "tiled64_swizzle");
  }
}

// Pointers off 16-byte alignment on float4-friendly shapes: the float4 path must not be taken.
TEST(TransposeGpu, Tiled64SwizzleUnalignedPointers) {
  TB_REQUIRE_GPU();
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{64, 64}, {1000, 1036}}) {
    Case c(rows, cols);
    for (std::size_t offset : {1, 2, 3})
      expect_launch(gpu::transpose_cuda_tiled64_swizzle, c.in, c.ref, rows, cols, "tiled64_swizzle",
                    offset);
  }
}

// Its offsets are 32-bit: a matrix of 2^32 elements or more is refused before any launch (no
// device needed: nothing is read or written).
TEST(Transpose, Tiled64SwizzleRefusesMatricesPast32BitOffsets) {
  const std::size_t k2p16 = std::size_t{1} << 16, k2p31 = std::size_t{1} << 31;
  EXPECT_THROW(gpu::transpose_cuda_tiled64_swizzle(nullptr, nullptr, k2p16, k2p16, nullptr),
               std::invalid_argument);
  EXPECT_THROW(gpu::transpose_cuda_tiled64_swizzle(nullptr, nullptr, 1, k2p31, nullptr),
               std::invalid_argument);
  EXPECT_THROW(gpu::transpose_cuda_tiled64_swizzle(nullptr, nullptr, k2p31, 1, nullptr),
               std::invalid_argument);
}

// Grids of 1, 3 and 7 blocks: every block walks many tiles through the grid-stride loop (and both
// barriers per tile); 7 blocks against e.g. 10 x 33 tiles also give blocks unequal trip counts.
TEST(TransposeGpu, TiledVariantsGridStride) {
  TB_REQUIRE_GPU();
  const std::pair<gpu::TiledVariant, const char*> variants[] = {
      {gpu::TiledVariant::diag, "tiled_diag"},
      {gpu::TiledVariant::tiled64, "tiled64"},
      {gpu::TiledVariant::tiled64_diag, "tiled64_diag"}};
  for (const auto& [variant, label] : variants)
    for (unsigned grid : {1u, 3u, 7u}) {
      const gpu::TiledVariant v = variant;
      expect_gpu_matches(
          [v, grid](const float* in, float* out, std::size_t r, std::size_t c, cudaStream_t s) {
            gpu::transpose_cuda_tiled_variant_grid(v, in, out, r, c, grid, s);
          },
          std::string(label) + " grid " + std::to_string(grid));
    }
}

TEST(TransposeGpu, CopyKernelCopies) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::copy_cuda_tiled, "copy", true);
}

// More tile rows than gridDim.y allows (65535): the grid-stride loop over tiles must cover them.
TEST(TransposeGpu, TallMatrixBeyondGridLimit) {
  TB_REQUIRE_GPU();
  const std::size_t rows = 65535u * 32u + 45u, cols = 3;
  Case c(rows, cols);
  Stream s;
  auto din = upload(std::span<const float>(c.in));
  DeviceBuffer<float> dout(c.in.size());
  std::vector<float> out(c.in.size());
  CUDA_CHECK(tb::test::memset_sync(dout.data(), 0xFF, dout.bytes()));
  gpu::transpose_cuda_tiled(din.data(), dout.data(), rows, cols, s);
  s.synchronize();
  download(std::span<float>(out), dout);
  EXPECT_TRUE(same(out, c.ref)) << "tiled";
  CUDA_CHECK(tb::test::memset_sync(dout.data(), 0xFF, dout.bytes()));
  gpu::transpose_cuda_article_slow(din.data(), dout.data(), rows, cols, {32, 1}, s);
  s.synchronize();
  download(std::span<float>(out), dout);
  EXPECT_TRUE(same(out, c.ref)) << "article_slow";
  // The 1D-grid variants have no gridDim.y limit; a tall matrix still checks the tile order's
  // bijection where tiles_r is far larger than tiles_c (the diagonal wraps many times).
  const std::pair<Launch, const char*> variants[] = {
      {gpu::transpose_cuda_tiled_diag, "tiled_diag"},
      {gpu::transpose_cuda_tiled64, "tiled64"},
      {gpu::transpose_cuda_tiled64_diag, "tiled64_diag"},
      {gpu::transpose_cuda_tiled64_swizzle, "tiled64_swizzle"}};
  for (const auto& [launch, label] : variants) {
    CUDA_CHECK(tb::test::memset_sync(dout.data(), 0xFF, dout.bytes()));
    launch(din.data(), dout.data(), rows, cols, s);
    s.synchronize();
    download(std::span<float>(out), dout);
    EXPECT_TRUE(same(out, c.ref)) << label;
  }
}
#endif

}  // namespace
}  // namespace tb::transpose
