"""Writes the synthetic sample runs used by the tests.

The numbers are invented (loosely H200-shaped) but the layout follows
`twinbench --benchmark_out` exactly, so the loader sees what it will see on a
real run. Rerun after changing: `python tests/python/data/make_samples.py`.
Round numbers are chosen on purpose where tests check computed cells.

gpu_run.json, cpu_only_run.json and errors_run.json carry the current schema (per-pattern
ceilings, measured roofs, cold L2, telemetry, energy, env_* settings); old_format_run.json is the
layout before it (one device copy bandwidth, pct_copy_bw), kept to test the fallbacks.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
COPY_BW = 4.0e12          # bytes/s, device-to-device copy (cudaMemcpy) measured at start
PEAK_FP32 = 60.0e12       # FLOP/s, datasheet
CPU_TRIAD_BW = 200.0e9    # bytes/s
UNIT_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}

# Measured ceilings per access pattern, bytes read + written per second (common/ceilings.hpp).
PATTERNS = ("read", "write", "copy", "scale", "add", "triad")
READ_SHARE = {"read": 1.0, "write": 0.0, "copy": 0.5, "scale": 0.5, "add": 2 / 3, "triad": 2 / 3}
GPU_BW = {"read": 4.6e12, "write": 4.2e12, "copy": 4.0e12, "scale": 4.0e12, "add": 4.35e12,
          "triad": 4.3e12}
CPU_BW_ALL = {"read": 240e9, "write": 150e9, "copy": 180e9, "scale": 180e9, "add": 200e9,
              "triad": CPU_TRIAD_BW}
CPU_BW_ONE = {"read": 20e9, "write": 12e9, "copy": 14e9, "scale": 14e9, "add": 16e9,
              "triad": 15e9}
GPU_ROOFS = {"fp32": 58e12, "fp64": 29e12, "fp16": 110e12}
GPU_INT8_OPS = 220e12
PEAK_FP64 = 30e12
CPU_ROOFS = {"cpu_roof_fp32_flops": 1.6e12, "cpu_roof_fp64_flops": 0.8e12,
             "cpu_roof_fp32_one_flops": 100e9, "cpu_roof_fp64_one_flops": 50e9}
CPU_NATIVE = {"cpu_roof_fp32_native_flops": 3.2e12, "cpu_roof_fp64_native_flops": 1.6e12}
# Mean power while a row's samples ran (W): energy per iteration = power x median time.
GPU_POWER_W, GPU_E2E_POWER_W = 500.0, 200.0
CPU_POWER_W = {"serial": 100.0, "omp": 250.0}
RAPL = "rapl: package-0, package-1 (intel-rapl energy_uj)"
NO_RAPL = "not available here: /sys/class/powercap does not exist (a VM usually hides RAPL)"

_family_index = {}


@dataclass
class Style:
    """What the sample being written can carry: the old layout, CPU energy (RAPL)."""
    old: bool = False
    cpu_energy: bool = True


_style = Style()


@contextmanager
def style(**kwargs):
    global _style
    saved, _style = _style, Style(**kwargs)
    try:
        yield
    finally:
        _style = saved


def _context(gpu: bool, extra: dict | None = None) -> dict:
    ctx = {
        "date": "2025-11-30T05:00:00+00:00",
        "host_name": "sample-host",
        "executable": "./build/twinbench",
        "num_cpus": 32,
        "mhz_per_cpu": 3100,
        "cpu_scaling_enabled": False,
        "caches": [{"type": "Data", "level": 1, "size": 49152, "num_sharing": 2}],
        "load_avg": [0.5, 0.4, 0.3],
        "library_build_type": "release",
        "sample": "synthetic, for tests",
        "twinbench_version": "0.1.0",
        "git_revision": "abc1234",
        "machine": "sample-machine",
        "build_type": "Release",
        "compiler": "GNU 12.2.0",
        "cpu_model": "Sample CPU 32-Core",
        "omp_threads": "16",
        "cpu_triad_bw_bytes_per_s": str(CPU_TRIAD_BW),
    }
    if not _style.old:
        ctx.update(_new_cpu_context())
    if gpu:
        ctx.update({
            "gpu_status": "available",
            "gpu_name": "Sample H200 (synthetic)",
            "gpu_cc": "9.0",
            "gpu_sms": "132",
            "gpu_memory_bytes": str(141 * 2**30),
            "gpu_sm_clock_mhz": "1980",
            "gpu_mem_clock_mhz": "3201",
            "gpu_mem_bus_bits": "6144",
            "cuda_driver_version": "12080",
            "cuda_runtime_version": "12060",
            "gpu_copy_bw_bytes_per_s": str(COPY_BW),
            "gpu_peak_fp32_flops": str(PEAK_FP32),
        })
        if not _style.old:
            ctx.update(_new_gpu_context())
    else:
        ctx["gpu_status"] = "not built: TWINBENCH_WITH_CUDA=OFF"
    ctx.update(extra or {})
    return ctx


def _new_cpu_context() -> dict:
    ctx = {"quick": "false", "cpu_energy": RAPL if _style.cpu_energy else NO_RAPL,
           "env_cpu_governor": "performance", "env_cpu_boost": "on", "env_smt": "on",
           "env_numa_nodes": "2", "env_omp_proc_bind": "close", "env_omp_places": "cores"}
    for p in PATTERNS:
        ctx[f"cpu_bw_{p}_all_bytes_per_s"] = str(CPU_BW_ALL[p])
        ctx[f"cpu_bw_{p}_one_bytes_per_s"] = str(CPU_BW_ONE[p])
    ctx.update({k: str(v) for k, v in CPU_ROOFS.items()})
    if _style.cpu_energy:
        ctx.update({k: str(v) for k, v in CPU_NATIVE.items()})
        ctx["cpu_roof_native_isa"] = "AVX-512 FMA"
    else:
        ctx["cpu_roof_native_isa"] = "0"
        ctx["cpu_roof_native_why_not"] = "the CPU has neither AVX-512F nor AVX2 with FMA"
    return ctx


def _new_gpu_context() -> dict:
    ctx = {"gpu_l2_cache_bytes": str(50 * 2**20), "gpu_cache_mode": "cold",
           "gpu_l2_flush_bytes": str(100 * 2**20), "gpu_telemetry": "nvml",
           "gpu_peak_fp64_flops": str(PEAK_FP64), "gpu_roof_int8_ops": str(GPU_INT8_OPS),
           "env_gpu_persistence_mode": "Enabled", "env_gpu_ecc": "Enabled",
           "env_gpu_app_sm_clock_mhz": "1980", "env_gpu_app_mem_clock_mhz": "3201",
           "env_gpu_driver": "580.95.05"}
    for p in PATTERNS:
        ctx[f"gpu_bw_{p}_bytes_per_s"] = str(GPU_BW[p])
    for precision, value in GPU_ROOFS.items():
        ctx[f"gpu_roof_{precision}_flops"] = str(value)
    return ctx


def choose_ceiling(bandwidths: dict[str, float], read: float, written: float) -> str:
    """The pattern whose read share is nearest the row's; of equals, the faster (as the suite)."""
    share = read / (read + written)
    return min(PATTERNS, key=lambda p: (abs(share - READ_SHARE[p]), -bandwidths[p]))


