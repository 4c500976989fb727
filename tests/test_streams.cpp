#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/random.hpp"
#include "cpu/streams.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/cuda_raii.hpp"
#include "gpu/streams.hpp"
#endif

namespace tb::streams {
namespace {

std::vector<float> inputs(std::size_t n) {
  std::vector<float> v(n);
  fill_uniform(std::span<float>(v), kSeed, -1.f, 1.f);
  return v;
}

std::vector<float> reference(const std::vector<float>& in, int fma) {
  std::vector<float> out(in.size());
  serial(in.data(), out.data(), in.size(), fma);
  return out;
}

TEST(Streams, ElementIsTheFmaChain) {
  float x = 0.5f;
  for (int k = 0; k < 3; ++k) x = std::fma(x, kA, kB);
  EXPECT_EQ(element(0.5f, 3), x);
  EXPECT_EQ(element(0.25f, 0), 0.25f);
}

TEST(Streams, OutputStillDependsOnInputAfterTheBalancedChain) {
  EXPECT_NE(element(-0.5f, kFmaBalanced), element(0.5f, kFmaBalanced));
  EXPECT_NE(element(0.5f, kFmaBalanced), element(0.50001f, kFmaBalanced));
}

TEST(Streams, OmpMatchesSerial) {
  for (std::size_t n : test::edge_sizes()) {
    const auto in = inputs(n);
    const auto ref = reference(in, kFmaLight);
    std::vector<float> out(n);
    poison(std::span<float>(out));
    omp(in.data(), out.data(), n, kFmaLight);
    EXPECT_TRUE(
        passes(compare(std::span<const float>(out), std::span<const float>(ref)), kTolerance))
        << n;
  }
}

// Each version of serial and of the SIMD omp kernel (common/cpu_isa.hpp): every FMA rounds once
// at every level, so all give the baseline serial's bits.
TEST(Streams, EveryIsaLevelGivesTheSameBits) {
  cpu_isa::RestoreLimit restore_limit;
  for (std::size_t n : test::edge_sizes()) {
    const auto in = inputs(n);
    cpu_isa::set_limit(cpu_isa::Level::baseline);
    const auto ref = reference(in, kFmaLight);
    for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
      cpu_isa::set_limit(level);
      EXPECT_EQ(reference(in, kFmaLight), ref) << "serial " << cpu_isa::name(level) << " n=" << n;
      std::vector<float> out(n);
      poison(std::span<float>(out));
      omp(in.data(), out.data(), n, kFmaLight);
      EXPECT_EQ(out, ref) << "omp " << cpu_isa::name(level) << " n=" << n;
    }
  }
}

// The omp kernel's stores: plain up to the output's first cache-line boundary, streamed for the
// whole blocks after it, plain for the last partial block. Outputs at every offset from a line
// (and slices that start anywhere, on 1 to 3 threads) must all be written, with serial's bits.
TEST(Streams, OmpWritesEveryElementAtEveryAlignment) {
  cpu_isa::RestoreLimit restore_limit;
  const std::size_t n = 3000;
  const auto in = inputs(n);
  const auto ref = reference(in, kFmaLight);
  std::vector<float> buffer(n + 16 + 64);
  const auto base = reinterpret_cast<std::uintptr_t>(buffer.data());
  float* line = buffer.data() + (64 - base % 64) % 64 / sizeof(float);  // 64-byte aligned
  const int threads_before = omp_get_max_threads();
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (int threads : {1, 2, 3})
      for (std::size_t offset : {0u, 1u, 7u, 15u}) {
        std::span<float> out(line + offset, n);
        poison(out);
        omp_set_num_threads(threads);
        omp(in.data(), out.data(), n, kFmaLight);
        omp_set_num_threads(threads_before);
        EXPECT_TRUE(std::equal(out.begin(), out.end(), ref.begin()))
            << cpu_isa::name(level) << " threads=" << threads << " offset=" << offset;
      }
  }
}

