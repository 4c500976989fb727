#pragma once
// The CPU's physical multiply-add peak, from its ISA and its clock, beside the measured roof in
// the run context: a roof is a measurement and can come out low (on the H200 host, a KVM guest
// of an Emerald Rapids Xeon, the all-thread FP32 roof read 1.33, 2.59 and 1.37 TFLOP/s in three
// runs, and a dtypes row ran at 1.58 against a roof of 1.36: results/nvidia-h200/2026-12-04),
// while the peak is what no row can pass: threads x FMA results per cycle x 2 x clock.
//
// FMA bits per cycle and core, at the host's best ISA level (common/cpu_isa.hpp; the CPU
// libraries use it whatever --cpu-isa says):
//   Intel with AVX-512: 2 x 512 (two FMA ports, as Xeon Scalable Gold/Platinum and later have;
//     parts with one are over-estimated 2x, which keeps the peak an upper bound);
//   AMD Zen 4 (family 0x19) with AVX-512: 512 (two 256-bit pipes; a zmm FMA takes both);
//   AMD Zen 5 (family 0x1A) and later with AVX-512: 2 x 512;
//   AVX2 + FMA, any vendor: 2 x 256;
//   the x86-64 baseline (SSE2, no FMA): a multiply and an add on 128 bits a cycle each, counted
//     as 128 bits of FMA;
//   aarch64 NEON: 128-bit pipes by the core's MIDR part number: Neoverse N1 (0xd0c), N2 (0xd49),
//     Cortex-A72/A76 (0xd08, 0xd0b): 2; Neoverse V1 (0xd40), V2 (0xd4f) and unknown parts: 4.
// The clock: the fastest of a chain of dependent integer adds (one a cycle) on one thread,
// which is what a core reaches with the others idle; with all busy it runs no faster.
#include <string>

namespace tb::host {

struct CpuPeak {
  double fma_bits_per_cycle = 0.0;  // per core
  double clock_hz = 0.0;            // measured
  std::string basis;                // "AMD family 0x19, avx512: 512 FMA bits/cycle"
  // FLOP/s of `threads` cores at `element_bits` (32 for FP32, 64 for FP64).
  double flops(int threads, int element_bits) const {
    return threads * (fma_bits_per_cycle / element_bits) * 2.0 * clock_hz;
  }
};

// The FMA width of this CPU at its best ISA level, and its clock measured now (~50 ms).
CpuPeak cpu_peak();

// The width alone, from the vendor and family (/proc/cpuinfo's vendor_id and cpu family, or on
// aarch64 its CPU part) and the ISA level's name ("avx512", "avx2", "baseline", "neon"): plain,
// so the tests check each row of the table above.
double fma_bits_per_cycle(const std::string& vendor, int family, const std::string& level,
                          int arm_part, std::string* basis = nullptr);

// The core clock (Hz): the fastest of several timed chains of dependent adds on this thread.
double measure_clock_hz();

}  // namespace tb::host
