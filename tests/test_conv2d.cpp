#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "common/cpu_isa.hpp"
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
  // filter_seed: the bench (bench/conv2d.cpp) uses kSeed + 100 + f.
  Case(Dims2 d, int f_, std::uint64_t filter_seed = 0)
      : w(d.w),
        h(d.h),
        f(f_),
        in(static_cast<std::size_t>(w) * h),
        filter(random_filter(f, filter_seed != 0 ? filter_seed : kSeed + f)),
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

// omp's own shapes besides images(): a strip is 2 vectors of the level's width (32, 16 or 8
// pixels), the last strip of a row is shifted left, and rows come in blocks of kBlockRows.
// Interiors (w - f + 1) just under, at and just over one and two strips at every level, single
// rows and columns, and heights that leave 1, 2 and 3 rows in the last block.
std::vector<Dims2> omp_images() {
  std::vector<Dims2> d = images();
  for (Dims2 e : std::vector<Dims2>{{1, 37},
                                    {40, 1},
                                    {13, 6},
                                    {37, 5},
                                    {38, 7},
                                    {39, 4},
                                    {70, 9},
                                    {71, 10},
                                    {101, 11},
                                    {3840 / 8, 21}})
    d.push_back(e);
  return d;
}

TEST(Conv2d, OmpMatchesSerialAtEveryIsaLevel) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (Dims2 d : omp_images()) {
      for (int f : kFilterSizes) {
        Case c(d, f);
        std::vector<float> out(c.in.size());
        poison(std::span<float>(out));
        omp(c.in.data(), out.data(), c.w, c.h, c.filter.data(), f);
        EXPECT_TRUE(matches(out, c.ref))
            << cpu_isa::name(level) << " " << d.w << "x" << d.h << " f=" << f;
      }
    }
  }
}

// Filter sizes without a register-blocked kernel (1, 9) take the row-at-a-time path.
TEST(Conv2d, OmpMatchesSerialForOtherFilterSizes) {
  for (int f : {1, 9}) {
    Case c({45, 19}, f);
    std::vector<float> out(c.in.size());
    poison(std::span<float>(out));
    omp(c.in.data(), out.data(), c.w, c.h, c.filter.data(), f);
    EXPECT_TRUE(matches(out, c.ref)) << "f=" << f;
  }
}

// first_touch leaves every pixel written (0), with omp's partition.
TEST(Conv2d, FirstTouchWritesEveryPixel) {
  std::vector<float> img(37 * 11);
  poison(std::span<float>(img));
  first_touch(img.data(), 37, 11);
  EXPECT_TRUE(std::all_of(img.begin(), img.end(), [](float v) { return v == 0.f; }));
}

// The tolerance must see one tap left out at a border pixel.
TEST(Conv2d, ToleranceCatchesAMissingTap) {
  Case c({33, 17}, 5);
  std::vector<float> out = c.ref;
  out[0] -= c.filter[0] * c.in[0];
  EXPECT_FALSE(matches(out, c.ref));
}

// ---- Mutation tests: each mutation of a correct result must fail the bench's check. ----
//
// The check (bench/conv2d.cpp) is compare(out, ref, kTolerance.scale_floor) against the serial
// result. Outputs lie in (0, 1), so max(|ref|, 1) = 1 and the bound is kTolerance.rel = 1e-5
// absolute for every pixel. The check is element-wise: a mutated image fails iff a mutated
// pixel does.

constexpr double kEdge = kTolerance.rel;  // absolute, as |ref| < scale_floor = 1

// The benchmark's inputs at the default image (4K UHD) for each filter size, built once for the
// suite (~0.3 s each), and two small images: the quick one and an odd one.
const Case& default_case(int f) {
  static const Case c3(kImage, 3, kSeed + 100 + 3), c5(kImage, 5, kSeed + 100 + 5),
      c7(kImage, 7, kSeed + 100 + 7);
  return f == 3 ? c3 : (f == 5 ? c5 : c7);
}
std::vector<const Case*> mutation_cases() {
  static const Case q3(kQuickImage, 3), q5(kQuickImage, 5), q7(kQuickImage, 7);
  static const Case o3({33, 17}, 3), o7({33, 17}, 7);
  return {&q3, &q5, &q7, &o3, &o7, &default_case(3), &default_case(5), &default_case(7)};
}
std::string label(const Case& c) {
  return std::to_string(c.w) + "x" + std::to_string(c.h) + " f=" + std::to_string(c.f);
}

