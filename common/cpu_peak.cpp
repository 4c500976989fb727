#include "common/cpu_peak.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "common/cpu_isa.hpp"

namespace tb::host {
namespace {

std::string hex(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

// /proc/cpuinfo's first value of `key` ("vendor_id", "cpu family", "CPU part"), or "".
std::string cpuinfo_value(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto first = line.find_first_not_of(" \t", colon + 1);
    return first == std::string::npos ? "" : line.substr(first);
  }
  return "";
}

int parse_int(const std::string& s) {
  try {
    return s.empty() ? 0 : std::stoi(s, nullptr, 0);
  } catch (...) {
    return 0;
  }
}

// Dependent register-register adds (x += x), eight an iteration: the loop's own increment and
// branch run beside them on other ports, so an iteration takes eight cycles. Not `add $1`: the
// H200 host's Emerald Rapids cores fold chains of immediate adds at rename, and such a chain read
// 11.6 GHz there.
constexpr int kAddsPerIter = 8;
double time_add_chain(std::int64_t iters) {
  std::uint64_t x = 1;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < iters; ++i) {
#if defined(__x86_64__)
    asm volatile(
        "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
        "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0"
        : "+r"(x));
#elif defined(__aarch64__)
    asm volatile(
        "add %0, %0, %0\n\tadd %0, %0, %0\n\tadd %0, %0, %0\n\tadd %0, %0, %0\n\t"
        "add %0, %0, %0\n\tadd %0, %0, %0\n\tadd %0, %0, %0\n\tadd %0, %0, %0"
        : "+r"(x));
#else
    x += x;
    asm volatile("" : "+r"(x));
#endif
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  asm volatile("" : : "r"(x));
  return s;
}

}  // namespace

double fma_bits_per_cycle(const std::string& vendor, int family, const std::string& level,
                          int arm_part, std::string* basis) {
  double bits = 0.0;
  std::string why;
  if (level == "neon") {
    const bool two = arm_part == 0xd0c || arm_part == 0xd49 || arm_part == 0xd08 ||
                     arm_part == 0xd0b;
    bits = (two ? 2 : 4) * 128.0;
    why = "CPU part " + hex(arm_part) + ", neon: " + (two ? "2" : "4") + " x 128";
  } else if (level == "avx512") {
    const bool zen4 = vendor == "AuthenticAMD" && family == 0x19;
    bits = zen4 ? 512.0 : 1024.0;
    why = vendor + " family " + hex(family) + ", avx512: " + (zen4 ? "2 x 256" : "2 x 512");
  } else if (level == "avx2") {
    bits = 512.0;
    why = vendor + ", avx2: 2 x 256";
  } else {
    bits = 128.0;
    why = "baseline SSE2: a 128-bit multiply and add a cycle";
  }
  if (basis) *basis = why + " FMA bits/cycle";
  return bits;
}

double measure_clock_hz() {
  // About 1 ms a chain at 3 GHz, well inside a time slice; the fastest of 40, after one that
  // wakes the core up. Chains of 10 ms on the 2-core development machine at a load of 3 read
  // 1.77 GHz, two thirds of the clock a dtypes row there needed for its FLOPs: time-sliced.
  constexpr std::int64_t kIters = 400'000;
  time_add_chain(kIters);
  double best = 1e30;
  for (int rep = 0; rep < 40; ++rep) best = std::min(best, time_add_chain(kIters));
  return kAddsPerIter * static_cast<double>(kIters) / best;
}

CpuPeak cpu_peak() {
  CpuPeak p;
  // The host's best level, not the active one: the CPU libraries choose their own ISA.
  const std::string level = cpu_isa::name(cpu_isa::host_level());
  p.fma_bits_per_cycle =
      fma_bits_per_cycle(cpuinfo_value("vendor_id"), parse_int(cpuinfo_value("cpu family")),
                         level, parse_int(cpuinfo_value("CPU part")), &p.basis);
  p.clock_hz = measure_clock_hz();
  return p;
}

}  // namespace tb::host