def _side(name: str) -> str:
    impl = name.split("/")[1]
    if impl.startswith("serial"):
        return "serial"
    if impl.startswith(("omp", "openblas", "onednn")):
        return "omp"
    return "gpu"


def _ceiling_counters(name: str, seconds: float, nbytes: float, read_share: float) -> dict:
    read, written = nbytes * read_share, nbytes * (1 - read_share)
    out = {"read_bytes_per_iter": read, "written_bytes_per_iter": written}
    if "mode:e2e" in name:
        return out  # PCIe-bound: held to no memory ceiling
    bandwidths = {"gpu": GPU_BW, "omp": CPU_BW_ALL, "serial": CPU_BW_ONE}[_side(name)]
    pattern = choose_ceiling(bandwidths, read, written)
    return out | {"ceiling_pattern": PATTERNS.index(pattern),
                  "ceiling_bytes_per_s": bandwidths[pattern],
                  "pct_ceiling": 100.0 * nbytes / seconds / bandwidths[pattern]}


def _telemetry_counters(name: str, seconds: float) -> dict:
    """NVML readings on GPU rows, host state (and RAPL power) on CPU rows; energy both sides."""
    side = _side(name)
    if side == "gpu":
        e2e = "mode:e2e" in name
        power = GPU_E2E_POWER_W if e2e else GPU_POWER_W
        out = {"gpu_sm_mhz_min": 1980, "gpu_sm_mhz_mean": 1980, "gpu_mem_mhz_mean": 3201,
               "gpu_power_w_mean": power, "gpu_power_w_max": power * 1.1, "gpu_temp_c_max": 55,
               "gpu_throttle_reasons": 0, "gpu_throttled": 0, "telemetry_readings": 12,
               "energy_per_iter_j": power * seconds}
        if not e2e:
            out["l2_flushed"] = 1
        return out
    out = {"host_load1_before": 0.4, "host_cpu_mhz_before": 3100, "host_cpu_mhz_after": 3050,
           "host_busy": 0}
    if _style.cpu_energy:
        out |= {"cpu_power_w_mean": CPU_POWER_W[side],
                "energy_per_iter_j": CPU_POWER_W[side] * seconds}
    return out


