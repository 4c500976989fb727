// A 256-bin histogram of n keys: the CPU variants and the CUDA launcher, with no twinbench in
// them (bench.cpp declares them to twinbench).
#pragma once
#include <cstddef>
#include <cstdint>

#include <twinbench/kernel_stats.hpp>

struct CUstream_st;

namespace histogram {

constexpr std::size_t kBins = 256;

void serial(const std::int32_t* keys, std::uint32_t* bins, std::size_t n);
void omp(const std::int32_t* keys, std::uint32_t* bins, std::size_t n);
// Per-block counts in shared memory (atomics there), added to the global bins at the end.
void cuda_shared(const std::int32_t* keys, std::uint32_t* bins, std::size_t n, int block,
                 CUstream_st* stream);
twinbench::KernelStats cuda_shared_stats(std::size_t n, int block);

}  // namespace histogram
