// The CPU ceilings hold the suite's own streaming rows: each row's kernel, timed as a cold row
// sample is (after the CPU cache flush), moves its counted bytes no faster than the ceiling
// measured the same way at the same array size. A row above its ceiling on a quiet machine is a
// failure of the ceiling's measurement (it missed a way the row moves the pattern), which is
// what these tests catch: before the ceiling passes were compiled per ISA level and timed after
// the flush, the in-place axpy and the streamed vector_add read 110-136% of theirs on the H200
// host (results/nvidia-h200/2026-12-05).
//
// "Quiet" is measured, not assumed: /proc/stat's busy time of the whole machine during the test,
// less this process's own CPU time, is the other processes' share (steal included, for a VM whose
// host takes its CPUs). Above kOthersMaxShare of the machine's CPU time, the comparison says
// nothing about the ceiling and the test skips with the figure.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "common/ceilings.hpp"
#include "common/cpu_cache_flush.hpp"
#include "common/host_array.hpp"
#include "common/host_ceilings.hpp"
#include "cpu/dtypes.hpp"
#include "cpu/vector_add.hpp"

namespace tb {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kOthersMaxShare = 0.10;
// The row's best of kReps against the ceiling's best of 3: the margin for timing noise between
// two best-of figures. On the 2-core development machine while quiet (others under 1.1% of the
// CPU time), three runs of these tests read the axpy rows at 92.6-97.2% of their ceilings and
// vector_add/omp at 78.5-78.6%: 10% is a margin above that spread, chosen, not fitted.
constexpr double kNoise = 1.10;
constexpr int kReps = 5;
// 64 MiB of double per array: over the L2s, and the sizes at which the rows' kernels stream.
constexpr std::size_t kArrayBytes = std::size_t{64} << 20;

// Machine-wide busy and total jiffies (/proc/stat's first line), and this process's CPU seconds.
struct Usage {
  double busy_s = 0.0, total_s = 0.0, self_s = 0.0;
  bool ok = false;
};
Usage read_usage() {
  Usage u;
  std::ifstream f("/proc/stat");
  std::string cpu;
  double v[8] = {};
  if (!(f >> cpu) || cpu != "cpu") return u;
  for (double& x : v) f >> x;
  if (!f) return u;
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  u.busy_s = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
  u.total_s = (v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]) / hz;
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  u.self_s = static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
             1e-6 * static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
  u.ok = true;
  return u;
}

// The other processes' share of the machine's CPU time between two readings.
double others_share(const Usage& a, const Usage& b) {
  const double total = b.total_s - a.total_s;
  if (!(total > 0)) return 0.0;
  return std::max(0.0, (b.busy_s - a.busy_s) - (b.self_s - a.self_s)) / total;
}

// Best of kReps runs of `kernel`, each after the flush a cold row sample gets.
double best_cold_seconds(const std::function<void()>& kernel) {
  double best = INFINITY;
  for (int r = 0; r < kReps; ++r) {
    flush_cpu_caches();
    const auto t0 = Clock::now();
    kernel();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

// The ceiling a row with these bytes is held to, measured cold at kArrayBytes per array.
double ceiling_for(double read_bytes, double written_bytes, int threads, Pattern* pattern) {
  // The patterns of the rows' mix (2 reads, 1 write): add and triad, of which the faster holds.
  constexpr Pattern kMix[] = {Pattern::add, Pattern::triad};
  const BandwidthSet set =
      host::measure_bandwidth(kArrayBytes, threads, host::Timing::cold, nullptr, kMix);
  const Ceiling c = choose_ceiling(set, read_bytes, written_bytes);
  *pattern = c.pattern;
  return c.bytes_per_s;
}

template <class Fill, class Kernel>
void expect_held(const char* row, double read_bytes, double written_bytes, int threads, Fill fill,
                 Kernel kernel) {
  const Usage before = read_usage();
  if (!before.ok) GTEST_SKIP() << "no /proc/stat: cannot tell whether the machine is quiet";
  // A machine already busy skips at once: on the loaded development machine the three tests took
  // 70 s to find that out at the end.
  usleep(200000);
  const double idle_share = others_share(before, read_usage());
  if (idle_share > kOthersMaxShare)
    GTEST_SKIP() << "the machine is not quiet: other processes took " << 100 * idle_share
                 << "% of its CPU time in 0.2 s";
  fill();
  const double row_rate = (read_bytes + written_bytes) / best_cold_seconds(kernel);
  Pattern pattern{};
  const double ceiling = ceiling_for(read_bytes, written_bytes, threads, &pattern);
  const double share = others_share(before, read_usage());
  if (share > kOthersMaxShare)
    GTEST_SKIP() << "the machine was not quiet: other processes took " << 100 * share
                 << "% of its CPU time (row " << row_rate * 1e-9 << " GB/s, " << pattern_name(pattern)
                 << " ceiling " << ceiling * 1e-9 << " GB/s)";
  // The share, for a reader tuning kNoise (others' share too: how quiet it was).
  std::printf("%s: %.1f%% of its %s ceiling (%.2f of %.2f GB/s; others took %.1f%%)\n", row,
              100 * row_rate / ceiling, pattern_name(pattern), row_rate * 1e-9, ceiling * 1e-9,
              100 * share);
  EXPECT_LE(row_rate, ceiling * kNoise)
      << row << " moved " << row_rate * 1e-9 << " GB/s against its " << pattern_name(pattern)
      << " ceiling of " << ceiling * 1e-9 << " GB/s (" << 100 * row_rate / ceiling << "%)";
}

// dtypes' axpy (y = a x + y, in place): 2 arrays read, 1 written, per element.
void axpy_fp64(int threads) {
  const std::size_t n = kArrayBytes / sizeof(double);
  HostArray<double> x(n), y(n);
  const double bytes = static_cast<double>(n * sizeof(double));
  omp_set_num_threads(threads);
  expect_held(
      threads == 1 ? "dtypes/serial axpy fp64" : "dtypes/omp axpy fp64", 2 * bytes, bytes,
      threads,
      [&] {
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < n; ++i) x[i] = 0.5, y[i] = 0.25;
      },
      [&] {
        if (threads == 1)
          dtypes::axpy_serial(x.data(), y.data(), n);
        else
          dtypes::axpy_omp(x.data(), y.data(), n);
      });
}

TEST(CeilingsHoldRows, InPlaceAxpyAllThreads) {
  const int all = omp_get_max_threads();
  axpy_fp64(all);
  omp_set_num_threads(all);
}

TEST(CeilingsHoldRows, InPlaceAxpyOneThread) {
  const int all = omp_get_max_threads();
  axpy_fp64(1);
  omp_set_num_threads(all);
}

// vector_add's omp row (c = a + b, c streamed): 2 arrays read, 1 written.
TEST(CeilingsHoldRows, StreamedVectorAddAllThreads) {
  const std::size_t n = kArrayBytes / sizeof(float);
  HostArray<float> a(n), b(n), c(n);
  const double bytes = static_cast<double>(n * sizeof(float));
  expect_held(
      "vector_add/omp", 2 * bytes, bytes, omp_get_max_threads(),
      [&] {
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < n; ++i) a[i] = 1.0f, b[i] = 2.0f, c[i] = 0.0f;
      },
      [&] { vector_add::omp(a.data(), b.data(), c.data(), n); });
}

}  // namespace
}  // namespace tb
