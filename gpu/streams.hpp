#pragma once
// The compute stage of the streams pipeline (host-callable; the kernel lives in streams.cu).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_stats.hpp"

namespace tb::gpu {

// out[i] = `fma` chained fmaf(x, a, b) starting from x = in[i], for i in [0, n). Grid-stride,
// grid sized to fill the GPU once (or less for a small chunk).
void streams_compute(const float* in, float* out, std::size_t n, int fma, float a, float b,
                     int block, cudaStream_t stream);
KernelStats streams_compute_stats(std::size_t n, int block);

// Elements per chunk when n is cut into `chunks` pieces (the last may be shorter or empty).
std::size_t streams_chunk_len(std::size_t n, int chunks);

// Buffers and streams of the chunked pipeline. streams[0] is the one the caller times and waits
// on: the other streams start after what streams[0] has enqueued so far (the `fork` event) and
// streams[0] waits for them at the end (`joins[i]`, i >= 1), so events on streams[0] bracket the
// whole pipeline. h_in and h_out should be pinned, or the copies do not overlap anything.
struct PipelineBuffers {
  const float* h_in;
  float* h_out;
  float* d_in;
  float* d_out;
  std::size_t n;
};
struct PipelineStreams {
  const cudaStream_t* streams;  // nstreams of them
  int nstreams;
  cudaEvent_t fork;
  const cudaEvent_t* joins;  // nstreams of them; joins[0] is unused
};

// Chunk c (of `chunks`) goes to streams[c % nstreams]: copy in, compute, copy out.
void streams_pipeline(const PipelineBuffers& buf, const PipelineStreams& ps, int chunks, int fma,
                      float a, float b, int block);

}  // namespace tb::gpu
