#include "common/ceiling_rows.hpp"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "common/ceilings.hpp"
#include "common/cpu_cache_flush.hpp"
#include "common/gpu_context.hpp"
#include "common/harness.hpp"
#include "common/host_ceilings.hpp"
#include "common/l2_flush.hpp"
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


// Host arrays 8x a large server's last-level cache share would be ideal; 512 MiB each (1.5 GiB
// for add and triad) is several times the L3 of the machines the suite runs on, and the same
// size the old triad figure used.
std::size_t cpu_array_bytes(const RunConfig& cfg) {
  return cfg.quick ? (std::size_t{32} << 20) : (std::size_t{512} << 20);
}

// cpu_roof_<p>_flops and cpu_roof_<p>_isa, or cpu_roof_<p>_why_not.
void record_low_precision_roof(const std::string& precision, const host::NativeRoof& roof) {
  if (roof.flops > 0) {
    add("cpu_roof_" + precision + "_flops", number(roof.flops));
    add("cpu_roof_" + precision + "_isa", roof.isa);
  } else {
    add("cpu_roof_" + precision + "_why_not", roof.why_not);
  }
}

void record_cpu(const RunConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  const int all = omp_get_max_threads();
  const BandwidthSet all_set = host::measure_bandwidth(cpu_array_bytes(cfg), all);
  const BandwidthSet one_set = host::measure_bandwidth(cpu_array_bytes(cfg), 1);
  set_ceilings(CeilingSet::cpu_all, all_set);
  set_ceilings(CeilingSet::cpu_one, one_set);
  record_set("cpu_bw_", "_all_bytes_per_s", all_set);
  record_set("cpu_bw_", "_one_bytes_per_s", one_set);
  add("cpu_triad_bw_bytes_per_s", number(all_set[Pattern::triad]));
  add("cpu_bw_array_bytes", std::to_string(cpu_array_bytes(cfg)));
  using host::Precision;
  // The roofs of the CPU kernels: at the ISA level they run (common/cpu_isa.hpp).
  std::string isa;
  add("cpu_roof_fp32_flops", number(host::measure_fma_roof(Precision::fp32, all, &isa)));
  add("cpu_roof_fp64_flops", number(host::measure_fma_roof(Precision::fp64, all)));
  add("cpu_roof_fp32_one_flops", number(host::measure_fma_roof(Precision::fp32, 1)));
  add("cpu_roof_fp64_one_flops", number(host::measure_fma_roof(Precision::fp64, 1)));
  add("cpu_roof_isa", isa);
  // What the same loop gives at the x86-64 baseline (SSE2): what a build without run-time ISA
  // choice would run.
  add("cpu_roof_fp32_baseline_flops",
      number(host::measure_baseline_fma_roof(Precision::fp32, all)));
  record_low_precision_roof("bf16", host::measure_bf16_roof(all));
  record_low_precision_roof("fp16", host::measure_fp16_roof(all));
  const host::NativeRoof n32 = host::measure_native_fma_roof(Precision::fp32, all);
  const host::NativeRoof n64 = host::measure_native_fma_roof(Precision::fp64, all);
  if (n32.flops > 0) {
    add("cpu_roof_fp32_native_flops", number(n32.flops));
    add("cpu_roof_fp64_native_flops", number(n64.flops));
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
  add("gpu_roof_tf32_flops", number(t.tf32_flops));
  add("gpu_roof_bf16_flops", number(t.bf16_flops));
  add("gpu_roof_tensor_method", "best of 3 cuBLAS GEMMs at n = " + std::to_string(t.n) +
                                    " (TF32: cublasSgemm with TF32 tensor math; BF16: "
                                    "cublasGemmEx, FP32 accumulation)");
  std::fprintf(stderr, "twinbench: GPU tensor roofs (cuBLAS %zu^3): TF32 %.0f, BF16 %.0f TFLOP/s\n",
               t.n, t.tf32_flops * 1e-12, t.bf16_flops * 1e-12);
}

void record_gpu(const RunConfig& cfg) {
  const GpuInfo& g = gpu_info();
  add("gpu_l2_cache_bytes", std::to_string(l2_cache_bytes()));
  add("gpu_l2_flush_bytes", std::to_string(l2_flush_bytes()));
  const double fp64_peak =
      2.0 * fp64_lanes_per_sm(g.cc_major, g.cc_minor) * g.sms * g.sm_clock_mhz * 1e6;
  add("gpu_peak_fp64_flops", number(fp64_peak));
  const auto t0 = std::chrono::steady_clock::now();
  try {
    require_memory({.device_bytes = 3.0 * 8.0 * gpu_array_elements(cfg)});
    const BandwidthSet set = gpu::measure_stream_ceilings(gpu_array_elements(cfg), 10);
    set_ceilings(CeilingSet::gpu, set);
    record_set("gpu_bw_", "_bytes_per_s", set);
    add("gpu_bw_array_bytes", std::to_string(8 * gpu_array_elements(cfg)));
    const gpu::ComputeRoofs roofs = gpu::measure_compute_roofs();
    add("gpu_roof_fp32_flops", number(roofs.fp32));
    add("gpu_roof_fp64_flops", number(roofs.fp64));
    add("gpu_roof_fp16_flops", number(roofs.fp16));
    add("gpu_roof_int8_ops", number(roofs.int8));
    record_tensor_roofs(gpu::measure_tensor_roofs());
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

void measure_and_record_ceilings(const RunConfig& cfg) {
  add("gpu_cache_mode", cold_caches() ? "cold" : "warm");
  record_cpu_cache_mode();
  record_cpu(cfg);
#if TWINBENCH_HAVE_CUDA
  if (gpu_info().available) record_gpu(cfg);
#endif
}

}  // namespace tb