// The bench's verdict on the reference with pixel i replaced by v (restored afterwards).
// A copy of the reference is kept per case, as copying 33 MB per mutation would dominate.
bool accepts_with(const Case& c, std::size_t i, float v) {
  static const Case* copied = nullptr;
  static std::vector<float> got;
  if (copied != &c) {
    got = c.ref;
    copied = &c;
  }
  got[i] = v;
  const bool ok = matches(got, c.ref);
  got[i] = c.ref[i];
  return ok;
}

// The same verdict from the one pixel: the check is element-wise and the other pixels are the
// reference's own, so this is the whole-image verdict at 1/8M of the cost (the per-tap sweeps).
bool pixel_accepts(const Case& c, std::size_t i, float v) {
  return passes(compare(std::span<const float>(&v, 1), std::span<const float>(&c.ref[i], 1),
                        kTolerance.scale_floor),
                kTolerance);
}

// How a tap outside the image is read: the code's rule (clamp to edge), or a wrong one.
enum class Border { clamp, zero, reflect };

// One output pixel in fp32, taps in (dy, dx) order as serial sums them. `skip` leaves one tap
// out (-1: none); rows above `top` are clamped to `top` (0: the image edge; a tile's first row
// for a halo bug that treats the tile edge as the image edge).
float pixel(const Case& c, int x, int y, Border border, int skip = -1, int top = 0) {
  const int r = c.f / 2;
  float sum = 0.f;
  for (int dy = 0; dy < c.f; ++dy)
    for (int dx = 0; dx < c.f; ++dx) {
      if (dy * c.f + dx == skip) continue;
      int sy = y + dy - r, sx = x + dx - r;
      if (border == Border::zero && (sy < 0 || sy >= c.h || sx < 0 || sx >= c.w)) continue;
      if (border == Border::reflect) {  // -1 -> 1, h -> h - 2 (the edge pixel not repeated)
        sy = sy < 0 ? -sy : (sy >= c.h ? 2 * (c.h - 1) - sy : sy);
        sx = sx < 0 ? -sx : (sx >= c.w ? 2 * (c.w - 1) - sx : sx);
      }
      sy = std::clamp(sy, top, c.h - 1);
      sx = std::clamp(sx, 0, c.w - 1);
      sum += c.filter[dy * c.f + dx] * c.in[static_cast<std::size_t>(sy) * c.w + sx];
    }
  return sum;
}

// A correct result in another order: taps summed last to first, dx outer, with fused
// multiply-adds (as a GPU kernel may).
std::vector<float> reordered(const Case& c) {
  std::vector<float> out(c.in.size());
  const int r = c.f / 2;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < c.w; ++x) {
      float sum = 0.f;
      for (int dx = c.f - 1; dx >= 0; --dx)
        for (int dy = c.f - 1; dy >= 0; --dy) {
          const int sy = std::clamp(y + dy - r, 0, c.h - 1),
                    sx = std::clamp(x + dx - r, 0, c.w - 1);
          sum = std::fmaf(c.filter[dy * c.f + dx], c.in[static_cast<std::size_t>(sy) * c.w + sx],
                          sum);
        }
      out[static_cast<std::size_t>(y) * c.w + x] = sum;
    }
  return out;
}

// cuda_separable's arithmetic on the host: a row pass with g, then a column pass with g, each in
// fp32 with clamped borders; the bench checks it against the serial 2D filter outer(g).
std::vector<float> separable_two_pass(const Case& c) {
  const int r = c.f / 2;
  std::vector<float> rows(c.in.size()), out(c.in.size());
  const auto at = [&c](int y, int x) { return static_cast<std::size_t>(y) * c.w + x; };
#pragma omp parallel for schedule(static)
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < c.w; ++x) {
      float sum = 0.f;
      for (int d = 0; d < c.f; ++d)
        sum += c.gauss[d] * c.in[at(y, std::clamp(x + d - r, 0, c.w - 1))];
      rows[at(y, x)] = sum;
    }
