// Telemetry (common/telemetry.hpp): the sampler and its summary with a fake source, throttle
// reasons, the host's state, and NVML itself where there is a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>

#include "common/telemetry.hpp"
#include "tests/test_util.hpp"

namespace tb::telemetry {
namespace {

// Readings that walk through a script, and an energy counter that rises 2 J a read.
class FakeSource final : public Source {
 public:
  explicit FakeSource(std::vector<Reading> script) : script_(std::move(script)) {}
  std::optional<Reading> read() override {
    const Reading r = script_[std::min(reads_, script_.size() - 1)];
    ++reads_;
    return r;
  }
  std::optional<double> energy_j() override {
    energy_ += 2.0;
    return energy_;
  }
  std::size_t reads_ = 0;

 private:
  std::vector<Reading> script_;
  double energy_ = 100.0;
};

TEST(Telemetry, SummaryOfKnownReadings) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Reading> rs = {
      {1980, 3200, 300, 50, 0x0}, {1500, 3200, 700, 70, 0x4}, {nan, nan, nan, nan, 0x1}};
  const Summary s = summarize(rs);
  EXPECT_EQ(s.readings, 3);
  EXPECT_DOUBLE_EQ(s.sm_mhz_min, 1500);
  EXPECT_DOUBLE_EQ(s.sm_mhz_mean, 1740);  // NaN readings are left out
  EXPECT_DOUBLE_EQ(s.power_w_mean, 500);
  EXPECT_DOUBLE_EQ(s.power_w_max, 700);
  EXPECT_DOUBLE_EQ(s.temp_c_max, 70);
  EXPECT_EQ(s.throttle_reasons, 0x5u);
  EXPECT_TRUE(throttled(s.throttle_reasons));
}

TEST(Telemetry, IdleAndApplicationClocksAreNotThrottling) {
  EXPECT_FALSE(throttled(0));
  EXPECT_FALSE(throttled(kIdleReason | kAppClocksReason));
  EXPECT_TRUE(throttled(0x4));
  EXPECT_EQ(describe_reasons(0x4 | 0x40), "power cap, thermal (hardware)");
  EXPECT_EQ(describe_reasons(0x1), "none");
}

TEST(Telemetry, SamplerReadsOffThreadAndMeasuresEnergy) {
  FakeSource source({{1980, 3200, 400, 60, 0}});
  Sampler sampler(source, std::chrono::microseconds(1000));
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const Summary s = sampler.stop();
  EXPECT_GE(s.readings, 5);  // ~30 at 1 ms; a loaded CI machine gets fewer
  EXPECT_DOUBLE_EQ(s.sm_mhz_mean, 1980);
  ASSERT_TRUE(s.energy_j.has_value());
  EXPECT_DOUBLE_EQ(*s.energy_j, 2.0);  // one counter read at start, one at stop
  const std::size_t reads = source.reads_;
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(source.reads_, reads);  // stopped: no more reads
}

TEST(Telemetry, SamplerStoppedAtOnceStillHasAReading) {
  FakeSource source({{1000, 1000, 100, 40, 0}});
  Sampler sampler(source, std::chrono::microseconds(100000));
  sampler.start();
  const Summary s = sampler.stop();
  EXPECT_GE(s.readings, 1);
}

TEST(Telemetry, HostStateIsReadable) {
  const HostState h = read_host_state();
  EXPECT_GT(h.cpus, 0);
  EXPECT_TRUE(std::isfinite(h.load1));
  EXPECT_TRUE(host_busy({.load1 = 9.0, .cpu_mhz = 0, .cpus = 16}) == true);
  EXPECT_FALSE(host_busy({.load1 = 7.9, .cpu_mhz = 0, .cpus = 16}));
}

TEST(Telemetry, NvmlOpensWhereThereIsAGpuAndSaysWhyNotElsewhere) {
  std::string why;
  auto nvml = open_nvml(why);
  if (!gpu_info().available) {
    if (!nvml) {
      EXPECT_NE(why.find("telemetry"), std::string::npos) << why;
    }
    GTEST_SKIP() << gpu_info().status;
  }
  ASSERT_TRUE(nvml) << why;
  const auto r = nvml->read();
  ASSERT_TRUE(r.has_value());
  EXPECT_GT(r->sm_mhz, 0);
  EXPECT_GT(r->power_w, 0);
  EXPECT_GT(r->temp_c, 0);
  const auto e0 = nvml->energy_j();
  ASSERT_TRUE(e0.has_value()) << "NVML's total energy counter (Volta and later)";
  EXPECT_GT(*e0, 0);
}

}  // namespace
}  // namespace tb::telemetry
