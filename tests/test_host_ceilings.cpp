// Host ceilings (common/host_ceilings.hpp): behaviour, not speed. Every pattern and roof yields a
// positive rate (or, for the native roof, a reason), and the environment is read from a fake
// /sys tree so each branch (present, absent, the inverted no_turbo) is covered on any machine.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/host_ceilings.hpp"
#include "tests/test_util.hpp"

namespace tb::host {
namespace {

namespace fs = std::filesystem;

// A fake /sys tree.
class FakeRoot : public tb::test::TempDir {
 public:
  FakeRoot() : TempDir("tb_host") {}
  void mkdir(const std::string& rel) const { fs::create_directories(path(rel)); }
};

// Sets (or unsets, with nullopt) an environment variable and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

constexpr std::size_t kSmallArray = std::size_t{4} << 20;

void expect_all_patterns_measured(const BandwidthSet& set) {
  for (Pattern p : kAllPatterns) {
    EXPECT_GT(set[p], 0.0) << pattern_name(p);
    EXPECT_TRUE(std::isfinite(set[p])) << pattern_name(p);
  }
}

TEST(HostCeilings, BandwidthOfEveryPatternOneThread) {
  expect_all_patterns_measured(measure_bandwidth(kSmallArray, 1));
}

TEST(HostCeilings, BandwidthOfEveryPatternTwoThreads) {
  expect_all_patterns_measured(measure_bandwidth(kSmallArray, 2));
}

// 13 doubles: fewer than one block of the read's partial sums per thread, plus a tail.
TEST(HostCeilings, BandwidthOfATinyOddArray) {
  expect_all_patterns_measured(measure_bandwidth(13 * sizeof(double), 2));
  expect_all_patterns_measured(measure_bandwidth(1, 0));  // rounds up to one element
}

// Each pattern is moved every way the rows move it, at every ISA level the CPU runs, warm and
// cold; its figure is its fastest way's. Add and triad have three (plain, in place, streamed),
// write, copy and scale two (plain, streamed), read one.
TEST(HostCeilings, EachPatternIsTheFastestOfTheWaysTheRowsMoveIt) {
  cpu_isa::RestoreLimit restore_limit;
  // Cold at the active level only: each cold pass follows a flush of 1.5x the caches (0.1-0.2 s
  // on the 2-core development machine), which at every level made this test minutes long.
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (Timing timing : {Timing::warm, Timing::cold}) {
      if (timing == Timing::cold && level != cpu_isa::runnable_levels().back()) continue;
      std::vector<WayRate> ways;
      const BandwidthSet set = measure_bandwidth(kSmallArray, 2, timing, &ways);
      for (Pattern p : kAllPatterns) {
        double best = 0.0;
        std::vector<std::string> names;
        for (const WayRate& w : ways)
          if (w.pattern == p) {
            best = std::max(best, w.bytes_per_s);
            names.push_back(w.way);
          }
        EXPECT_DOUBLE_EQ(set[p], best) << pattern_name(p) << " at " << cpu_isa::name(level);
        const std::size_t expected =
            p == Pattern::read ? 1 : (p == Pattern::add || p == Pattern::triad) ? 3 : 2;
        EXPECT_EQ(names.size(), expected) << pattern_name(p);
        EXPECT_EQ(names.front(), "plain");
      }
    }
  }
}

// Only the patterns asked for are measured; the others stay 0 (a set a row never takes).
TEST(HostCeilings, OnlyThePatternsAskedForAreMeasured) {
  constexpr Pattern kMix[] = {Pattern::add, Pattern::triad};
  const BandwidthSet set = measure_bandwidth(kSmallArray, 1, Timing::warm, nullptr, kMix);
  EXPECT_GT(set[Pattern::add], 0.0);
  EXPECT_GT(set[Pattern::triad], 0.0);
  EXPECT_EQ(set[Pattern::copy], 0.0);
  EXPECT_EQ(set[Pattern::read], 0.0);
}

// The passes leave correct values: in place and streamed, at every level, odd sizes included (a
// streamed pass whose slice ends mid-line, a thread with no whole line).
TEST(HostCeilings, PassesRunOnOddSizes) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    for (std::size_t bytes : {std::size_t{8}, std::size_t{13 * 8}, std::size_t{1037 * 8}})
      for (Pattern p : kAllPatterns)
        EXPECT_GT(measure_bandwidth(bytes, 3)[p], 0.0) << bytes;
  }
}