// Mutation of the chain: one element (a vector tail's) one FMA short must fail the check.
TEST(Streams, CheckCatchesAShortChain) {
  const std::size_t n = 1001;
  const auto in = inputs(n);
  const auto ref = reference(in, kFmaLight);
  for (std::size_t i : {std::size_t{0}, n - 1}) {
    std::vector<float> mutated = ref;
    mutated[i] = element(in[i], kFmaLight - 1);
    EXPECT_FALSE(
        passes(compare(std::span<const float>(mutated), std::span<const float>(ref)), kTolerance))
        << i << " x=" << in[i];
  }
}

#if TWINBENCH_HAVE_CUDA
TEST(StreamsGpu, ComputeKernelMatchesSerial) {
  TB_REQUIRE_GPU();
  Stream s;
  for (int fma : {0, 1, 7, kFmaLight, 100}) {
    for (std::size_t n : test::edge_sizes()) {
      const auto in = inputs(n);
      const auto ref = reference(in, fma);
      auto d_in = upload(std::span<const float>(in));
      DeviceBuffer<float> d_out(n);
      for (int block : test::test_blocks()) {
        CUDA_CHECK(tb::test::memset_sync(d_out.data(), 0xFF, d_out.bytes()));
        gpu::streams_compute(d_in.data(), d_out.data(), n, fma, kA, kB, block, s);
        s.synchronize();
        std::vector<float> out(n);
        download(std::span<float>(out), d_out);
        EXPECT_TRUE(
            passes(compare(std::span<const float>(out), std::span<const float>(ref)), kTolerance))
            << "fma=" << fma << " n=" << n << " block=" << block;
      }
    }
  }
}

TEST(StreamsGpu, ChunkLengthCoversTheArray) {
  for (std::size_t n : test::edge_sizes())
    for (int chunks : {1, 3, 4, 16, 64}) {
      const std::size_t len = gpu::streams_chunk_len(n, chunks);
      EXPECT_GE(len * chunks, n);
      EXPECT_LT((len - 1) * chunks, n) << "n=" << n << " chunks=" << chunks;
    }
}

// Every (streams, chunks) pair, including more chunks than elements and chunk counts that do
// not divide n: the output must equal the serial reference everywhere.
TEST(StreamsGpu, PipelineMatchesSerialForEveryStreamAndChunkCount) {
  TB_REQUIRE_GPU();
  constexpr int kMax = 8;
  std::vector<Stream> streams(kMax);
  std::vector<Event> joins;
  for (int i = 0; i < kMax; ++i) joins.emplace_back(cudaEventDisableTiming);
  Event fork(cudaEventDisableTiming);
  std::vector<cudaStream_t> sh;
  std::vector<cudaEvent_t> jh;
  for (int i = 0; i < kMax; ++i) {
    sh.push_back(streams[i].get());
    jh.push_back(joins[i].get());
  }
  for (std::size_t n :
       {std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{(1u << 18) + 3}}) {
    const auto in = inputs(n);
    const auto ref = reference(in, kFmaLight);
    PinnedBuffer<float> h_in(n), h_out(n);
    std::memcpy(h_in.data(), in.data(), n * sizeof(float));
    DeviceBuffer<float> d_in(n), d_out(n);
    for (int ns : {1, 2, 4, 8}) {
      for (int chunks : {1, 3, 4, 16, 64}) {
        poison(h_out.span());
        CUDA_CHECK(tb::test::memset_sync(d_out.data(), 0xFF, d_out.bytes()));
        gpu::streams_pipeline({h_in.data(), h_out.data(), d_in.data(), d_out.data(), n},
                              {sh.data(), ns, fork.get(), jh.data()}, chunks, kFmaLight, kA, kB,
                              256);
        streams[0].synchronize();  // waits for every stream through the joins
        EXPECT_TRUE(passes(
            compare(std::span<const float>(h_out.span()), std::span<const float>(ref)), kTolerance))
            << "n=" << n << " streams=" << ns << " chunks=" << chunks;
      }
    }
  }
}
#endif

}  // namespace
}  // namespace tb::streams
