// The sum of the squares of n float32 values, accumulated in float64: the CPU versions and the
// CUDA launcher, with no twinbench in them (bench.cpp declares them to twinbench).
#pragma once
#include <cstddef>

#include <twinbench/kernel_stats.hpp>

struct CUstream_st;

namespace sum_squares {

double serial(const float* x, std::size_t n);
double omp(const float* x, std::size_t n);
// Each block sums its share and adds it to *sum (which it zeroes first) with one atomic.
void cuda(const float* x, std::size_t n, double* sum, int block, CUstream_st* stream);
twinbench::KernelStats cuda_stats(std::size_t n, int block);

}  // namespace sum_squares
