#pragma once
// The host's own ceilings, measured in the run: STREAM-like bandwidth for each access pattern of
// common/ceilings.hpp, the FLOP/s of a register-resident multiply-add loop (as this build's ISA
// compiles it, and as the CPU's best ISA would), and the settings that move those numbers
// (governor, OpenMP binding, NUMA nodes, SMT, boost) so a reader can tell why two runs differ.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "common/ceilings.hpp"

namespace tb::host {

// Bytes read + written per second of each of the six patterns over double arrays of
// `bytes_per_array` bytes each, with `threads` OpenMP threads (<= 0: omp_get_max_threads()).
// Each pattern is moved every way the suite's rows move it (plain stores to a fresh array, in
// place, streamed stores: host_ceilings.cpp lists them), compiled at the active ISA level and
// split over the threads as the rows' loops are; its rate is the fastest way's. Bytes are counted
// as the rows count theirs: each array read or written once, no write-allocate read (STREAM's
// rule). Arrays are first touched by the same threads and partition as the timed passes.
// Timing::warm: best of 3 back-to-back passes after one warm-up (a warm run's rows);
// Timing::cold: best of 3 passes, each after the arrays are evicted from the caches with their
// dirty lines written back, as a cold CPU sample's flush ends (common/cpu_cache_flush.hpp).
// `ways` (when given) receives every way's rate.
enum class Timing { warm, cold };
struct WayRate {
  Pattern pattern = Pattern::copy;
  std::string way;  // "plain", "in place", "streamed"
  double bytes_per_s = 0.0;
};
// `patterns`: those to measure (the others stay 0).
BandwidthSet measure_bandwidth(std::size_t bytes_per_array, int threads,
                               Timing timing = Timing::warm, std::vector<WayRate>* ways = nullptr,
                               std::span<const Pattern> patterns = kAllPatterns);

enum class Precision { fp32, fp64 };

struct NativeRoof {
  double flops = 0.0;
  std::string isa;      // the instructions measured, e.g. "avx512f", "amx-bf16"; empty when 0
  std::string why_not;  // empty when flops > 0
};

// FLOP/s of independent x = x * a + b chains held in registers, at the ISA level the CPU kernels
// run (common/cpu_isa.hpp: AVX-512 FMA on zmm, AVX2 FMA on ymm, or the baseline's SSE2 multiply
// and add): the roof of the hand-written kernels. 2 FLOPs per element update. Best of 3 runs of
// ~30 ms (at least 15 ms) each. `isa` (when given) receives the level's name.
double measure_fma_roof(Precision p, int threads, std::string* isa = nullptr);
// The same FP32 loop, short (best of three runs of ~2 ms, their length calibrated once): a probe of
// what the CPU gives at this moment, taken before and after each CPU row (common/harness.cpp).
// Why: on the H200 host, a VM, the same CPU rows moved up to 1.7x between processes while the
// samples within each agreed, and this roof read 1.33, 2.59 and 1.37 TFLOP/s in three runs:
// the CPU's capacity itself moves, and a row measured in a bad moment should say so.
// What it showed (two default runs, results/nvidia-h200/2026-12-02b): in one run the probes read a median of 1.40
// TFLOP/s, in the other 0.66, yet the rows did not follow: the correlation between the two runs'
// probe ratio and time ratio over 74 CPU rows above 1 ms was 0.01 (sgemm/openblas 4096 ran 17%
// faster in the run whose probes read half). A 2 ms all-thread loop measures something else
// (waking 16 threads, one descheduled vCPU) more than the capacity a long row sees, so the
// report does not use it; the counters stay in the rows for the next attempt (a per-thread
// probe, or one as long as the row).
double probe_fma_rate(int threads);
// The same loop at the x86-64 baseline (SSE2), whatever the CPU: what the suite's CPU side ran
// before it chose its ISA at run time.
double measure_baseline_fma_roof(Precision p, int threads);

// Matrix-unit roofs for the low precisions, each from a register-resident loop of the widest
// instruction the CPU has: BF16 products summed in FP32 (AMX TDPBF16PS on tiles where the CPU
// and the OS allow AMX, else AVX512_BF16 VDPBF16PS), FP16 FMA (AVX512_FP16 VFMADD on 32 halves).
// flops = 0 and why_not says why when the CPU has none.
NativeRoof measure_bf16_roof(int threads);
NativeRoof measure_fp16_roof(int threads);

// The same loop compiled for the best ISA the CPU has (AVX-512F, else AVX2 + FMA), whatever
// --cpu-isa says: what the CPU can do. flops = 0 and why_not says why when there is none.
NativeRoof measure_native_fma_roof(Precision p, int threads);

// Settings that change the host's numbers, as text for the run context. Each says "unknown: ..."
// or "unset" rather than guessing.
struct HostEnvironment {
  std::string cpu_governor;   // cpu0's scaling_governor, or "none: no cpufreq (...)"
  std::string omp_proc_bind;  // $OMP_PROC_BIND or "unset"
  std::string omp_places;     // $OMP_PLACES or "unset"
  std::string numa_nodes;     // count of node<N> folders, or "unknown: ..."
  std::string smt;            // smt/active ("1" on, "0" off) or "unknown"
  std::string cpu_boost;      // "on (...)" / "off (...)" naming the file, or "unknown"
};
// `sys_root` is prefixed to every /sys path ("" = the real one), so tests can use a fake tree.
HostEnvironment read_host_environment(const std::string& sys_root = "");

}  // namespace tb::host
