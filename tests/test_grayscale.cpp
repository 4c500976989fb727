#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/random.hpp"
#include "cpu/grayscale.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/grayscale.hpp"
#endif

namespace tb::grayscale {
namespace {

struct Case {
  Dims2 d;
  std::vector<float> rgb, ref;
  explicit Case(Dims2 dims) : d(dims), rgb(3 * px()), ref(px()) {
    fill_uniform(std::span<float>(rgb), kSeed, 0.f, 1.f);
    serial(rgb.data(), ref.data(), d.w, d.h);
  }
  std::size_t px() const { return static_cast<std::size_t>(d.w) * d.h; }
  bool accepts(const std::vector<float>& out) const {
    return passes(
        compare(std::span<const float>(out), std::span<const float>(ref), kTolerance.scale_floor),
        kTolerance);
  }
};

// 1x1, odd sizes that no block shape divides, and a tall-thin and a wide-short image.
std::vector<Dims2> edge_images() {
  return {{1, 1}, {3, 5}, {17, 33}, {127, 65}, {1000, 3}, {3, 1000}, {64, 9}, {4, 4}};
}

TEST(Grayscale, SerialWeightsChannels) {
  const float rgb[] = {1.f, 0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 1.f};
  float gray[3];
  serial(rgb, gray, 3, 1);
  EXPECT_FLOAT_EQ(gray[0], kR);
  EXPECT_FLOAT_EQ(gray[1], kG);
  EXPECT_FLOAT_EQ(gray[2], kB);
}

TEST(Grayscale, OmpMatchesSerialAtEveryIsaLevel) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (Dims2 d : edge_images()) {
      Case c(d);
      std::vector<float> out(c.px());
      poison(std::span<float>(out));
      omp(c.rgb.data(), out.data(), d.w, d.h);
      EXPECT_TRUE(c.accepts(out)) << cpu_isa::name(level) << " " << d.w << "x" << d.h;
    }
  }
}

// Mutations of omp's result that a vectorised, row-partitioned kernel invites must fail: the
// channels read one lane off (pixel p taking g, b of p and r of p + 1: a wrong deinterleave), two
// weights exchanged, and a row's vector tail (its last w % 16 pixels) left unwritten.
TEST(GrayscaleMutation, OmpStructureBugsFail) {
  Case c({37, 5});
  std::vector<float> good(c.px());
  omp(c.rgb.data(), good.data(), 37, 5);
  ASSERT_TRUE(c.accepts(good));
  std::vector<float> got(c.px());
  for (std::size_t p = 0; p < c.px(); ++p) {
    const std::size_t q = 3 * p + 1;  // one channel off
    got[p] = kR * c.rgb[q] + kG * c.rgb[q + 1] + kB * c.rgb[(q + 2) % c.rgb.size()];
  }
  EXPECT_FALSE(c.accepts(got)) << "deinterleave one channel off";
  for (std::size_t p = 0; p < c.px(); ++p)
    got[p] = kG * c.rgb[3 * p] + kR * c.rgb[3 * p + 1] + kB * c.rgb[3 * p + 2];
  EXPECT_FALSE(c.accepts(got)) << "weights exchanged";
  got = good;
  for (int y = 0; y < 5; ++y)
    for (int x = 32; x < 37; ++x) got[static_cast<std::size_t>(y) * 37 + x] = std::nanf("");
  EXPECT_FALSE(c.accepts(got)) << "row tail unwritten";
}

#if TWINBENCH_HAVE_CUDA
using Launch = void (*)(const float*, float*, int, int, Block2, cudaStream_t);

void expect_gpu_matches(Launch launch, const char* label) {
  Stream s;
  for (Dims2 d : edge_images()) {
    Case c(d);
    auto drgb = upload(std::span<const float>(c.rgb));
    DeviceBuffer<float> dgray(c.px());
    for (Block2 b : {Block2{8, 8}, Block2{16, 16}, Block2{32, 32}, Block2{32, 4}}) {
      CUDA_CHECK(tb::test::memset_sync(dgray.data(), 0xFF, dgray.bytes()));
      launch(drgb.data(), dgray.data(), d.w, d.h, b, s);
      s.synchronize();
      std::vector<float> out(c.px());
      download(std::span<float>(out), dgray);
      EXPECT_TRUE(c.accepts(out)) << label << " " << d.w << "x" << d.h << " block " << b.x << "x"
                                  << b.y;
    }
  }
}

TEST(GrayscaleGpu, ArticleOrderMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::grayscale_cuda_article, "cuda_article");
}

TEST(GrayscaleGpu, CoalescedOrderMatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::grayscale_cuda_coalesced, "cuda_coalesced");
}
TEST(GrayscaleGpu, Vec4MatchesSerial) {
  TB_REQUIRE_GPU();
  expect_gpu_matches(gpu::grayscale_cuda_vec4, "cuda_coalesced_vec4");
}
#endif

}  // namespace
}  // namespace tb::grayscale