#pragma omp parallel for schedule(static)
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < c.w; ++x) {
      float sum = 0.f;
      for (int d = 0; d < c.f; ++d)
        sum += c.gauss[d] * rows[at(std::clamp(y + d - r, 0, c.h - 1), x)];
      out[at(y, x)] = sum;
    }
  return out;
}

TEST(Conv2dMutation, CorrectResultsInOtherOrdersPass) {
  for (const Case* c : mutation_cases()) {
    std::vector<float> out(c->in.size());
    poison(std::span<float>(out));
    omp(c->in.data(), out.data(), c->w, c->h, c->filter.data(), c->f);
    EXPECT_TRUE(matches(out, c->ref)) << "omp " << label(*c);
    EXPECT_TRUE(matches(reordered(*c), c->ref)) << "reordered " << label(*c);
    EXPECT_TRUE(matches(separable_two_pass(*c), c->ref_separable)) << "separable " << label(*c);
  }
}

// One ulp of an output (<= 6e-8 in (0, 1)) is legitimately inside the check: fp32 sums of f^2
// products of any order differ by up to gamma_{f^2} = f^2 2^-24 (2.9e-6 at f = 7, ~50 ulp of
// 0.5), and the tolerance must admit that. The smallest change the check can tell apart is the
// bound itself, 1e-5: just inside passes, the next float outside fails, at the largest and the
// smallest output of each image.
TEST(Conv2dMutation, OneUlpPassesAndSmallestChangeOutsideFails) {
  EXPECT_LT(kMaxFilter * kMaxFilter * 0x1p-24, kEdge / 3);
  for (const Case* c : mutation_cases()) {
    const auto [lo, hi] = std::minmax_element(c->ref.begin(), c->ref.end());
    for (auto it : {lo, hi}) {
      const auto i = static_cast<std::size_t>(it - c->ref.begin());
      const float r = *it;
      EXPECT_TRUE(accepts_with(*c, i, std::nextafter(r, 2.f))) << label(*c);
      EXPECT_TRUE(accepts_with(*c, i, static_cast<float>(r + 0.9 * kEdge))) << label(*c);
      EXPECT_TRUE(accepts_with(*c, i, static_cast<float>(r - 0.9 * kEdge))) << label(*c);
      EXPECT_FALSE(accepts_with(*c, i, std::nextafter(static_cast<float>(r + kEdge), 2.f)))
          << label(*c);
      EXPECT_FALSE(accepts_with(*c, i, std::nextafter(static_cast<float>(r - kEdge), -2.f)))
          << label(*c);
    }
  }
}

// The output tiles of the GPU variants at the blocks the tests and the sweep use (gpu/conv2d.cu):
// cuda_naive one pixel a thread (8x8, 32x32, 256x1 blocks), cuda_tiled 4x4 pixels a thread
// (16x16 -> 64x64, 32x8 -> 128x32, 256x1 -> 1024x4), cuda_direct 128x16 a warp (8 warps:
// 128x128), cuda_separable 4 rows a thread (32x8 -> 32x32).
std::vector<Dims2> gpu_tiles() {
  return {{8, 8}, {32, 32}, {256, 1}, {64, 64}, {128, 32}, {1024, 4}, {128, 128}};
}

// A tile left at the harness's poison (NaN) or at 0 fails: the first tile (a corner, with the
// halo), the last (partial at the default image: 2160 % 64 = 48 rows) and one in the middle.
// Every output is far from 0 (a weighted mean of inputs in (0, 1)), so any pixel left at 0 fails.
TEST(Conv2dMutation, DroppedTileFails) {
  for (const Case* c : mutation_cases()) {
    EXPECT_GT(*std::min_element(c->ref.begin(), c->ref.end()), 2 * kEdge) << label(*c);
    std::vector<float> got = c->ref;
    for (Dims2 t : gpu_tiles()) {
      const int tiles_x = (c->w + t.w - 1) / t.w, tiles_y = (c->h + t.h - 1) / t.h;
      for (auto [tx, ty] :
           {std::pair{0, 0}, {tiles_x / 2, tiles_y / 2}, {tiles_x - 1, tiles_y - 1}})
        for (float v : {std::nanf(""), 0.f}) {
          const auto fill = [&](const std::vector<float>* from) {
            for (int y = ty * t.h; y < std::min(c->h, (ty + 1) * t.h); ++y)
              for (int x = tx * t.w; x < std::min(c->w, (tx + 1) * t.w); ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * c->w + x;
                got[i] = from ? (*from)[i] : v;
              }
          };
          fill(nullptr);
          EXPECT_FALSE(matches(got, c->ref)) << label(*c) << " tile " << t.w << "x" << t.h << " at "
                                             << tx << "," << ty << " v=" << v;
          fill(&c->ref);  // restored for the next tile
        }
    }
  }
}

