// The bytes split and the ceiling each row is held to (common/ceilings.hpp; the harness applies
// a row's declared work after its samples).
#include <gtest/gtest.h>

#include "common/ceilings.hpp"
#include "common/harness.hpp"
#include "cpu/black_scholes.hpp"
#include "cpu/dot.hpp"
#include "cpu/poisson.hpp"
#include "cpu/sgemm.hpp"
#include "cpu/transfers.hpp"
#include "cpu/vector_add.hpp"

namespace tb {
namespace {

// An H200-like set: read-only streams are fastest, writes slowest.
BandwidthSet sample_set() {
  BandwidthSet s;
  s[Pattern::read] = 4.4e12;
  s[Pattern::write] = 3.9e12;
  s[Pattern::copy] = 4.0e12;
  s[Pattern::scale] = 4.05e12;
  s[Pattern::add] = 4.2e12;
  s[Pattern::triad] = 4.15e12;
  return s;
}

TEST(Ceilings, PatternsCountTheirArrays) {
  EXPECT_EQ(pattern_reads(Pattern::read), 2);  // BabelStream's dot: two streams
  EXPECT_EQ(pattern_writes(Pattern::read), 0);
  EXPECT_EQ(pattern_reads(Pattern::write), 0);
  EXPECT_EQ(pattern_writes(Pattern::write), 1);
  EXPECT_EQ(pattern_reads(Pattern::triad), 2);
  EXPECT_EQ(pattern_writes(Pattern::triad), 1);
  EXPECT_STREQ(pattern_name(Pattern::scale), "scale");
}

TEST(Ceilings, ReadOnlyRowsAreHeldToTheReadStream) {
  const WorkModel w = dot::work(1 << 20);
  EXPECT_EQ(w.written_bytes, 0.0);
  const Ceiling c = choose_ceiling(sample_set(), w.read_bytes, w.written_bytes);
  EXPECT_EQ(c.pattern, Pattern::read);
  EXPECT_DOUBLE_EQ(c.bytes_per_s, 4.4e12);
}

TEST(Ceilings, TwoReadsOneWriteTakesTheFasterOfAddAndTriad) {
  const WorkModel w = vector_add::work(1000);
  EXPECT_DOUBLE_EQ(w.read_bytes, 8000.0);
  EXPECT_DOUBLE_EQ(w.written_bytes, 4000.0);
  const Ceiling c = choose_ceiling(sample_set(), w.read_bytes, w.written_bytes);
  EXPECT_EQ(c.pattern, Pattern::add);
}

TEST(Ceilings, OneReadOneWriteTakesTheFasterOfCopyAndScale) {
  const Ceiling c = choose_ceiling(sample_set(), 4.0, 4.0);
  EXPECT_EQ(c.pattern, Pattern::scale);
}

TEST(Ceilings, WriteOnlyRowsAreHeldToTheWriteStream) {
  const WorkModel w = poisson::work(1000);
  EXPECT_EQ(w.read_bytes, 0.0);
  EXPECT_EQ(choose_ceiling(sample_set(), w.read_bytes, w.written_bytes).pattern, Pattern::write);
}

TEST(Ceilings, MixesBetweenPatternsTakeTheNearest) {
  // Black-Scholes: 12 bytes read, 8 written per option, a read share of 0.6: nearer 2/3 than 1/2.
  const WorkModel w = black_scholes::work(10);
  EXPECT_DOUBLE_EQ(w.read_bytes, 120.0);
  EXPECT_DOUBLE_EQ(w.written_bytes, 80.0);
  EXPECT_EQ(choose_ceiling(sample_set(), w.read_bytes, w.written_bytes).pattern, Pattern::add);
  // A share of 0.55 is nearer copy/scale (0.5).
  EXPECT_EQ(choose_ceiling(sample_set(), 55.0, 45.0).pattern, Pattern::scale);
}

TEST(Ceilings, ATieBetweenTwoMixesGoesToTheFasterPattern) {
  // A read share of 5/6 sits halfway between add/triad (2/3) and read-only (1).
  BandwidthSet s = sample_set();
  EXPECT_EQ(choose_ceiling(s, 5.0, 1.0).pattern, Pattern::read);
  s[Pattern::read] = 1e12;
  EXPECT_EQ(choose_ceiling(s, 5.0, 1.0).pattern, Pattern::add);
}

TEST(Ceilings, UnmeasuredPatternsAreNeverChosen) {
  BandwidthSet s;
  EXPECT_EQ(choose_ceiling(s, 1.0, 0.0).bytes_per_s, 0.0);
  s[Pattern::triad] = 2e11;
  const Ceiling c = choose_ceiling(s, 1.0, 0.0);
  EXPECT_EQ(c.pattern, Pattern::triad);
  EXPECT_DOUBLE_EQ(c.bytes_per_s, 2e11);
}

TEST(Ceilings, BytesSplitKeepsTheTotal) {
  const WorkModel g = sgemm::work(100);
  EXPECT_DOUBLE_EQ(g.read_bytes, 2.0 * 4 * 100 * 100);
  EXPECT_DOUBLE_EQ(g.written_bytes, 1.0 * 4 * 100 * 100);
  EXPECT_DOUBLE_EQ(g.bytes(), 3.0 * 4 * 100 * 100);
  EXPECT_FALSE(transfers::work(1 << 20).held_to_ceiling);
  EXPECT_TRUE(dot::work(8).held_to_ceiling);
}

// From the description's fields: the impl's words play no part (onednn_bf16 is held to all
// threads because it runs on them, not because of its name).
TEST(Ceilings, RowsAreHeldToTheirSidesSet) {
  auto gpu = [](BenchSpec s) {
    s.side = Side::gpu;
    return s;
  };
  const BenchSpec dot = bench_spec("dot", "cuda", {{"n", 1024}, {"block", 256}});
  EXPECT_EQ(ceiling_set_for(gpu(dot.in_mode(Mode::kernel))), CeilingSet::gpu);
  EXPECT_EQ(ceiling_set_for(gpu(bench_spec("dot", "thrust", {{"n", 1024}}))), CeilingSet::gpu);
  EXPECT_EQ(ceiling_set_for(gpu(dot.in_mode(Mode::e2e))), std::nullopt);
  BenchSpec host_timed = gpu(bench_spec("alloc", "cuda_reuse", {{"bytes", 64}}));
  host_timed.host_timed = true;
  EXPECT_EQ(ceiling_set_for(host_timed), std::nullopt);
  EXPECT_EQ(ceiling_set_for(bench_spec("dot", "omp", {{"n", 1024}}).on_threads(16)),
            CeilingSet::cpu_all);
  EXPECT_EQ(ceiling_set_for(bench_spec("dot", "serial", {{"n", 1024}})), CeilingSet::cpu_one);
  EXPECT_EQ(ceiling_set_for(bench_spec("sgemm", "onednn_bf16", {{"n", 1024}}).on_threads(16)),
            CeilingSet::cpu_all);
  // A name with an omp-looking impl decides nothing: the threads field does.
  EXPECT_EQ(ceiling_set_for(bench_spec("x", "omp_lookalike", {{"n", 8}})), CeilingSet::cpu_one);
}

TEST(Ceilings, TheRunsSetsAreKeptApart) {
  BandwidthSet one;
  one[Pattern::copy] = 1e10;
  set_ceilings(CeilingSet::cpu_one, one);
  EXPECT_DOUBLE_EQ(ceilings(CeilingSet::cpu_one)[Pattern::copy], 1e10);
  EXPECT_DOUBLE_EQ(ceilings(CeilingSet::cpu_all)[Pattern::copy], 0.0);
  set_ceilings(CeilingSet::cpu_one, BandwidthSet{});
}

}  // namespace
}  // namespace tb