def _unit_for(seconds: float) -> str:
    if seconds < 1e-5:
        return "ns"
    if seconds < 1e-2:
        return "us"
    return "ms"


def entry(name: str, seconds: float, counters: dict | None = None, *,
          bytes_per_iter: float | None = None, flop_per_iter: float | None = None,
          suffix: str = "/manual_time", rep: int = 0, reps: int = 1,
          run_type: str = "iteration", aggregate: str | None = None,
          error: str | None = None, read_share: float | None = None,
          items: float | None = None) -> dict:
    """One Google Benchmark entry. read_share (bytes read / bytes moved) gives the row its
    per-pattern ceiling; items its items_per_second and energy per item."""
    run_name = name + suffix
    family = name.split("/")[0] + "/" + name.split("/")[1]
    fam_idx = _family_index.setdefault(family, len(_family_index))
    unit = _unit_for(seconds)
    e = {
        "name": run_name + (f"_{aggregate}" if aggregate else ""),
        "family_index": fam_idx,
        "per_family_instance_index": 0,
        "run_name": run_name,
        "run_type": run_type,
        "repetitions": reps,
        "repetition_index": rep,
        "threads": 1,
        "iterations": 100 if run_type == "iteration" else 3,
        "real_time": seconds / UNIT_SCALE[unit],
        "cpu_time": seconds / UNIT_SCALE[unit] * 1.01,
        "time_unit": unit,
    }
    if aggregate:
        e["aggregate_name"] = aggregate
        e["aggregate_unit"] = "percentage" if aggregate == "cv" else "time"
        del e["repetition_index"]
    if error:
        e["error_occurred"] = True
        e["error_message"] = error
        return e
    if bytes_per_iter:
        e["bytes_per_second"] = bytes_per_iter / seconds
        e["bytes_per_iter"] = bytes_per_iter
    if flop_per_iter:
        e["flop_per_s"] = flop_per_iter / seconds
        e["flop_per_iter"] = flop_per_iter
    if items:
        e["items_per_second"] = items / seconds
    if _style.old:
        if bytes_per_iter and _side(name) == "gpu" and name.split("/")[0] != "transfers":
            e["pct_copy_bw"] = 100.0 * bytes_per_iter / seconds / COPY_BW
    else:
        if bytes_per_iter and read_share is not None:
            e.update(_ceiling_counters(name, seconds, bytes_per_iter, read_share))
        if name.split("/")[0] not in ("transfers", "streams", "progress"):
            e.update(_telemetry_counters(name, seconds))
            if items and "energy_per_iter_j" in e:
                e["energy_per_item_j"] = e["energy_per_iter_j"] / items
    e.update(counters or {})
    return e


def gpu_counters(block: int | str, occupancy: float, regs: int = 16) -> dict:
    if isinstance(block, str):
        bx, by = (int(v) for v in block.split("x"))
        extra = {"block": bx * by, "block_x": bx, "block_y": by}
    else:
        extra = {"block": block}
    threads = extra["block"]
    return {**extra, "regs_per_thread": regs, "occupancy": occupancy,
            "active_blocks_per_sm": int(occupancy * 2048 / threads),
            "grid_blocks": 1024, "static_smem_bytes": 0,
            "low_occupancy": 1 if occupancy < 0.5 else 0, "suggested_block": 256,
            "max_abs_err": 0.0, "max_rel_err": 0.0}


# ----------------------------------------------------------------- workloads