// One tap left out of one pixel (recomputed without it), at a corner, the centre and a right
// border pixel, for every tap. A tap whose contribution k * in is under the bound (1e-5) cannot
// be told from rounding by this check; those of at least twice the bound must all fail. Over
// the whole default image the share of (pixel, tap) pairs under the bound is ~E[1e-5 / k]:
// ~0.09% at f = 7 (measured; k as small as 0.05 / 25.7 = 0.002 needs in < 0.005), and about a third
// of those are under gamma_{f^2} (2.9e-6), where no bound that admits a correct fp32 sum can see
// them. A real loop bug drops the tap for many pixels, and the worst of those is seen.
TEST(Conv2dMutation, DroppedTapFails) {
  for (const Case* c : mutation_cases()) {
    const int r = c->f / 2;
    std::size_t tried = 0, missed = 0;
    for (auto [x, y] : {std::pair{0, 0}, {c->w / 2, c->h / 2}, {c->w - 1, std::min(r, c->h - 1)}}) {
      const std::size_t i = static_cast<std::size_t>(y) * c->w + x;
      for (int tap = 0; tap < c->f * c->f; ++tap) {
        const int sy = std::clamp(y + tap / c->f - r, 0, c->h - 1);
        const int sx = std::clamp(x + tap % c->f - r, 0, c->w - 1);
        const double part =
            double{c->filter[tap]} * c->in[static_cast<std::size_t>(sy) * c->w + sx];
        if (part < 2 * kEdge) continue;
        ++tried;
        missed += pixel_accepts(*c, i, pixel(*c, x, y, Border::clamp, tap)) ? 1 : 0;
      }
      // The largest tap through the whole-image check.
      const auto big = std::max_element(c->filter.begin(), c->filter.end()) - c->filter.begin();
      EXPECT_FALSE(accepts_with(*c, i, pixel(*c, x, y, Border::clamp, static_cast<int>(big))))
          << label(*c);
    }
    EXPECT_GT(tried, 0u) << label(*c);
    EXPECT_EQ(missed, 0u) << label(*c) << ": " << missed << " of " << tried << " pass";
  }
  // The whole default image at f = 7: the share of single-tap drops under the bound.
  const Case& c = default_case(7);
  std::size_t under = 0;
  for (int y = 3; y < c.h - 3; ++y)
    for (int x = 3; x < c.w - 3; ++x)
      for (int tap = 0; tap < 49; ++tap)
        under +=
            double{c.filter[tap]} *
                        c.in[static_cast<std::size_t>(y + tap / 7 - 3) * c.w + x + tap % 7 - 3] <=
                    kEdge
                ? 1
                : 0;
  const double share = static_cast<double>(under) / (49.0 * (c.w - 6) * (c.h - 6));
  EXPECT_LT(share, 2e-3);
  RecordProperty("f7_single_tap_drops_under_bound", std::to_string(share));
}

