"""Writes tests/python/data/ncu_raw_h200.csv: an Nsight Compute raw page as
`ncu --import R --csv --page raw --print-units base` prints it (ncu 2025.3: a header of the
launch columns, the NVTX push/pop stack and the start/end ranges, then one column per metric of
the sections gpu-profile.sh asks for; a units row; one row per profiled kernel), with figures
shaped like the H200's kernels: vector_add at 93 % of DRAM and its article's twin with twice the
sectors per request, cuBLAS on the FMA pipe, a naive SGEMM on L1, Lucas' single block, a
register-limited Poisson kernel, a three-kernel Thrust scan, a kernel outside any tb[] range (a
validation run) and one of a row the run does not hold.
    python3 tests/python/data/ncu_make_raw_csv.py > tests/python/data/ncu_raw_h200.csv
(the ==PROF== lines on top of the stored file were added by hand: ncu prints such lines.)"""
import csv, sys
META = ["ID","Process ID","Process Name","Host Name",
        "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
        "Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
        "Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC"]
M = [("dram__bytes.sum.per_second","byte/second"),
     ("dram__throughput.avg.pct_of_peak_sustained_elapsed","%"),
     ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","%"),
     ("gpu__time_duration.sum","nsecond"),
     ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","request"),
     ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum","request"),
     ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector"),
     ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum","sector"),
     ("l1tex__throughput.avg.pct_of_peak_sustained_active","%"),
     ("launch__block_size",""),
     ("launch__grid_size",""),
     ("launch__occupancy_limit_blocks","block"),
     ("launch__occupancy_limit_registers","block"),
     ("launch__occupancy_limit_shared_mem","block"),
     ("launch__occupancy_limit_warps","block"),
     ("launch__registers_per_thread","register/thread"),
     ("launch__waves_per_multiprocessor",""),
     ("lts__throughput.avg.pct_of_peak_sustained_elapsed","%"),
     ("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active","%"),
     ("sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active","%"),
     ("sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active","%"),
     ("sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active","%"),
     ("sm__maximum_warps_per_active_cycle_pct","%"),
     ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active","%"),
     ("sm__throughput.avg.pct_of_peak_sustained_elapsed","%"),
     ("sm__warps_active.avg.pct_of_peak_sustained_active","%"),
     ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio","inst"),
     ("smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio","inst"),
     ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","inst"),
     ("smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio","inst"),
     ("smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio","inst"),
     ("smsp__average_warps_issue_stalled_selected_per_issue_active.ratio","inst"),
     ("smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio","inst"),
     ("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio","inst")]
names=[m for m,_ in M]
def nvtx(row):
    if row is None: return '4711  "<default domain>:validate:none:none:none:none:none:none"'
    return f'4711  "<default domain>:tb[{row}]:none:none:none:none:none:none"'