def vector_add(with_gpu: bool) -> list[dict]:
    out = []
    # serial/omp numbers are round so tests can check speedups: 320/40 = 8x.
    cpu_times = {1048576: (1.25e-3, 0.25e-3), 268435456: (320e-3, 40e-3)}
    for n, (t_serial, t_omp) in cpu_times.items():
        nbytes, flop = 12.0 * n, float(n)
        work = dict(bytes_per_iter=nbytes, flop_per_iter=flop, read_share=2 / 3, items=n)
        out.append(entry(f"vector_add/serial/n:{n}", t_serial, {"max_rel_err": 0.0}, **work,
                         suffix="/real_time"))
        out.append(entry(f"vector_add/omp/n:{n}/threads:16", t_omp,
                         {"threads": 16, "max_rel_err": 0.0}, **work, suffix="/real_time"))
        if not with_gpu:
            continue
        scale = n / 268435456
        for block, occ, t in ((32, 0.5, 1.6e-3), (128, 1.0, 1.0e-3), (256, 1.0, 0.8e-3),
                              (512, 1.0, 0.85e-3), (1024, 1.0, 0.95e-3)):
            out.append(entry(f"vector_add/cuda/n:{n}/block:{block}/mode:kernel",
                             max(t * scale, 6e-6), gpu_counters(block, occ), **work))
        if n == 268435456:
            # Repeated e2e run: three iterations plus Google Benchmark's aggregates.
            reps = (128e-3, 130e-3, 133e-3)
            name = f"vector_add/cuda/n:{n}/block:256/mode:e2e"
            for i, t in enumerate(reps):
                out.append(entry(name, t, gpu_counters(256, 1.0), **work, rep=i, reps=3))
            for agg, value in (("mean", 130.333e-3), ("median", 130e-3), ("stddev", 2.517e-3)):
                out.append(entry(name, value, gpu_counters(256, 1.0), **work, reps=3,
                                 run_type="aggregate", aggregate=agg))
            cv = entry(name, 1.0, reps=3, run_type="aggregate", aggregate="cv")
            cv["real_time"], cv["cpu_time"], cv["time_unit"] = 0.0193, 0.0193, "ns"
            out.append(cv)
        else:
            out.append(entry(f"vector_add/cuda/n:{n}/block:256/mode:e2e", 0.9e-3,
                             gpu_counters(256, 1.0), **work))
        out.append(entry(f"vector_add/thrust/n:{n}/mode:kernel", max(0.9e-3 * scale, 7e-6),
                         {"max_rel_err": 0.0}, **work))
    return out


def dot(with_gpu: bool) -> list[dict]:
    out = []
    for n, t_serial, t_omp in ((1048576, 0.5e-3, 0.1e-3), (67108864, 40e-3, 5e-3)):
        nbytes, flop = 8.0 * n, 2.0 * n
        work = dict(bytes_per_iter=nbytes, flop_per_iter=flop, read_share=1.0, items=n)
        # Something else ran on the host before the small serial dot.
        busy = ({"host_busy": 1, "host_load1_before": 20.5, "host_cpu_mhz_before": 2400,
                 "host_cpu_mhz_after": 2600} if n == 1048576 and not _style.old else {})
        out.append(entry(f"dot/serial/n:{n}", t_serial, {"max_rel_err": 0.0} | busy, **work,
                         suffix="/real_time"))
        out.append(entry(f"dot/omp/n:{n}/threads:16", t_omp, {"threads": 16, "max_rel_err": 2e-7},
                         **work, suffix="/real_time"))
        if not with_gpu:
            continue
        scale = n / 67108864
        for block, occ, t in ((128, 1.0, 0.22e-3), (256, 1.0, 0.18e-3), (512, 1.0, 0.19e-3)):
            out.append(entry(f"dot/cuda/n:{n}/block:{block}/mode:kernel", max(t * scale, 8e-6),
                             gpu_counters(block, occ, regs=24) | {"max_rel_err": 3e-7}, **work))
        out.append(entry(f"dot/cuda/n:{n}/block:256/mode:e2e", max(11e-3 * scale, 0.3e-3),
                         gpu_counters(256, 1.0, regs=24), **work))
        out.append(entry(f"dot/cublas/n:{n}/mode:kernel", max(0.17e-3 * scale, 9e-6),
                         {"max_rel_err": 1e-7}, **work))
    return out


