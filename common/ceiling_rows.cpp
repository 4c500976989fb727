#include "common/ceiling_rows.hpp"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "common/ceilings.hpp"
#include "common/cpu_peak.hpp"
#include "common/cpu_cache_flush.hpp"
#include "common/cpu_isa.hpp"
#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "common/host_ceilings.hpp"
#include "common/l2_flush.hpp"
#include "common/sampler.hpp"
#include "common/telemetry.hpp"
#if TWINBENCH_HAVE_CUDA
#include "gpu/ceilings.hpp"
#include "gpu/tensor_roofs.hpp"
#endif

namespace tb {
namespace {

void add(const std::string& key, const std::string& value) {
  benchmark::AddCustomContext(key, value);
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void record_set(const std::string& prefix, const std::string& suffix, const BandwidthSet& set) {
  for (Pattern p : kAllPatterns) add(prefix + pattern_name(p) + suffix, number(set[p]));
}

std::string gbps_line(const BandwidthSet& set) {
  std::string out;
  for (Pattern p : kAllPatterns) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s %.0f", out.empty() ? "" : ", ", pattern_name(p),
                  set[p] * 1e-9);
    out += buf;
  }
  return out + " GB/s";
}


// A roof in the context under `key`, and as the limit of the set's rows of that precision: the
// higher of two measurements of one precision (the active ISA's loop and the native one).
void record_roof(CeilingSet set, const std::string& precision, const std::string& key,
                 double per_s) {
  add(key, number(per_s));
  set_roof(set, precision, std::max(per_s, roof(set, precision)));
}

// Host arrays 8x a large server's last-level cache share would be ideal; 512 MiB each (1.5 GiB
// for add and triad) is several times the L3 of the machines the suite runs on, and the same
// size the old triad figure used.
std::size_t cpu_array_bytes(const RunConfig& cfg) {
  return cfg.quick ? (std::size_t{32} << 20) : (std::size_t{512} << 20);
}

// cpu_roof_<p>_flops and cpu_roof_<p>_isa, or cpu_roof_<p>_why_not.
void record_low_precision_roof(const std::string& precision, const host::NativeRoof& roof) {
  if (roof.flops > 0) {
    record_roof(CeilingSet::cpu_all, precision, "cpu_roof_" + precision + "_flops", roof.flops);
    add("cpu_roof_" + precision + "_isa", roof.isa);
  } else {
    add("cpu_roof_" + precision + "_why_not", roof.why_not);
  }
}

// The ISA x clock peak beside the measured roofs (common/cpu_peak.hpp), as the limit no row can
// pass: cpu_peak_<p>_flops for all threads, cpu_peak_<p>_one_flops for one.
void record_cpu_peak(int all) {
  const host::CpuPeak peak = host::cpu_peak();
  add("cpu_clock_hz", number(peak.clock_hz));
  add("cpu_peak_basis", peak.basis + " x " + number(peak.clock_hz * 1e-9) +
                            " GHz (the fastest of dependent-add chains on one core)");
  for (const auto& [name, bits] : {std::pair{"fp32", 32}, std::pair{"fp64", 64}}) {
    add(std::string("cpu_peak_") + name + "_flops", number(peak.flops(all, bits)));
    add(std::string("cpu_peak_") + name + "_one_flops", number(peak.flops(1, bits)));
    set_peak(CeilingSet::cpu_all, name, peak.flops(all, bits));
    set_peak(CeilingSet::cpu_one, name, peak.flops(1, bits));
  }
}

// The CPU ceilings measured while something else ran are low: the rows held to them say so
// (common/row_limit.hpp) rather than reading above 100% without a word. The 2-core development
// machine's sgemm/omp read 171% of an FP32 roof measured at a load of 4-6.
void note_busy_ceilings(const telemetry::HostState& before) {
  if (!telemetry::host_busy(before)) return;
  char buf[160];
  std::snprintf(buf, sizeof buf, "measured while the machine was busy (load %.1f on %d CPUs)",
                before.load1, before.cpus);
  add("cpu_ceilings_busy", buf);
  set_ceilings_caveat(CeilingSet::cpu_all, buf);
  set_ceilings_caveat(CeilingSet::cpu_one, buf);
}

// The fitting sets' arrays: a quarter of the caches (L3 + L2s) each, so that the three arrays of
// add and triad sit in the caches together; 0 when the C library does not give their size.
std::size_t cpu_fitting_array_bytes() { return cpu_cache_bytes() / 4; }

// "copy streamed, add in place, ...": the way that gave each pattern its figure.
std::string fastest_ways(const std::vector<host::WayRate>& ways) {
  std::string out;
  for (Pattern p : kAllPatterns) {
    const host::WayRate* best = nullptr;
    for (const host::WayRate& w : ways)
      if (w.pattern == p && (!best || w.bytes_per_s > best->bytes_per_s)) best = &w;
    if (best) out += std::string(out.empty() ? "" : ", ") + pattern_name(p) + " " + best->way;
  }
  return out;
}

// A CPU set: the large arrays timed warm (back to back, so each pass pays the write-back of the
// lines the previous one dirtied: the steady state of a stream several times the caches) and, in a
// cold run, arrays that fit the caches timed cold (each pass after its arrays are evicted: the
// best case of a cold row whose output stays in the caches when its timer stops; BandwidthSet
// says why both). `key` names it in the context ("all", "one").
BandwidthSet measure_cpu_set(const RunConfig& cfg, int threads, const std::string& key) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<host::WayRate> ways;
  BandwidthSet set = host::measure_bandwidth(cpu_array_bytes(cfg), threads, host::Timing::warm,
                                             &ways);
  add("cpu_bw_" + key + "_ways", fastest_ways(ways));
  const std::size_t fitting = cpu_fitting_array_bytes();
  if (cold_caches() && fitting > 0 && fitting < cpu_array_bytes(cfg) && !stop_requested()) {
    ways.clear();
    const BandwidthSet small =
        host::measure_bandwidth(fitting, threads, host::Timing::cold, &ways);
    set.fitting_bytes_per_s = small.bytes_per_s;
    set.fitting_written_bytes = static_cast<double>(cpu_array_bytes(cfg));
    record_set("cpu_bw_", "_" + key + "_fitting_bytes_per_s", small);
    add("cpu_bw_" + key + "_fitting_ways", fastest_ways(ways));
  }
  // What the start spends on each set (the start's cost is part of the run's).
  add("cpu_bw_" + key + "_seconds",
      number(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  return set;
}

// A signal during the start stops the ceilings where they are: what was measured stays in the
// context, and this key says where they stopped (the rows then skip: common/harness.cpp).
bool stopped(const char* before) {
  if (!stop_requested()) return false;
  add("ceilings_interrupted", std::string("stopped by signal ") +
                                  std::to_string(stop_requested()) + " before " + before);
  return true;
}

void record_cpu(const RunConfig& cfg, const CeilingNeeds& needs) {
  const auto t0 = std::chrono::steady_clock::now();
  const int all = omp_get_max_threads();
  note_busy_ceilings(telemetry::read_host_state());
  // Each set goes into the context as soon as it is measured: a run stopped later keeps it.
  add("cpu_bw_array_bytes", std::to_string(cpu_array_bytes(cfg)));
  BandwidthSet all_set;
  if (needs.cpu_all) {
    all_set = measure_cpu_set(cfg, all, "all");
    set_ceilings(CeilingSet::cpu_all, all_set);
    record_set("cpu_bw_", "_all_bytes_per_s", all_set);
    add("cpu_triad_bw_bytes_per_s", number(all_set[Pattern::triad]));
  }
  if (stopped("the one-thread CPU bandwidth")) return;
  if (needs.cpu_one) {
    const BandwidthSet one_set = measure_cpu_set(cfg, 1, "one");
    set_ceilings(CeilingSet::cpu_one, one_set);
    record_set("cpu_bw_", "_one_bytes_per_s", one_set);
  }
  if (stopped("the CPU roofs")) return;
  if (all_set.fitting_written_bytes > 0) {
    add("cpu_bw_fitting_array_bytes", std::to_string(cpu_fitting_array_bytes()));
    add("cpu_bw_fitting_written_bytes", number(all_set.fitting_written_bytes));
  }
  add("cpu_bw_timing",
      std::string("large arrays warm: best of 3 back-to-back passes after one warm-up") +
          (all_set.fitting_written_bytes > 0
               ? "; fitting arrays cold: best of 3 passes, each after its arrays were evicted "
                 "from the caches (dirty lines written back)"
               : ""));
  using host::Precision;
  // The roofs of the CPU kernels: at the ISA level they run (common/cpu_isa.hpp).
  std::string isa = cpu_isa::name(cpu_isa::active_level());
  if (needs.cpu_one) {
    record_roof(CeilingSet::cpu_one, "fp32", "cpu_roof_fp32_one_flops",
                host::measure_fma_roof(Precision::fp32, 1));
    record_roof(CeilingSet::cpu_one, "fp64", "cpu_roof_fp64_one_flops",
                host::measure_fma_roof(Precision::fp64, 1));
  }
  add("cpu_roof_isa", isa);
  record_cpu_peak(all);
  if (!needs.cpu_all) return;
  record_roof(CeilingSet::cpu_all, "fp32", "cpu_roof_fp32_flops",
              host::measure_fma_roof(Precision::fp32, all, &isa));
  record_roof(CeilingSet::cpu_all, "fp64", "cpu_roof_fp64_flops",
              host::measure_fma_roof(Precision::fp64, all));
  // What the same loop gives at the x86-64 baseline (SSE2): what a build without run-time ISA
  // choice would run.
  add("cpu_roof_fp32_baseline_flops",
      number(host::measure_baseline_fma_roof(Precision::fp32, all)));
  record_low_precision_roof("bf16", host::measure_bf16_roof(all));
  record_low_precision_roof("fp16", host::measure_fp16_roof(all));
  const host::NativeRoof n32 = host::measure_native_fma_roof(Precision::fp32, all);
  const host::NativeRoof n64 = host::measure_native_fma_roof(Precision::fp64, all);
  if (n32.flops > 0) {
    // The CPU libraries choose their own ISA: a roof is the most the CPU reached either way.
    record_roof(CeilingSet::cpu_all, "fp32", "cpu_roof_fp32_native_flops", n32.flops);
    record_roof(CeilingSet::cpu_all, "fp64", "cpu_roof_fp64_native_flops", n64.flops);
    add("cpu_roof_native_isa", n32.isa);
  } else {
    add("cpu_roof_native_why_not", n32.why_not);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "twinbench: CPU ceilings (%d threads): %s (%.1f s)\n", all,
               gbps_line(all_set).c_str(), s);
}

#if TWINBENCH_HAVE_CUDA
// FP64 lanes per SM by compute capability: the datacenter parts (7.0, 8.0, 9.0) run FP64 at
// half the FP32 rate; the others at 1/64 (2 lanes per SM).
int fp64_lanes_per_sm(int cc_major, int cc_minor) {
  if ((cc_major == 7 && cc_minor == 0) || (cc_major == 8 && cc_minor == 0)) return 32;
  if (cc_major == 9 && cc_minor == 0) return 64;
  if (cc_major == 10 && cc_minor == 0) return 64;
  return 2;
}

// 512 MiB per array (1.5 GiB for add and triad): over 8x the H200's L2, and flushed anyway.
std::size_t gpu_array_elements(const RunConfig& cfg) {
  return cfg.quick ? (std::size_t{1} << 24) : (std::size_t{1} << 26);
}

// gpu_roof_tf32_flops / gpu_roof_bf16_flops and how they were measured (gpu/tensor_roofs.hpp).
void record_tensor_roofs(const gpu::TensorRoofs& t) {
  if (!t.why_not.empty()) {
    add("gpu_roof_tensor_why_not", t.why_not);
    return;
  }
  record_roof(CeilingSet::gpu, "tf32", "gpu_roof_tf32_flops", t.tf32_flops);
  record_roof(CeilingSet::gpu, "bf16", "gpu_roof_bf16_flops", t.bf16_flops);
  add("gpu_roof_tensor_method", "best of 3 cuBLAS GEMMs at n = " + std::to_string(t.n) +
                                    " (TF32: cublasSgemm with TF32 tensor math; BF16: "
                                    "cublasGemmEx, FP32 accumulation)");
  std::fprintf(stderr, "twinbench: GPU tensor roofs (cuBLAS %zu^3): TF32 %.0f, BF16 %.0f TFLOP/s\n",
               t.n, t.tf32_flops * 1e-12, t.bf16_flops * 1e-12);
}

// The host-device link in each direction, with pinned copies (gpu/ceilings.hpp): the limit of
// the transfer rows, whose managed rows once read 776 GB/s beside pinned copies at 55 GB/s over
// PCIe (results/nvidia-h200/2026-12-04), moving nothing.
void record_link_bandwidth() {
  const gpu::LinkBandwidth link = gpu::measure_link_bandwidth();
  set_link_bandwidth(Link::h2d, link.h2d);
  set_link_bandwidth(Link::d2h, link.d2h);
  add("gpu_link_h2d_bytes_per_s", number(link.h2d));
  add("gpu_link_d2h_bytes_per_s", number(link.d2h));
  add("gpu_link_method", link.method);
}

void record_gpu(const RunConfig& cfg) {
  const GpuInfo& g = gpu_info();
  add("gpu_l2_cache_bytes", std::to_string(l2_cache_bytes()));
  add("gpu_l2_flush_bytes", std::to_string(l2_flush_bytes()));
  const double fp64_peak =
      2.0 * fp64_lanes_per_sm(g.cc_major, g.cc_minor) * g.sms * g.sm_clock_mhz * 1e6;
  add("gpu_peak_fp64_flops", number(fp64_peak));
  set_peak(CeilingSet::gpu, "fp32", g.peak_fp32_flops);
  set_peak(CeilingSet::gpu, "fp64", fp64_peak);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    require_memory({.device_bytes = 3.0 * 8.0 * gpu_array_elements(cfg)});
    const BandwidthSet set = gpu::measure_stream_ceilings(gpu_array_elements(cfg), 10);
    set_ceilings(CeilingSet::gpu, set);
    record_set("gpu_bw_", "_bytes_per_s", set);
    add("gpu_bw_array_bytes", std::to_string(8 * gpu_array_elements(cfg)));
    const gpu::ComputeRoofs roofs = gpu::measure_compute_roofs();
    record_roof(CeilingSet::gpu, "fp32", "gpu_roof_fp32_flops", roofs.fp32);
    record_roof(CeilingSet::gpu, "fp64", "gpu_roof_fp64_flops", roofs.fp64);
    record_roof(CeilingSet::gpu, "fp16", "gpu_roof_fp16_flops", roofs.fp16);
    record_roof(CeilingSet::gpu, "int8", "gpu_roof_int8_ops", roofs.int8);
    record_tensor_roofs(gpu::measure_tensor_roofs());
    record_link_bandwidth();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr,
                 "twinbench: GPU ceilings: %s; FMA roofs FP32 %.1f (datasheet %.1f), FP64 %.1f "
                 "(datasheet %.1f), FP16 %.1f TFLOP/s, INT8 %.1f TOP/s (%.1f s)\n",
                 gbps_line(set).c_str(), roofs.fp32 * 1e-12, g.peak_fp32_flops * 1e-12,
                 roofs.fp64 * 1e-12, fp64_peak * 1e-12, roofs.fp16 * 1e-12, roofs.int8 * 1e-12, s);
  } catch (const std::exception& e) {
    add("gpu_ceilings_error", e.what());
    std::fprintf(stderr, "twinbench: GPU ceilings not measured: %s\n", e.what());
  }
}
#endif

}  // namespace