# row, kernel, block, grid, values dict (short keys)
def k(row, kernel, block, grid, dur_ns, dram, mem, sm, l1, l2, ach, theo, regs, lim, waves,
      ld=(0,0), st=(0,0), fma=0, fp64=0, lsu=0, xu=0, tensor=0, stalls=None, dram_bps=None):
    lim_b, lim_r, lim_s, lim_w = lim
    st_ = dict(barrier=0.1, lg_throttle=0.2, long_scoreboard=1.0, math_pipe_throttle=0.1,
               mio_throttle=0.1, selected=1.0, short_scoreboard=0.2, wait=0.5)
    st_.update(stalls or {})
    v = {"dram__bytes.sum.per_second": dram_bps if dram_bps is not None else dram/100*4.8e12,
         "dram__throughput.avg.pct_of_peak_sustained_elapsed": dram,
         "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": mem,
         "gpu__time_duration.sum": dur_ns,
         "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": ld[1],
         "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": st[1],
         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": ld[0],
         "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": st[0],
         "l1tex__throughput.avg.pct_of_peak_sustained_active": l1,
         "launch__block_size": block, "launch__grid_size": grid,
         "launch__occupancy_limit_blocks": lim_b, "launch__occupancy_limit_registers": lim_r,
         "launch__occupancy_limit_shared_mem": lim_s, "launch__occupancy_limit_warps": lim_w,
         "launch__registers_per_thread": regs, "launch__waves_per_multiprocessor": waves,
         "lts__throughput.avg.pct_of_peak_sustained_elapsed": l2,
         "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active": fma,
         "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active": fp64,
         "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active": lsu,
         "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active": xu,
         "sm__maximum_warps_per_active_cycle_pct": theo,
         "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": tensor,
         "sm__throughput.avg.pct_of_peak_sustained_elapsed": sm,
         "sm__warps_active.avg.pct_of_peak_sustained_active": ach}
    for r, val in st_.items():
        v[f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio"] = val
    return row, kernel, block, grid, v
VA="vector_add/cuda/n:268435456/block:256/mode:kernel"
VAA="vector_add/cuda_article/n:268435456/block:256/mode:kernel"
K=[
 # a kernel of a validation run: outside any tb[] range, must be ignored
 k(None, "vector_add_kernel(const float *, const float *, float *, unsigned long)", 256, 1048576, 760000, 91, 91, 14, 30, 45, 88, 100, 16, (32,8,8,8), 248.24),
 k(VA, "vector_add_kernel(const float *, const float *, float *, unsigned long)", 256, 1048576, 742112, 92.6, 92.6, 14.2, 31.0, 46.3, 87.9, 100, 16, (32,8,8,8), 248.24,
   ld=(67108864,16777216), st=(33554432,8388608), fma=3.1, lsu=9.0, stalls=dict(long_scoreboard=9.7, lg_throttle=1.1)),
 k(VAA, "vector_add_article(float *, float *, float *, int)", 256, 1048576, 951000, 73.8, 73.8, 11.0, 24.1, 37.4, 61.2, 100, 16, (32,8,8,8), 248.24,
   ld=(134217728,16777216), st=(67108864,8388608), fma=2.5, lsu=7.1, stalls=dict(long_scoreboard=12.3, lg_throttle=3.0)),
 k("sgemm/cublas/n:4096/mode:kernel", "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", 384, 264, 2710000, 6.2, 41.0, 84.7, 41.0, 22.0, 18.6, 18.75, 168, (1,1,2,5), 1.0,
   fma=83.9, lsu=4.0, stalls=dict(math_pipe_throttle=2.1, long_scoreboard=0.2, wait=0.8)),
 k("sgemm/cuda_naive/n:4096/block:32x32/mode:kernel", "sgemm_naive(int, int, int, float, const float *, const float *, float, float *)", 1024, 16384, 22800000, 3.5, 96.4, 48.1, 96.4, 21.0, 98.1, 100, 38, (2,2,32,2), 62.06,
   ld=(4294967296,2147483648), fma=24.0, lsu=48.0, stalls=dict(mio_throttle=3.0, lg_throttle=6.1, long_scoreboard=2.2)),
 k("lucas/cuda_iterative/n:90/block:64/mode:kernel", "lucas_iterative(int, unsigned long *)", 64, 1, 3390, 0.01, 0.4, 0.1, 0.3, 0.4, 3.1, 100, 18, (32,42,32,32), 0.00024,
   stalls=dict(long_scoreboard=2.0, wait=6.0)),
 k("poisson/cuda/n:100000000/block:1024/mode:kernel", "poisson_kernel(unsigned long, float, float *, unsigned long long)", 1024, 97657, 156000, 52.0, 55.0, 41.0, 20.0, 50.0, 30.9, 37.5, 40, (2,1,32,2), 5.55,
   fma=22.0, xu=31.0, stalls=dict(long_scoreboard=0.5, short_scoreboard=2.1)),
 k("conv2d/cuda_tiled/image:3840x2160/filter:7/block:16x16/mode:kernel", "conv2d_tiled(const float *, float *, int, int, int)", 256, 32400, 27400, 40.2, 52.0, 47.0, 52.0, 33.0, 81.0, 100, 32, (32,8,6,8), 30.68,
   ld=(9400000,2350000), fma=40.0, stalls=dict(long_scoreboard=3.6, barrier=1.2)),
 k("conv2d/cuda_naive/image:3840x2160/filter:7/block:16x16/mode:kernel", "conv2d_naive(const float *, const float *, float *, int, int, int)", 256, 32400, 244000, 5.0, 88.9, 61.0, 88.9, 13.0, 92.0, 100, 30, (32,8,32,8), 30.68,
   ld=(61000000,15500000), fma=33.0, stalls=dict(lg_throttle=4.4, long_scoreboard=1.1)),
 # scan: three kernels in one row (the harness' window holds the whole scan)
 k("scan/thrust/dtype:int32/n:268435456", "DeviceScanInitKernel", 128, 2, 2000, 0.1, 0.2, 0.1, 0.1, 0.1, 2.0, 100, 14, (32,32,32,16), 0.01),
 k("scan/thrust/dtype:int32/n:268435456", "DeviceScanKernel", 128, 524288, 676000, 78.9, 78.9, 30.0, 44.0, 51.0, 70.0, 75, 56, (32,6,9,16), 496.0,
   ld=(33554432,8388608), st=(33554432,8388608), stalls=dict(long_scoreboard=5.0)),
 k("scan/thrust/dtype:int32/n:268435456", "DeviceScanFixupKernel", 128, 2, 2000, 0.1, 0.2, 0.1, 0.1, 0.1, 2.0, 100, 14, (32,32,32,16), 0.01),
 # a row the run does not hold (a renamed benchmark): reported, not merged
 k("vector_add/cuda_gone/n:268435456/block:256/mode:kernel", "vector_add_kernel(const float *, const float *, float *, unsigned long)", 256, 1048576, 742112, 92.0, 92.0, 14.0, 31.0, 46.0, 88.0, 100, 16, (32,8,8,8), 248.24),
]
w = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n")
w.writerow(META + names)
w.writerow([""] * len(META) + [u for _, u in M])
for i, (row, kernel, block, grid, v) in enumerate(K):
    vals = []
    for n in names:
        x = v[n]
        if n == "dram__bytes.sum.per_second":
            vals.append(f"{x:,.0f}")   # ncu writes big numbers with thousands separators
        elif isinstance(x, float):
            vals.append(f"{x:.6g}")
        else:
            vals.append(str(x))
    w.writerow([str(i), "4711", "twinbench", "127.0.0.1", nvtx(row), "", kernel, "1", "7",
                f"({block}, 1, 1)", f"({grid}, 1, 1)", "0", "9.0"] + vals)
