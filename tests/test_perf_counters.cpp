// CPU hardware counters (common/perf_counters.hpp): the reasons given when perf_event_open is
// refused, and a probe that either works (counts something) or says why, on whatever host runs
// the tests (the dev VM has no PMU; the H200 host may).
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "common/perf_counters.hpp"

namespace tb::perf {
namespace {

TEST(PerfCounters, NoPmuUnderAHypervisorSaysVm) {
  const std::string why = unavailable_reason(ENOENT, "2", false, true);
  EXPECT_NE(why.find("ENOENT"), std::string::npos) << why;
  EXPECT_NE(why.find("a VM without a virtual PMU"), std::string::npos) << why;
  EXPECT_NE(why.find("perf_event_paranoid=2"), std::string::npos) << why;
}

TEST(PerfCounters, RefusalNamesTheParanoidSetting) {
  const std::string why = unavailable_reason(EACCES, "3", true, false);
  EXPECT_NE(why.find("EACCES"), std::string::npos) << why;
  EXPECT_NE(why.find("CAP_PERFMON"), std::string::npos) << why;
  EXPECT_NE(why.find("perf_event_paranoid=3"), std::string::npos) << why;
  EXPECT_EQ(why.find("VM"), std::string::npos) << why;
}

TEST(PerfCounters, ProbeEitherCountsOrSaysWhy) {
  const Probe p = probe();
  ASSERT_FALSE(p.detail.empty());
  if (p.available) {
    ASSERT_TRUE(p.reading.has_value());
    EXPECT_GT(p.reading->cycles, 0u);
    EXPECT_GT(p.reading->instructions, 0u);
    EXPECT_GT(p.reading->ipc(), 0.0);
    EXPECT_NE(p.detail.find("probe IPC"), std::string::npos) << p.detail;
  } else {
    EXPECT_FALSE(p.reading.has_value());
    EXPECT_NE(p.detail.find("perf_event_paranoid="), std::string::npos) << p.detail;
  }
}

}  // namespace
}  // namespace tb::perf