def matmul(with_gpu: bool) -> list[dict]:
    """Compute-bound; e2e CUDA overtakes the CPU from n=128 on."""
    out = []
    # n: (serial, omp, cuda e2e); omp has a fixed ~50 µs fork/join cost.
    times = {64: (0.5e-3, 0.1e-3, 0.3e-3), 128: (4e-3, 0.4e-3, 0.35e-3),
             256: (32e-3, 2.5e-3, 0.6e-3), 512: (256e-3, 18e-3, 1.8e-3),
             1024: (2.048, 140e-3, 9e-3)}
    for n, (t_serial, t_omp, t_e2e) in times.items():
        flop, nbytes = 2.0 * n**3, 12.0 * n * n
        work = dict(bytes_per_iter=nbytes, flop_per_iter=flop, read_share=2 / 3, items=n * n)
        out.append(entry(f"matmul/serial/n:{n}", t_serial, {"max_rel_err": 0.0}, **work,
                         suffix="/real_time"))
        out.append(entry(f"matmul/omp/n:{n}/threads:16", t_omp, {"threads": 16, "max_rel_err": 0.0},
                         **work, suffix="/real_time"))
        if not with_gpu:
            continue
        for impl, eff in (("cuda_naive", 0.05), ("cuda_tiled", 0.2)):
            for block, occ in (("8x8", 0.5), ("16x16", 1.0), ("32x32", 1.0)):
                t = max(flop / (PEAK_FP32 * eff * (0.8 if block == "8x8" else 1.0)), 5e-6)
                out.append(entry(f"matmul/{impl}/n:{n}/block:{block}/mode:kernel", t,
                                 gpu_counters(block, occ, regs=32) | {"max_rel_err": 1e-6}, **work))
        out.append(entry(f"matmul/cuda_tiled/n:{n}/block:16x16/mode:e2e", t_e2e,
                         gpu_counters("16x16", 1.0, regs=32), **work))
        # The largest cuBLAS run hit the power cap and then ran hot: NVML says so.
        throttled = ({"gpu_throttled": 1, "gpu_throttle_reasons": 0x4 | 0x20,
                      "gpu_sm_mhz_min": 1410, "gpu_sm_mhz_mean": 1755, "gpu_power_w_max": 700,
                      "gpu_temp_c_max": 87} if n == 1024 and not _style.old else {})
        out.append(entry(f"matmul/cublas/n:{n}/mode:kernel", max(flop / (PEAK_FP32 * 0.7), 4e-6),
                         {"max_rel_err": 1e-6} | throttled, **work))
    return out


def grayscale(with_gpu: bool) -> list[dict]:
    w, h = 3840, 2160
    nbytes = 4.0 * w * h  # 3 bytes in, 1 byte out per pixel
    size = f"w:{w}/h:{h}"
    work = dict(bytes_per_iter=nbytes, read_share=0.75, items=w * h)
    out = [entry(f"grayscale/serial/{size}", 8e-3, {"max_abs_err": 0.0}, **work,
                 suffix="/real_time"),
           entry(f"grayscale/omp/{size}/threads:16", 1e-3, {"threads": 16, "max_abs_err": 0.0},
                 **work, suffix="/real_time")]
    if with_gpu:
        for impl, base in (("cuda_naive", 40e-6), ("cuda_coalesced", 16e-6)):
            for block, occ, f in (("8x8", 0.5, 1.3), ("16x16", 1.0, 1.0), ("32x8", 1.0, 1.05),
                                  ("32x32", 1.0, 1.2)):
                out.append(entry(f"grayscale/{impl}/{size}/block:{block}/mode:kernel", base * f,
                                 gpu_counters(block, occ) | {"max_abs_err": 0.0}, **work))
        out.append(entry(f"grayscale/cuda_coalesced/{size}/block:16x16/mode:e2e", 3e-3,
                         gpu_counters("16x16", 1.0), **work))
    return out


def transfers() -> list[dict]:
    out = []
    peaks = {"pageable": 20e9, "pinned": 55e9, "mapped": 45e9, "managed": 15e9,
             "managed_prefetch": 40e9}
    for kind, peak in peaks.items():
        for direction in ("h2d", "d2h"):
            for exp in range(12, 29, 4):
                nbytes = 2**exp
                t = 10e-6 + nbytes / (peak * (0.9 if direction == "d2h" else 1.0))
                out.append(entry(f"transfers/{kind}/dir:{direction}/bytes:{nbytes}", t,
                                 {"transfer_bytes": nbytes}, bytes_per_iter=nbytes))
    return out


def streams() -> list[dict]:
    out = []
    n = 67108864
    serial_t = 30e-3
    for chunk in (1048576, 8388608):
        for count in (1, 2, 4, 8):
            eff = 0.0 if count == 1 else min(0.9, 0.35 * (count - 1)) * (0.8 if chunk == 1048576 else 1.0)
            t = serial_t * (1 - 0.6 * eff)
            out.append(entry(f"streams/cuda/n:{n}/streams:{count}/chunk:{chunk}", t,
                             {"streams": count, "chunk_bytes": chunk,
                              "overlap_efficiency": eff, "ideal_overlap": 0.66}))
    return out