namespace tb {
namespace {

// A cold CPU set also carries the figures of arrays that fit the caches: a row that writes no
// more than the large arrays hold is held to the faster of the two per pattern, a larger one to
// the large arrays' alone.
TEST(Ceilings, RowsThatWriteLessThanTheLargeArraysTakeTheFasterOfBothSets) {
  BandwidthSet set = sample_set();
  set.fitting_bytes_per_s = {5.0e12, 3.0e12, 4.5e12, 4.0e12, 4.1e12, 6.0e12};
  set.fitting_written_bytes = 512.0 * (1 << 20);
  const BandwidthSet small = set.for_written_bytes(128.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(small[Pattern::read], 5.0e12);   // fitting faster
  EXPECT_DOUBLE_EQ(small[Pattern::write], 3.9e12);  // large faster
  EXPECT_DOUBLE_EQ(small[Pattern::triad], 6.0e12);
  EXPECT_EQ(choose_ceiling(small, 2.0, 1.0).pattern, Pattern::triad);
  const BandwidthSet large = set.for_written_bytes(1024.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(large[Pattern::triad], 4.15e12);
  EXPECT_EQ(choose_ceiling(large, 2.0, 1.0).pattern, Pattern::add);
  // A set without the fitting figures (the GPU's, a warm run's) is itself for every row.
  EXPECT_DOUBLE_EQ(sample_set().for_written_bytes(1.0)[Pattern::triad], 4.15e12);
}

}  // namespace
}  // namespace tb
