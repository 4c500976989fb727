// The bytes split and the ceiling each row is held to (common/ceilings.hpp, set_work).
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

TEST(Ceilings, RowsAreHeldToTheirSidesSet) {
  EXPECT_EQ(ceiling_set_for("dot/cuda/n:1024/block:256/mode:kernel", Side::gpu), CeilingSet::gpu);
  EXPECT_EQ(ceiling_set_for("dot/thrust/n:1024", Side::gpu), CeilingSet::gpu);
  EXPECT_EQ(ceiling_set_for("dot/cuda/n:1024/block:256/mode:e2e", Side::gpu), std::nullopt);
  EXPECT_EQ(ceiling_set_for("dot/omp/n:1024/threads:16", Side::cpu), CeilingSet::cpu_all);
  EXPECT_EQ(ceiling_set_for("black_scholes/omp_fp64/n:10", Side::cpu), CeilingSet::cpu_all);
  EXPECT_EQ(ceiling_set_for("dot/serial/n:1024", Side::cpu), CeilingSet::cpu_one);
  EXPECT_EQ(ceiling_set_for("poisson/serial_article/n:10", Side::cpu), CeilingSet::cpu_one);
  EXPECT_EQ(ceiling_set_for("sgemm/openblas/n:1024/threads:16", Side::cpu), CeilingSet::cpu_all);
  EXPECT_EQ(ceiling_set_for("sgemm/onednn_bf16/n:1024/threads:16", Side::cpu), CeilingSet::cpu_all);
  EXPECT_EQ(ceiling_set_for("alloc/malloc/bytes:64", Side::cpu), std::nullopt);
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
