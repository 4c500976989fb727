// A 3x3 box blur of a W x H float32 image (row-major), edges clamped: the CPU versions and the
// CUDA launcher, with no twinbench in them (bench.cpp declares them to twinbench).
#pragma once
#include <twinbench/kernel_stats.hpp>

struct CUstream_st;

namespace blur {

void serial(const float* in, float* out, int w, int h);
void omp(const float* in, float* out, int w, int h);
// One thread a pixel, in blocks of bx x by threads.
void cuda(const float* in, float* out, int w, int h, int bx, int by, CUstream_st* stream);
twinbench::KernelStats cuda_stats(int w, int h, int bx, int by);

}  // namespace blur
