#pragma once
// Cold caches for GPU samples (nvbench's l2flush): before each timed sample of a kernel row, a
// pass over a buffer twice the device's L2 (cudaDeviceProp::l2CacheSize, never a constant)
// evicts the previous sample's data, outside the timed region. Without it a 33.6 MB copy on
// the H200 (60 MiB L2) ran at 4315 GB/s warm, above the HBM copy ceiling, against 2675 GB/s
// after a flush: the n = 1M rows of vector_add, dot and scan were L2 rows. Twice the size
// because the H100/H200 L2 is two partitions and a line may be held in both.
// The pass reads (gpu/l2_flush.cu) rather than memsets, as nvbench does: a memset leaves the
// L2 full of dirty lines, and the timed kernel then pays for writing them back. On the H200 that
// held the read-stream ceiling 4% under the dot kernel, whose evict-first loads (__ldcs) spared
// the dirty lines; a read leaves clean lines, the same for every kernel.
#include <cstddef>
#if TWINBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace tb {

// --warm turns the flush off: hot caches, what a pipeline reusing its data sees.
void set_cold_caches(bool cold);
bool cold_caches();

// The device's L2 and the flush buffer's size (0 without a GPU).
std::size_t l2_cache_bytes();
std::size_t l2_flush_bytes();

#if TWINBENCH_HAVE_CUDA
// Enqueues the flush on `stream` (the buffer is allocated on first use and kept). Defined in
// gpu/l2_flush.cu.
void flush_l2(cudaStream_t stream);
#endif

}  // namespace tb