// Halo bugs: a border row or column computed with a border rule other than clamp-to-edge (zero
// padding, or mirroring), and a tile's first row computed as if the tile's top were the image's
// (its halo rows clamped to the tile's first row: the tile at y0 = 64, cuda_tiled's 16x16 tile).
TEST(Conv2dMutation, HaloBugsFail) {
  for (const Case* c : mutation_cases()) {
    const int y0 = std::min(64, c->h / 2);
    struct Bug {
      const char* what;
      bool column;  // the last column instead of a row
      int row;
      Border border;
      int top;
    };
    for (const Bug& b : {Bug{"top row zero", false, 0, Border::zero, 0},
                         Bug{"top row reflect", false, 0, Border::reflect, 0},
                         Bug{"bottom row zero", false, c->h - 1, Border::zero, 0},
                         Bug{"right column zero", true, 0, Border::zero, 0},
                         Bug{"right column reflect", true, 0, Border::reflect, 0},
                         Bug{"tile row clamped", false, y0, Border::clamp, y0}}) {
      std::vector<float> got = c->ref;
      if (b.column) {
        for (int y = 0; y < c->h; ++y)
          got[static_cast<std::size_t>(y) * c->w + c->w - 1] = pixel(*c, c->w - 1, y, b.border);
      } else {
        for (int x = 0; x < c->w; ++x)
          got[static_cast<std::size_t>(b.row) * c->w + x] =
              pixel(*c, x, b.row, b.border, -1, b.top);
      }
      EXPECT_FALSE(matches(got, c->ref)) << label(*c) << " " << b.what;
    }
    // The same rows recomputed with the right rule pass (pixel() agrees with serial).
    std::vector<float> got = c->ref;
    for (int x = 0; x < c->w; ++x) got[x] = pixel(*c, x, 0, Border::clamp);
    EXPECT_TRUE(matches(got, c->ref)) << label(*c);
  }
}

// The bugs omp's structure invites, each applied to omp's own (correct) output: the shifted last
// strip of a row skipped (its pixels left at the poison), the last, partial row block skipped,
// a row block reading its input rows one row off (src[] built from y0 + 1), and the right
// border columns read without clamping (the taps past the row's end reading the next row's
// first pixels, as an interior strip run to the edge would).
TEST(Conv2dMutation, OmpStructureBugsFail) {
  static const Case odd({257, 131}, 7), wide({516, 9}, 5), small({71, 10}, 3);
  for (const Case* c : std::vector<const Case*>{&odd, &wide, &small, &default_case(7)}) {
    const int r = c->f / 2;
    std::vector<float> good(c->in.size());
    omp(c->in.data(), good.data(), c->w, c->h, c->filter.data(), c->f);
    ASSERT_TRUE(matches(good, c->ref)) << label(*c);
    const auto at = [c](int y, int x) { return static_cast<std::size_t>(y) * c->w + x; };
    const auto fails = [&](const char* what, const std::function<void(std::vector<float>&)>& bug) {
      std::vector<float> got = good;
      bug(got);
      EXPECT_FALSE(matches(got, c->ref)) << label(*c) << " " << what;
    };
    fails("last strip of each row skipped", [&](std::vector<float>& g) {
      for (int y = 0; y < c->h; ++y)
        for (int x = std::max(r, c->w - r - 8); x < c->w - r; ++x) g[at(y, x)] = std::nanf("");
    });
    fails("last partial row block skipped", [&](std::vector<float>& g) {
      for (int y = (c->h - 1) / kBlockRows * kBlockRows; y < c->h; ++y)
        for (int x = 0; x < c->w; ++x) g[at(y, x)] = std::nanf("");
    });
    fails("row block one input row off", [&](std::vector<float>& g) {
      const int y0 = c->h / 2 / kBlockRows * kBlockRows;
      for (int y = y0; y < std::min(c->h, y0 + kBlockRows); ++y)
        for (int x = 0; x < c->w; ++x)
          g[at(y, x)] = pixel(*c, x, std::min(y + 1, c->h - 1), Border::clamp);
    });
    fails("right border unclamped", [&](std::vector<float>& g) {
      for (int y = 0; y + 1 < c->h; ++y)
        for (int x = c->w - r; x < c->w; ++x) {
          float sum = 0.f;
          for (int dy = 0; dy < c->f; ++dy) {
            const int sy = std::clamp(y + dy - r, 0, c->h - 2);
            for (int dx = 0; dx < c->f; ++dx)
              sum += c->filter[dy * c->f + dx] * c->in[at(sy, 0) + x + dx - r];  // may run on
          }
          g[at(y, x)] = sum;
        }
    });
  }
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
