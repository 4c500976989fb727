#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "common/validate.hpp"
#include "cpu/conv2d.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/conv2d.hpp"
#endif

namespace tb::conv2d {
namespace {

// A single pixel, images narrower or shorter than the filter, and sizes that are not
// multiples of any block, of the 4 x 4 pixels a thread of cuda_tiled covers, or of the 4 rows
// a thread of cuda_separable covers. Widths that are not multiples of 4 take cuda_tiled's
// scalar (4-byte) copies and stores everywhere; 264 and 516 (multiples of 4, wider than three
// tiles of every test block up to 32 threads wide) also run its 16-byte path in interior blocks,
// with the border blocks beside them.
std::vector<Dims2> images() {
  return {{1, 1}, {2, 3}, {7, 5}, {33, 17}, {130, 67}, {257, 131}, {264, 70}, {516, 9}};
}

struct Case {
  int w, h, f;
  std::vector<float> in, filter, gauss, gauss_2d, ref, ref_separable;
  Case(Dims2 d, int f_)
      : w(d.w),
        h(d.h),
        f(f_),
        in(static_cast<std::size_t>(w) * h),
        filter(random_filter(f, kSeed + f)),
        gauss(gaussian_1d(f)),
        gauss_2d(outer(gauss)),
        ref(in.size()),
        ref_separable(in.size()) {
    fill_uniform(std::span<float>(in), kSeed, 0.f, 1.f);
    serial(in.data(), ref.data(), w, h, filter.data(), f);
    serial(in.data(), ref_separable.data(), w, h, gauss_2d.data(), f);
  }
};

bool matches(const std::vector<float>& got, const std::vector<float>& ref) {
  return passes(
      compare(std::span<const float>(got), std::span<const float>(ref), kTolerance.scale_floor),
      kTolerance);
}

// The definition, pixel by pixel, in double: clamp-to-edge correlation.
TEST(Conv2d, SerialIsClampedCorrelation) {
  for (Dims2 d : std::vector<Dims2>{{1, 1}, {3, 2}, {9, 8}}) {
    for (int f : kFilterSizes) {
      Case c(d, f);
      const int r = f / 2;
      for (int y = 0; y < c.h; ++y) {
        for (int x = 0; x < c.w; ++x) {
          double sum = 0;
          for (int dy = 0; dy < f; ++dy)
            for (int dx = 0; dx < f; ++dx) {
              const int sy = std::clamp(y + dy - r, 0, c.h - 1);
              const int sx = std::clamp(x + dx - r, 0, c.w - 1);
              sum += double(c.filter[dy * f + dx]) * c.in[sy * c.w + sx];
            }
          EXPECT_NEAR(c.ref[y * c.w + x], sum, 1e-6)
              << d.w << "x" << d.h << " f=" << f << " " << x << "," << y;
        }
      }
    }
  }
}

TEST(Conv2d, FiltersAreNormalised) {
  for (int f : kFilterSizes) {
    double s = 0, g = 0;
    for (float v : random_filter(f, 1)) s += v;
    for (float v : outer(gaussian_1d(f))) g += v;
    EXPECT_NEAR(s, 1.0, 1e-6);
    EXPECT_NEAR(g, 1.0, 1e-6);
  }
}

TEST(Conv2d, OmpMatchesSerial) {
  for (Dims2 d : images()) {
    for (int f : kFilterSizes) {
      Case c(d, f);
      std::vector<float> out(c.in.size());
      poison(std::span<float>(out));
      omp(c.in.data(), out.data(), c.w, c.h, c.filter.data(), f);
      EXPECT_EQ(out, c.ref) << d.w << "x" << d.h << " f=" << f;
    }
  }
}

// The tolerance must see one tap left out at a border pixel.
TEST(Conv2d, ToleranceCatchesAMissingTap) {
  Case c({33, 17}, 5);
  std::vector<float> out = c.ref;
  out[0] -= c.filter[0] * c.in[0];
  EXPECT_FALSE(matches(out, c.ref));
}

#if TWINBENCH_HAVE_CUDA
// The shapes the benchmark sweeps (--sweep=all), plus 64x2.
std::vector<Block2> blocks() {
  return {{8, 8},   {16, 8}, {16, 16}, {32, 4},  {32, 8}, {32, 16},
          {32, 32}, {64, 4}, {128, 2}, {256, 1}, {64, 2}};
}

enum class Kind { naive, tiled, direct, separable };

// Runs one cuda_tiled-family launcher (its filter in constant memory already).
void launch_2d(Kind kind, const float* in, float* out, const Case& c, int f, Block2 b,
               cudaStream_t s) {
  if (kind == Kind::tiled) gpu::conv2d_cuda_tiled(in, out, c.w, c.h, f, b, s);
  if (kind == Kind::direct) gpu::conv2d_cuda_direct(in, out, c.w, c.h, f, b, s);
}

void expect_gpu_matches(Kind kind) {
  Stream s;
  for (Dims2 d : images()) {
    for (int f : kFilterSizes) {
      Case c(d, f);
      auto din = upload(std::span<const float>(c.in));
      auto dfilter = upload(std::span<const float>(c.filter));
      DeviceBuffer<float> dout(c.in.size());
      if (kind == Kind::tiled || kind == Kind::direct)
        gpu::conv2d_set_tiled_filter(c.filter.data(), f, s);
      if (kind == Kind::separable) gpu::conv2d_set_separable_filter(c.gauss.data(), f, s);
      for (Block2 b : blocks()) {
        CUDA_CHECK(cudaMemsetAsync(dout.data(), 0xFF, dout.bytes(), s));
        if (kind == Kind::naive)
          gpu::conv2d_cuda_naive(din.data(), dout.data(), c.w, c.h, dfilter.data(), f, b, s);
        launch_2d(kind, din.data(), dout.data(), c, f, b, s);
        if (kind == Kind::separable)
          gpu::conv2d_cuda_separable(din.data(), dout.data(), c.w, c.h, f, b, s);
        s.synchronize();
        std::vector<float> out(c.in.size());
        download(std::span<float>(out), dout);
        EXPECT_TRUE(matches(out, kind == Kind::separable ? c.ref_separable : c.ref))
            << d.w << "x" << d.h << " f=" << f << " block=" << b.x << "x" << b.y;
      }
    }
  }
}

TEST(Conv2dGpu, NaiveMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(Kind::naive);
}

TEST(Conv2dGpu, TiledMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(Kind::tiled);
}

TEST(Conv2dGpu, DirectMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(Kind::direct);
}

TEST(Conv2dGpu, SeparableMatchesSerial2d) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(Kind::separable);
}

// cuda_tiled and cuda_direct with buffers that start 4 bytes past a 16-byte boundary: the
// launchers must fall back to 4-byte loads, copies and stores even though the width is a
// multiple of 4 (a 16-byte access at a misaligned address faults).
TEST(Conv2dGpu, TiledAndDirectHandleMisalignedBuffers) {
  TB_REQUIRE_GPU();
  Stream s;
  for (Kind kind : {Kind::tiled, Kind::direct})
    for (int f : kFilterSizes) {
      Case c({264, 70}, f);
      std::vector<float> padded(c.in.size() + 1);
      std::copy(c.in.begin(), c.in.end(), padded.begin() + 1);
      auto din = upload(std::span<const float>(padded));
      DeviceBuffer<float> dout(padded.size());
      gpu::conv2d_set_tiled_filter(c.filter.data(), f, s);
      for (Block2 b : std::vector<Block2>{{8, 8}, {32, 8}}) {
        CUDA_CHECK(cudaMemsetAsync(dout.data(), 0xFF, dout.bytes(), s));
        launch_2d(kind, din.data() + 1, dout.data() + 1, c, f, b, s);
        s.synchronize();
        std::vector<float> all(padded.size());
        download(std::span<float>(all), dout);
        std::vector<float> out(all.begin() + 1, all.end());
        EXPECT_TRUE(matches(out, c.ref))
            << "kind=" << static_cast<int>(kind) << " f=" << f << " block=" << b.x << "x" << b.y;
      }
    }
}

// A 16x16 image and its 3x3 filter on the device (loaded into constant memory), for the tests
// of launches that must be refused before they run.
struct SmallImage {
  Stream s;
  Case c{{16, 16}, 3};
  DeviceBuffer<float> in = upload(std::span<const float>(c.in));
  DeviceBuffer<float> out{c.in.size()};
  SmallImage() { gpu::conv2d_set_tiled_filter(c.filter.data(), 3, s); }
};

// A block whose tile cannot fit in shared memory is refused with the reason (1x2048 would need
// 12 x 8194 floats, 393 KB, more than any GPU gives a block), not launched.
TEST(Conv2dGpu, TiledRefusesATileTooLargeForSharedMemory) {
  TB_REQUIRE_GPU();
  SmallImage m;
  EXPECT_THROW(gpu::conv2d_cuda_tiled(m.in.data(), m.out.data(), 16, 16, 3, {1, 2048}, m.s),
               std::invalid_argument);
}

// cuda_direct works per warp: a block that is not a whole number of warps is refused.
TEST(Conv2dGpu, DirectRefusesAPartialWarpBlock) {
  TB_REQUIRE_GPU();
  SmallImage m;
  EXPECT_THROW(gpu::conv2d_cuda_direct(m.in.data(), m.out.data(), 16, 16, 3, {8, 2}, m.s),
               std::invalid_argument);
  EXPECT_THROW(gpu::conv2d_cuda_direct_stats(16, 16, 3, {4, 4}), std::invalid_argument);
}

// A launch whose filter size differs from the one in constant memory is refused.
TEST(Conv2dGpu, TiledRefusesAStaleFilter) {
  TB_REQUIRE_GPU();
  SmallImage m;
  EXPECT_THROW(gpu::conv2d_cuda_tiled(m.in.data(), m.out.data(), 16, 16, 5, {16, 16}, m.s),
               std::logic_error);
}
#endif

}  // namespace
}  // namespace tb::conv2d
