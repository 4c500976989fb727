// histogram: 256 bins of n int32 keys. Reads 4 B a key and writes the bins; exact counts.
#include <twinbench/twinbench.hpp>

#include "histogram.hpp"

twinbench::Work work(std::size_t n) {
  return {.read_bytes = 4.0 * n, .written_bytes = 4.0 * histogram::kBins, .items = 1.0 * n};
}

const twinbench::Workload<std::uint32_t(std::int32_t)> kHistogram{
    .name = "histogram",
    .summary = "256-bin histogram of int32 keys: atomics in shared memory on the GPU",
    .sizes = {1 << 20, 1 << 26},
    .quick_size = 1 << 16,
    .work = work,
    .tolerance = {0.0},  // counts are exact
    .reference = histogram::serial,
    .cpu = {{"serial", histogram::serial}, {"omp", histogram::omp, /*threaded=*/true}},
#if TWINBENCH_HAVE_CUDA
    .gpu = {{"cuda_shared", histogram::cuda_shared, histogram::cuda_shared_stats}},
#endif
    .input_range = {0, histogram::kBins},
    .output_size = [](std::size_t) { return histogram::kBins; },
};
TWINBENCH_REGISTER(kHistogram);