// The CPU's cache mode and, when cold, one timed pass of its flush (common/cpu_cache_flush.hpp).
void record_cpu_cache_mode() {
  if (!cold_caches()) {
    add("cpu_cache_mode", "warm");
    return;
  }
  add("cpu_cache_mode", "cold");
  choose_cpu_flush_method();
  flush_cpu_caches();  // timed once more for the context
  add("cpu_cache_flush", cpu_cache_flush_description());
}

void record_ceilings_off() {
  add("gpu_cache_mode", cold_caches() ? "cold" : "warm");
  record_cpu_cache_mode();
  add("ceilings", "off (--no-ceilings)");
}

void measure_and_record_ceilings(const RunConfig& cfg, const CeilingNeeds& needs) {
  add("gpu_cache_mode", cold_caches() ? "cold" : "warm");
  record_cpu_cache_mode();
  std::string left_out;
  for (const auto& [needed, what] :
       {std::pair{needs.cpu_all, "cpu_all"}, std::pair{needs.cpu_one, "cpu_one"},
        std::pair{needs.gpu, "gpu"}})
    if (!needed) left_out += std::string(left_out.empty() ? "" : ", ") + what;
  if (!left_out.empty())
    add("ceilings_left_out", left_out + ": no selected row is held to them");
  if (stopped("the CPU ceilings")) return;
  if (needs.cpu_all || needs.cpu_one) record_cpu(cfg, needs);
#if TWINBENCH_HAVE_CUDA
  if (needs.gpu && gpu_info().available && !stopped("the GPU ceilings")) record_gpu(cfg);
#endif
}

}  // namespace tb
