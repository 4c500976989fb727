#pragma once
// Cold caches for CPU samples, as common/l2_flush.hpp gives the GPU's: before each timed sample of
// a CPU row (unless --warm), every OpenMP thread reads its share of a buffer larger than the
// CPU's caches, so that the sample finds none of its data in L2 or L3.
//
// Why: the GPU rows are timed after an L2 flush (nvbench's measure_cold), and the CPU rows were
// not. The H200 host's L3 is 300 MiB (and 2 MiB of L2 a core), so a CPU row whose data fit there
// (grayscale 4K, conv2d 3x3, the 64M fp16 and int8 axpy, every 1M row) ran from cache while its
// GPU peer ran from memory: at 166% to 572% of the CPU's memory ceiling in
// results/nvidia-h200/2026-12-02. A cold CPU sample is the like-for-like one.
// The pass reads (it leaves clean lines, whose eviction costs the next sample nothing) one word
// per 64-byte line (enough to bring each line in) of 1.5x the L3 and all L2s together.
// One pass over such a buffer is not enough on these Xeons: their L3 replacement resists scans
// (a line read once is inserted as unlikely to be reused, so a stream evicts its own lines before
// the kernel's, which the kernel reuses every sample). On the H200 host, after one pass, a 1M
// vector_add (12.6 MB) still ran at 323 GB/s and conv2d 3x3 at 127% of the memory ceiling
// (a bundle's cpu.json, not kept in the tree). Reading the buffer in 8 MiB chunks, each twice,
// makes the flush's lines reused lines too. Which method evicts is measured at start
// (choose_cpu_flush_method: a probe read warm, after each method, and after clflush of its own
// lines), used, and written in the context's cpu_cache_flush. On the H200 host
// (results/nvidia-h200/2026-12-02b) the probe read in 39 us warm, 317 us cold, 169 us after one
// pass and 154 us after the chunked reads: neither method evicts everything (the L3 there is
// shared with the host's other tenants and its policy is not documented), so rows whose data
// fit the L3 still read above the memory ceiling. So after the pass every live HostArray (common/host_array.hpp registers
// them: the rows' inputs, outputs and references) is evicted line by line with clflush, while
// they hold at most twice the caches: the cold reference of the check, applied to the row's own
// data (no run in results/ has measured this pass on the H200).
#include <cstddef>
#include <string>

namespace tb {

// The caches' total (L3 + L2 x cores) from sysconf; 0 when the C library does not say.
std::size_t cpu_cache_bytes();
// The flush buffer's size: 1.5x cpu_cache_bytes(), or 64 MiB when the caches' size is unknown.
std::size_t cpu_flush_bytes();

enum class FlushMethod { one_pass, chunks_twice };

// Reads the flush buffer with all OpenMP threads (allocates and first-touches it on first use).
void flush_cpu_caches();

// Evicts [p, p + bytes) from every cache level line by line with all OpenMP threads, writing back
// its dirty lines (clflush; dc civac on aarch64): what a cold sample's flush ends with for the
// row's own arrays. False where the CPU has no such instruction (nothing done).
bool evict_from_caches(const void* p, std::size_t bytes);

// Measures which method leaves a probe buffer the coldest and uses it from then on (at start,
// before the ceilings; ~0.3 s on the H200 host).
FlushMethod choose_cpu_flush_method();

// Frees the buffer (called when a workload's memory is released: the rows that need it are the
// small ones, and the large ones should not carry it in their peak memory).
void release_cpu_flush_buffer();

// For the run context: the buffer's size and the last pass's time, or why there is none.
std::string cpu_cache_flush_description();

}  // namespace tb