TEST(HostCeilings, FmaRoofIsPositive) {
  for (Precision p : {Precision::fp32, Precision::fp64}) {
    const double flops = measure_fma_roof(p, 1);
    EXPECT_GT(flops, 0.0);
    EXPECT_TRUE(std::isfinite(flops));
  }
}

TEST(HostCeilings, FmaRoofRunsAtEveryLevelAndNamesIt) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    std::string isa;
    const double flops = measure_fma_roof(Precision::fp32, 1, &isa);
    EXPECT_GT(flops, 0.0) << cpu_isa::name(level);
    EXPECT_EQ(isa, cpu_isa::name(level));
  }
  EXPECT_GT(measure_baseline_fma_roof(Precision::fp64, 1), 0.0);
}

// The per-row probe measures the same loop as the roof, at every level (it recalibrates when the
// level changes): positive and finite, and on one thread no more than the core's peak at the
// widest level (2 FMA pipes x 16 FP32 lanes x 2 FLOPs at 6 GHz), i.e. its work is really counted.
TEST(HostCeilings, FmaProbeIsAShortRoofAtEveryLevel) {
  cpu_isa::RestoreLimit restore_limit;
  for (cpu_isa::Level level : cpu_isa::runnable_levels()) {
    cpu_isa::set_limit(level);
    const double flops = probe_fma_rate(1);
    EXPECT_GT(flops, 0.0) << cpu_isa::name(level);
    EXPECT_LT(flops, 2 * 16 * 2 * 6e9) << cpu_isa::name(level);
  }
}

// The BF16 and FP16 roofs run (the AMX path included, on a CPU that has it: its tile state must be
// granted and configured) or say why not; below AVX-512 they never run.
TEST(HostCeilings, LowPrecisionRoofsAreMeasuredOrExplained) {
  cpu_isa::RestoreLimit restore_limit;
  const NativeRoof bf16 = measure_bf16_roof(1);
  if (cpu_isa::has_feature("amx-bf16") || cpu_isa::has_feature("avx512bf16")) {
    EXPECT_GT(bf16.flops, 0.0) << bf16.why_not;
    EXPECT_TRUE(bf16.isa == "amx-bf16" || bf16.isa == "avx512_bf16") << bf16.isa;
  } else {
    EXPECT_FALSE(bf16.why_not.empty());
  }
  const NativeRoof fp16 = measure_fp16_roof(1);
  EXPECT_EQ(fp16.flops > 0, cpu_isa::has_feature("avx512fp16")) << fp16.why_not;
#if defined(__x86_64__)
  cpu_isa::set_limit(cpu_isa::Level::avx2);
  EXPECT_EQ(measure_bf16_roof(1).flops, 0.0);
  EXPECT_NE(measure_bf16_roof(1).why_not.find("avx2"), std::string::npos);
  EXPECT_EQ(measure_fp16_roof(1).flops, 0.0);
#else
  EXPECT_EQ(bf16.flops, 0.0);
  EXPECT_EQ(fp16.flops, 0.0);
#endif
}

TEST(HostCeilings, NativeRoofIsMeasuredOrExplained) {
  for (Precision p : {Precision::fp32, Precision::fp64}) {
    const NativeRoof roof = measure_native_fma_roof(p, 1);
    if (roof.flops > 0) {
#if defined(__aarch64__)
      EXPECT_EQ(roof.isa.rfind("neon fmla (128-bit)", 0), 0u) << roof.isa;
#else
      EXPECT_TRUE(roof.isa == "avx512f" || roof.isa == "avx2+fma") << roof.isa;
#endif
      EXPECT_TRUE(roof.why_not.empty()) << roof.why_not;
      EXPECT_TRUE(std::isfinite(roof.flops));
    } else {
      EXPECT_EQ(roof.flops, 0.0);
      EXPECT_TRUE(roof.isa.empty());
      EXPECT_FALSE(roof.why_not.empty());
    }
  }
}

