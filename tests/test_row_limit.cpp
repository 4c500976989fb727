// One limit per row (common/row_limit.hpp): which one the run chooses from the work model, the
// row's share of it, and the flag a figure above it gets; the CPU's ISA peak (common/cpu_peak.hpp).
#include <gtest/gtest.h>

#include <string>

#include "common/cpu_peak.hpp"
#include "common/row_limit.hpp"

namespace tb {
namespace {

BandwidthSet host_set() {
  BandwidthSet s;
  s[Pattern::read] = 90e9;
  s[Pattern::write] = 40e9;
  s[Pattern::copy] = 60e9;
  s[Pattern::scale] = 60e9;
  s[Pattern::add] = 70e9;
  s[Pattern::triad] = 70e9;
  return s;
}

LimitSources host_sources() {
  LimitSources s;
  s.bandwidth = host_set();
  s.roofs = {{"fp32", 2e12}, {"fp64", 1e12}};
  s.peaks = {{"fp32", 3e12}, {"fp64", 1.5e12}};
  return s;
}

TEST(RowLimit, AStreamIsHeldToTheBandwidthOfItsMix) {
  const WorkModel axpy{.read_bytes = 16e6, .written_bytes = 8e6, .flops = 2e6};
  const RowLimit l = choose_row_limit(axpy, "fp64", host_sources());
  EXPECT_EQ(l.kind, LimitKind::bandwidth);
  EXPECT_EQ(l.name, "add bandwidth");  // add and triad tie at 70 GB/s; the first of the two
  EXPECT_DOUBLE_EQ(l.least_s, 24e6 / 70e9);
  EXPECT_NEAR(pct_of_limit(l, 2 * l.least_s), 50.0, 1e-9);
}

// A cold run's CPU set carries the figures of arrays that fit the caches: a row that writes no
// more than the large arrays is held to the faster of the two, a row that writes more to the
// large arrays' figure.
TEST(RowLimit, ARowWritingLessThanTheLargeArraysIsHeldToTheFasterFittingFigure) {
  LimitSources s = host_sources();
  s.bandwidth->fitting_bytes_per_s = {100e9, 80e9, 90e9, 90e9, 105e9, 100e9};
  s.bandwidth->fitting_written_bytes = 512e6;
  const WorkModel small{.read_bytes = 256e6, .written_bytes = 128e6};
  const RowLimit l = choose_row_limit(small, "fp64", s);
  EXPECT_EQ(l.name, "add bandwidth");
  EXPECT_DOUBLE_EQ(l.per_s, 105e9);
  const WorkModel large{.read_bytes = 2048e6, .written_bytes = 1024e6};
  EXPECT_DOUBLE_EQ(choose_row_limit(large, "fp64", s).per_s, 70e9);
}

TEST(RowLimit, ComputeBoundWorkIsHeldToTheRoofOfItsPrecision) {
  // sgemm 1024: 2n^3 FLOPs over 12 MiB moved.
  const WorkModel gemm{.read_bytes = 8.0 * (1 << 20), .written_bytes = 4.0 * (1 << 20),
                       .flops = 2.0 * 1024 * 1024 * 1024};
  const RowLimit fp32 = choose_row_limit(gemm, "fp32", host_sources());
  EXPECT_EQ(fp32.kind, LimitKind::compute);
  EXPECT_EQ(fp32.name, "FP32 roof");
  EXPECT_DOUBLE_EQ(fp32.per_s, 2e12);
  EXPECT_DOUBLE_EQ(fp32.peak_per_s, 3e12);
  // A precision whose roof was not measured is never held to another's: bandwidth instead.
  EXPECT_EQ(choose_row_limit(gemm, "bf16", host_sources()).kind, LimitKind::bandwidth);
  // No precision named: the higher of the FP32 and FP64 roofs, which flags no valid row.
  EXPECT_EQ(choose_row_limit(gemm, "", host_sources()).name, "FP32 roof");
}

TEST(RowLimit, LatencyAndCacheResidentRowsAreHeldToNoBandwidth) {
  const WorkModel lucas{.written_bytes = 168, .items = 20};
  LimitSources resident = host_sources();
  resident.cache_resident = true;
  EXPECT_EQ(choose_row_limit(lucas, "", resident).kind, LimitKind::none);
  WorkModel api = lucas;
  api.held_to_ceiling = false;
  EXPECT_EQ(choose_row_limit(api, "", host_sources()).kind, LimitKind::none);
  // FLOPs in a cache are still held to the roof.
  const WorkModel fma{.read_bytes = 64e3, .flops = 1e9};
  EXPECT_EQ(choose_row_limit(fma, "fp32", resident).kind, LimitKind::compute);
}

TEST(RowLimit, ATransferIsHeldToItsLink) {
  WorkModel copy{.read_bytes = 256e6, .items = 1, .held_to_ceiling = false};
  copy.link = Link::d2h;
  LimitSources link;
  link.link_per_s = 55e9;
  link.link_name = "pinned d2h link";
  const RowLimit l = choose_row_limit(copy, "", link);
  EXPECT_EQ(l.kind, LimitKind::link);
  EXPECT_EQ(l.name, "pinned d2h link");
  // A link not measured (no GPU ceilings): no limit rather than another one.
  EXPECT_EQ(choose_row_limit(copy, "", LimitSources{}).kind, LimitKind::none);
}

TEST(RowLimit, AFigureAboveItsLimitIsFlaggedWithWhatToSuspect) {
  const WorkModel axpy{.read_bytes = 16e6, .written_bytes = 8e6};
  LimitSources sources = host_sources();
  sources.caveat = "measured while the machine was busy (load 4.0 on 2 CPUs)";
  const RowLimit l = choose_row_limit(axpy, "", sources);
  EXPECT_EQ(suspect_reason(l, l.least_s * 1.05, l.least_s * 1.1), "");
  // 117.8% at the median, still above at the slow end of the interval.
  const std::string why = suspect_reason(l, l.least_s / 1.178, l.least_s / 1.1);
  EXPECT_NE(why.find("117.8% of its add bandwidth (110.0% at the slow end"), std::string::npos) << why;
  EXPECT_NE(why.find("more than its noise"), std::string::npos) << why;
  EXPECT_NE(why.find("suspect the ceiling"), std::string::npos) << why;
  EXPECT_NE(why.find("busy (load 4.0"), std::string::npos) << why;
  // Above at the median but not beyond its noise: flagged, and says so.
  EXPECT_NE(suspect_reason(l, l.least_s / 1.01, l.least_s * 1.02).find("within its noise"),
            std::string::npos);
}

TEST(RowLimit, ComputeAboveThePhysicalPeakBlamesTheFlopCount) {
  const WorkModel fma{.read_bytes = 64e3, .flops = 1e9};
  const RowLimit l = choose_row_limit(fma, "fp32", host_sources());
  // 1e9 FLOPs in 0.25 ms: 4 TFLOP/s, above the roof (2) and the peak (3).
  const std::string why = suspect_reason(l, 0.25e-3, 0.26e-3);
  EXPECT_NE(why.find("above the physical peak (3e+03 GFLOP/s)"), std::string::npos) << why;
  // Above the roof, below the peak: the roof is suspect.
  const std::string low_roof = suspect_reason(l, 0.4e-3, 0.41e-3);
  EXPECT_NE(low_roof.find("suspect the roof, measured low"), std::string::npos) << low_roof;
}

TEST(CpuPeak, FmaWidthByVendorAndLevel) {
  EXPECT_EQ(host::fma_bits_per_cycle("GenuineIntel", 6, "avx512", 0), 1024);
  EXPECT_EQ(host::fma_bits_per_cycle("AuthenticAMD", 0x19, "avx512", 0), 512);  // Zen 4
  EXPECT_EQ(host::fma_bits_per_cycle("AuthenticAMD", 0x1a, "avx512", 0), 1024);  // Zen 5
  EXPECT_EQ(host::fma_bits_per_cycle("AuthenticAMD", 0x19, "avx2", 0), 512);
  EXPECT_EQ(host::fma_bits_per_cycle("GenuineIntel", 6, "baseline", 0), 128);
  EXPECT_EQ(host::fma_bits_per_cycle("", 0, "neon", 0xd0c), 256);  // Neoverse N1
  EXPECT_EQ(host::fma_bits_per_cycle("", 0, "neon", 0xd4f), 512);  // Neoverse V2
  std::string basis;
  host::fma_bits_per_cycle("AuthenticAMD", 0x19, "avx512", 0, &basis);
  EXPECT_EQ(basis, "AuthenticAMD family 0x19, avx512: 2 x 256 FMA bits/cycle");
}

TEST(CpuPeak, TheMeasuredClockIsACoreClock) {
  // No core clocks over 7 GHz (an add chain folded at rename read 11.6 GHz on Emerald Rapids);
  // under qemu-user (the aarch64 tests) the emulated chain may run far slower than a core.
  const double hz = host::measure_clock_hz();
  EXPECT_GT(hz, 0.05e9);
  EXPECT_LT(hz, 7e9);
  const host::CpuPeak peak{.fma_bits_per_cycle = 512, .clock_hz = 2e9, .basis = ""};
  EXPECT_DOUBLE_EQ(peak.flops(2, 32), 2 * 16 * 2 * 2e9);
}

}  // namespace
}  // namespace tb
