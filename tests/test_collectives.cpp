#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "common/collectives.hpp"
#include "tests/test_util.hpp"
#if TWINBENCH_HAVE_CUDA
#include "common/gpu_context.hpp"
#include "gpu/collectives.hpp"
#include "gpu/nccl.hpp"
#endif

namespace tb::collectives {
namespace {

// What each rank holds after `op`, computed the plain way from every rank's inputs: the model
// the device check's expected_value must agree with.
std::vector<std::vector<float>> simulate(Op op, int ranks, const Counts& c) {
  std::vector<std::vector<float>> in(ranks), out(ranks, std::vector<float>(c.recv));
  for (int r = 0; r < ranks; ++r)
    for (std::size_t i = 0; i < c.send; ++i) in[r].push_back(input_value(r, i));
  for (int k = 0; k < ranks; ++k)
    for (std::size_t i = 0; i < c.recv; ++i) {
      float& v = out[k][i];
      switch (op) {
        case Op::all_reduce:
          v = 0.f;
          for (int r = 0; r < ranks; ++r) v += in[r][i];
          break;
        case Op::all_gather:
          v = in[i / c.chunk][i % c.chunk];
          break;
        case Op::reduce_scatter:
          v = 0.f;
          for (int r = 0; r < ranks; ++r) v += in[r][k * c.chunk + i];
          break;
        case Op::broadcast:
          v = in[kRoot][i];
          break;
        case Op::all_to_all:
          v = in[i / c.chunk][k * c.chunk + i % c.chunk];
          break;
      }
    }
  return out;
}

std::size_t mismatches(Op op, int ranks, const Counts& c,
                       const std::vector<std::vector<float>>& got) {
  std::size_t bad = 0;
  for (int k = 0; k < ranks; ++k)
    for (std::size_t i = 0; i < c.recv; ++i)
      bad += got[k][i] != expected_value(op, k, ranks, i, c.chunk);
  return bad;
}

TEST(Collectives, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Op::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_factor(Op::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Op::all_reduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_factor(Op::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(Op::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Op::all_to_all, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(Op::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Op::broadcast, 1), 1.0);
}

TEST(Collectives, CountsSplitTheSizeAsNcclTestsDoes) {
  const std::size_t mib = std::size_t{1} << 20;
  const Counts g = counts(Op::all_gather, mib, 8);  // the size is the gathered output
  EXPECT_EQ(g.send, mib / 4 / 8);
  EXPECT_EQ(g.recv, mib / 4);
  const Counts rs = counts(Op::reduce_scatter, mib, 8);  // the size is the input
  EXPECT_EQ(rs.send, mib / 4);
  EXPECT_EQ(rs.recv, mib / 4 / 8);
  const Counts ar = counts(Op::all_reduce, mib, 8);
  EXPECT_EQ(ar.send, mib / 4);
  EXPECT_EQ(ar.recv, mib / 4);
  EXPECT_EQ(effective_bytes(Op::all_gather, mib, 8), mib);
  // Sizes that do not split evenly are rounded down to whole floats per rank.
  EXPECT_EQ(counts(Op::all_to_all, 100, 3).send, 24u);  // 25 floats: 8 to each of 3 ranks
  EXPECT_EQ(effective_bytes(Op::all_to_all, 100, 3), 24u * 4);
  EXPECT_EQ(counts(Op::all_gather, 8, 4).send, 0u);  // under a float per rank: the row skips
}

TEST(Collectives, SizesGrowByEightFrom8Bytes) {
  const auto d = sizes(false, false), q = sizes(true, false), f = sizes(false, true);
  EXPECT_EQ(d.front(), 8u);
  EXPECT_EQ(d.back(), std::size_t{1} << 30);
  EXPECT_EQ(q.back(), std::size_t{2} << 20);
  EXPECT_EQ(f.back(), std::size_t{8} << 30);
  for (std::size_t i = 1; i < f.size(); ++i) EXPECT_EQ(f[i], 8 * f[i - 1]);
}

TEST(Collectives, OpNamesRoundTrip) {
  for (Op op : kOps) EXPECT_EQ(op_from_name(op_name(op)), op);
  EXPECT_FALSE(op_from_name("all_reduce_typo").has_value());
}

TEST(Collectives, InputsAreSeededNonZeroSmallIntegers) {
  std::set<float> seen;
  for (int r = 0; r < 4; ++r)
    for (std::size_t i = 0; i < 10000; ++i) {
      const float v = input_value(r, i);
      ASSERT_NE(v, 0.f);
      ASSERT_LE(std::abs(v), 16.f);
      ASSERT_EQ(v, static_cast<float>(static_cast<int>(v)));
      ASSERT_EQ(v, input_value(r, i));
      seen.insert(v);
    }
  EXPECT_EQ(seen.size(), 32u);                   // every value of [-16, -1] and [1, 16]
  EXPECT_NE(input_value(0, 7), input_value(1, 7));  // ranks differ (for this element)
}

// The expected values agree with a plain simulation of each collective, for several rank
// counts and a size that does not split evenly; and they catch a collective that moved the
// wrong block (a transposed all_to_all, a reduce_scatter that kept rank 0's block everywhere).
TEST(Collectives, ExpectedValuesMatchASimulationAndCatchWrongBlocks) {
  for (int ranks : {1, 2, 3, 8})
    for (Op op : kOps) {
      const Counts c = counts(op, 4 * 1003, ranks);
      const auto good = simulate(op, ranks, c);
      EXPECT_EQ(mismatches(op, ranks, c, good), 0u) << op_name(op) << " " << ranks;
    }
  const int ranks = 3;
  const Counts c = counts(Op::all_to_all, 4 * 999, ranks);
  auto wrong = simulate(Op::all_to_all, ranks, c);
  std::swap(wrong[1], wrong[2]);
  EXPECT_GT(mismatches(Op::all_to_all, ranks, c, wrong), 0u);
  const Counts rc = counts(Op::reduce_scatter, 4 * 999, ranks);
  auto kept = simulate(Op::reduce_scatter, ranks, rc);
  kept[2] = kept[0];
  EXPECT_GT(mismatches(Op::reduce_scatter, ranks, rc, kept), 0u);
}

#if TWINBENCH_HAVE_CUDA
TEST(Nccl, MissingLibraryIsAReasonNotACrash) {
  const gpu::nccl::Api a = gpu::nccl::load({"libnccl-not-here.so.2"});
  EXPECT_FALSE(a.ok());
  EXPECT_NE(a.error.find("NCCL not available"), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("libnccl-not-here.so.2"), std::string::npos) << a.error;
}

// Every collective over every GPU the process sees, at a size that splits evenly and one that
// does not: every received element as expected.
TEST(Nccl, EveryCollectiveValidatesOnEveryDevice) {
  TB_REQUIRE_GPU();
  if (!gpu::nccl::api().ok()) GTEST_SKIP() << gpu::nccl::api().error;
  std::vector<int> devices(static_cast<std::size_t>(gpu_info().device_count));
  for (std::size_t d = 0; d < devices.size(); ++d) devices[d] = static_cast<int>(d);
  const gpu::nccl::Comms comms(devices);
  for (Op op : kOps)
    for (std::size_t bytes : {std::size_t{1} << 20, std::size_t{4 * 1003}}) {
      gpu::collectives::Buffers b(devices, op, bytes);
      EXPECT_EQ(b.mismatches(comms), 0u) << op_name(op) << " " << bytes;
    }
}

// One rank of a communicator made as ranks in separate processes make theirs (a unique id, then
// ncclCommInitRank, the bootstrap the runs under mpirun take), here with one rank on device 0,
// and every collective validated over it; a rank of two buffers fills rank 1's inputs.
TEST(Nccl, OneRankBootstrappedByUniqueIdValidates) {
  TB_REQUIRE_GPU();
  if (!gpu::nccl::api().ok()) GTEST_SKIP() << gpu::nccl::api().error;
  const gpu::nccl::Comms comms(gpu::nccl::unique_id(), 0, 1);
  EXPECT_EQ(comms.local_ranks(), 1);
  EXPECT_EQ(comms.total_ranks(), 1);
  for (Op op : kOps) {
    gpu::collectives::Buffers b({0}, 0, 1, op, std::size_t{1} << 20);
    EXPECT_EQ(b.mismatches(comms), 0u) << op_name(op);
  }
}
#endif

}  // namespace
}  // namespace tb::collectives