def progress() -> list[dict]:
    out = []
    n = 268435456
    for target, overheads in (("vector_add", (0.0, 1.5, 4.0, 35.0)),
                              ("matmul_tiled", (0.0, 0.4, 1.2, 12.0))):
        for strategy, pct in zip(("none", "per_block", "per_warp", "per_thread"), overheads):
            t = 1e-3 * (1 + pct / 100)
            out.append(entry(f"progress/cuda/target:{target}/strategy:{strategy}/counter:device/n:{n}", t,
                             {"overhead_pct": pct, "distinct_updates": 1000 * (overheads.index(pct) + 1)}))
    return out


# Per-sample spread around a row's median (odd count, symmetric: the median is the time).
SAMPLE_SPREAD = (0.97, 0.98, 0.99, 0.995, 1.0, 1.005, 1.01, 1.02, 1.03)


def sampled(e: dict) -> dict:
    """The entry with the samples the suite's stopping rule took (samples_s, seconds)."""
    seconds = e["real_time"] * UNIT_SCALE[e["time_unit"]]
    return dict(e, samples_s=[seconds * f for f in SAMPLE_SPREAD])


def algorithm_workloads() -> list[dict]:
    """Impls of different algorithms in one workload (lucas: recursive and iterative; poisson:
    the article's and the table-driven fast one; black_scholes: a float64 serial reference
    beside float32 serial_fp32, omp and cuda), every row with samples_s."""
    out = []
    gpu = gpu_counters(256, 1.0) | {"grid_blocks": 1024}
    # lucas: one thread's work; the recursive versions only up to n=30 (exponential).
    for n in (20, 30, 90):
        items = dict(items=1)
        if n <= 30:
            t_rec = 1e-6 * 1.6 ** (n - 20)
            out.append(entry(f"lucas/serial_recursive/n:{n}", 30 * t_rec, suffix="/real_time",
                             **items))
            out.append(entry(f"lucas/omp_recursive/n:{n}/threads:16", 8 * t_rec,
                             {"threads": 16}, suffix="/real_time", **items))
            out.append(entry(f"lucas/cuda_recursive/n:{n}/block:64/mode:kernel", 2 * t_rec,
                             gpu_counters(64, 0.1) | {"grid_blocks": 1}, **items))
        out.append(entry(f"lucas/serial_iterative/n:{n}", 10e-9 * n / 20, suffix="/real_time",
                         **items))
        out.append(entry(f"lucas/cuda_iterative/n:{n}/block:64/mode:kernel", 3e-6,
                         gpu_counters(64, 0.1) | {"grid_blocks": 1}, **items))
        out.append(entry(f"lucas/cuda_iterative/n:{n}/block:64/mode:e2e", 15e-6,
                         gpu_counters(64, 0.1) | {"grid_blocks": 1}, **items))
    # poisson: 4 B written per sample; the article's version is 100x slower on both sides.
    for n in (10_000_000, 100_000_000):
        work = dict(bytes_per_iter=4.0 * n, read_share=0.0, items=n)
        scale = n / 10_000_000
        out.append(entry(f"poisson/serial/n:{n}", 40e-3 * scale, suffix="/real_time", **work))
        out.append(entry(f"poisson/omp/n:{n}/threads:16", 4e-3 * scale, {"threads": 16},
                         suffix="/real_time", **work))
        out.append(entry(f"poisson/serial_article/n:{n}", 4.0 * scale, suffix="/real_time",
                         **work))
        out.append(entry(f"poisson/omp_article/n:{n}/threads:16", 0.4 * scale, {"threads": 16},
                         suffix="/real_time", **work))
        for impl, t in (("cuda", 20e-6), ("cuda_curand", 400e-6), ("cuda_article", 2e-3)):
            out.append(entry(f"poisson/{impl}/n:{n}/block:256/mode:kernel", t * scale, gpu,
                             **work))
            out.append(entry(f"poisson/{impl}/n:{n}/block:256/mode:e2e", t * scale + 4e-3 * scale,
                             gpu, **work))
    n = 10_000_000
    work = dict(bytes_per_iter=20.0 * n, flop_per_iter=100.0 * n, read_share=0.6, items=n)
    out += [entry(f"black_scholes/serial/n:{n}", 1.0, suffix="/real_time", **work),
            entry(f"black_scholes/serial_fp32/n:{n}", 0.75, suffix="/real_time", **work),
            entry(f"black_scholes/omp/n:{n}/threads:16", 60e-3, {"threads": 16},
                  suffix="/real_time", **work),
            entry(f"black_scholes/cuda/n:{n}/block:256/mode:kernel", 50e-6, gpu, **work),
            entry(f"black_scholes/cuda_naive/n:{n}/block:256/mode:kernel", 80e-6, gpu, **work),
            entry(f"black_scholes/cuda/n:{n}/block:256/mode:e2e", 3.7e-3, gpu, **work)]
    return [sampled(e) for e in out]