TEST(HostEnvironment, FakeTreeWithCpufreqAndTwoNodes) {
  FakeRoot fake;
  fake.write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
  fake.write("sys/devices/system/cpu/smt/active", "1\n");
  fake.write("sys/devices/system/cpu/cpufreq/boost", "0\n");
  fake.mkdir("sys/devices/system/node/node0");
  fake.mkdir("sys/devices/system/node/node1");
  fake.write("sys/devices/system/node/has_cpu", "0-1\n");  // not nodes
  fake.write("sys/devices/system/node/possible", "0-1\n");
  fake.mkdir("sys/devices/system/node/nodeX");
  const HostEnvironment env = read_host_environment(fake.root());
  EXPECT_EQ(env.cpu_governor, "performance");
  EXPECT_EQ(env.numa_nodes, "2");
  EXPECT_EQ(env.smt, "1");
  EXPECT_EQ(env.cpu_boost, "off (cpufreq/boost = 0)");
}

TEST(HostEnvironment, EmptyTreeSaysWhatIsMissing) {
  FakeRoot fake;
  const HostEnvironment env = read_host_environment(fake.root());
  EXPECT_EQ(env.cpu_governor, "none: no cpufreq (a VM often has none)");
  // A missing node folder is not "1 node".
  EXPECT_EQ(env.numa_nodes.rfind("unknown: ", 0), 0u) << env.numa_nodes;
  EXPECT_NE(env.numa_nodes.find("/sys/devices/system/node"), std::string::npos);
  EXPECT_EQ(env.smt, "unknown");
  EXPECT_EQ(env.cpu_boost, "unknown");
}

TEST(HostEnvironment, NodeFolderWithoutNodesIsUnknown) {
  FakeRoot fake;
  fake.write("sys/devices/system/node/possible", "0\n");
  EXPECT_EQ(read_host_environment(fake.root()).numa_nodes.rfind("unknown: ", 0), 0u);
}

// intel_pstate says no_turbo = 1 when boost is OFF: the opposite sense of cpufreq/boost.
TEST(HostEnvironment, IntelPstateNoTurboIsInverted) {
  FakeRoot fake;
  fake.write("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
  EXPECT_EQ(read_host_environment(fake.root()).cpu_boost, "off (intel_pstate/no_turbo = 1)");
  fake.write("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
  EXPECT_EQ(read_host_environment(fake.root()).cpu_boost, "on (intel_pstate/no_turbo = 0)");
  fake.write("sys/devices/system/cpu/cpufreq/boost", "1\n");  // cpufreq/boost is read first
  EXPECT_EQ(read_host_environment(fake.root()).cpu_boost, "on (cpufreq/boost = 1)");
}

TEST(HostEnvironment, OmpVariablesSetAndUnset) {
  FakeRoot fake;
  {
    ScopedEnv bind("OMP_PROC_BIND", "close");
    ScopedEnv places("OMP_PLACES", "cores");
    const HostEnvironment env = read_host_environment(fake.root());
    EXPECT_EQ(env.omp_proc_bind, "close");
    EXPECT_EQ(env.omp_places, "cores");
  }
  ScopedEnv bind("OMP_PROC_BIND", std::nullopt);
  ScopedEnv places("OMP_PLACES", std::nullopt);
  const HostEnvironment env = read_host_environment(fake.root());
  EXPECT_EQ(env.omp_proc_bind, "unset");
  EXPECT_EQ(env.omp_places, "unset");
}

TEST(HostEnvironment, RealSystemFillsEveryField) {
  const HostEnvironment env = read_host_environment();
  for (const std::string* field : {&env.cpu_governor, &env.omp_proc_bind, &env.omp_places,
                                   &env.numa_nodes, &env.smt, &env.cpu_boost})
    EXPECT_FALSE(field->empty());
}

}  // namespace
}  // namespace tb::host