# ----------------------------------------------------------------- the CPU side at its limit

# Context of a run with run-time ISA dispatch (common/cpu_isa.hpp, common/cpu_pinning.cpp) and
# the tensor / matrix-unit roofs.
CPU_SIDE_CONTEXT = {
    "cpu_isa_host": "avx512", "cpu_isa_active": "avx512",
    "cpu_isa_features": "avx512fp16 avx512bf16 avx512vnni amx",
    "cpu_dispatch": "GCC function multiversioning (target x86-64-v4 with 512-bit vectors, "
                    "x86-64-v3, x86-64), chosen at run time; vector math: glibc libmvec",
    "cpu_pinning": "OMP_PROC_BIND=spread OMP_PLACES=cores (set by twinbench)",
    "cpu_roof_bf16_flops": "6.4e12", "cpu_roof_bf16_isa": "amx",
}
GPU_TENSOR_ROOFS = {"gpu_roof_tf32_flops": "400e12", "gpu_roof_bf16_flops": "800e12",
                    "gpu_roof_fp16_tensor_flops": "800e12"}


def _fields(isa: str = "", precision: str = "") -> dict:
    """The text fields twinbench writes into a row (common/row_fields.hpp)."""
    return {k: v for k, v in (("cpu_isa", isa), ("precision", precision)) if v}


def cpu_side(with_gpu: bool) -> list[dict]:
    """sgemm n:4096 with the CPU libraries (openblas, onednn_bf16 on AMX) and the GPU's FP32,
    TF32 and BF16 rows; a streaming kernel whose CPU row is far from its ceiling (the fairness
    flag); sync's plain call beside an OpenMP fork-join."""
    n = 4096
    flop, nbytes = 2.0 * n**3, 12.0 * n * n
    work = dict(bytes_per_iter=nbytes, flop_per_iter=flop, read_share=2 / 3, items=n * n)
    cpu = {"threads": 16, "max_rel_err": 1e-6}
    out = [
        # 137 s would be serial at 1 GFLOP/s: only the omp and library rows run at 4096.
        entry(f"sgemm/omp/n:{n}/threads:16", flop / 160e9, cpu | _fields("avx512"), **work,
              suffix="/real_time"),
        entry(f"sgemm/openblas/n:{n}/threads:16", flop / 1.28e12,
              cpu | _fields("openblas SkylakeX", "fp32"), **work, suffix="/real_time"),
        entry(f"sgemm/onednn_bf16/n:{n}/threads:16", flop / 4.8e12,
              cpu | _fields("brg:avx512_core_amx_bf16", "bf16"), **work, suffix="/real_time"),
    ]
    if with_gpu:
        gpu = gpu_counters("16x16", 1.0, regs=64) | {"max_rel_err": 1e-6}
        out += [
            entry(f"sgemm/cuda_tiled/n:{n}/block:16x16/mode:kernel", flop / 20e12, gpu, **work),
            entry(f"sgemm/cublas/n:{n}/mode:kernel", flop / 50e12, {"max_rel_err": 1e-6},
                  **work),
            entry(f"sgemm/cublas_tf32/n:{n}/mode:kernel", flop / 320e12,
                  {"max_rel_err": 1e-3} | _fields(precision="tf32"), **work),
            entry(f"sgemm/cublas_bf16/n:{n}/mode:kernel", flop / 640e12,
                  {"max_rel_err": 4e-3} | _fields(precision="bf16"), **work),
        ]
    # stream: 16 B per element, read 3/4; the OpenMP row at 10 % of its ceiling, the GPU at 90 %.
    m = 268435456
    sbytes = 16.0 * m
    swork = dict(bytes_per_iter=sbytes, flop_per_iter=2.0 * m, read_share=0.75, items=m)
    out += [entry(f"stream/serial/n:{m}", sbytes / 8e9, {"max_rel_err": 0.0} | _fields("avx512"),
                  **swork, suffix="/real_time"),
            entry(f"stream/omp/n:{m}/threads:16", sbytes / 20e9,
                  {"threads": 16, "max_rel_err": 0.0} | _fields("avx512"), **swork,
                  suffix="/real_time")]
    if with_gpu:
        out.append(entry(f"stream/cuda/n:{m}/block:256/mode:kernel", sbytes / 3.9e12,
                         gpu_counters(256, 1.0), **swork))
    out += [entry("sync/serial_call/launches:1000", 3e-6, _fields("avx512"), suffix="/real_time"),
            entry("sync/omp_fork_join/launches:1000/threads:16", 4e-3,
                  {"threads": 16} | _fields("avx512"), suffix="/real_time")]
    if with_gpu:
        out.append(entry("sync/cuda_graph/launches:1000", 1e-3, {}))
    return [sampled(e) for e in out]


def cpu_side_busy(rows: list[dict]) -> list[dict]:
    """Every CPU row measured while the host was busy (a shared 2-core machine); the OpenMP
    rows held to the insane all-thread ceilings below (dot reads at 137 % of "read")."""
    busy = {"host_busy": 1, "host_load1_before": 3.5}
    out = []
    for e in rows:
        e = e | busy if "host_busy" in e else e
        pattern = PATTERNS[e["ceiling_pattern"]] if "ceiling_pattern" in e else None
        key = f"cpu_bw_{pattern}_all_bytes_per_s"
        if _side(e["name"]) == "omp" and key in INSANE_CPU_CEILINGS:
            ceiling = float(INSANE_CPU_CEILINGS[key])
            e = e | {"ceiling_bytes_per_s": ceiling,
                     "pct_ceiling": 100.0 * e["bytes_per_second"] / ceiling}
        out.append(e)
    return out


# A busy machine measured its all-thread ceilings below the one-thread ones: impossible when
# idle, so every % of them is suspect (issue 28: "137 % of read" on 2 GiB arrays).
INSANE_CPU_CEILINGS = {"cpu_bw_read_all_bytes_per_s": "78e9", "cpu_bw_read_one_bytes_per_s": "90e9",
                       "cpu_bw_add_all_bytes_per_s": "60e9", "cpu_bw_add_one_bytes_per_s": "70e9"}


def write(name: str, context: dict, benchmarks: list[dict]) -> Path:
    path = HERE / name
    path.write_text(json.dumps({"context": context, "benchmarks": benchmarks}, indent=2) + "\n")
    return path


def main() -> None:
    gpu = (vector_add(True) + dot(True) + matmul(True) + grayscale(True)
           + transfers() + streams() + progress())
    write("gpu_run.json", _context(True), gpu)

    write("algorithms_run.json",
          _context(True, {"sample": "synthetic, for tests (algorithms, samples)"}),
          algorithm_workloads())

    with style(cpu_energy=False):
        cpu = vector_add(False) + dot(False) + matmul(False) + grayscale(False)
        write("cpu_only_run.json", _context(False), cpu)

    with style(old=True):
        old = vector_add(True) + dot(True) + matmul(True) + grayscale(True)
        write("old_format_run.json",
              _context(True, {"sample": "synthetic, for tests (layout before per-pattern "
                                        "ceilings)"}), old)

    errors = vector_add(True)[:6] + [
        entry("vector_add/cuda/n:268435456/block:2048/mode:kernel", 1e-3,
              error="invalid configuration: block 2048 exceeds 1024 threads"),
        entry("dot/cuda/n:4294967296/block:256/mode:e2e", 1e-3,
              error="CUDA error: out of memory (cudaMalloc 34359738368 bytes)"),
        entry("dot/omp/n:1048576/threads:16", 1e-3, suffix="/real_time",
              error="validation failed: max_rel_err 0.31 > 1e-5"),
    ]
    write("errors_run.json", _context(True, {"sample": "synthetic, for tests (errors)"}), errors)

    write("cpu_side_run.json",
          _context(True, {"sample": "synthetic, for tests (CPU libraries, precisions, ISA)",
                          **CPU_SIDE_CONTEXT, **GPU_TENSOR_ROOFS}),
          cpu_side(True))
    with style(cpu_energy=False):
        # The context of a build without CUDA may still name the cache mode it was given.
        write("cpu_side_cpu_only_run.json",
              _context(False, {"sample": "synthetic, for tests (CPU only, busy, odd ceilings)",
                               **CPU_SIDE_CONTEXT, **INSANE_CPU_CEILINGS,
                               "gpu_cache_mode": "cold", "numba_peers": "ran",
                               "run_wall_s": "300", "numba_peers_wall_s": "120"}),
              cpu_side_busy(cpu_side(False) + vector_add(False) + dot(False)))

    # A run killed mid-write: the text simply stops inside an entry.
    text = (HERE / "errors_run.json").read_text()
    cut = text.index('"name": "dot/cuda/')
    (HERE / "partial_run.json").write_text(text[:cut])


if __name__ == "__main__":
    main()
